package kit_test

import (
	"encoding/json"
	"maps"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/internal/testkit"
	"github.com/collectionkit/kit/kittest"
)

// etagPattern is the shape of kit's entity tags: a strong tag holding 128
// bits in base64url.
var etagPattern = regexp.MustCompile(`^"[A-Za-z0-9_-]{22}"$`)

// currentETag reads record id of the acme collection at path with
// ?ids=<id> as alice and returns the ETag header ("" when the record is
// gone).
func (w *world) currentETag(t *testing.T, path, id string) string {
	t.Helper()
	res := w.do(t, "GET", path+"?ids="+id, "alice", "", "")
	if res.status != http.StatusOK {
		t.Fatalf("GET %s?ids=%s: got %d, want 200 (body %s)", path, id, res.status, res.body)
	}
	if res.body == "[]\n" {
		return ""
	}
	return res.header.Get("ETag")
}

func TestETagHeaders(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		t.Parallel()
		w := newTreeWorld(t, e)
		get := func(t *testing.T, caller, path string) response {
			t.Helper()
			res := w.do(t, "GET", path, caller, "", "")
			if res.status != http.StatusOK {
				t.Fatalf("GET %s: got %d, want 200 (body %s)", path, res.status, res.body)
			}
			return res
		}
		var created string
		t.Run("a created record's answer carries the ETag a later read answers", func(t *testing.T) {
			res := w.do(t, "POST", products, "mia", "application/json", `{"title":"Lamp","price":"19.90","stock":3}`)
			if res.status != http.StatusCreated {
				t.Fatalf("status: got %d, want 201 (body %s)", res.status, res.body)
			}
			var rec map[string]any
			testkit.DecodeJSON(t, res.body, &rec)
			created = rec["id"].(string)
			tag := res.header.Get("ETag")
			if !etagPattern.MatchString(tag) {
				t.Fatalf("ETag: got %q, want a strong tag like %s", tag, etagPattern)
			}
			if got := get(t, "mia", products+"/"+created).header.Get("ETag"); got != tag {
				t.Errorf("ETag of GET /{id}: got %q, want the create's %q", got, tag)
			}
		})
		t.Run("GET by id, a single-id ?ids= read and the super-admin read answer the same ETag", func(t *testing.T) {
			byID := get(t, "mia", products+"/{miaProduct}").header.Get("ETag")
			if !etagPattern.MatchString(byID) {
				t.Fatalf("ETag of GET /{id}: got %q, want a strong tag", byID)
			}
			if got := get(t, "mia", products+"?ids={miaProduct}").header.Get("ETag"); got != byID {
				t.Errorf("ETag of ?ids=: got %q, want %q", got, byID)
			}
			if got := get(t, "root", "/api/super-admin/shopProducts/{miaProduct}").header.Get("ETag"); got != byID {
				t.Errorf("ETag of the super-admin read: got %q, want %q", got, byID)
			}
			if got := get(t, "max", products+"/{miaProduct}").header.Get("ETag"); got != byID {
				t.Errorf("ETag read by another member: got %q, want %q (a tag is the record's, not the caller's)", got, byID)
			}
		})
		t.Run("lists, ?ids= of several ids and ?ids= that finds nothing carry no ETag", func(t *testing.T) {
			for _, path := range []string{products, products + "?ids={miaProduct},{maxProduct}", products + "?ids={ginaProduct}"} {
				if got := get(t, "mia", path).header.Get("ETag"); got != "" {
					t.Errorf("ETag of GET %s: got %q, want none", path, got)
				}
			}
		})
		t.Run("an update changes the ETag and answers the one a later read answers", func(t *testing.T) {
			before := get(t, "mia", products+"/"+created).header.Get("ETag")
			res := w.do(t, "PATCH", products+"/"+created, "mia", "application/json", `{"stock":4}`)
			if res.status != http.StatusOK {
				t.Fatalf("status: got %d, want 200 (body %s)", res.status, res.body)
			}
			after := res.header.Get("ETag")
			if after == before || !etagPattern.MatchString(after) {
				t.Errorf("ETag after the update: got %q, want a new strong tag (before %q)", after, before)
			}
			if got := get(t, "mia", products+"/"+created).header.Get("ETag"); got != after {
				t.Errorf("ETag of GET /{id} after the update: got %q, want the update's %q", got, after)
			}
		})
		t.Run("an update that changes nothing keeps the ETag", func(t *testing.T) {
			before := get(t, "mia", products+"/"+created).header.Get("ETag")
			res := w.do(t, "PATCH", products+"/"+created, "mia", "application/json", `{"stock":4}`)
			if got := res.header.Get("ETag"); res.status != http.StatusOK || got != before {
				t.Errorf("got %d with ETag %q, want 200 with the unchanged %q", res.status, got, before)
			}
		})
		t.Run("a move answers the moved node's new ETag and changes the moved subtree's", func(t *testing.T) {
			nodeBefore, childBefore := w.currentETag(t, treeFolders, w.ids["fA"]), w.currentETag(t, treeFolders, w.ids["fA1"])
			res := w.do(t, "PATCH", treeFolders+"/{fA}/move", "mia", "application/json", `{"parentId":null}`)
			if res.status != http.StatusOK {
				t.Fatalf("status: got %d, want 200 (body %s)", res.status, res.body)
			}
			nodeAfter := w.currentETag(t, treeFolders, w.ids["fA"])
			if got := res.header.Get("ETag"); got != nodeAfter || got == nodeBefore {
				t.Errorf("ETag of the move: got %q, want the node's new %q (before %q)", got, nodeAfter, nodeBefore)
			}
			if got := w.currentETag(t, treeFolders, w.ids["fA1"]); got == childBefore {
				t.Errorf("ETag of the moved child: got the old %q, want a new one (its path and depth changed)", got)
			}
		})
	})
}

