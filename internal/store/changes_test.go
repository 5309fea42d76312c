package store_test

import (
	"database/sql"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/store"
	"github.com/collectionkit/kit/internal/testdb"
)

// TestChangeCursorWaitsForEarlierPositions runs two transactions that
// commit in the other order than they took their positions, and one that
// rolls back, on PostgreSQL (SQLite has one writer: positions are taken in
// commit order there).
func TestChangeCursorWaitsForEarlierPositions(t *testing.T) {
	db := testdb.Open(t, testdb.EnginePostgres)
	ctx := t.Context()
	if err := store.CreateChangesTable(ctx, db); err != nil {
		t.Fatal(err)
	}
	s := store.New(db, func() *collections.Registry { return nil })
	cur, err := s.ChangeHead(ctx, 10*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	begin := func() bun.Tx {
		tx, err := db.BeginTx(ctx, &sql.TxOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return tx
	}
	insert := func(tx bun.Tx, item string) {
		if err := s.RecordChange(ctx, tx, store.Change{TeamID: "t1", Collection: "appNotes", Operation: "create", ItemIDs: []string{item}}); err != nil {
			t.Fatal(err)
		}
	}
	// next reads until it has want items or the wait limit (which only
	// keeps a broken test from hanging) passes.
	next := func(want int) []string {
		var got []string
		deadline := time.Now().Add(15 * time.Second)
		for {
			changes, err := s.NextChanges(ctx, &cur, 100)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range changes {
				got = append(got, c.ItemIDs[0])
			}
			if len(got) >= want || time.Now().After(deadline) {
				return got
			}
			time.Sleep(10 * time.Millisecond)
		}
	}

	first, second := begin(), begin()
	insert(first, "first")
	insert(second, "second")
	if err := second.Commit(); err != nil {
		t.Fatal(err)
	}
	t.Run("a later position that committed first waits for the earlier one", func(t *testing.T) {
		changes, err := s.NextChanges(ctx, &cur, 100)
		if err != nil {
			t.Fatal(err)
		}
		if len(changes) != 0 {
			t.Errorf("got %d changes while the first position is open, want 0", len(changes))
		}
	})
	if err := first.Commit(); err != nil {
		t.Fatal(err)
	}
	t.Run("both come in position order once the earlier one commits", func(t *testing.T) {
		if got := next(2); len(got) != 2 || got[0] != "first" || got[1] != "second" {
			t.Errorf("got %v, want [first second]", got)
		}
	})
	rolledBack, third := begin(), begin()
	insert(rolledBack, "rolled back")
	insert(third, "third")
	if err := third.Commit(); err != nil {
		t.Fatal(err)
	}
	if changes, err := s.NextChanges(ctx, &cur, 100); err != nil || len(changes) != 0 {
		t.Fatalf("got %d changes, %v while the hole is open, want none", len(changes), err)
	}
	if err := rolledBack.Rollback(); err != nil {
		t.Fatal(err)
	}
	t.Run("a position whose transaction rolled back is skipped", func(t *testing.T) {
		if got := next(1); len(got) != 1 || got[0] != "third" {
			t.Errorf("got %v, want [third]", got)
		}
	})
}
