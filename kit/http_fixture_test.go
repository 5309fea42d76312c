package kit_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/internal/testkit"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// world is a kit with two teams, their members and some records, served
// over real HTTP through httptest, and the mutations both hook phases saw.
type world struct {
	site   *testkit.Site
	k      *kit.Kit
	srv    *httptest.Server
	tokens map[string]string // caller name -> bearer token
	ids    map[string]string // placeholder -> id
	*hookRecorder
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
			{Name: "stock", Type: collections.TypeNumber},
			{Name: "categoryId", Type: collections.TypeString, RefTarget: "categories"},
		}},
		{Name: "notes", Layer: "app", Fields: []collections.Field{
			{Name: "body", Type: collections.TypeText},
		}},
	}
}

// shopWorld is the world of the HTTP suites:
//
//	acme:   alice (owner), adam (admin), mia (member), max (member), ben (member, banned)
//	globex: gina (owner)
//	root:   global admin, member of nothing
//
// Each of mia, max and gina owns one product ({miaProduct}, ...); acme
// and globex each have a category.
var shopWorld = testkit.World{
	Teams: []string{"acme", "globex"},
	Users: []testkit.WorldUser{
		{Name: "alice", Team: "acme", Role: teamauth.RoleOwner},
		{Name: "adam", Team: "acme", Role: teamauth.RoleAdmin},
		{Name: "mia", Team: "acme", Role: teamauth.RoleMember},
		{Name: "max", Team: "acme", Role: teamauth.RoleMember},
		{Name: "ben", Team: "acme", Role: teamauth.RoleMember, Banned: true},
		{Name: "gina", Team: "globex", Role: teamauth.RoleOwner},
		{Name: "root", User: teamauth.User{Role: teamauth.UserRoleAdmin}},
	},
	Records: []testkit.WorldRecord{
		{Placeholder: "acmeCategory", Collection: "shopCategories", Owner: "mia", Data: map[string]any{"title": "Tools"}},
		{Placeholder: "globexCategory", Collection: "shopCategories", Owner: "gina", Data: map[string]any{"title": "Gadgets"}},
		{Placeholder: "miaProduct", Collection: "shopProducts", Owner: "mia", Data: map[string]any{
			"title": "mia's product", "sku": "MIA-1", "price": "9.99", "categoryId": "{acmeCategory}"}},
		{Placeholder: "maxProduct", Collection: "shopProducts", Owner: "max", Data: map[string]any{
			"title": "max's product", "sku": "MAX-1", "price": "9.99", "categoryId": "{acmeCategory}"}},
		{Placeholder: "ginaProduct", Collection: "shopProducts", Owner: "gina", Data: map[string]any{
			"title": "gina's product", "sku": "GINA-1", "price": "9.99", "categoryId": "{globexCategory}"}},
	},
}

// worlds seeds shopWorld once per engine and test binary.
var worlds testkit.Worlds

// newWorld returns a Kit on a private copy of shopWorld, with mutate
// applied to its configuration, served over httptest, recording the
// mutations both hook phases see.
func newWorld(t *testing.T, e testdb.Engine, mutate ...func(*kit.Config)) *world {
	t.Helper()
	k, seed := worlds.Open(t, e, "shop", kit.Config{Definitions: shopDefinitions()}, shopWorld, mutate...)
	w := serveWorld(t, k, seed)
	w.hookRecorder = recordHooks(k)
	return w
}

// serveWorld serves k, seeded as seed, over httptest, with no mutation
// listener. Besides the seeded users, the caller "bad" sends a token that
// does not exist.
func serveWorld(t *testing.T, k *kit.Kit, seed testkit.Seed) *world {
	t.Helper()
	seed.Tokens["bad"] = "kit_not-a-real-token"
	site := testkit.Serve(t, k, seed)
	return &world{site: site, k: k, srv: site.Server, tokens: seed.Tokens, ids: seed.IDs}
}

// expand replaces {placeholders} with seeded ids.
func (w *world) expand(s string) string { return w.site.Expand(s) }

type response struct {
	status int
	header http.Header
	body   string
}

// do sends one request as caller: a seeded user's name, "" for anonymous,
// "bad" for a token that does not exist.
func (w *world) do(t *testing.T, method, path, caller, contentType, body string, header ...string) response {
	t.Helper()
	r := w.site.Do(t, method, path, caller, contentType, body, header...)
	return response{status: r.Status, header: r.Header, body: r.Body}
}

// worldTables are the collection tables of the shop world.
var worldTables = []string{"shop_categories", "shop_products", "app_notes"}

// snapshot fingerprints every row of the world's tables.
func (w *world) snapshot(t *testing.T) map[string]string {
	t.Helper()
	return w.site.Snapshot(t, worldTables...)
}