// condScenario is one conditional write: If-Match values may name
// {etag} (the record's current ETag), {stale} (its ETag before its last
// update) and {weak} (W/ and the current one).
type condScenario struct {
	name      string
	method    string
	path      string
	caller    string
	ifMatch   *string // nil: no If-Match header
	body      string
	status    int
	contains  []string
	notHas    []string
	hooks     int
	rows      int
	record    string // the record the request targets (condRecords); default miaProduct
	wantETag  bool   // the answer's ETag header is the record's ETag after the request
	wantNoTag bool   // the answer has no ETag header
}

func ifMatch(v string) *string { return &v }

// condWorld is a tree world in which {miaProduct}, {fA} and {task1} were
// each updated once, so each has a stale and a current ETag.
type condWorld struct {
	*world
	stale, current map[string]string // record placeholder -> ETag
}

// condRecords are the records scenarios target, with their collection path.
var condRecords = map[string]string{"miaProduct": products, "fA": treeFolders, "task1": treeTasks}

func newCondWorld(t *testing.T, e testdb.Engine) *condWorld {
	t.Helper()
	w := &condWorld{world: newTreeWorld(t, e), stale: map[string]string{}, current: map[string]string{}}
	for rec, path := range condRecords {
		w.stale[rec] = w.currentETag(t, path, w.ids[rec])
		touch := `{"title":"touched"}`
		if path == products {
			touch = `{"stock":1}`
		}
		if res := w.do(t, "PATCH", path+"/"+w.ids[rec], "alice", "application/json", touch); res.status != http.StatusOK {
			t.Fatalf("touch %s: got %d, want 200 (body %s)", rec, res.status, res.body)
		}
		w.current[rec] = w.currentETag(t, path, w.ids[rec])
		if w.current[rec] == w.stale[rec] {
			t.Fatalf("the ETag of %s did not change with an update: %q", rec, w.current[rec])
		}
	}
	return w
}

// runCondScenarios runs the scenarios on every engine: those that must
// change nothing one after another in one world (each checks that nothing
// changed, so the next finds the same world), each of the others in a
// fresh world.
func runCondScenarios(t *testing.T, scenarios []condScenario) {
	t.Helper()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		t.Parallel()
		shared := newCondWorld(t, e)
		for _, sc := range scenarios {
			if sc.rows != 0 || sc.hooks != 0 {
				continue
			}
			t.Run(sc.name, func(t *testing.T) { checkCondScenario(t, shared, sc) })
		}
		for _, sc := range scenarios {
			if sc.rows == 0 && sc.hooks == 0 {
				continue
			}
			t.Run(sc.name, func(t *testing.T) {
				t.Parallel()
				checkCondScenario(t, newCondWorld(t, e), sc)
			})
		}
	})
}

