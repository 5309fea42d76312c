package sqlexec_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/uptrace/bun"
	"modernc.org/sqlite"

	"github.com/collectionkit/kit/internal/sqlexec"
	"github.com/collectionkit/kit/internal/testdb"
)

// cancels holds the cancel functions that kit_test_cancel(key, x) calls,
// by key; registerCancel registers the function with the driver once.
var (
	cancels        sync.Map // int64 -> context.CancelFunc
	registerCancel = sync.OnceFunc(func() {
		sqlite.MustRegisterScalarFunction("kit_test_cancel", 2, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
			if args[1].(int64) == 1 {
				if cancel, ok := cancels.Load(args[0].(int64)); ok {
					cancel.(context.CancelFunc)()
				}
			}
			return int64(1), nil
		})
	})
	cancelKey atomic.Int64 // the last key cancelInside handed out
)

// cancelInside returns a context that the statement countRows(n) ends
// while it runs, at its first row, and the key that statement names.
func cancelInside(t *testing.T, ctx context.Context) (context.Context, int64) {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	key := cancelKey.Add(1)
	cancels.Store(key, cancel)
	t.Cleanup(func() { cancels.Delete(key) })
	return ctx, key
}

// countRows counts to ? (the second argument) in one statement, calling
// kit_test_cancel(?, x) on every row (the first argument is its key): the
// statement's whole work happens in its first step.
const countRows = `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ?) SELECT count(*) FROM c WHERE kit_test_cancel(?, x) = 1`

// sqliteDB opens a SQLite database private to t (kit's pool of 8
// connections) with the table t(n) holding one row; its connections have
// kit_test_cancel.
func sqliteDB(t *testing.T) *bun.DB {
	t.Helper()
	registerCancel() // before the connections open: they take it when they do
	db := testdb.SQLite(t)
	if _, err := db.ExecContext(t.Context(), `CREATE TABLE t (n INTEGER); INSERT INTO t VALUES (0)`); err != nil {
		t.Fatal(err)
	}
	return db
}

// TestBoundedSQLiteStatementsStartNoGoroutineToWatchTheirContext opens
// eight queries marked Bounded at once on SQLite, each with a context that
// can end, and checks that they did not start the goroutine per statement
// that database/sql keeps while a query's rows are open.
func TestBoundedSQLiteStatementsStartNoGoroutineToWatchTheirContext(t *testing.T) {
	db := sqliteDB(t)
	r := sqlexec.New(db)
	t.Cleanup(func() { r.Close() })
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ctx = sqlexec.Bounded(ctx)
	open := func() []*sql.Rows {
		var rows []*sql.Rows
		for range 8 {
			rs, err := r.Query(ctx, db, "SELECT n FROM t")
			if err != nil {
				t.Fatal(err)
			}
			rows = append(rows, rs)
		}
		return rows
	}
	// Open the pool's connections first, so that the count below sees
	// only what the queries start.
	for _, rs := range open() {
		rs.Close()
	}
	before := runtime.NumGoroutine()
	rows := open()
	during := runtime.NumGoroutine()
	for _, rs := range rows {
		rs.Close()
	}
	if grew := during - before; grew >= len(rows) {
		t.Errorf("eight open bounded queries started %d goroutines, want fewer than 8 (none watches a statement's context)", grew)
	}
}

// TestASQLiteStatementStopsWhenItsContextEndsUnlessItIsBounded ends a
// statement's context while the statement runs (from inside it, at its
// first row): a plain statement stops with the context's error, one marked
// Bounded finishes with its result.
func TestASQLiteStatementStopsWhenItsContextEndsUnlessItIsBounded(t *testing.T) {
	db := sqliteDB(t)
	r := sqlexec.New(db)
	t.Cleanup(func() { r.Close() })
	// A tenth of a second or so (seconds under the race detector): long
	// enough for the driver's watcher to interrupt it many times over,
	// even on one core, where it waits for the scheduler to preempt the
	// statement (every 10 ms).
	const n = 300_000
	tests := []struct {
		name    string
		bounded bool
	}{
		{"a statement whose context ends while it runs stops with the context's error", false},
		{"a bounded statement whose context ends while it runs finishes with its result", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, key := cancelInside(t, t.Context())
			if tt.bounded {
				ctx = sqlexec.Bounded(ctx)
			}
			var got int
			err := r.QueryRow(ctx, db, countRows, n, key).Scan(&got)
			if ctx.Err() == nil {
				t.Fatal("the statement did not end its context")
			}
			switch {
			case !tt.bounded && err == nil:
				t.Errorf("got %d rows and no error, want the statement interrupted", got)
			case !tt.bounded && !errors.Is(err, context.Canceled):
				t.Errorf("got %v, want context.Canceled", err)
			case tt.bounded && err != nil:
				t.Errorf("got %v, want the count", err)
			case tt.bounded && got != n:
				t.Errorf("got %d rows, want %d", got, n)
			}
		})
	}
}

