package kit_test

import (
	"slices"
	"testing"

	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/internal/testkit"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

const (
	treeFolders = "/api/teams/acme/docs-folders"
	treeTasks   = "/api/teams/acme/docs-tasks"
)

// newTreeWorld is the HTTP world (see newWorld) with the tree fixtures,
// seeded like seedTree with the world's users and placeholders:
//
//	acme:   {fR1} (mia) > {fA} (mia) > {fA1} (max) > {fA1x} (max)
//	                      {fA} > {fA2} (mia)
//	        {fR1} > {fB} (max)
//	        {fR2} (adam) > {fC} (adam)
//	globex: {gR} (gina) > {gC} (gina)
//
// and tasks {task1}, {task2} (mia), {task3} (max) in acme, {gTask} in
// globex.
func newTreeWorld(t *testing.T, e testdb.Engine) *world {
	t.Helper()
	w := newWorld(t, e, func(cfg *kit.Config) { cfg.Definitions = append(cfg.Definitions, treeDefinitions()...) })
	actor := func(name string) kit.Actor {
		team, role := w.ids["acme"], teamauth.RoleMember
		switch name {
		case "adam":
			role = teamauth.RoleAdmin
		case "gina":
			team, role = w.ids["globex"], teamauth.RoleOwner
		}
		return kit.Actor{UserID: w.ids[name], TeamID: team, Role: role}
	}
	for _, n := range []struct{ owner, ph, parent string }{
		{"mia", "fR1", ""}, {"mia", "fA", "fR1"}, {"max", "fA1", "fA"}, {"max", "fA1x", "fA1"}, {"mia", "fA2", "fA"},
		{"max", "fB", "fR1"}, {"adam", "fR2", ""}, {"adam", "fC", "fR2"}, {"gina", "gR", ""}, {"gina", "gC", "gR"},
	} {
		body := map[string]any{"title": "folder " + n.ph}
		if n.parent != "" {
			body["parentId"] = w.ids[n.parent]
		}
		rec, err := w.k.Records(foldersKey).Create(t.Context(), actor(n.owner), body)
		if err != nil {
			t.Fatal(err)
		}
		w.ids[n.ph] = rec["id"].(string)
	}
	for _, n := range []struct{ owner, ph string }{{"mia", "task1"}, {"mia", "task2"}, {"max", "task3"}, {"gina", "gTask"}} {
		rec, err := w.k.Records(tasksKey).Create(t.Context(), actor(n.owner), map[string]any{"title": "task " + n.ph})
		if err != nil {
			t.Fatal(err)
		}
		w.ids[n.ph] = rec["id"].(string)
	}
	return w
}

// runTreeScenarios runs each scenario in a fresh tree world on every
// engine; rows counts the rows changed in the tree, task and shop tables.
func runTreeScenarios(t *testing.T, scenarios []scenario) {
	t.Helper()
	tables := []string{foldersTable, tasksTable, "shop_categories", "shop_products", "app_notes"}
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		for _, sc := range scenarios {
			t.Run(sc.name, func(t *testing.T) {
				w := newTreeWorld(t, e)
				checkScenario(t, w, sc, tables, func(t *testing.T) { requireTree(t, w.k.DB(), foldersTable) })
			})
		}
	})
}

