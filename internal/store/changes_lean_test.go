package store_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/store"
	"github.com/collectionkit/kit/internal/testdb"
)

// recordChanges commits one change per item, each in its own transaction.
func recordChanges(t *testing.T, db *bun.DB, s *store.Store, items ...string) {
	t.Helper()
	for _, item := range items {
		err := db.RunInTx(t.Context(), &sql.TxOptions{}, func(ctx context.Context, tx bun.Tx) error {
			return s.RecordChange(ctx, tx, store.Change{TeamID: "t1", Collection: "appNotes", Operation: "create",
				ItemIDs: []string{item}, Timestamp: time.Now().UnixMilli()})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func lastChangeID(t *testing.T, s *store.Store) int64 {
	t.Helper()
	_, last, err := s.ChangeBounds(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return last
}

func TestChangePositionsKeepGrowingAfterRetentionDeletesEverythingOld(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		db := testdb.Open(t, e)
		ctx := t.Context()
		if err := store.CreateChangesTable(ctx, db); err != nil {
			t.Fatal(err)
		}
		s := store.New(db, func() *collections.Registry { return nil })
		recordChanges(t, db, s, "a", "b", "c")
		before := lastChangeID(t, s)
		// Every change is older than the cut and none is to be kept.
		deleted, err := s.PruneChanges(ctx, time.Now().Add(time.Hour), 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Run("retention keeps the newest change", func(t *testing.T) {
			pruned, last, err := s.ChangeBounds(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if deleted != 2 || last != before || pruned != before-1 {
				t.Errorf("got %d deleted, last %d, pruned through %d; want 2, %d, %d", deleted, last, pruned, before, before-1)
			}
		})
		t.Run("the next change takes a position above every earlier one", func(t *testing.T) {
			recordChanges(t, db, s, "d")
			if got := lastChangeID(t, s); got <= before {
				t.Errorf("got position %d after %d, want a larger one", got, before)
			}
		})
	})
}

func TestLeanChangesTableKeepsTheRowsOfTheFirstVersion(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		db := testdb.Open(t, e)
		ctx := t.Context()
		// The table as the first version of the migration made it.
		first := []string{
			`CREATE TABLE kit_changes (id INTEGER PRIMARY KEY AUTOINCREMENT, team_id TEXT NOT NULL,
				collection TEXT NOT NULL, operation TEXT NOT NULL, item_ids TEXT NOT NULL, correlation_id TEXT NOT NULL, ts BIGINT NOT NULL)`,
			`CREATE INDEX kit_changes_team_id ON kit_changes (team_id, id)`,
			`CREATE TABLE kit_changes_pruned (id INTEGER PRIMARY KEY, through BIGINT NOT NULL)`,
			`INSERT INTO kit_changes_pruned (id, through) VALUES (1, 0)`,
		}
		if e == testdb.EnginePostgres {
			first[0] = `CREATE TABLE kit_changes (id BIGSERIAL PRIMARY KEY, xid xid8 NOT NULL, team_id TEXT NOT NULL,
				collection TEXT NOT NULL, operation TEXT NOT NULL, item_ids TEXT NOT NULL, correlation_id TEXT NOT NULL, ts BIGINT NOT NULL)`
		}
		for _, q := range first {
			if _, err := db.ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		s := store.New(db, func() *collections.Registry { return nil })
		recordChanges(t, db, s, "a", "b")
		before := lastChangeID(t, s)
		if err := store.LeanChangesTable(ctx, db); err != nil {
			t.Fatal(err)
		}
		if err := store.LeanChangesTable(ctx, db); err != nil {
			t.Fatalf("a second run: %v", err)
		}
		t.Run("the rows and their positions stay", func(t *testing.T) {
			var cur store.ChangeCursor
			changes, err := s.NextChanges(ctx, &cur, 10)
			if err != nil {
				t.Fatal(err)
			}
			if len(changes) != 2 || changes[0].ItemIDs[0] != "a" || changes[1].ID != before {
				t.Errorf("got %+v, want a and b with b at %d", changes, before)
			}
		})
		t.Run("the index on team and position is gone", func(t *testing.T) {
			var n int
			q := `SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'kit_changes_team_id'`
			if db.Dialect().Name() == dialect.PG {
				q = `SELECT count(*) FROM pg_indexes WHERE schemaname = current_schema() AND indexname = 'kit_changes_team_id'`
			}
			if err := db.QueryRowContext(ctx, q).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != 0 {
				t.Errorf("got %d indexes named kit_changes_team_id, want 0", n)
			}
		})
		if e == testdb.EngineSQLite {
			t.Run("the SQLite table has no AUTOINCREMENT", func(t *testing.T) {
				var ddl string
				if err := db.QueryRowContext(ctx, `SELECT sql FROM sqlite_master WHERE name = 'kit_changes'`).Scan(&ddl); err != nil {
					t.Fatal(err)
				}
				if strings.Contains(strings.ToUpper(ddl), "AUTOINCREMENT") {
					t.Errorf("got %s, want no AUTOINCREMENT", ddl)
				}
			})
		}
		t.Run("new changes continue after the kept ones", func(t *testing.T) {
			recordChanges(t, db, s, "c")
			if got := lastChangeID(t, s); got != before+1 {
				t.Errorf("got position %d, want %d", got, before+1)
			}
		})
	})
}
