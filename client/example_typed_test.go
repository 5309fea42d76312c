package client_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"

	"github.com/collectionkit/kit/client"
	"github.com/collectionkit/kit/examples/kittypes"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// Records decoded into the types kit gen types writes: here those of
// examples/schemas, generated into package examples/kittypes with
//
//	kit gen types --lang go --schemas ../schemas --package kittypes --out kit_types.go
//
// The input type is the create body; Typed decodes lists and records into
// the record type.
func ExampleTyped_generatedTypes() {
	ctx := context.Background()
	base, token, stop := examplesSchemasServer(ctx)
	defer stop()

	c, err := client.New(base, client.WithToken(token))
	if err != nil {
		log.Fatal(err)
	}
	products := client.Typed[kittypes.Product](c.Team("acme").Collection(kittypes.ShopProductsKey))
	stock := int64(4)
	for _, in := range []kittypes.ProductInput{{Title: "Lamp", Price: "19.9", Stock: &stock}, {Title: "Desk", Price: "120"}} {
		if _, err := products.Create(ctx, in); err != nil {
			log.Fatal(err)
		}
	}
	page, err := products.List(ctx, client.Query{Sort: []string{"-price"}})
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range page.Items { // p is a kittypes.Product
		fmt.Printf("%s %s stock=%v active=%v released=%v\n", p.Title, p.Price, *p.Stock, *p.IsActive, p.ReleasedAt)
	}
	// Output:
	// Desk 120.00 stock=0 active=true released=<nil>
	// Lamp 19.90 stock=4 active=true released=<nil>
}

// examplesSchemasServer starts a kit server on examples/schemas with a
// team acme and a member's API token, and returns the API's base URL.
func examplesSchemasServer(ctx context.Context) (base, token string, stop func()) {
	k, err := kit.New(kit.Config{SQLitePath: ":memory:example-client-typed", Schemas: os.DirFS("../examples/schemas")})
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
	if token, _, err = acc.CreateToken(ctx, user.ID, "example"); err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/api/", k.Handler())
	srv := httptest.NewServer(mux)
	return srv.URL + "/api", token, func() { srv.Close(); k.Close() }
}