func TestTreeMoveEndpoint(t *testing.T) {
	t.Parallel()
	move := func(ph string) string { return treeFolders + "/{" + ph + "}/move" }
	runTreeScenarios(t, []scenario{
		{name: "a member moves their own node under another parent at a position", method: "PATCH", path: move("fA"), caller: "mia",
			body: `{"parentId":"{fR2}","order":0}`, status: 200,
			contains: []string{`"id":"{fA}"`, `"parentId":"{fR2}"`, `"order":0`, `"depth":1`, `"path":"/{fR2}/{fA}/"`, `"updatedBy":"{mia}"`},
			hooks:    1, rows: 6}, // a and its three descendants, b closing the gap, c making room
		{name: "a move to the roots with an order past the end appends", method: "PATCH", path: move("fA"), caller: "adam",
			body: `{"parentId":null,"order":99}`, status: 200, contains: []string{`"parentId":null`, `"order":2`, `"depth":0`, `"path":"/{fA}/"`}, hooks: 1, rows: 5},
		{name: "a move without an order appends", method: "PATCH", path: move("fC"), caller: "adam",
			body: `{"parentId":"{fR1}"}`, status: 200, contains: []string{`"order":2`, `"depth":1`}, hooks: 1, rows: 1},
		{name: "a move within the same parent renumbers the siblings", method: "PATCH", path: move("fB"), caller: "adam",
			body: `{"parentId":"{fR1}","order":0}`, status: 200, contains: []string{`"order":0`}, hooks: 1, rows: 2},
		{name: "a move to where the node is changes nothing and fires no hook", method: "PATCH", path: move("fA"), caller: "mia",
			body: `{"parentId":"{fR1}","order":0}`, status: 200, contains: []string{`"order":0`}},
		{name: "a move under the node itself is a 400", method: "PATCH", path: move("fA"), caller: "mia",
			body: `{"parentId":"{fA}","order":0}`, status: 400, contains: []string{`"parentId":"cannot move a record under itself"`}},
		{name: "a move under a descendant is a 400", method: "PATCH", path: move("fR1"), caller: "adam",
			body: `{"parentId":"{fA1x}","order":0}`, status: 400, contains: []string{`"parentId":"cannot move a record under one of its own descendants"`}},
		{name: "a move under another team's node is a 400, never a root", method: "PATCH", path: move("fA"), caller: "mia",
			body: `{"parentId":"{gR}","order":0}`, status: 400, contains: []string{`"parentId":"refers to no docsFolders record of this team"`}},
		{name: "a move of another team's node through this team is a 404 like a missing one", method: "PATCH", path: move("gR"), caller: "adam",
			body: `{"parentId":null,"order":0}`, status: 404, contains: []string{notFoundBody}, notContains: []string{"folder gR"}},
		{name: "a move of a missing node is a 404", method: "PATCH", path: treeFolders + "/00000000-0000-0000-0000-000000000000/move", caller: "adam",
			body: `{"parentId":null,"order":0}`, status: 404, contains: []string{notFoundBody}},
		{name: "a move of another team's node through that team is refused to non-members", method: "PATCH", path: "/api/teams/globex/docs-folders/{gR}/move", caller: "mia",
			body: `{"parentId":null,"order":0}`, status: 403},
		{name: "a member cannot move another member's node of the team: 403", method: "PATCH", path: move("fB"), caller: "mia",
			body: `{"parentId":null,"order":0}`, status: 403, contains: []string{`"message":"a member may move only the records they own; team admins and owners may move any"`}},
		{name: "a negative order is a 400", method: "PATCH", path: move("fA"), caller: "mia",
			body: `{"parentId":null,"order":-1}`, status: 400, contains: []string{`"order":"must be 0 or more`}},
		{name: "a fractional order is a 400", method: "PATCH", path: move("fA"), caller: "mia",
			body: `{"parentId":null,"order":1.5}`, status: 400, contains: []string{`"order":"must be a whole number`}},
		{name: "a move without parentId is a 400", method: "PATCH", path: move("fA"), caller: "mia",
			body: `{"order":0}`, status: 400, contains: []string{`"parentId":"is required: the new parent's id, or null for a root"`}},
		{name: "a parentId that is not a string is a 400", method: "PATCH", path: move("fA"), caller: "mia",
			body: `{"parentId":7}`, status: 400, contains: []string{`"parentId":"must be the id of a record`}},
		{name: "an unknown field in a move is a 400", method: "PATCH", path: move("fA"), caller: "mia",
			body: `{"parentId":null,"title":"x"}`, status: 400, contains: []string{`"title":"unknown field: a move takes \"parentId\" and \"order\""`}},
		{name: "a move in a sortable collection is a 404 naming the reason", method: "PATCH", path: treeTasks + "/{task1}/move", caller: "mia",
			body: `{"parentId":null}`, status: 404, contains: []string{"not a tree collection"}},
		{name: "an anonymous move is a 401", method: "PATCH", path: move("fA"), body: `{"parentId":null}`, status: 401},
		{name: "a move that is not JSON is a 415", method: "PATCH", path: move("fA"), caller: "mia", body: `parentId=`, contentType: "text/plain", status: 415},
		{name: "GET on a move is a 405", method: "GET", path: move("fA"), caller: "mia", status: 405, contains: []string{`"status":405`}},
	})
}