func checkCondScenario(t *testing.T, w *condWorld, sc condScenario) {
	t.Helper()
	tables := []string{foldersTable, tasksTable, "shop_categories", "shop_products", "app_notes"}
	rec := sc.record
	if rec == "" {
		rec = "miaProduct"
	}
	recPath := condRecords[rec]
	current := w.current[rec]
	jsonText := func(s string) string { b, _ := json.Marshal(s); return string(b[1 : len(b)-1]) }
	ids := maps.Clone(w.ids)
	ids["etag"], ids["stale"], ids["weak"], ids["etagJSON"] = current, w.stale[rec], "W/"+current, jsonText(current)

	before := kittest.TableRows(t, w.k.DB(), tables...)
	w.reset()
	var header []string
	if sc.ifMatch != nil {
		header = []string{"If-Match", kittest.Expand(*sc.ifMatch, ids)}
	}
	ct := ""
	if sc.body != "" {
		ct = "application/json"
	}
	res := w.do(t, sc.method, sc.path, sc.caller, ct, sc.body, header...)
	if res.status != sc.status {
		t.Errorf("status: got %d, want %d (body %s)", res.status, sc.status, res.body)
	}
	testkit.CheckBody(t, res.body, sc.contains, sc.notHas, ids)
	txs, hooks := w.counts()
	if hooks != sc.hooks || txs != sc.hooks {
		t.Errorf("hooks fired: got %d after commit and %d in tx, want %d", hooks, txs, sc.hooks)
	}
	if got := kittest.RowsChanged(before, kittest.TableRows(t, w.k.DB(), tables...)); got != sc.rows {
		t.Errorf("rows changed: got %d, want %d", got, sc.rows)
	}
	after := w.currentETag(t, recPath, w.ids[rec])
	got := res.header.Get("ETag")
	switch {
	case sc.wantETag && (got != after || got == ""):
		t.Errorf("ETag header: got %q, want the record's ETag after the request, %q", got, after)
	case sc.wantNoTag && got != "":
		t.Errorf("ETag header: got %q, want none", got)
	}
	if sc.status == http.StatusPreconditionFailed && after != current {
		t.Errorf("ETag after a 412: got %q, want the unchanged %q", after, current)
	}
}

