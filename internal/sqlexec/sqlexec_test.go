package sqlexec

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	_ "modernc.org/sqlite"
)

// openRunner opens a SQLite file database private to t with a table t(n)
// holding one row, and a Runner on it.
func openRunner(t *testing.T) (*Runner, *bun.DB) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run.db")
	sqldb, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	db := bun.NewDB(sqldb, sqlitedialect.New())
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(`CREATE TABLE t (n INTEGER); INSERT INTO t VALUES (0)`); err != nil {
		t.Fatal(err)
	}
	r := New(db)
	t.Cleanup(func() { r.Close() })
	return r, db
}

// execInTx runs query with the argument 1 through r in a transaction of
// db, then waits until r prepared what it had to.
func execInTx(t *testing.T, r *Runner, db *bun.DB, query string) {
	t.Helper()
	err := db.RunInTx(t.Context(), nil, func(ctx context.Context, tx bun.Tx) error {
		_, err := r.Exec(ctx, tx, query, 1)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	waitPrepared(t, r)
}

// cached reports whether query is in r's statement cache.
func cached(r *Runner, query string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.stmts[query]
	return ok
}

// waitPrepared waits until no statement is being prepared for r's cache.
func waitPrepared(t *testing.T, r *Runner) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		r.mu.Lock()
		n := len(r.preparing)
		r.mu.Unlock()
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("statements still being prepared after 10s: %d", n)
		}
	}
}

// TestStatementsFirstRunInATransactionArePreparedForLater checks that a
// statement missing from the cache runs unprepared in a transaction that
// holds the write lock, without waiting for a second connection, and is
// in the cache for the next call, which runs it prepared.
func TestStatementsFirstRunInATransactionArePreparedForLater(t *testing.T) {
	r, db := openRunner(t)
	const update = `UPDATE t SET n = n + ?`
	for i, want := range []struct {
		name       string
		wantCached bool
	}{
		{"the first run, unprepared, leaves it being prepared", false},
		{"the second run finds it in the cache", true},
	} {
		t.Run(want.name, func(t *testing.T) {
			if got := cached(r, update); got != want.wantCached {
				t.Fatalf("cached before the run: got %v, want %v", got, want.wantCached)
			}
			execInTx(t, r, db, update)
			if !cached(r, update) {
				t.Errorf("cached after the run: got false, want true")
			}
			var n int
			if err := db.QueryRow(`SELECT n FROM t`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != i+1 {
				t.Errorf("n after run %d: got %d, want %d", i+1, n, i+1)
			}
		})
	}
	t.Run("a closed runner prepares nothing more", func(t *testing.T) {
		r.Close()
		const other = `UPDATE t SET n = n - ?`
		execInTx(t, r, db, other)
		if cached(r, other) {
			t.Errorf("cached after Close: got true, want false")
		}
	})
}

// TestListsExpandToOnePlaceholderPerValue runs a list argument written
// "?" and "+?" on SQLite and checks the statement the driver got and its
// answer: one placeholder per value, each with the "+" of the one
// written.
func TestListsExpandToOnePlaceholderPerValue(t *testing.T) {
	r, db := openRunner(t)
	if _, err := db.Exec(`INSERT INTO t VALUES (1), (2), (3)`); err != nil {
		t.Fatal(err)
	}
	h := &hookLog{}
	r.Hook = h
	tests := []struct {
		name, query, want string
	}{
		{"a list written ? expands to ? per value", `SELECT count(*) FROM t WHERE n IN (?)`, `SELECT count(*) FROM t WHERE n IN (?, ?, ?)`},
		{"a list written +? expands to +? per value", `SELECT count(*) FROM t WHERE n IN (+?)`, `SELECT count(*) FROM t WHERE n IN (+?, +?, +?)`},
		{"a list written +? after another argument keeps its own +", `SELECT count(*) FROM t WHERE n > +? AND n IN (+?)`, `SELECT count(*) FROM t WHERE n > +? AND n IN (+?, +?, +?)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h.before = nil
			args := []any{List{int64(1), int64(3), int64(7)}}
			if strings.Count(tt.query, "?") == 2 {
				args = append([]any{int64(0)}, args...)
			}
			var n int
			if err := r.QueryRow(t.Context(), db, tt.query, args...).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != 2 {
				t.Errorf("got %d rows, want 2 (1 and 3)", n)
			}
			if len(h.before) != 1 || h.before[0] != tt.want {
				t.Errorf("got statements %q, want [%q]", h.before, tt.want)
			}
		})
	}
}