func TestTreeReorderEndpoint(t *testing.T) {
	t.Parallel()
	reorder := treeFolders + "/reorder"
	runTreeScenarios(t, []scenario{
		{name: "an admin reorders the roots", method: "PATCH", path: reorder, caller: "adam", body: `{"ids":["{fR2}","{fR1}"]}`, status: 200,
			contains: []string{`"items":[{`, `"id":"{fR2}"`}, hooks: 1, rows: 2},
		{name: "the updates form moves one child first", method: "PATCH", path: reorder, caller: "adam", body: `{"updates":[{"id":"{fB}","order":0}]}`, status: 200,
			contains: []string{`"items":[{`}, hooks: 1, rows: 2},
		{name: "the same order changes nothing and fires no hook", method: "PATCH", path: reorder, caller: "mia", body: `{"ids":["{fA1}","{fA2}"]}`, status: 200},
		{name: "a non-sibling fails the reorder and changes nothing", method: "PATCH", path: reorder, caller: "adam", body: `{"ids":["{fB}","{fA}","{fA1}"]}`, status: 400,
			contains: []string{`"ids":"\"{fA1}\" is not a sibling of \"{fB}\" in this team`}},
		{name: "another team's id fails the reorder and changes nothing", method: "PATCH", path: reorder, caller: "adam", body: `{"ids":["{fR2}","{fR1}","{gR}"]}`, status: 400,
			contains: []string{"is not a sibling"}, notContains: []string{"folder gR"}},
		{name: "another team's id in the updates form fails too", method: "PATCH", path: reorder, caller: "adam", body: `{"updates":[{"id":"{gR}","order":0}]}`, status: 400,
			contains: []string{`"updates":`, "is not a docsFolders record of this team"}},
		{name: "a sibling left out fails the ids form", method: "PATCH", path: reorder, caller: "adam", body: `{"ids":["{fR2}"]}`, status: 400,
			contains: []string{"must name every sibling in its new order: 1 of 2 are missing"}},
		{name: "ids and updates together are a 400", method: "PATCH", path: reorder, caller: "adam", body: `{"ids":["{fR2}","{fR1}"],"updates":[]}`, status: 400,
			contains: []string{`give either \"ids\"`}},
		{name: "neither ids nor updates is a 400", method: "PATCH", path: reorder, caller: "adam", body: `{}`, status: 400, contains: []string{`give either`}},
		{name: "ids that are not strings are a 400", method: "PATCH", path: reorder, caller: "adam", body: `{"ids":[1,2]}`, status: 400,
			contains: []string{`"ids":"must be an array of record ids"`}},
		{name: "an update without a whole order is a 400", method: "PATCH", path: reorder, caller: "adam", body: `{"updates":[{"id":"{fB}","order":"first"}]}`, status: 400,
			contains: []string{`"updates":"must be an array of {\"id\": string, \"order\": whole number}"`}},
		{name: "a negative order in an update is a 400", method: "PATCH", path: reorder, caller: "adam", body: `{"updates":[{"id":"{fB}","order":-2}]}`, status: 400,
			contains: []string{"must be 0 or more"}},
		{name: "a member reorders tasks that are all theirs", method: "PATCH", path: treeTasks + "/reorder", caller: "mia", body: `{"ids":["{task2}","{task1}","{task3}"]}`, status: 200,
			contains: []string{`"id":"{task2}","order":0`}, hooks: 1, rows: 2},
		{name: "a member may not move another member's task", method: "PATCH", path: treeTasks + "/reorder", caller: "mia", body: `{"ids":["{task3}","{task1}","{task2}"]}`, status: 403,
			contains: []string{"every record that changes place is theirs"}},
		{name: "a task of another team fails the reorder", method: "PATCH", path: treeTasks + "/reorder", caller: "adam", body: `{"ids":["{task1}","{task2}","{task3}","{gTask}"]}`, status: 400},
		{name: "a collection without order answers 404", method: "PATCH", path: products + "/reorder", caller: "alice", body: `{"ids":["{miaProduct}"]}`, status: 404,
			contains: []string{"no manual order"}},
		{name: "another team's member cannot reorder", method: "PATCH", path: reorder, caller: "gina", body: `{"ids":["{gR}"]}`, status: 403},
		{name: "an anonymous reorder is a 401", method: "PATCH", path: reorder, body: `{"ids":["{fR2}","{fR1}"]}`, status: 401},
	})
}

