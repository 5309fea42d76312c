package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/collectionkit/kit/client"
	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// A Go program that lists, creates and reads a team's products on a kit
// server. The server here is started in the example; a real program only
// needs its URL and an API token.
func Example() {
	ctx := context.Background()
	base, token, stop := exampleServer(ctx, "example-client")
	defer stop()

	c, err := client.New(base, client.WithToken(token), client.WithCache(client.NewCache(0)))
	if err != nil {
		log.Fatal(err)
	}
	products := c.Team("acme").Collection("shopProducts")
	for _, p := range []map[string]any{{"title": "Lamp", "price": "19.90"}, {"title": "Desk", "price": 120}, {"title": "Pen", "price": "1.50"}} {
		if _, err := products.Create(ctx, p); err != nil {
			log.Fatal(err)
		}
	}

	type Product struct {
		ID    string `json:"id"`
		Title string `json:"title"`
		Price string `json:"price"`
	}
	page, err := client.Typed[Product](products).List(ctx, client.Query{
		Filter: client.Where("price", client.OpGte, "10"),
		Sort:   []string{"-price"},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range page.Items {
		fmt.Println(p.Title, p.Price)
	}
	fmt.Println("total:", page.Pagination.TotalItems)

	_, err = products.Item(ctx, "01900000-0000-7000-8000-000000000000")
	fmt.Println("not found:", errors.Is(err, client.ErrNotFound))
	// Output:
	// Desk 120.00
	// Lamp 19.90
	// total: 2
	// not found: true
}

// exampleServer starts a kit server on the in-memory database db with a
// collection shopProducts, a team acme and a member's API token, and
// returns the API's base URL. Each example names its own database: one
// example's last connection may still be closing when the next opens.
func exampleServer(ctx context.Context, db string) (base, token string, stop func()) {
	k, err := kit.New(kit.Config{
		SQLitePath: ":memory:" + db,
		Definitions: []collections.Definition{{Name: "products", Layer: "shop",
			Config: &collections.Config{FetchStrategy: "restful"},
			Fields: []collections.Field{
				{Name: "title", Type: collections.TypeString},
				{Name: "price", Type: collections.TypeDecimal, Meta: collections.FieldMeta{Precision: 10, Scale: 2}},
			}}},
	})
	if err != nil {
		log.Fatal(err)
	}
	acc := k.Accounts()
	team, err := acc.CreateTeam(ctx, teamauth.Team{Name: "Acme", Slug: "acme"})
	if err != nil {
		log.Fatal(err)
	}
	user, err := acc.CreateUser(ctx, teamauth.User{Name: "Ada"})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := acc.AddMember(ctx, team.ID, user.ID, teamauth.RoleMember); err != nil {
		log.Fatal(err)
	}
	token, _, err = acc.CreateToken(ctx, user.ID, "example")
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/api/", k.Handler())
	srv := httptest.NewServer(mux)
	return srv.URL + "/api", token, func() { srv.Close(); k.Close() }
}
