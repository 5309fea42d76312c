package kit_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/internal/testkit"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// deskDefinitions are the collections of the operations suites (trash,
// export, import): categories, items and folders (a tree) keep a trash;
// notes do not.
func deskDefinitions() []collections.Definition {
	trash := &collections.Config{SoftDelete: true}
	return []collections.Definition{
		{Name: "categories", Layer: "desk", Config: trash, Fields: []collections.Field{
			{Name: "title", Type: collections.TypeString, Meta: collections.FieldMeta{Required: true}},
		}},
		{Name: "tasks", Layer: "desk", Config: trash, Fields: []collections.Field{
			{Name: "title", Type: collections.TypeString, Meta: collections.FieldMeta{Required: true}},
			{Name: "sku", Type: collections.TypeString, Meta: collections.FieldMeta{Unique: true}},
			{Name: "price", Type: collections.TypeDecimal, Meta: collections.FieldMeta{Precision: 10, Scale: 2}},
			{Name: "stock", Type: collections.TypeNumber},
			{Name: "isActive", Type: collections.TypeBoolean},
			{Name: "dueAt", Type: collections.TypeDate},
			{Name: "categoryId", Type: collections.TypeString, RefTarget: "deskCategories"},
		}},
		{Name: "folders", Layer: "desk", Config: &collections.Config{SoftDelete: true, Hierarchy: &collections.Hierarchy{Enabled: true}},
			Fields: []collections.Field{{Name: "title", Type: collections.TypeString, Meta: collections.FieldMeta{Required: true}}}},
		{Name: "notes", Layer: "desk", Fields: []collections.Field{
			{Name: "body", Type: collections.TypeText},
		}},
	}
}

// deskWorld is the world of the operations suites:
//
//	acme:   alice (owner), mia (member), max (member)
//	globex: gina (owner)
//
// mia owns {acmeCategory}, {miaItem} (sku MIA-1, in {acmeCategory}),
// {miaNote}, and the folders {rootFolder} and {childFolder} (under it);
// max owns {maxItem} (sku MAX-1, no category); gina owns {ginaItem}.
var deskWorld = testkit.World{
	Teams: []string{"acme", "globex"},
	Users: []testkit.WorldUser{
		{Name: "alice", Team: "acme", Role: teamauth.RoleOwner},
		{Name: "mia", Team: "acme", Role: teamauth.RoleMember},
		{Name: "max", Team: "acme", Role: teamauth.RoleMember},
		{Name: "gina", Team: "globex", Role: teamauth.RoleOwner},
	},
	Records: []testkit.WorldRecord{
		{Placeholder: "acmeCategory", Collection: "deskCategories", Owner: "mia", Data: map[string]any{"title": "Tools"}},
		{Placeholder: "miaItem", Collection: "deskTasks", Owner: "mia", Data: map[string]any{
			"title": "mia's item", "sku": "MIA-1", "price": "9.99", "stock": 3, "isActive": true,
			"dueAt": "2026-12-01T00:00:00Z", "categoryId": "{acmeCategory}"}},
		{Placeholder: "maxItem", Collection: "deskTasks", Owner: "max", Data: map[string]any{"title": "max's item", "sku": "MAX-1"}},
		{Placeholder: "ginaItem", Collection: "deskTasks", Owner: "gina", Data: map[string]any{"title": "gina's item", "sku": "GINA-1"}},
		{Placeholder: "miaNote", Collection: "deskNotes", Owner: "mia", Data: map[string]any{"body": "a note"}},
		{Placeholder: "rootFolder", Collection: "deskFolders", Owner: "mia", Data: map[string]any{"title": "root"}},
		{Placeholder: "childFolder", Collection: "deskFolders", Owner: "mia", Data: map[string]any{"title": "child", "parentId": "{rootFolder}"}},
	},
}

// deskTables are the desk world's tables, with the trash.
var deskTables = []string{"desk_categories", "desk_tasks", "desk_folders", "desk_notes", "kit_trash"}

// desk is a Kit on a private copy of deskWorld, served over httptest.
type desk struct {
	site *testkit.Site
	k    *kit.Kit
	ids  map[string]string
}

var deskWorlds testkit.Worlds

func newDesk(t *testing.T, e testdb.Engine, mutate ...func(*kit.Config)) *desk {
	t.Helper()
	k, seed := deskWorlds.Open(t, e, "desk", kit.Config{Definitions: deskDefinitions()}, deskWorld, mutate...)
	return &desk{site: testkit.Serve(t, k, seed), k: k, ids: seed.IDs}
}

// do sends method path as caller with a JSON body when body is set.
func (d *desk) do(t *testing.T, method, path, caller, body string, header ...string) response {
	t.Helper()
	ct := ""
	if body != "" {
		ct = "application/json"
	}
	r := d.site.Do(t, method, path, caller, ct, body, header...)
	return response{status: r.Status, header: r.Header, body: r.Body}
}

// snapshot fingerprints every row of the desk tables and the trash.
func (d *desk) snapshot(t *testing.T) map[string]string {
	t.Helper()
	return d.site.Snapshot(t, deskTables...)
}

// count returns the rows of table.
func (d *desk) count(t *testing.T, table string) int {
	t.Helper()
	var n int
	if err := d.k.DB().QueryRowContext(context.Background(), "SELECT count(*) FROM "+table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// total returns the list total of path as caller.
func (d *desk) total(t *testing.T, path, caller string) int {
	t.Helper()
	res := d.do(t, "GET", path, caller, "")
	if res.status != 200 {
		t.Fatalf("GET %s: got %d %s", path, res.status, res.body)
	}
	var page struct {
		Pagination kit.Pagination `json:"pagination"`
	}
	if err := json.Unmarshal([]byte(res.body), &page); err != nil {
		t.Fatal(err)
	}
	return page.Pagination.TotalItems
}

// changeOps returns the operations of the change log, oldest first.
func (d *desk) changeOps(t *testing.T) []string {
	t.Helper()
	rows, err := d.k.DB().QueryContext(context.Background(), "SELECT operation FROM kit_changes ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var op string
		if err := rows.Scan(&op); err != nil {
			t.Fatal(err)
		}
		out = append(out, op)
	}
	return out
}