func TestTreeReadEndpoint(t *testing.T) {
	t.Parallel()
	runTreeScenarios(t, []scenario{
		{name: "the whole tree is the team's", method: "GET", path: treeFolders + "/tree", caller: "mia", status: 200,
			contains: []string{`"items":[{`, "{fR1}", "{fA1x}", "{fC}", `"depth":3`}, notContains: []string{"{gR}", "{gC}"}},
		{name: "a subtree starts at its root", method: "GET", path: treeFolders + "/tree?root={fA}", caller: "mia", status: 200,
			contains: []string{`"items":[{`, "{fA}", "{fA1x}", "{fA2}"}, notContains: []string{`"folder fR1"`, "{fB}", "{fR2}"}},
		{name: "a root of another team is a 404 like a missing one", method: "GET", path: treeFolders + "/tree?root={gR}", caller: "mia", status: 404,
			contains: []string{notFoundBody}, notContains: []string{"folder g"}},
		{name: "an empty root is a 400", method: "GET", path: treeFolders + "/tree?root=", caller: "mia", status: 400, contains: []string{`"param":"root"`}},
		{name: "two roots are a 400", method: "GET", path: treeFolders + "/tree?root={fA}&root={fB}", caller: "mia", status: 400, contains: []string{`"param":"root"`}},
		{name: "the tree of a sortable collection is a 404", method: "GET", path: treeTasks + "/tree", caller: "mia", status: 404, contains: []string{"not a tree collection"}},
		{name: "another team's member cannot read the tree", method: "GET", path: treeFolders + "/tree", caller: "gina", status: 403, notContains: []string{"{fR1}"}},
		{name: "an anonymous caller cannot read the tree", method: "GET", path: treeFolders + "/tree", status: 401},
		{name: "a sortable list comes in order", method: "GET", path: treeTasks, caller: "mia", status: 200,
			contains: []string{`"sortBy":"order","sortDirection":"asc"`}},
	})
}

