package external_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/external"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// An external collection of users from a Go slice, a stored collection
// that refers to it, and a proxied collection over kit's own products.
func Example() {
	type user struct{ ID, Name, Email string }
	directory := []user{{"u1", "Ada", "ada@example.com"}, {"u2", "Bob", "bob@example.com"}}

	teamUsers, err := external.DefineExternalCollection(external.Config{
		Name: "teamUsers",
		Meta: external.Meta{Label: "Team users"},
		Handler: external.CreateExternalCollectionHandler(
			func(r *http.Request) ([]user, error) { return directory, nil },
			func(u user) (external.Item, error) {
				return external.Item{"id": u.ID, "title": u.Name, "email": u.Email}, nil
			}),
	})
	if err != nil {
		panic(err)
	}
	catalog, err := external.DefineExternalCollection(external.Config{
		Name: "catalog",
		Proxy: &collections.Proxy{Enabled: true, SourceEndpoint: "shop-products",
			Transform: func(p map[string]any) (map[string]any, error) {
				return map[string]any{"id": p["id"], "title": fmt.Sprintf("%s (%s)", p["title"], p["sku"])}, nil
			}},
	})
	if err != nil {
		panic(err)
	}

	ctx := context.Background()
	k, err := kit.Open(ctx, kit.Config{
		SQLitePath: ":memory:example-external",
		Definitions: []collections.Definition{
			{Name: "products", Layer: "shop", Fields: []collections.Field{
				{Name: "title", Type: collections.TypeString},
				{Name: "sku", Type: collections.TypeString},
			}},
			{Name: "tasks", Fields: []collections.Field{
				{Name: "title", Type: collections.TypeString},
				{Name: "assigneeId", Type: collections.TypeString, RefTarget: "teamUsers"},
			}},
			teamUsers.Definition(), // tasks refer to it: build them together
		},
	})
	if err != nil {
		panic(err)
	}
	defer k.Close()
	external.MustRegister(ctx, k, teamUsers, catalog) // mounts the routes; registers catalog

	team, _ := k.Accounts().CreateTeam(ctx, teamauth.Team{Name: "Acme", Slug: "acme"})
	alice, _ := k.Accounts().CreateUser(ctx, teamauth.User{Name: "Alice"})
	k.Accounts().AddMember(ctx, team.ID, alice.ID, teamauth.RoleOwner)
	token, _, _ := k.Accounts().CreateToken(ctx, alice.ID, "example")
	actor := kit.Actor{UserID: alice.ID, TeamID: team.ID, Role: teamauth.RoleOwner}
	k.Records("shopProducts").Create(ctx, actor, map[string]any{"title": "Hammer", "sku": "H-1"})

	srv := httptest.NewServer(k.Handler())
	defer srv.Close()
	get := func(path string) string {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return err.Error()
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return string(b)
	}

	fmt.Print(get("/api/teams/acme/teamUsers?ids=u2,u1"))
	var list struct{ Items []map[string]any }
	json.Unmarshal([]byte(get("/api/teams/acme/catalog")), &list)
	fmt.Println(list.Items[0]["title"])
	var refs map[string]struct{ References map[string]string }
	json.Unmarshal([]byte(get("/api/kit/collections")), &refs)
	fmt.Println(refs["appTasks"].References)
	// Output:
	// [{"email":"bob@example.com","id":"u2","title":"Bob"},{"email":"ada@example.com","id":"u1","title":"Ada"}]
	// Hammer (H-1)
	// map[assigneeId:teamUsers]
}

func ExampleApplyTransform() {
	cfg := collections.Config{Name: "catalog", Proxy: &collections.Proxy{
		Enabled:        true,
		SourceEndpoint: "shop-products",
		Transform: func(p map[string]any) (map[string]any, error) {
			return map[string]any{"id": p["id"], "title": fmt.Sprintf("%s (%s)", p["title"], p["sku"])}, nil
		},
	}}
	list := map[string]any{
		"items":      []any{map[string]any{"id": "p1", "title": "Hammer", "sku": "H-1"}},
		"pagination": map[string]any{"currentPage": 1},
	}
	fmt.Println(external.ApplyTransform(list, cfg))
	fmt.Println(external.ProxiedEndpoint(cfg, "catalog"))
	// Output:
	// map[items:[map[id:p1 title:Hammer (H-1)]] pagination:map[currentPage:1]]
	// shop-products
}
