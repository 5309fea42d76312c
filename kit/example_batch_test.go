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

// Batch writes an order and its line in one transaction; when a later
// operation fails, the earlier ones are not written either.
func ExampleKit_Batch() {
	k, err := kit.New(kit.Config{
		SQLitePath: ":memory:example-batch",
		Logger:     slog.New(slog.DiscardHandler),
		Definitions: []collections.Definition{
			{Name: "orders", Layer: "shop", Fields: []collections.Field{
				{Name: "number", Type: collections.TypeString, Meta: collections.FieldMeta{Required: true}}}},
			{Name: "lines", Layer: "shop", Fields: []collections.Field{
				{Name: "orderId", Type: collections.TypeString, RefTarget: "orders"},
				{Name: "sku", Type: collections.TypeString, Meta: collections.FieldMeta{Required: true}}}},
		},
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

	err = k.Batch(ctx, alice, func(b *kit.Batch) error {
		order, err := b.Create("shopOrders", map[string]any{"number": "A-1001"})
		if err != nil {
			return err
		}
		_, err = b.Create("shopLines", map[string]any{"orderId": order["id"], "sku": "LAMP-1"})
		return err
	})
	fmt.Println("first batch:", err)

	err = k.Batch(ctx, alice, func(b *kit.Batch) error {
		if _, err := b.Create("shopOrders", map[string]any{"number": "A-1002"}); err != nil {
			return err
		}
		_, err := b.Create("shopLines", map[string]any{"orderId": "no-such-order", "sku": "LAMP-2"})
		return err
	})
	var be *kit.BatchError
	fmt.Println("second batch failed at operation", errors.As(err, &be) && be.Index == 1, kit.StatusOf(err))

	orders, _ := k.Records("shopOrders").List(ctx, alice, url.Values{})
	fmt.Println("orders:", orders.Pagination.TotalItems)
	// Output:
	// first batch: <nil>
	// second batch failed at operation true 400
	// orders: 1
}