func TestTreeRecordEndpoints(t *testing.T) {
	t.Parallel()
	runTreeScenarios(t, []scenario{
		{name: "a create under a parent computes path, depth and order", method: "POST", path: treeFolders, caller: "mia",
			body: `{"title":"deep","parentId":"{fA1x}"}`, status: 201, contains: []string{`"parentId":"{fA1x}"`, `"depth":4`, `"order":0`, `"path":"/{fR1}/{fA}/{fA1}/{fA1x}/`},
			hooks: 1, rows: 1},
		{name: "a create goes after the last sibling", method: "POST", path: treeFolders, caller: "mia",
			body: `{"title":"third","parentId":"{fR1}"}`, status: 201, contains: []string{`"order":2`, `"depth":1`}, hooks: 1, rows: 1},
		{name: "a create under another team's node is a 400, never a root", method: "POST", path: treeFolders, caller: "mia",
			body: `{"title":"x","parentId":"{gR}"}`, status: 400, contains: []string{`"parentId":"refers to no docsFolders record of this team"`}},
		{name: "a task goes last", method: "POST", path: treeTasks, caller: "max", body: `{"title":"t4","order":0}`, status: 201,
			contains: []string{`"order":3`}, hooks: 1, rows: 1},
		{name: "an update of parentId is a 400 pointing at move", method: "PATCH", path: treeFolders + "/{fA}", caller: "mia",
			body: `{"parentId":"{fR2}"}`, status: 400, contains: []string{`"parentId":"is kept by kit; move the record with PATCH /teams/{team}/docs-folders/{id}/move`}},
		{name: "an update of a task's order is a 400 pointing at reorder", method: "PATCH", path: treeTasks + "/{task1}", caller: "mia",
			body: `{"order":2}`, status: 400, contains: []string{"/docs-tasks/reorder"}},
		{name: "an update of the title keeps the node in place", method: "PATCH", path: treeFolders + "/{fA}", caller: "mia",
			body: `{"title":"renamed"}`, status: 200, contains: []string{`"title":"renamed"`, `"parentId":"{fR1}"`, `"order":0`}, hooks: 1, rows: 1},
		{name: "a node with children cannot be deleted", method: "DELETE", path: treeFolders + "/{fA}", caller: "mia", status: 409,
			contains: []string{`"status":409`, "the record has children; move or delete them first"}},
		{name: "a leaf is deleted", method: "DELETE", path: treeFolders + "/{fA1x}", caller: "max", status: 204, hooks: 1, rows: 1},
		{name: "an admin deletes another member's leaf", method: "DELETE", path: treeFolders + "/{fB}", caller: "adam", status: 204, hooks: 1, rows: 1},
		{name: "deleting the first task renumbers the rest", method: "DELETE", path: treeTasks + "/{task1}", caller: "mia", status: 204, hooks: 1, rows: 3},
		{name: "a node of another team cannot be deleted", method: "DELETE", path: treeFolders + "/{gC}", caller: "adam", status: 404, contains: []string{notFoundBody}},
	})
}

// TestTreeEndpointOrder reads the tree over HTTP after some moves and
// checks the order a client renders without sorting.
func TestTreeEndpointOrder(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		w := newTreeWorld(t, e)
		for _, step := range []struct{ path, body string }{
			{treeFolders + "/{fB}/move", `{"parentId":"{fR1}","order":0}`},
			{treeFolders + "/{fA2}/move", `{"parentId":"{fA}","order":0}`},
			{treeFolders + "/reorder", `{"ids":["{fR2}","{fR1}"]}`},
		} {
			if res := w.do(t, "PATCH", step.path, "adam", "application/json", step.body); res.status != 200 {
				t.Fatalf("PATCH %s: got %d %s", step.path, res.status, res.body)
			}
		}
		res := w.do(t, "GET", treeFolders+"/tree", "mia", "", "")
		if res.status != 200 {
			t.Fatalf("GET tree: got %d %s", res.status, res.body)
		}
		var body struct {
			Items []struct {
				ID    string  `json:"id"`
				Depth float64 `json:"depth"`
			} `json:"items"`
		}
		testkit.DecodeJSON(t, res.body, &body)
		var got []string
		for _, it := range body.Items {
			got = append(got, it.ID)
		}
		var want []string
		for _, ph := range []string{"fR2", "fC", "fR1", "fB", "fA", "fA2", "fA1", "fA1x"} {
			want = append(want, w.ids[ph])
		}
		if !slices.Equal(got, want) {
			t.Errorf("tree order: got %v, want %v", got, want)
		}
	})
}
