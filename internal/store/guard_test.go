package store_test

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/internal/store"
	"github.com/collectionkit/kit/internal/testdb"
)

// TestAGuardedWriteRunsOnlyWhileItsCounterHoldsTheWantedValue builds one
// SQLite group of writes, some under a WriteGuard on a counter that a
// write of the same group changes: each guarded write runs only when the
// counter, read in the group's transaction after the writes before it,
// still holds its guard's value; a refused one writes nothing and gets
// ErrWriteGuardRefused; a confirmed guard is not checked again.
func TestAGuardedWriteRunsOnlyWhileItsCounterHoldsTheWantedValue(t *testing.T) {
	s, db := writeStore(t, testdb.EngineSQLite)
	query := newCounter(t, db, 1)
	early := store.NewWriteGuard(store.QueryCounter(query), 1)
	missing := store.NewWriteGuard(store.QueryCounter(`SELECT v FROM counter WHERE id = 2`), 1)
	bump := func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE counter SET v = 2 WHERE id = 1`)
		return err
	}
	writes := []struct {
		name    string
		guard   *store.WriteGuard
		single  bool
		fn      func(ctx context.Context, tx bun.Tx) error
		refused bool
	}{
		{"a write wanting the counter's value runs", early, true, insertNote("a"), false},
		{"a write wanting another value is refused", store.NewWriteGuard(store.QueryCounter(query), 2), true, insertNote("b"), true},
		{"a write whose counter has no row is refused", missing, true, insertNote("c"), true},
		{"an unguarded write changes the counter", nil, false, bump, false},
		{"a write wanting the new value runs", store.NewWriteGuard(store.QueryCounter(query), 2), true, insertNote("d"), false},
		{"a write wanting the old value is refused", store.NewWriteGuard(store.QueryCounter(query), 1), true, insertNote("e"), true},
		{"a write under a confirmed guard is not checked again", early, true, insertNote("f"), false},
	}
	release := holdQueue(t, s)
	errs := make([]chan error, len(writes))
	for i, w := range writes {
		errs[i] = make(chan error, 1)
		wctx := context.Background()
		if w.guard != nil {
			wctx = store.WithWriteGuard(wctx, w.guard)
		}
		go func() { errs[i] <- s.RunWrite(wctx, store.Write{Single: w.single, Guard: store.GuardOf(wctx)}, w.fn) }()
		waitForQueue(t, s, i+1)
	}
	release()
	for i, w := range writes {
		err := <-errs[i]
		t.Run(w.name, func(t *testing.T) {
			if got := errors.Is(err, store.ErrWriteGuardRefused); got != w.refused {
				t.Errorf("refused: got %v (error %v), want %v", got, err, w.refused)
			}
			if !w.refused && err != nil {
				t.Errorf("error: got %v, want nil", err)
			}
		})
	}
	if got, want := notes(t, db), []string{"a", "d", "f"}; !slices.Equal(got, want) {
		t.Errorf("rows after the group: got %q, want %q", got, want)
	}
	if got, want := missing.State(), store.GuardRefused; got != want {
		t.Errorf("state of the guard without a row: got %v, want %v", got, want)
	}
	if got, want := early.State(), store.GuardConfirmed; got != want {
		t.Errorf("state of the confirmed guard: got %v, want %v", got, want)
	}
}

// TestAGuardIsCheckedInAPostgreSQLWritesTransaction: RunWrite there reads
// the guard's counter in the write's transaction, before fn, and runs fn
// only when it holds the wanted value.
func TestAGuardIsCheckedInAPostgreSQLWritesTransaction(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		if e != testdb.EnginePostgres {
			t.Skip("SQLite's write queue has its own test")
		}
		s, db := writeStore(t, e)
		ctx := t.Context()
		query := newCounter(t, db, 1)
		cases := []struct {
			name    string
			guard   *store.WriteGuard
			note    string
			refused bool
			state   store.GuardState
		}{
			{"a write wanting the counter's value runs", store.NewWriteGuard(store.QueryCounter(query), 1), "a", false, store.GuardConfirmed},
			{"a write wanting another value is refused", store.NewWriteGuard(store.QueryCounter(query), 2), "b", true, store.GuardRefused},
			{"a write whose counter has no row is refused", store.NewWriteGuard(store.QueryCounter(`SELECT v FROM counter WHERE id = 2`), 1), "c", true, store.GuardRefused},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				err := s.RunWrite(ctx, store.Write{Single: true, Guard: c.guard}, insertNote(c.note))
				if got := errors.Is(err, store.ErrWriteGuardRefused); got != c.refused {
					t.Errorf("refused: got %v (error %v), want %v", got, err, c.refused)
				}
				if got := c.guard.State(); got != c.state {
					t.Errorf("state: got %v, want %v", got, c.state)
				}
				if got, want := slices.Contains(notes(t, db), c.note), !c.refused; got != want {
					t.Errorf("note %q written: got %v, want %v", c.note, got, want)
				}
			})
		}
	})
}

// TestAOneStatementWriteOnPostgreSQLTestsItsGuardInTheStatement: the
// writes that are one statement (InsertLogged, UpdateLogged, DeleteLogged)
// test the guard in that statement, with no statement of its own when it
// holds; a refused one writes nothing (no record, no row count, no change
// row) and returns ErrWriteGuardRefused; a record that is not there is
// ErrNotFound under a guard that holds, and a refusal under one that does
// not.
func TestAOneStatementWriteOnPostgreSQLTestsItsGuardInTheStatement(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		if e != testdb.EnginePostgres {
			t.Skip("SQLite writes through its queue")
		}
		f := newFixture(t, e)
		ctx := t.Context()
		query := newCounter(t, f.db, 7)
		if err := store.CreateChangesTable(ctx, f.db); err != nil {
			t.Fatal(err)
		}
		var statements atomic.Int64
		f.s.ObserveQueries(func(string, []any) { statements.Add(1) })
		kept := f.insert(t, f.products, "t1", map[string]any{"title": "kept"})
		gone := f.insert(t, f.products, "t1", map[string]any{"title": "gone"})
		now := time.Now().UTC().Truncate(time.Microsecond)
		newRec := func(id string) store.Record {
			return store.Record{"id": id, "teamId": "t1", "owner": "u1", "title": "new", "createdAt": now, "updatedAt": now, "createdBy": "u1", "updatedBy": "u1"}
		}
		change := func(op, id string) *store.Change {
			return &store.Change{TeamID: "t1", Collection: "shopProducts", Operation: op, ItemIDs: []string{id}, Timestamp: now.UnixMilli()}
		}
		insert := func(id string) func(ctx context.Context) error {
			return func(ctx context.Context) error {
				return f.s.InsertLogged(ctx, store.GuardOf(ctx), f.products, newRec(id), change("create", id))
			}
		}
		update := func(id string) func(ctx context.Context) error {
			return func(ctx context.Context) error {
				_, _, err := f.s.UpdateLogged(ctx, store.GuardOf(ctx), f.products, "t1", id, "", store.Record{"title": "changed " + id}, store.Record{"title": "changed " + id}, change("update", id))
				return err
			}
		}
		del := func(id string) func(ctx context.Context) error {
			return func(ctx context.Context) error {
				return f.s.DeleteLogged(ctx, store.GuardOf(ctx), f.products, "t1", id, change("delete", id))
			}
		}
		const missing = "rec-none"
		cases := []struct {
			name       string
			want       int64
			write      func(ctx context.Context) error
			err        error
			state      store.GuardState
			statements int64
			changes    int // change rows the write adds
			rows       int // records the write adds
		}{
			{"an insert under a guard that holds is one statement", 7, insert("ins-1"), nil, store.GuardConfirmed, 1, 1, 1},
			{"an insert under a stale guard writes nothing", 6, insert("ins-2"), store.ErrWriteGuardRefused, store.GuardRefused, 1, 0, 0},
			{"an update under a guard that holds is one statement", 7, update(kept), nil, store.GuardConfirmed, 1, 1, 0},
			{"an update under a stale guard writes nothing", 6, update(kept), store.ErrWriteGuardRefused, store.GuardRefused, 2, 0, 0},
			{"an update of no record under a guard that holds is not found", 7, update(missing), store.ErrNotFound, store.GuardConfirmed, 2, 0, 0},
			{"an update of no record under a stale guard is refused", 6, update(missing), store.ErrWriteGuardRefused, store.GuardRefused, 2, 0, 0},
			{"a delete under a stale guard writes nothing", 6, del(gone), store.ErrWriteGuardRefused, store.GuardRefused, 2, 0, 0},
			{"a delete under a guard that holds deletes", 7, del(gone), nil, store.GuardConfirmed, 1, 1, -1},
			{"a delete of no record under a guard that holds is not found", 7, del(missing), store.ErrNotFound, store.GuardConfirmed, 2, 0, 0},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				g := store.NewWriteGuard(store.QueryCounter(query), c.want)
				changesBefore, rowsBefore, keptBefore := countOf(t, f.db, "kit_changes"), countOf(t, f.db, "shop_products"), keptCount(t, f.db)
				titleBefore := titleOf(t, f.db, kept)
				n := statements.Load()
				err := c.write(store.WithWriteGuard(ctx, g))
				if !errors.Is(err, c.err) || (c.err == nil && err != nil) {
					t.Fatalf("error: got %v, want %v", err, c.err)
				}
				if got := g.State(); got != c.state {
					t.Errorf("state: got %v, want %v", got, c.state)
				}
				if got := statements.Load() - n; got != c.statements {
					t.Errorf("statements: got %d, want %d", got, c.statements)
				}
				if got, want := countOf(t, f.db, "kit_changes")-changesBefore, c.changes; got != want {
					t.Errorf("change rows added: got %d, want %d", got, want)
				}
				if got, want := countOf(t, f.db, "shop_products")-rowsBefore, c.rows; got != want {
					t.Errorf("records added: got %d, want %d", got, want)
				}
				if got, want := keptCount(t, f.db)-keptBefore, c.rows; got != want {
					t.Errorf("records added by the kept row count: got %d, want %d", got, want)
				}
				if c.err != nil && titleOf(t, f.db, kept) != titleBefore {
					t.Errorf("title of %s: got %q, want %q", kept, titleOf(t, f.db, kept), titleBefore)
				}
			})
		}
	})
}

// newCounter creates table counter holding one row of value v and
// returns the guard query that reads it.
func newCounter(t *testing.T, db *bun.DB, v int64) string {
	t.Helper()
	if _, err := db.ExecContext(t.Context(), `CREATE TABLE counter (id INTEGER PRIMARY KEY, v BIGINT)`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(t.Context(), `INSERT INTO counter VALUES (1, ?)`, v); err != nil {
		t.Fatal(err)
	}
	return `SELECT (SELECT v FROM counter WHERE id = 1)`
}

// countOf returns how many rows table has.
func countOf(t *testing.T, db *bun.DB, table string) int {
	t.Helper()
	var n int
	if err := db.QueryRowContext(t.Context(), "SELECT count(*) FROM "+table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// keptCount returns team t1's row count of shop_products as kit keeps it.
func keptCount(t *testing.T, db *bun.DB) int {
	t.Helper()
	var n int
	if err := db.QueryRowContext(t.Context(), `SELECT coalesce(sum(n), 0) FROM kit_row_counts WHERE table_name = 'shop_products' AND team_id = 't1'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// titleOf returns the title of product id.
func titleOf(t *testing.T, db *bun.DB, id string) string {
	t.Helper()
	var title string
	if err := db.QueryRowContext(t.Context(), `SELECT title FROM shop_products WHERE id = ?`, id).Scan(&title); err != nil {
		t.Fatal(err)
	}
	return title
}
