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

// A collection defined in Go, stored in an in-memory SQLite database and
// used through the record API: the same validation, tenancy and hooks as
// the HTTP API.
func ExampleKit_Records() {
	k, err := kit.New(kit.Config{
		SQLitePath: ":memory:example-records",
		Logger:     slog.New(slog.DiscardHandler),
		Definitions: []collections.Definition{{
			Name:  "products",
			Layer: "shop",
			Fields: []collections.Field{
				{Name: "title", Type: collections.TypeString, Meta: collections.FieldMeta{Required: true}},
				{Name: "price", Type: collections.TypeDecimal, Meta: collections.FieldMeta{Precision: 10, Scale: 2}},
				{Name: "isActive", Type: collections.TypeBoolean, Meta: collections.FieldMeta{Default: true}},
			},
		}},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer k.Close()

	ctx := context.Background()
	// An actor names a team and a user that exist: here kit's own
	// accounts; a host with its own users implements a Directory instead.
	acme, err := k.Accounts().CreateTeam(ctx, teamauth.Team{Name: "Acme", Slug: "acme"})
	if err != nil {
		log.Fatal(err)
	}
	user, err := k.Accounts().CreateUser(ctx, teamauth.User{Name: "Alice", Email: "alice@example.com"})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := k.Accounts().AddMember(ctx, acme.ID, user.ID, teamauth.RoleMember); err != nil {
		log.Fatal(err)
	}
	alice := kit.Actor{UserID: user.ID, TeamID: acme.ID, Role: teamauth.RoleMember}
	products := k.Records("shopProducts")
	for _, p := range []map[string]any{
		{"title": "Tea", "price": "4.5"},
		{"title": "Coffee", "price": "12"},
		{"title": "Cocoa", "price": "9.99", "isActive": false},
	} {
		if _, err := products.Create(ctx, alice, p); err != nil {
			log.Fatal(err)
		}
	}

	list, err := products.List(ctx, alice, url.Values{"sort": {"-price"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d products, sorted by %s %s\n", list.Pagination.TotalItems, list.Pagination.SortBy, list.Pagination.SortDirection)
	for _, p := range list.Items {
		fmt.Printf("%-6s %6s active=%v\n", p["title"], p["price"], p["isActive"])
	}

	// Another team sees none of them.
	globex, err := k.Accounts().CreateTeam(ctx, teamauth.Team{Name: "Globex", Slug: "globex"})
	if err != nil {
		log.Fatal(err)
	}
	other, _ := products.List(ctx, kit.Actor{UserID: user.ID, TeamID: globex.ID}, nil)
	fmt.Println("globex sees", other.Pagination.TotalItems)

	// An actor whose team does not exist writes nothing.
	_, err = products.Create(ctx, kit.Actor{UserID: user.ID, TeamID: "no-such-team"}, map[string]any{"title": "Ghost"})
	fmt.Println(kit.StatusOf(err), errors.Is(err, teamauth.ErrTeamNotFound))

	// Bad input names the fields at fault.
	_, err = products.Create(ctx, alice, map[string]any{"price": "1.234"})
	var ve *kit.ValidationError
	if errors.As(err, &ve) {
		fmt.Println(kit.StatusOf(err), "title:", ve.Fields["title"])
		fmt.Println(kit.StatusOf(err), "price:", ve.Fields["price"])
	}
	// Output:
	// 3 products, sorted by price desc
	// Coffee  12.00 active=true
	// Cocoa    9.99 active=false
	// Tea      4.50 active=true
	// globex sees 0
	// 404 true
	// 400 title: is required
	// 400 price: must have at most 2 digit(s) after the point
}

// Two people edit one record: each sends the ETag of the copy they read,
// and the second, whose copy is stale, is refused instead of silently
// overwriting the first's change.
func ExampleRecords_UpdateWith() {
	k, err := kit.New(kit.Config{
		SQLitePath: ":memory:example-update-with",
		Logger:     slog.New(slog.DiscardHandler),
		Definitions: []collections.Definition{{Name: "notes", Layer: "app", Fields: []collections.Field{
			{Name: "body", Type: collections.TypeText},
		}}},
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
	olga, err := k.Accounts().CreateUser(ctx, teamauth.User{Name: "Olga", Email: "olga@example.com"})
	if err != nil {
		log.Fatal(err)
	}
	owner := kit.Actor{UserID: olga.ID, TeamID: acme.ID, Role: teamauth.RoleOwner}
	notes := k.Records("appNotes")
	note, err := notes.Create(ctx, owner, map[string]any{"body": "draft"})
	if err != nil {
		log.Fatal(err)
	}
	read := kit.ETag(note) // what both editors saw

	first, err := notes.UpdateWith(ctx, owner, note["id"].(string), map[string]any{"body": "first"}, kit.WriteOptions{IfMatch: []string{read}})
	fmt.Println(first["body"], err)

	_, err = notes.UpdateWith(ctx, owner, note["id"].(string), map[string]any{"body": "second"}, kit.WriteOptions{IfMatch: []string{read}})
	var pe *kit.PreconditionError
	if errors.As(err, &pe) {
		fmt.Println(kit.StatusOf(err), errors.Is(err, kit.ErrPrecondition), pe.Current["body"], pe.ETag == kit.ETag(first))
	}
	// Output:
	// first <nil>
	// 412 true first true
}
