package kit_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/internal/testkit"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// TestEveryKindOfReadOnAnotherInstanceRefusesAnAuthorizationChange holds
// reads that PostgreSQL authorizes from the accounts cache and confirm in
// their own statements to the rule of the multi-instance test: once a
// change is committed through instance A, the next read on instance B is
// refused, whatever its kind, with rows (the version comes with the data)
// or without (the version is read on its own). A read that skipped the
// confirmation would answer 200 from B's cache.
func TestEveryKindOfReadOnAnotherInstanceRefusesAnAuthorizationChange(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		for _, ch := range authorizationChanges() {
			t.Run(ch.name+" is refused by every read on B", func(t *testing.T) {
				open := testdb.Shared(t, e)
				a := newKitConfig(t, kit.Config{DB: open(), Definitions: restfulShopDefs()})
				b := newKitConfig(t, kit.Config{DB: open(), Definitions: restfulShopDefs()})
				ctx := t.Context()
				seed, err := testkit.SeedWorld(ctx, a, testkit.World{
					Teams: []string{"acme"},
					Users: []testkit.WorldUser{{Name: "mia", Team: "acme", Role: teamauth.RoleMember}},
				})
				if err != nil {
					t.Fatal(err)
				}
				token, tok, err := a.Accounts().CreateToken(ctx, seed.IDs["mia"], "second")
				if err != nil {
					t.Fatal(err)
				}
				actor := kit.Actor{UserID: seed.IDs["mia"], TeamID: seed.IDs["acme"], Role: teamauth.RoleMember}
				rec, err := a.Records("shopProducts").Create(ctx, actor, map[string]any{"title": "Lamp", "status": "live"})
				if err != nil {
					t.Fatal(err)
				}
				id := rec["id"].(string)
				reads := []struct{ name, path string }{
					{"a list", "/api/teams/acme/shop-products"},
					{"a filtered list", "/api/teams/acme/shop-products?filter=" + url.QueryEscape(`{"status":"live"}`)},
					{"a filtered list with no match", "/api/teams/acme/shop-products?filter=" + url.QueryEscape(`{"status":"gone"}`)},
					{"a get", "/api/teams/acme/shop-products/" + id},
					{"a get of a missing record", "/api/teams/acme/shop-products/00000000-0000-7000-8000-000000000000"},
					{"an ids read", "/api/teams/acme/shop-products?ids=" + id},
					{"a list by team id", "/api/teams/" + seed.IDs["acme"] + "/shop-products"},
				}
				srv := httptest.NewServer(b.Handler())
				t.Cleanup(srv.Close)
				get := func(path string) int {
					req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+path, nil)
					req.Header.Set("Authorization", "Bearer "+token)
					res, err := srv.Client().Do(req)
					if err != nil {
						t.Fatal(err)
					}
					res.Body.Close()
					return res.StatusCode
				}
				for _, r := range reads { // twice: B's cache holds mia's access
					for range 2 {
						want := http.StatusOK
						if r.name == "a get of a missing record" {
							want = http.StatusNotFound
						}
						if got := get(r.path); got != want {
							t.Fatalf("%s before the change: got %d, want %d", r.name, got, want)
						}
					}
				}
				if err := ch.change(ctx, a.Accounts(), seed.IDs["mia"], seed.IDs["acme"], tok.ID); err != nil {
					t.Fatal(err)
				}
				for _, r := range reads {
					if got := get(r.path); got != ch.want {
						t.Errorf("%s on B after the change on A: got %d, want %d", r.name, got, ch.want)
					}
				}
			})
		}
	})
}

// restfulShopDefs is shopDefs with products fetched restfully (GET /{id}).
func restfulShopDefs() []collections.Definition {
	p := productsDef()
	p.Config = &collections.Config{FetchStrategy: "restful"}
	return []collections.Definition{categoriesDef(), p}
}
