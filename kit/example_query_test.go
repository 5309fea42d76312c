package kit_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// A list query built in Go: the attributes come from the registry, the
// values are Go values, and zero fields take the collection's defaults.
func ExampleRecords_Query() {
	k, err := kit.New(kit.Config{
		SQLitePath: ":memory:example-query",
		Logger:     slog.New(slog.DiscardHandler),
		Definitions: []collections.Definition{{Name: "products", Layer: "shop", Fields: []collections.Field{
			{Name: "title", Type: collections.TypeString, Meta: collections.FieldMeta{Required: true}},
			{Name: "price", Type: collections.TypeDecimal, Meta: collections.FieldMeta{Precision: 10, Scale: 2}},
			{Name: "stock", Type: collections.TypeNumber},
		}}},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer k.Close()
	ctx := context.Background()
	acme, _ := k.Accounts().CreateTeam(ctx, teamauth.Team{Name: "Acme", Slug: "acme"})
	user, _ := k.Accounts().CreateUser(ctx, teamauth.User{Name: "Alice", Email: "alice@example.com"})
	if _, err := k.Accounts().AddMember(ctx, acme.ID, user.ID, teamauth.RoleMember); err != nil {
		log.Fatal(err)
	}
	alice := kit.Actor{UserID: user.ID, TeamID: acme.ID, Role: teamauth.RoleMember}
	products := k.Records("shopProducts")
	for _, p := range []map[string]any{
		{"title": "Tea", "price": "4.50", "stock": 0},
		{"title": "Coffee", "price": "12", "stock": 7},
		{"title": "Cocoa", "price": "9.99", "stock": 3},
		{"title": "Mate", "price": "6", "stock": 12},
	} {
		if _, err := products.Create(ctx, alice, p); err != nil {
			log.Fatal(err)
		}
	}

	c, _ := k.Collections().Get("shopProducts")
	price, _ := c.Attribute("price")
	stock, _ := c.Attribute("stock")
	list, err := products.Query(ctx, alice, collections.ListQuery{
		PageSize: 2,
		Filter: []collections.Condition{
			{Attr: stock, Op: collections.OpGt, Value: 0},
			{Attr: price, Op: collections.OpLt, Value: "10"},
		},
		Sort: []collections.SortKey{{Attr: price, Desc: true}},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range list.Items {
		fmt.Println(p["title"], p["price"])
	}
	fmt.Printf("page %d of %d, %d in stock under 10\n", list.Pagination.CurrentPage, list.Pagination.TotalPages, list.Pagination.TotalItems)

	_, err = products.Query(ctx, alice, collections.ListQuery{PageSize: 500})
	fmt.Println(err)
	// Output:
	// Cocoa 9.99
	// Mate 6.00
	// page 1 of 1, 2 in stock under 10
	// invalid pageSize: must be at most 100
}

// Config tells a host or an add-on the settings in force, defaults filled
// in.
func ExampleKit_Config() {
	k, err := kit.New(kit.Config{SQLitePath: ":memory:example-config", Logger: slog.New(slog.DiscardHandler), Prefix: "/v1"})
	if err != nil {
		log.Fatal(err)
	}
	defer k.Close()
	cfg := k.Config()
	fmt.Println(cfg.Prefix, cfg.MaxBodyBytes, cfg.DefaultLayer, cfg.Limits.MaxPageSize, cfg.Dev)
	// Output:
	// /v1 1048576 app 100 false
}
