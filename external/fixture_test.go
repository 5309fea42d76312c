package external_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/testkit"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// fixture is a kit on an in-memory SQLite database, with two teams, their
// members and some products, served over real HTTP through httptest.
type fixture struct {
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

// newFixture builds a kit with the products collection and defs, seeds
//
//	acme:   alice (owner), adam (admin), mia (member), ben (member, banned)
//	globex: gina (owner)
//	root:   global admin, member of nothing
//
// and the products {hammer} and {saw} (acme) and {gadget} (globex), then
// runs setup (to register collections and mount routes) and starts the
// server.
func newFixture(t *testing.T, defs []collections.Definition, setup func(t *testing.T, f *fixture)) *fixture {
	t.Helper()
	logs := &testkit.Buffer{}
	k, err := kit.New(kit.Config{
		SQLitePath:  ":memory:external-" + strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()),
		Definitions: append([]collections.Definition{productsDefinition()}, defs...),
		Logger:      slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err != nil {
		t.Fatalf("kit.New: %v", err)
	}
	t.Cleanup(func() { k.Close() })
	f := &fixture{k: k, tokens: map[string]string{}, ids: map[string]string{}, logs: logs}
	ctx := t.Context()
	acc := k.Accounts()
	teams := map[string]*teamauth.Team{}
	for _, slug := range []string{"acme", "globex"} {
		team, err := acc.CreateTeam(ctx, teamauth.Team{Name: strings.ToUpper(slug[:1]) + slug[1:], Slug: slug})
		if err != nil {
			t.Fatal(err)
		}
		teams[slug] = team
		f.ids[slug] = team.ID
	}
	actors := map[string]kit.Actor{}
	for _, u := range []struct {
		name, team string
		role       teamauth.Role
		global     string
	}{
		{"alice", "acme", teamauth.RoleOwner, ""},
		{"adam", "acme", teamauth.RoleAdmin, ""},
		{"mia", "acme", teamauth.RoleMember, ""},
		{"ben", "acme", teamauth.RoleMember, ""},
		{"gina", "globex", teamauth.RoleOwner, ""},
		{"root", "", "", teamauth.UserRoleAdmin},
	} {
		user, err := acc.CreateUser(ctx, teamauth.User{Name: u.name, Email: u.name + "@example.com", Role: u.global})
		if err != nil {
			t.Fatal(err)
		}
		f.ids[u.name] = user.ID
		if u.team != "" {
			if _, err := acc.AddMember(ctx, teams[u.team].ID, user.ID, u.role); err != nil {
				t.Fatal(err)
			}
			actors[u.name] = kit.Actor{UserID: user.ID, TeamID: teams[u.team].ID, Role: u.role}
		}
		tok, _, err := acc.CreateToken(ctx, user.ID, "test")
		if err != nil {
			t.Fatal(err)
		}
		f.tokens[u.name] = tok
	}
	for _, p := range []struct{ owner, placeholder, title, sku string }{
		{"mia", "hammer", "Hammer", "H-1"}, {"mia", "saw", "Saw", "S-1"}, {"gina", "gadget", "Gadget", "G-1"},
	} {
		rec, err := k.Records("shopProducts").Create(ctx, actors[p.owner], map[string]any{"title": p.title, "sku": p.sku, "price": "9.50"})
		if err != nil {
			t.Fatal(err)
		}
		f.ids[p.placeholder] = rec["id"].(string)
	}
	if err := acc.SetBanned(ctx, f.ids["ben"], true); err != nil {
		t.Fatal(err)
	}
	if setup != nil {
		setup(t, f)
	}
	f.srv = testkit.ServeAPI(t, k.Handler())
	return f
}

// expand replaces {placeholders} with seeded ids.
func (f *fixture) expand(s string) string { return testkit.Expand(s, f.ids) }

type response struct {
	status int
	header http.Header
	body   string
}

// get sends GET path as caller: a seeded user's name, or "" for anonymous.
func (f *fixture) get(t *testing.T, path, caller string) response {
	t.Helper()
	r := testkit.Request{Method: http.MethodGet, URL: f.srv.URL + f.expand(path)}
	if caller != "" {
		tok, ok := f.tokens[caller]
		if !ok {
			t.Fatalf("no caller %q", caller)
		}
		r.Token = tok
	}
	res := testkit.Send(t, r)
	return response{status: res.Status, header: res.Header, body: res.Body}
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
				decodeJSON(t, res.body, &obj)
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
	decodeJSON(t, body, &items)
	ids := make([]string, 0, len(items))
	for _, it := range items {
		id, _ := it["id"].(string)
		ids = append(ids, id)
	}
	return ids
}

func decodeJSON(t *testing.T, body string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(body), v); err != nil {
		t.Fatalf("decode %q: %v", body, err)
	}
}

// errorBody is kit's error shape.
type errorBody struct {
	Status     int            `json:"status"`
	StatusText string         `json:"statusText"`
	Message    string         `json:"message"`
	Data       map[string]any `json:"data"`
}
