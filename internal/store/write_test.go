package store_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"slices"
	"testing"
	"time"
	"weak"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/store"
	"github.com/collectionkit/kit/internal/testdb"
)

// writeStore returns a Store on a private database of engine e with a
// table notes(v TEXT UNIQUE) for raw writes.
func writeStore(t *testing.T, e testdb.Engine) (*store.Store, *bun.DB) {
	t.Helper()
	db := testdb.Open(t, e)
	if _, err := db.ExecContext(t.Context(), `CREATE TABLE notes (v TEXT UNIQUE)`); err != nil {
		t.Fatal(err)
	}
	reg, _, err := collections.Build(nil, collections.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := store.New(db, func() *collections.Registry { return reg })
	s.Logger = slog.New(slog.DiscardHandler) // a panicking write is logged
	t.Cleanup(func() { s.Close() })
	return s, db
}

func insertNote(v string) func(ctx context.Context, tx bun.Tx) error {
	return func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO notes (v) VALUES (?)`, v)
		return err
	}
}

func notes(t *testing.T, db *bun.DB) []string {
	t.Helper()
	var vs []string
	if err := db.NewRaw(`SELECT v FROM notes ORDER BY v`).Scan(t.Context(), &vs); err != nil {
		t.Fatal(err)
	}
	return vs
}

// holdQueue runs a write that blocks until release is called, so that the
// writes started meanwhile queue up behind it and run as one group.
func holdQueue(t *testing.T, s *store.Store) (release func()) {
	t.Helper()
	started, unblock := make(chan struct{}), make(chan struct{})
	go func() {
		_ = s.RunWrite(context.Background(), store.Write{Single: true}, func(context.Context, bun.Tx) error {
			close(started)
			<-unblock
			return nil
		})
	}()
	<-started
	return func() { close(unblock) }
}

func waitForQueue(t *testing.T, s *store.Store, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for s.QueuedWrites() < n {
		if time.Now().After(deadline) {
			t.Fatalf("queued writes: got %d, want %d", s.QueuedWrites(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestRunWriteGroupRollsBackOnlyTheFailedWrites checks the SQLite group
// commit: writes queued behind a running transaction share the next one,
// and a write that fails (an error after it wrote, a unique violation, a
// panic after it wrote) is rolled back to its savepoint alone, gets its
// error (or its panic, on the caller's goroutine), while the rest commit.
func TestRunWriteGroupRollsBackOnlyTheFailedWrites(t *testing.T) {
	s, db := writeStore(t, testdb.EngineSQLite)
	if err := s.RunWrite(t.Context(), store.Write{Single: false}, insertNote("taken")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	writes := []struct {
		name    string
		fn      func(ctx context.Context, tx bun.Tx) error
		wantErr bool
		panics  bool
	}{
		{"a plain write commits", insertNote("a"), false, false},
		{"a write that fails after writing is undone", func(ctx context.Context, tx bun.Tx) error {
			if err := insertNote("undone-by-error")(ctx, tx); err != nil {
				return err
			}
			return boom
		}, true, false},
		{"a unique violation is undone", insertNote("taken"), true, false},
		{"a write that panics after writing is undone", func(ctx context.Context, tx bun.Tx) error {
			_ = insertNote("undone-by-panic")(ctx, tx)
			panic("write panicked")
		}, false, true},
		{"a write after the failures commits", insertNote("b"), false, false},
	}
	release := holdQueue(t, s)
	type outcome struct {
		err      error
		panicked any
	}
	results := make([]chan outcome, len(writes))
	for i, w := range writes {
		results[i] = make(chan outcome, 1)
		go func() {
			var o outcome
			defer func() {
				o.panicked = recover()
				results[i] <- o
			}()
			o.err = s.RunWrite(context.Background(), store.Write{Single: false}, w.fn)
		}()
		waitForQueue(t, s, i+1)
	}
	release()
	for i, w := range writes {
		o := <-results[i]
		t.Run(w.name, func(t *testing.T) {
			if (o.err != nil) != w.wantErr {
				t.Errorf("error: got %v, want error %v", o.err, w.wantErr)
			}
			if (o.panicked != nil) != w.panics {
				t.Errorf("panic in the caller: got %v, want panic %v", o.panicked, w.panics)
			}
		})
	}
	if got, want := notes(t, db), []string{"a", "b", "taken"}; !slices.Equal(got, want) {
		t.Errorf("rows after the group: got %q, want %q", got, want)
	}
}

// TestRunWriteDropsAWriteCancelledWhileQueued checks that a write whose
// context ends while it waits in the queue leaves the queue with the
// context's error and never runs.
func TestRunWriteDropsAWriteCancelledWhileQueued(t *testing.T) {
	s, db := writeStore(t, testdb.EngineSQLite)
	release := holdQueue(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		errc <- s.RunWrite(ctx, store.Write{Single: false, Guard: store.GuardOf(ctx)}, insertNote("cancelled"))
	}()
	waitForQueue(t, s, 1)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled write: got %v, want context.Canceled", err)
	}
	if n := s.QueuedWrites(); n != 0 {
		t.Errorf("queued writes after the cancel: got %d, want 0", n)
	}
	release()
	if err := s.RunWrite(t.Context(), store.Write{Single: false}, insertNote("after")); err != nil {
		t.Fatal(err)
	}
	if got, want := notes(t, db), []string{"after"}; !slices.Equal(got, want) {
		t.Errorf("rows: got %q, want %q", got, want)
	}
}

// TestRunWriteCommitsOrRollsBackEachWrite checks RunWrite's contract on
// every engine: a write that returns nil is committed when RunWrite
// returns, one that fails leaves nothing behind.
func TestRunWriteCommitsOrRollsBackEachWrite(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		s, db := writeStore(t, e)
		for i := range 3 {
			if err := s.RunWrite(t.Context(), store.Write{Single: false}, insertNote(fmt.Sprint("kept", i))); err != nil {
				t.Fatal(err)
			}
		}
		err := s.RunWrite(t.Context(), store.Write{Single: false}, func(ctx context.Context, tx bun.Tx) error {
			if err := insertNote("lost")(ctx, tx); err != nil {
				return err
			}
			return errors.New("boom")
		})
		if err == nil || err.Error() != "boom" {
			t.Errorf("failing write: got %v, want boom", err)
		}
		if got, want := notes(t, db), []string{"kept0", "kept1", "kept2"}; !slices.Equal(got, want) {
			t.Errorf("rows: got %q, want %q", got, want)
		}
	})
}

// TestWriteQueueLeavesItsConnectionToReaders checks that the connection
// the SQLite write queue keeps between groups goes back to the pool: at
// once when the pool holds one connection, and after the queue has been
// idle for a moment when the pool is cut to one while the queue holds it.
func TestWriteQueueLeavesItsConnectionToReaders(t *testing.T) {
	for _, cutAfterWrite := range []bool{false, true} {
		name := "a read after a write gets the only connection of the pool"
		if cutAfterWrite {
			name = "a read gets the only connection of a pool cut to one after a write"
		}
		t.Run(name, func(t *testing.T) {
			s, db := writeStore(t, testdb.EngineSQLite)
			if !cutAfterWrite {
				db.SetMaxOpenConns(1)
			}
			if err := s.RunWrite(t.Context(), store.Write{Single: true}, insertNote("a")); err != nil {
				t.Fatal(err)
			}
			if cutAfterWrite {
				db.SetMaxOpenConns(1)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			var n int
			if err := db.QueryRowContext(ctx, `SELECT count(*) FROM notes`).Scan(&n); err != nil || n != 1 {
				t.Errorf("got %d notes and error %v, want 1 and none", n, err)
			}
		})
	}
}

// TestRunWriteKeepsNothingOfAFinishedWrite checks that once RunWrite has
// returned, nothing of the write stays reachable from the Store: what its
// function held (an import's rows) is garbage, not kept by the queue until
// a later write reuses its slot.
func TestRunWriteKeepsNothingOfAFinishedWrite(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		s, _ := writeStore(t, e)
		held := new([1 << 16]byte)
		gone := weak.Make(held)
		err := s.RunWrite(t.Context(), store.Write{}, func(ctx context.Context, tx bun.Tx) error {
			_, err := tx.ExecContext(ctx, "INSERT INTO notes (v) VALUES (?)", fmt.Sprint(held[0]))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			runtime.GC()
		}
		if gone.Value() != nil {
			t.Error("got the finished write's data still reachable, want it collected")
		}
	})
}
