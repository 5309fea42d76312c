package kit_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/internal/testkit"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// TestACachedReadConfirmsTheVersionInItsOwnStatement checks where a read
// authorized from the accounts cache reads kit_auth_state's version: in
// the statement that reads its records (no statement or round trip of its
// own), on both engines.
func TestACachedReadConfirmsTheVersionInItsOwnStatement(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		log := &queryLog{}
		k := newKitConfig(t, kit.Config{DB: testdb.Open(t, e), Definitions: restfulShopDefs(), QueryHook: log})
		ctx := t.Context()
		seed, err := testkit.SeedWorld(ctx, k, testkit.World{Teams: []string{"acme"}, Users: []testkit.WorldUser{{Name: "mia", Team: "acme", Role: teamauth.RoleMember}}})
		if err != nil {
			t.Fatal(err)
		}
		actor := kit.Actor{UserID: seed.IDs["mia"], TeamID: seed.IDs["acme"], Role: teamauth.RoleMember}
		rec, err := k.Records("shopProducts").Create(ctx, actor, map[string]any{"title": "Lamp", "status": "live"})
		if err != nil {
			t.Fatal(err)
		}
		id := rec["id"].(string)
		srv := httptest.NewServer(k.Handler())
		t.Cleanup(srv.Close)
		get := func(path string) {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+path, nil)
			req.Header.Set("Authorization", "Bearer "+seed.Tokens["mia"])
			res, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusOK {
				t.Fatalf("GET %s: got %d, want 200", path, res.StatusCode)
			}
		}
		reads := []struct{ name, path string }{
			{"a get", "/api/teams/acme/shop-products/" + id},
			{"a list", "/api/teams/acme/shop-products"},
			{"a filtered list", "/api/teams/acme/shop-products?filter=" + url.QueryEscape(`{"status":"live"}`)},
			{"an ids read", "/api/teams/acme/shop-products?ids=" + id},
		}
		get(reads[0].path) // the cache fills, the token's use is recorded
		for _, r := range reads {
			t.Run(r.name+" reads the version with its records", func(t *testing.T) {
				get(r.path) // the cache holds what this read's lookups need
				n := log.len()
				get(r.path)
				probed := false
				for _, q := range log.since(n) {
					probed = probed || strings.Contains(q.query, "kit_auth_state")
				}
				if !probed {
					t.Errorf("a statement of the read names kit_auth_state: got false, want true")
				}
			})
		}
	})
}
