package kit_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net/url"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// DeleteMany deletes several records in one transaction, all or nothing,
// and fires one mutation hook naming every id.
func ExampleRecords_DeleteMany() {
	k, err := kit.New(kit.Config{
		SQLitePath: ":memory:example-delete-many",
		Logger:     slog.New(slog.DiscardHandler),
		Definitions: []collections.Definition{{
			Name: "notes", Layer: "app",
			Fields: []collections.Field{{Name: "body", Type: collections.TypeText}},
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
	notes := k.Records("appNotes")
	var ids []string
	for _, body := range []string{"one", "two", "three"} {
		rec, err := notes.Create(ctx, alice, map[string]any{"body": body})
		if err != nil {
			log.Fatal(err)
		}
		ids = append(ids, rec["id"].(string))
	}

	k.OnMutation(func(ctx context.Context, m kit.Mutation) {
		fmt.Printf("hook: %s of %d records\n", m.Operation, len(m.ItemIDs))
	})

	// One id that is not the team's: nothing is deleted.
	err = notes.DeleteMany(ctx, alice, []string{ids[0], "no-such-id"})
	fmt.Println(errors.Is(err, kit.ErrNotFound), kit.StatusOf(err))

	if err := notes.DeleteMany(ctx, alice, ids[:2]); err != nil {
		log.Fatal(err)
	}
	left, _ := notes.List(ctx, alice, url.Values{})
	fmt.Println("left:", left.Items[0]["body"])
	// Output:
	// true 404
	// hook: delete of 2 records
	// left: three
}