func TestConditionalWrites(t *testing.T) {
	t.Parallel()
	one := products + "/{miaProduct}"
	move := treeFolders + "/{fA}/move"
	preconditionBody := []string{`"status":412`, `"statusText":"Precondition Failed"`, `"message":"the record has changed since it was read`,
		`"etag":"{etagJSON}"`, `"current":{`, `"id":"{miaProduct}"`, `"stock":1`}
	runCondScenarios(t, []condScenario{
		// PATCH.
		{name: "an update with the current ETag is applied and answers the new ETag", method: "PATCH", path: one, caller: "mia",
			ifMatch: ifMatch("{etag}"), body: `{"title":"renamed"}`, status: 200, contains: []string{`"title":"renamed"`}, hooks: 1, rows: 1, wantETag: true},
		{name: "an update with a stale ETag is a 412 with the current ETag and record, and writes nothing", method: "PATCH", path: one, caller: "mia",
			ifMatch: ifMatch("{stale}"), body: `{"title":"renamed"}`, status: 412, contains: preconditionBody, notHas: []string{"renamed"}, wantETag: true},
		{name: "an update whose If-Match lists the current ETag among others is applied", method: "PATCH", path: one, caller: "mia",
			ifMatch: ifMatch(`{stale}, "other",{etag}`), body: `{"title":"renamed"}`, status: 200, hooks: 1, rows: 1, wantETag: true},
		{name: "an update with If-Match * is applied to an existing record", method: "PATCH", path: one, caller: "mia",
			ifMatch: ifMatch("*"), body: `{"title":"renamed"}`, status: 200, hooks: 1, rows: 1, wantETag: true},
		{name: "a weak tag never matches If-Match, even of the current ETag", method: "PATCH", path: one, caller: "mia",
			ifMatch: ifMatch("{weak}"), body: `{"title":"renamed"}`, status: 412, contains: preconditionBody, wantETag: true},
		{name: "an empty If-Match matches nothing", method: "PATCH", path: one, caller: "mia",
			ifMatch: ifMatch(""), body: `{"title":"renamed"}`, status: 412, contains: preconditionBody, wantETag: true},
		{name: "an update that would change nothing with a stale ETag is still a 412", method: "PATCH", path: one, caller: "mia",
			ifMatch: ifMatch("{stale}"), body: `{}`, status: 412, contains: preconditionBody, wantETag: true},
		{name: "an update without If-Match is applied as before", method: "PATCH", path: one, caller: "mia",
			body: `{"title":"renamed"}`, status: 200, hooks: 1, rows: 1, wantETag: true},
		{name: "a malformed If-Match is a 400 naming the header", method: "PATCH", path: one, caller: "mia",
			ifMatch: ifMatch("abc"), body: `{"title":"renamed"}`, status: 400,
			contains: []string{`"status":400`, `"message":"If-Match must be \"*\" or a comma-separated list of entity tags`, `"header":"If-Match"`}, wantNoTag: true},
		{name: "an unterminated entity tag is a 400", method: "PATCH", path: one, caller: "mia",
			ifMatch: ifMatch(`"abc`), body: `{"title":"renamed"}`, status: 400, contains: []string{`"header":"If-Match"`}, wantNoTag: true},
		{name: "an invalid body with a stale ETag is the 400 of the body, not a 412", method: "PATCH", path: one, caller: "mia",
			ifMatch: ifMatch("{stale}"), body: `{"stock":"many"}`, status: 400, contains: []string{`"stock":`}, notHas: []string{`"etag"`}, wantNoTag: true},
		{name: "another team's record with a stale ETag answers like a missing one", method: "PATCH", path: products + "/{ginaProduct}", caller: "mia",
			ifMatch: ifMatch("{stale}"), body: `{"title":"x"}`, status: 404, contains: []string{notFoundBody}, notHas: []string{"GINA-1", `"etag"`}, wantNoTag: true},
		{name: "a missing record with If-Match * is a 404", method: "PATCH", path: products + "/00000000-0000-0000-0000-000000000000", caller: "mia",
			ifMatch: ifMatch("*"), body: `{"title":"x"}`, status: 404, contains: []string{notFoundBody}, wantNoTag: true},

		// DELETE.
		{name: "a delete with the current ETag deletes the record", method: "DELETE", path: one, caller: "mia",
			ifMatch: ifMatch("{etag}"), status: 204, hooks: 1, rows: 1, wantNoTag: true},
		{name: "a delete with a stale ETag is a 412 and deletes nothing", method: "DELETE", path: one, caller: "mia",
			ifMatch: ifMatch("{stale}"), status: 412, contains: preconditionBody, wantETag: true},
		{name: "an admin's delete with a stale ETag is a 412 too", method: "DELETE", path: one, caller: "adam",
			ifMatch: ifMatch("{stale}"), status: 412, contains: preconditionBody, wantETag: true},
		{name: "a delete with a malformed If-Match is a 400 and deletes nothing", method: "DELETE", path: one, caller: "mia",
			ifMatch: ifMatch("W/"), status: 400, contains: []string{`"header":"If-Match"`}, wantNoTag: true},

		// Move and reorder.
		{name: "a move with the current ETag moves the node and answers its new ETag", method: "PATCH", path: move, caller: "mia",
			record: "fA", ifMatch: ifMatch("{etag}"), body: `{"parentId":null}`, status: 200,
			contains: []string{`"parentId":null`}, hooks: 1, rows: 5, wantETag: true},
		{name: "a move with a stale ETag is a 412 and moves nothing", method: "PATCH", path: move, caller: "mia",
			record: "fA", ifMatch: ifMatch("{stale}"), body: `{"parentId":null}`, status: 412,
			contains: []string{`"status":412`, `"etag":"{etagJSON}"`, `"current":{`, `"id":"{fA}"`, `"title":"touched"`}, wantETag: true},
		{name: "a move to where the node is with a stale ETag is still a 412", method: "PATCH", path: move, caller: "mia",
			record: "fA", ifMatch: ifMatch("{stale}"), body: `{"parentId":"{fR1}","order":0}`, status: 412, wantETag: true},
		{name: "a reorder with If-Match is a 400: siblings have no ETag", method: "PATCH", path: treeTasks + "/reorder", caller: "mia",
			record: "task1", ifMatch: ifMatch("{etag}"), body: `{"ids":["{task2}","{task1}","{task3}"]}`, status: 400,
			contains: []string{`"message":"If-Match is not supported on reorder`, `"header":"If-Match"`}, wantNoTag: true},
	})
}

