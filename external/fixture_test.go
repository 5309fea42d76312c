package external_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/internal/testkit"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/kittest"
	"github.com/collectionkit/kit/teamauth"
)

// fixture is a kit on an in-memory SQLite database, with two teams, their
// members and some products, served over real HTTP through httptest.
type fixture struct {
	site   *testkit.Site
	k      *kit.Kit
	srv    *httptest.Server
	tokens map[string]string // caller name -> bearer token
	ids    map[string]string // placeholder -> id
	logs   *testkit.Buffer
}

// logLines returns the lines of f's log that contain s.
func (f *fixture) logLines(s string) []string {
	var out []string
	for _, line := range strings.Split(f.logs.String(), "\n") {
		if strings.Contains(line, s) {
			out = append(out, line)
		}
	}
	return out
}

func productsDefinition() collections.Definition {
	return collections.Definition{Name: "products", Layer: "shop", Fields: []collections.Field{
		{Name: "title", Type: collections.TypeString, Meta: collections.FieldMeta{Required: true}},
		{Name: "sku", Type: collections.TypeString},
		{Name: "price", Type: collections.TypeDecimal, Meta: collections.FieldMeta{Precision: 10, Scale: 2}},
	}}
}

// productsWorld is the world of the external suites:
//
//	acme:   alice (owner), adam (admin), mia (member), ben (member, banned)
//	globex: gina (owner)
//	root:   global admin, member of nothing
//
// and the products {hammer} and {saw} (acme) and {gadget} (globex).
var productsWorld = testkit.World{
	Teams: []string{"acme", "globex"},
	Users: []testkit.WorldUser{
		worldUser("alice", "acme", teamauth.RoleOwner, "", false),
		worldUser("adam", "acme", teamauth.RoleAdmin, "", false),
		worldUser("mia", "acme", teamauth.RoleMember, "", false),
		worldUser("ben", "acme", teamauth.RoleMember, "", true),
		worldUser("gina", "globex", teamauth.RoleOwner, "", false),
		worldUser("root", "", "", teamauth.UserRoleAdmin, false),
	},
	Records: []testkit.WorldRecord{
		{Placeholder: "hammer", Collection: "shopProducts", Owner: "mia", Data: map[string]any{"title": "Hammer", "sku": "H-1", "price": "9.50"}},
		{Placeholder: "saw", Collection: "shopProducts", Owner: "mia", Data: map[string]any{"title": "Saw", "sku": "S-1", "price": "9.50"}},
		{Placeholder: "gadget", Collection: "shopProducts", Owner: "gina", Data: map[string]any{"title": "Gadget", "sku": "G-1", "price": "9.50"}},
	},
}

// worldUser is a seeded user with an email address.
func worldUser(name, team string, role teamauth.Role, global string, banned bool) testkit.WorldUser {
	return testkit.WorldUser{Name: name, Team: team, Role: role, Banned: banned,
		User: teamauth.User{Email: name + "@example.com", Role: global}}
}

// worlds seeds productsWorld once per test binary.
var worlds testkit.Worlds

// newFixture builds a kit with the products collection and defs on a
// private copy of productsWorld, then runs setup (to register collections
// and mount routes) and starts the server.
func newFixture(t *testing.T, defs []collections.Definition, setup func(t *testing.T, f *fixture)) *fixture {
	t.Helper()
	logs := &testkit.Buffer{}
	k, seed := worlds.Open(t, testdb.EngineSQLite, "products", kit.Config{Definitions: []collections.Definition{productsDefinition()}}, productsWorld,
		func(c *kit.Config) {
			c.Definitions = append(c.Definitions, defs...)
			c.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		})
	f := &fixture{k: k, tokens: seed.Tokens, ids: seed.IDs, logs: logs}
	if setup != nil {
		setup(t, f)
	}
	f.site = testkit.Serve(t, k, seed)
	f.srv = f.site.Server
	return f
}

// expand replaces {placeholders} with seeded ids.
func (f *fixture) expand(s string) string { return kittest.Expand(s, f.ids) }

type response struct {
	status int
	header http.Header
	body   string
}

// get sends GET path as caller: a seeded user's name, or "" for anonymous.
func (f *fixture) get(t *testing.T, path, caller string) response {
	t.Helper()
	r := f.site.Do(t, http.MethodGet, path, caller, "", "")
	return response{status: r.Status, header: r.Header, body: r.Body}
}

// scenario is one request and what its answer must be.
type scenario struct {
	name   string
	path   string
	caller string
	status int
	// ids, when not nil, are the item ids the answer (an array) must hold,
	// in order; id is the id of a single-object answer.
	ids []string
	id  string
	// contains and absent are substrings the body must and must not hold.
	contains []string
	absent   []string
}

func (f *fixture) run(t *testing.T, scenarios []scenario) {
	t.Helper()
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			res := f.get(t, sc.path, sc.caller)
			if res.status != sc.status {
				t.Fatalf("GET %s as %q: got status %d, want %d (body %s)", sc.path, sc.caller, res.status, sc.status, res.body)
			}
			if sc.ids != nil {
				if got, want := arrayIDs(t, res.body), f.expandAll(sc.ids); !slices.Equal(got, want) {
					t.Errorf("got ids %v, want %v (body %s)", got, want, res.body)
				}
			}
			if sc.id != "" {
				var obj map[string]any
				testkit.DecodeJSON(t, res.body, &obj)
				if got, want := obj["id"], f.expand(sc.id); got != want {
					t.Errorf("got id %v, want %v (body %s)", got, want, res.body)
				}
			}
			for _, s := range sc.contains {
				if !strings.Contains(res.body, f.expand(s)) {
					t.Errorf("body %s: got no %q, want it", res.body, f.expand(s))
				}
			}
			for _, s := range sc.absent {
				if strings.Contains(res.body, f.expand(s)) {
					t.Errorf("body %s: got %q, want it absent", res.body, f.expand(s))
				}
			}
		})
	}
}

func (f *fixture) expandAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = f.expand(s)
	}
	return out
}

// arrayIDs returns the ids of a JSON array of items.
func arrayIDs(t *testing.T, body string) []string {
	t.Helper()
	var items []map[string]any
	testkit.DecodeJSON(t, body, &items)
	ids := make([]string, 0, len(items))
	for _, it := range items {
		id, _ := it["id"].(string)
		ids = append(ids, id)
	}
	return ids
}

// errorBody is kit's error shape.
type errorBody struct {
	Status     int            `json:"status"`
	StatusText string         `json:"statusText"`
	Message    string         `json:"message"`
	Data       map[string]any `json:"data"`
}
