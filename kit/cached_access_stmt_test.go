package kit_test

import (
	"encoding/json"
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

// TestACachedWriteOnPostgreSQLTestsTheVersionInItsWriteStatement checks
// where a create, an update and a delete authorized from the accounts
// cache read kit_auth_state's version on PostgreSQL: in the one statement
// that writes the record, with no statement (no round trip) of its own.
// (An admin's writes: a member's delete reads the record first, in a
// transaction, which reads the version too.)
func TestACachedWriteOnPostgreSQLTestsTheVersionInItsWriteStatement(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		if e != testdb.EnginePostgres {
			t.Skip("SQLite reads the version in the write queue's transaction")
		}
		log := &queryLog{}
		k := newKitConfig(t, kit.Config{DB: testdb.Open(t, e), Definitions: restfulShopDefs(), QueryHook: log})
		ctx := t.Context()
		seed, err := testkit.SeedWorld(ctx, k, testkit.World{Teams: []string{"acme"}, Users: []testkit.WorldUser{{Name: "mia", Team: "acme", Role: teamauth.RoleAdmin}}})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(k.Handler())
		t.Cleanup(srv.Close)
		send := func(method, path, body string, want int) string {
			req, _ := http.NewRequestWithContext(ctx, method, srv.URL+path, strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+seed.Tokens["mia"])
			req.Header.Set("Content-Type", "application/json")
			res, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			var out struct {
				ID string `json:"id"`
			}
			_ = json.NewDecoder(res.Body).Decode(&out)
			if res.StatusCode != want {
				t.Fatalf("%s %s: got %d, want %d", method, path, res.StatusCode, want)
			}
			return out.ID
		}
		products := "/api/teams/acme/shop-products"
		send(http.MethodPost, products, `{"title":"Warm","status":"live"}`, http.StatusCreated) // the cache fills
		var id string
		writes := []struct {
			name, verb string
			do         func()
		}{
			{"a create", "INSERT", func() { id = send(http.MethodPost, products, `{"title":"Lamp","status":"live"}`, http.StatusCreated) }},
			{"an update", "UPDATE", func() { send(http.MethodPatch, products+"/"+id, `{"title":"Lamp 2"}`, http.StatusOK) }},
			{"a delete", "DELETE", func() { send(http.MethodDelete, products+"/"+id, "", http.StatusNoContent) }},
		}
		for _, w := range writes {
			t.Run(w.name+" reads the version in its write statement only", func(t *testing.T) {
				n := log.len()
				w.do()
				var named []string
				for _, q := range log.since(n) {
					if strings.Contains(q.query, "kit_auth_state") {
						named = append(named, q.query)
					}
				}
				if len(named) != 1 || !strings.Contains(named[0], w.verb) {
					t.Errorf("statements naming kit_auth_state: got %q, want one, the %s", named, w.verb)
				}
			})
		}
	})
}
