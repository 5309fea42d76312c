package store_test

import (
	"context"
	"errors"
	"slices"
	"testing"

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
	ctx := t.Context()
	if _, err := db.ExecContext(ctx, `CREATE TABLE counter (id INTEGER PRIMARY KEY, v INTEGER)`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO counter VALUES (1, 1)`); err != nil {
		t.Fatal(err)
	}
	const query = `SELECT (SELECT v FROM counter WHERE id = 1)`
	early := store.NewWriteGuard(query, 1)
	missing := store.NewWriteGuard(`SELECT v FROM counter WHERE id = 2`, 1)
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
		{"a write wanting another value is refused", store.NewWriteGuard(query, 2), true, insertNote("b"), true},
		{"a write whose counter has no row is refused", missing, true, insertNote("c"), true},
		{"an unguarded write changes the counter", nil, false, bump, false},
		{"a write wanting the new value runs", store.NewWriteGuard(query, 2), true, insertNote("d"), false},
		{"a write wanting the old value is refused", store.NewWriteGuard(query, 1), true, insertNote("e"), true},
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
		go func() { errs[i] <- s.RunWrite(wctx, nil, w.single, w.fn) }()
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

// TestAGuardIsNotCheckedOnPostgreSQL: RunWrite there runs the write in a
// transaction of its own and leaves the guard unchecked (the caller
// confirms by itself).
func TestAGuardIsNotCheckedOnPostgreSQL(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		if e != testdb.EnginePostgres {
			t.Skip("SQLite checks guards")
		}
		s, db := writeStore(t, e)
		g := store.NewWriteGuard(`SELECT 1`, 2)
		if err := s.RunWrite(store.WithWriteGuard(t.Context(), g), nil, true, insertNote("a")); err != nil {
			t.Fatalf("guarded write: got %v, want nil", err)
		}
		if got, want := g.State(), store.GuardUnchecked; got != want {
			t.Errorf("state: got %v, want %v", got, want)
		}
		if got, want := notes(t, db), []string{"a"}; !slices.Equal(got, want) {
			t.Errorf("rows: got %q, want %q", got, want)
		}
	})
}