func TestConcurrentConditionalEdits(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		t.Run("the second edit with the ETag both read is a 412 and the first's data stays", func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, e)
			read := w.do(t, "GET", products+"/{miaProduct}", "adam", "", "")
			tag := read.header.Get("ETag")
			first := w.do(t, "PATCH", products+"/{miaProduct}", "alice", "application/json", `{"title":"alice's title"}`, "If-Match", tag)
			if first.status != http.StatusOK {
				t.Fatalf("first edit: got %d, want 200 (body %s)", first.status, first.body)
			}
			before := w.snapshot(t)
			second := w.do(t, "PATCH", products+"/{miaProduct}", "adam", "application/json", `{"title":"adam's title"}`, "If-Match", tag)
			if second.status != http.StatusPreconditionFailed {
				t.Fatalf("second edit: got %d, want 412 (body %s)", second.status, second.body)
			}
			if got, want := second.header.Get("ETag"), first.header.Get("ETag"); got != want {
				t.Errorf("ETag of the 412: got %q, want the first edit's %q", got, want)
			}
			if !strings.Contains(second.body, `"title":"alice's title"`) {
				t.Errorf("412 body: got %s, want the current record with alice's title", second.body)
			}
			if got := kittest.RowsChanged(before, w.snapshot(t)); got != 0 {
				t.Errorf("rows changed by the 412: got %d, want 0", got)
			}
			now := w.do(t, "GET", products+"/{miaProduct}", "mia", "", "")
			if !strings.Contains(now.body, `"title":"alice's title"`) {
				t.Errorf("stored record: got %s, want alice's title", now.body)
			}
		})
		t.Run("of edits sent at once with the same ETag exactly one is applied", func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, e)
			tag := w.do(t, "GET", products+"/{miaProduct}", "mia", "", "").header.Get("ETag")
			callers := []string{"alice", "adam", "mia", "alice", "adam", "mia"}
			results := make([]response, len(callers))
			testkit.AtOnce(len(callers), func(i int) error {
				body := `{"title":"edit ` + string(rune('a'+i)) + `"}`
				results[i] = w.do(t, "PATCH", products+"/{miaProduct}", callers[i], "application/json", body, "If-Match", tag)
				return nil
			})
			won := -1
			for i, r := range results {
				switch r.status {
				case http.StatusOK:
					if won >= 0 {
						t.Errorf("edits %d and %d were both applied with the same ETag", won, i)
					}
					won = i
				case http.StatusPreconditionFailed:
				default:
					t.Errorf("edit %d: got %d, want 200 or 412 (body %s)", i, r.status, r.body)
				}
			}
			if won < 0 {
				t.Fatal("no edit was applied, want exactly one")
			}
			now := w.do(t, "GET", products+"/{miaProduct}", "mia", "", "")
			if want := `"title":"edit ` + string(rune('a'+won)) + `"`; !strings.Contains(now.body, want) {
				t.Errorf("stored record: got %s, want the applied edit's %s", now.body, want)
			}
			if got := now.header.Get("ETag"); got != results[won].header.Get("ETag") {
				t.Errorf("ETag now: got %q, want the applied edit's %q", got, results[won].header.Get("ETag"))
			}
		})
	})
}
