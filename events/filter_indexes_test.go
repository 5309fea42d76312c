package events_test

import (
	"slices"
	"testing"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/events"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// openTracked opens a Kit of the shop collections on db, closed when t
// ends, and installs the events add-on with its default Config.
func openTracked(t *testing.T, db *bun.DB) (*kit.Kit, *events.Tracker) {
	t.Helper()
	k, err := kit.New(kit.Config{DB: db, Definitions: shopDefinitions()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	tr, err := events.Install(t.Context(), k, events.Config{})
	if err != nil {
		t.Fatalf("events.Install: %v", err)
	}
	return k, tr
}

// listIndexes returns the names of kit_events' indexes other than its
// primary key's, sorted.
func listIndexes(t *testing.T, db bun.IDB, e testdb.Engine) []string {
	t.Helper()
	q := `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'kit_events' AND name NOT LIKE 'sqlite_autoindex%'`
	if e == testdb.EnginePostgres {
		q = `SELECT indexname FROM pg_indexes WHERE tablename = 'kit_events' AND schemaname = current_schema() AND indexname NOT LIKE '%pkey'`
	}
	var names []string
	if err := db.NewRaw(q).Scan(t.Context(), &names); err != nil {
		t.Fatal(err)
	}
	slices.Sort(names)
	return names
}

// TestInstallBringsTheFirstVersionsFilterIndexesToTheNewOnes: on SQLite, a
// kit_events made by the add-on's first version, whose filter indexes left
// out the id, gets the indexes a new database gets when the add-on is
// installed again, and keeps its events. On PostgreSQL, whose indexes did
// not change, the migration leaves them as they are.
func TestInstallBringsTheFirstVersionsFilterIndexesToTheNewOnes(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		ctx := t.Context()
		db := testdb.Open(t, e)
		want := []string{"kit_events_team_collection_idx", "kit_events_team_item_idx", "kit_events_team_time_idx",
			"kit_events_team_user_idx", "kit_events_time_idx"}
		// kit_events as the first version left it: its filter indexes,
		// and no record of the migration that replaces them.
		first := []string{
			`DROP INDEX kit_events_team_collection_idx`, `DROP INDEX kit_events_team_item_idx`,
			`DROP INDEX kit_events_team_user_idx`,
			`CREATE INDEX kit_events_team_collection_time_idx ON kit_events (team_id, collection_name, "timestamp")`,
			`CREATE INDEX kit_events_team_item_time_idx ON kit_events (team_id, item_id, "timestamp")`,
			`CREATE INDEX kit_events_team_user_time_idx ON kit_events (team_id, user_id, "timestamp")`,
		}
		if e == testdb.EnginePostgres {
			want = []string{"kit_events_team_collection_time_idx", "kit_events_team_item_time_idx", "kit_events_team_time_idx",
				"kit_events_team_user_time_idx", "kit_events_time_idx"}
			first = nil
		}
		first = append(first, `DELETE FROM kit_migrations WHERE name = '20261129000300'`)
		k, tr := openTracked(t, db)
		if got := listIndexes(t, db, e); !slices.Equal(got, want) {
			t.Fatalf("a new database: got the indexes %v, want %v", got, want)
		}
		for _, q := range first {
			if _, err := db.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		team, err := k.Accounts().CreateTeam(ctx, teamauth.Team{Name: "Acme", Slug: "acme"})
		if err != nil {
			t.Fatal(err)
		}
		user, err := k.Accounts().CreateUser(ctx, teamauth.User{Name: "Mia"})
		if err != nil {
			t.Fatal(err)
		}
		for _, item := range []string{"a", "b", "a"} {
			if _, err := tr.Track(ctx, team.ID, user.ID, events.TrackOptions{Operation: kit.OpUpdate,
				Collection: "shopProducts", ItemID: item, Updates: map[string]any{"title": "new"},
				BeforeData: map[string]any{"title": "old"}}); err != nil {
				t.Fatal(err)
			}
		}

		_, tr = openTracked(t, db)
		t.Run("the indexes are the new ones", func(t *testing.T) {
			if got := listIndexes(t, db, e); !slices.Equal(got, want) {
				t.Errorf("got the indexes %v, want %v", got, want)
			}
		})
		t.Run("a record's history keeps its events", func(t *testing.T) {
			page, err := tr.Events(ctx, team.ID, events.Query{ItemID: "a"})
			if err != nil {
				t.Fatal(err)
			}
			if got := page.Pagination.TotalItems; got != 2 {
				t.Errorf("got %d events of item a, want 2", got)
			}
		})
	})
}
