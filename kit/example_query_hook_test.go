package kit_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"strings"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// writeLogger is a bun.QueryHook that prints the writes to app_notes, the
// way a host's tracing or debugging hook (bunotel, bundebug) would see
// them.
type writeLogger struct{}

func (writeLogger) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }

func (writeLogger) AfterQuery(_ context.Context, ev *bun.QueryEvent) {
	// On SQLite kit updates a record with UPDATE OR FAIL.
	q := strings.Replace(ev.Query, "UPDATE OR FAIL ", "UPDATE ", 1)
	if strings.HasPrefix(q, `INSERT INTO "app_notes"`) || strings.HasPrefix(q, `UPDATE "app_notes"`) {
		fmt.Printf("%s app_notes, %d arguments, err=%v\n", ev.Operation(), len(ev.QueryArgs), ev.Err)
	}
}

// A host observes the statements of kit's record service with a bun query
// hook given in Config.QueryHook.
func ExampleConfig_queryHook() {
	k, err := kit.New(kit.Config{
		SQLitePath: ":memory:example-query-hook",
		Logger:     slog.New(slog.DiscardHandler),
		QueryHook:  writeLogger{},
		Definitions: []collections.Definition{{
			Name:   "notes",
			Fields: []collections.Field{{Name: "text", Type: collections.TypeString}},
		}},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer k.Close()

	ctx := context.Background()
	acme, err := k.Accounts().CreateTeam(ctx, teamauth.Team{Name: "Acme", Slug: "acme"})
	if err != nil {
		log.Fatal(err)
	}
	user, err := k.Accounts().CreateUser(ctx, teamauth.User{Name: "Alice", Email: "alice@example.com"})
	if err != nil {
		log.Fatal(err)
	}
	alice := kit.Actor{UserID: user.ID, TeamID: acme.ID}
	note, err := k.Records("appNotes").Create(ctx, alice, map[string]any{"text": "first"})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := k.Records("appNotes").Update(ctx, alice, note["id"].(string), map[string]any{"text": "second"}); err != nil {
		log.Fatal(err)
	}
	// Output:
	// INSERT app_notes, 9 arguments, err=<nil>
	// UPDATE app_notes, 6 arguments, err=<nil>
}