// TestAStatementWhoseContextHasEndedFailsAtOnce runs each kind of
// statement with a context that has already ended, on both engines: it
// fails with context.Canceled and writes nothing.
func TestAStatementWhoseContextHasEndedFailsAtOnce(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		db := testdb.Open(t, e)
		if _, err := db.ExecContext(t.Context(), `CREATE TABLE t (n INTEGER)`); err != nil {
			t.Fatal(err)
		}
		r := sqlexec.New(db)
		t.Cleanup(func() { r.Close() })
		ended, cancel := context.WithCancel(t.Context())
		cancel()
		tests := []struct {
			name string
			run  func(ctx context.Context) error
		}{
			{"an insert", func(ctx context.Context) error {
				_, err := r.Exec(ctx, db, "INSERT INTO t (n) VALUES (?)", 1)
				return err
			}},
			{"a keyed insert", func(ctx context.Context) error {
				_, err := r.ExecKeyed(ctx, db, "INSERT INTO t (n) VALUES (?)", 2)
				return err
			}},
			{"an insert run once", func(ctx context.Context) error {
				_, err := r.ExecOnce(ctx, db, "INSERT INTO t (n) VALUES (?)", 3)
				return err
			}},
			{"a query", func(ctx context.Context) error {
				rows, err := r.Query(ctx, db, "INSERT INTO t (n) VALUES (?) RETURNING n", 4)
				if err == nil {
					rows.Close()
				}
				return err
			}},
			{"a one-row query", func(ctx context.Context) error {
				var n int
				return r.QueryRow(ctx, db, "INSERT INTO t (n) VALUES (?) RETURNING n", 5).Scan(&n)
			}},
		}
		for _, tt := range tests {
			for _, bounded := range []bool{false, true} {
				name, ctx := tt.name, ended
				if bounded {
					name, ctx = "a bounded "+strings.TrimPrefix(strings.TrimPrefix(tt.name, "an "), "a "), sqlexec.Bounded(ended)
				}
				t.Run(fmt.Sprintf("%s fails and writes nothing", name), func(t *testing.T) {
					if err := tt.run(ctx); !errors.Is(err, context.Canceled) {
						t.Errorf("got %v, want context.Canceled", err)
					}
					var rows int
					if err := db.QueryRowContext(t.Context(), "SELECT count(*) FROM t").Scan(&rows); err != nil {
						t.Fatal(err)
					}
					if rows != 0 {
						t.Errorf("got %d rows in t, want 0", rows)
					}
				})
			}
		}
	})
}

// TestAPostgreSQLStatementStopsWhenItsContextEndsEvenIfBounded ends the
// context of a statement that sleeps for a minute on the server, plain and
// marked Bounded: it fails instead of running to its end (Bounded changes
// nothing on PostgreSQL).
func TestAPostgreSQLStatementStopsWhenItsContextEndsEvenIfBounded(t *testing.T) {
	db := testdb.PostgresDB(t)
	r := sqlexec.New(db)
	t.Cleanup(func() { r.Close() })
	for _, bounded := range []bool{false, true} {
		name := "a statement stops when its context ends"
		if bounded {
			name = "a bounded statement stops when its context ends"
		}
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			if bounded {
				ctx = sqlexec.Bounded(ctx)
			}
			started := time.AfterFunc(200*time.Millisecond, cancel)
			defer started.Stop()
			var slept string
			if err := r.QueryRow(ctx, db, "SELECT pg_sleep(60)::text").Scan(&slept); err == nil {
				t.Errorf("got %q and no error, want the statement cancelled", slept)
			}
		})
	}
}
