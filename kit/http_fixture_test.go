package kit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/internal/testkit"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// world is a kit with two teams, their members and some records, served
// over real HTTP through httptest.
type world struct {
	k      *kit.Kit
	srv    *httptest.Server
	tokens map[string]string // caller name -> bearer token
	ids    map[string]string // placeholder -> id

	mu    sync.Mutex
	hooks []kit.Mutation // after-commit hooks seen
	txs   int            // in-transaction hooks seen
}

func shopDefinitions() []collections.Definition {
	return []collections.Definition{
		{Name: "categories", Layer: "shop", Fields: []collections.Field{
			{Name: "title", Type: collections.TypeString, Meta: collections.FieldMeta{Required: true}},
		}},
		{Name: "products", Layer: "shop", Config: &collections.Config{FetchStrategy: "restful"}, Fields: []collections.Field{
			{Name: "title", Type: collections.TypeString, Meta: collections.FieldMeta{Required: true}},
			{Name: "sku", Type: collections.TypeString, Meta: collections.FieldMeta{Unique: true}},
			{Name: "price", Type: collections.TypeDecimal, Meta: collections.FieldMeta{Precision: 10, Scale: 2}},
			{Name: "categoryId", Type: collections.TypeString, RefTarget: "categories"},
		}},
		{Name: "notes", Layer: "app", Fields: []collections.Field{
			{Name: "body", Type: collections.TypeText},
		}},
	}
}

// newWorld seeds:
//
//	acme:   alice (owner), adam (admin), mia (member), max (member), ben (member, banned)
//	globex: gina (owner)
//	root:   global admin, member of nothing
//
// Each of mia, max and gina owns one product ({miaProduct}, ...); acme
// and globex each have a category.
func newWorld(t *testing.T, e testdb.Engine, mutate ...func(*kit.Config)) *world {
	t.Helper()
	cfg := kit.Config{
		DB:          testdb.Open(t, e),
		Definitions: shopDefinitions(),
	}
	for _, m := range mutate {
		m(&cfg)
	}
	k, err := kit.New(cfg)
	if err != nil {
		t.Fatalf("kit.New: %v", err)
	}
	t.Cleanup(func() { k.Close() })
	w := &world{k: k, tokens: map[string]string{}, ids: map[string]string{}}
	ctx := t.Context()
	acc := k.Accounts()
	acme, err := acc.CreateTeam(ctx, teamauth.Team{Name: "Acme", Slug: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	globex, err := acc.CreateTeam(ctx, teamauth.Team{Name: "Globex", Slug: "globex"})
	if err != nil {
		t.Fatal(err)
	}
	w.ids["acme"], w.ids["globex"] = acme.ID, globex.ID
	users := []struct {
		name, team string
		role       teamauth.Role
		global     string
	}{
		{"alice", acme.ID, teamauth.RoleOwner, ""},
		{"adam", acme.ID, teamauth.RoleAdmin, ""},
		{"mia", acme.ID, teamauth.RoleMember, ""},
		{"max", acme.ID, teamauth.RoleMember, ""},
		{"ben", acme.ID, teamauth.RoleMember, ""},
		{"gina", globex.ID, teamauth.RoleOwner, ""},
		{"root", "", "", teamauth.UserRoleAdmin},
	}
	actors := map[string]kit.Actor{}
	for _, u := range users {
		user, err := acc.CreateUser(ctx, teamauth.User{Name: u.name, Role: u.global})
		if err != nil {
			t.Fatal(err)
		}
		w.ids[u.name] = user.ID
		if u.team != "" {
			if _, err := acc.AddMember(ctx, u.team, user.ID, u.role); err != nil {
				t.Fatal(err)
			}
			actors[u.name] = kit.Actor{UserID: user.ID, TeamID: u.team, Role: u.role}
		}
		tok, _, err := acc.CreateToken(ctx, user.ID, "test")
		if err != nil {
			t.Fatal(err)
		}
		w.tokens[u.name] = tok
	}
	if err := acc.SetBanned(ctx, w.ids["ben"], true); err != nil {
		t.Fatal(err)
	}
	for _, s := range []struct{ owner, placeholder, title string }{
		{"mia", "acmeCategory", "Tools"}, {"gina", "globexCategory", "Gadgets"},
	} {
		rec, err := k.Records("shopCategories").Create(ctx, actors[s.owner], map[string]any{"title": s.title})
		if err != nil {
			t.Fatal(err)
		}
		w.ids[s.placeholder] = rec["id"].(string)
	}
	for _, s := range []struct{ owner, sku string }{{"mia", "MIA-1"}, {"max", "MAX-1"}, {"gina", "GINA-1"}} {
		cat := w.ids["acmeCategory"]
		if s.owner == "gina" {
			cat = w.ids["globexCategory"]
		}
		rec, err := k.Records("shopProducts").Create(ctx, actors[s.owner], map[string]any{
			"title": s.owner + "'s product", "sku": s.sku, "price": "9.99", "categoryId": cat})
		if err != nil {
			t.Fatal(err)
		}
		w.ids[s.owner+"Product"] = rec["id"].(string)
	}
	k.OnMutationTx(func(ctx context.Context, tx bun.Tx, m *kit.Mutation) error {
		w.mu.Lock()
		w.txs++
		w.mu.Unlock()
		return nil
	})
	k.OnMutation(func(ctx context.Context, m kit.Mutation) {
		w.mu.Lock()
		w.hooks = append(w.hooks, m)
		w.mu.Unlock()
	})
	w.srv = testkit.ServeAPI(t, k.Handler())
	return w
}

// expand replaces {placeholders} with seeded ids.
func (w *world) expand(s string) string { return testkit.Expand(s, w.ids) }

type response struct {
	status int
	header http.Header
	body   string
}

// do sends one request as caller: a seeded user's name, "" for anonymous,
// "bad" for a token that does not exist.
func (w *world) do(t *testing.T, method, path, caller, contentType, body string, header ...string) response {
	t.Helper()
	token := ""
	switch caller {
	case "":
	case "bad":
		token = "kit_not-a-real-token"
	default:
		tok, ok := w.tokens[caller]
		if !ok {
			t.Fatalf("no caller %q", caller)
		}
		token = tok
	}
	r := testkit.Send(t, testkit.Request{Method: method, URL: w.srv.URL + w.expand(path), Token: token,
		ContentType: contentType, Body: w.expand(body), Header: header})
	return response{status: r.Status, header: r.Header, body: r.Body}
}

// worldTables are the collection tables of the shop world.
var worldTables = []string{"shop_categories", "shop_products", "app_notes"}

// snapshot fingerprints every row of the world's tables (see tableSnapshot).
func (w *world) snapshot(t *testing.T) map[string]string {
	t.Helper()
	return testkit.TableSnapshot(t, w.k.DB(), worldTables...)
}

func (w *world) resetHooks() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.hooks, w.txs = nil, 0
}

func (w *world) hookCount() (tx, after int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.txs, len(w.hooks)
}

func decodeJSON(t *testing.T, body string, v any) {
	t.Helper()
	if err := json.NewDecoder(bytes.NewReader([]byte(body))).Decode(v); err != nil {
		t.Fatalf("decode %q: %v", body, err)
	}
}
