package kit_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/internal/testkit"
	"github.com/collectionkit/kit/kittest"
)

// scenario is one HTTP request and everything it must and must not do.
type scenario struct {
	name        string
	method      string
	path        string
	caller      string // seeded user, "" anonymous, "bad" unknown token
	body        string
	contentType string // default application/json when body is set
	header      []string
	status      int
	contains    []string
	notContains []string
	hooks       int // after-commit hooks fired (the tx hooks must match)
	rows        int // rows added, removed or changed
}

// runScenarios runs every scenario on every engine, each in a fresh world.
func runScenarios(t *testing.T, scenarios []scenario) {
	t.Helper()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		for _, sc := range scenarios {
			runScenario(t, e, sc)
		}
	})
}

func runScenario(t *testing.T, e testdb.Engine, sc scenario) {
	t.Helper()
	t.Run(sc.name, func(t *testing.T) {
		t.Parallel()
		checkScenario(t, newWorld(t, e), sc, worldTables, nil)
	})
}

// checkScenario sends sc's request to w and checks everything it must and
// must not do; rows counts the rows changed in tables, and after (when
// set) runs last.
func checkScenario(t *testing.T, w *world, sc scenario, tables []string, after func(t *testing.T)) {
	t.Helper()
	before := kittest.TableRows(t, w.k.DB(), tables...)
	w.reset()
	ct := sc.contentType
	if ct == "" && sc.body != "" {
		ct = "application/json"
	}
	res := w.do(t, sc.method, sc.path, sc.caller, ct, sc.body, sc.header...)
	if res.status != sc.status {
		t.Errorf("status: got %d, want %d (body %s)", res.status, sc.status, res.body)
	}
	testkit.CheckBody(t, res.body, sc.contains, sc.notContains, w.ids)
	if ct := res.header.Get("Content-Type"); res.status != http.StatusNoContent && !strings.Contains(ct, "json") {
		t.Errorf("Content-Type: got %q, want JSON", ct)
	}
	txs, hooks := w.counts()
	if hooks != sc.hooks || txs != sc.hooks {
		t.Errorf("hooks fired: got %d after commit and %d in tx, want %d", hooks, txs, sc.hooks)
	}
	if got := kittest.RowsChanged(before, kittest.TableRows(t, w.k.DB(), tables...)); got != sc.rows {
		t.Errorf("rows changed: got %d, want %d", got, sc.rows)
	}
	if after != nil {
		after(t)
	}
}

const (
	products     = "/api/teams/acme/shop-products"
	globexProds  = "/api/teams/globex/shop-products"
	notFoundBody = `"message":"record not found"`
)

func TestCollectionEndpoints(t *testing.T) {
	t.Parallel()
	runScenarios(t, []scenario{
		// List.
		{name: "an owner lists the team's products", method: "GET", path: products, caller: "alice", status: 200,
			contains: []string{`"items"`, `"totalItems":2`, "{miaProduct}", "{maxProduct}"}, notContains: []string{"{ginaProduct}"}},
		{name: "a member lists by team id as well as by slug", method: "GET", path: "/api/teams/{acme}/shop-products", caller: "mia", status: 200,
			contains: []string{`"totalItems":2`}},
		{name: "a member of another team cannot list", method: "GET", path: products, caller: "gina", status: 403,
			contains: []string{`"status":403`, "not a member"}, notContains: []string{"{miaProduct}"}},
		{name: "an anonymous caller cannot list", method: "GET", path: products, status: 401,
			contains: []string{`"status":401`, `"statusText":"Unauthorized"`}},
		{name: "a bad token cannot list", method: "GET", path: products, caller: "bad", status: 401, contains: []string{"invalid token"}},
		{name: "a banned member cannot list", method: "GET", path: products, caller: "ben", status: 403, contains: []string{"banned"}},
		{name: "a super-admin who is not a member cannot list a team", method: "GET", path: products, caller: "root", status: 403},
		{name: "an unknown team answers 404", method: "GET", path: "/api/teams/nope/shop-products", caller: "alice", status: 404, contains: []string{"team not found"}},
		{name: "an unknown collection answers 404", method: "GET", path: "/api/teams/acme/shop-nothing", caller: "alice", status: 404, contains: []string{"collection not found"}},
		{name: "a teamId in the query never switches the team", method: "GET", path: products + "?teamId={globex}", caller: "mia", status: 200,
			contains: []string{"{miaProduct}"}, notContains: []string{"{ginaProduct}"}},
		{name: "a bad list parameter is a 400 naming it", method: "GET", path: products + "?pageSize=1000", caller: "mia", status: 400,
			contains: []string{`"param":"pageSize"`}},

		// List with ids (the query fetch strategy).
		{name: "ids returns the team's records as an array in the order asked", method: "GET", path: products + "?ids={maxProduct},{miaProduct}", caller: "mia", status: 200,
			contains: []string{`[{`, `"id":"{maxProduct}"`}},
		{name: "ids of another team's records are left out", method: "GET", path: products + "?ids={ginaProduct}", caller: "mia", status: 200,
			contains: []string{`[]`}, notContains: []string{"{ginaProduct}", "GINA-1"}},
		{name: "ids from another team's member are refused", method: "GET", path: products + "?ids={miaProduct}", caller: "gina", status: 403,
			notContains: []string{"MIA-1"}},

		// Get one (restful strategy).
		{name: "a member reads a record of the team", method: "GET", path: products + "/{maxProduct}", caller: "mia", status: 200,
			contains: []string{`"sku":"MAX-1"`, `"price":"9.99"`}},
		{name: "a record of another team answers like a missing one", method: "GET", path: products + "/{ginaProduct}", caller: "mia", status: 404,
			contains: []string{notFoundBody}, notContains: []string{"GINA-1"}},
		{name: "a missing record answers 404", method: "GET", path: products + "/00000000-0000-0000-0000-000000000000", caller: "mia", status: 404,
			contains: []string{notFoundBody}},
		{name: "get by id on a query-strategy collection answers 404", method: "GET", path: "/api/teams/acme/shop-categories/{acmeCategory}", caller: "mia", status: 404,
			contains: []string{"?ids="}},
		{name: "a record read through another team's route is refused", method: "GET", path: globexProds + "/{miaProduct}", caller: "mia", status: 403},

		// Create.
		{name: "a member creates a product", method: "POST", path: products, caller: "mia", body: `{"title":"New","price":"1.5","categoryId":"{acmeCategory}"}`, status: 201,
			contains: []string{`"title":"New"`, `"price":"1.50"`, `"teamId":"{acme}"`, `"owner":"{mia}"`}, hooks: 1, rows: 1},
		{name: "a teamId in the body never places the record in another team", method: "POST", path: products, caller: "mia", body: `{"title":"Sneaky","teamId":"{globex}","owner":"{gina}","id":"fixed"}`, status: 201,
			contains: []string{`"teamId":"{acme}"`, `"owner":"{mia}"`}, notContains: []string{`"id":"fixed"`, "{globex}"}, hooks: 1, rows: 1},
		{name: "a reference to another team's record is refused", method: "POST", path: products, caller: "mia", body: `{"title":"X","categoryId":"{globexCategory}"}`, status: 400,
			contains: []string{`"categoryId"`, "refers to no"}},
		{name: "a duplicate unique value is a 409 naming the field", method: "POST", path: products, caller: "mia", body: `{"title":"X","sku":"MAX-1"}`, status: 409,
			contains: []string{`"sku"`}},
		{name: "the same unique value in another team is fine", method: "POST", path: globexProds, caller: "gina", body: `{"title":"X","sku":"MAX-1"}`, status: 201, hooks: 1, rows: 1},
		{name: "a member of another team cannot create", method: "POST", path: products, caller: "gina", body: `{"title":"X"}`, status: 403},
		{name: "an anonymous caller cannot create", method: "POST", path: products, body: `{"title":"X"}`, status: 401},
		{name: "a banned member cannot create", method: "POST", path: products, caller: "ben", body: `{"title":"X"}`, status: 403},

		// Update.
		{name: "a member updates their own record", method: "PATCH", path: products + "/{miaProduct}", caller: "mia", body: `{"price":"12"}`, status: 200,
			contains: []string{`"price":"12.00"`, `"sku":"MIA-1"`, `"updatedBy":"{mia}"`}, hooks: 1, rows: 1},
		{name: "a member cannot update another member's record of the team: 403", method: "PATCH", path: products + "/{maxProduct}", caller: "mia", body: `{"price":"12"}`, status: 403,
			contains: []string{`"message":"a member may update only the records they own; team admins and owners may update any"`}},
		{name: "an admin updates any record of the team", method: "PATCH", path: products + "/{maxProduct}", caller: "adam", body: `{"title":"Renamed"}`, status: 200,
			contains: []string{`"title":"Renamed"`, `"owner":"{max}"`}, hooks: 1, rows: 1},
		{name: "an owner updates any record of the team", method: "PATCH", path: products + "/{maxProduct}", caller: "alice", body: `{"title":"Renamed"}`, status: 200, hooks: 1, rows: 1},
		{name: "an owner cannot update another team's record through their team", method: "PATCH", path: products + "/{ginaProduct}", caller: "alice", body: `{"title":"Hacked"}`, status: 404,
			contains: []string{notFoundBody}},
		{name: "an owner cannot update another team's record through its team", method: "PATCH", path: globexProds + "/{ginaProduct}", caller: "alice", body: `{"title":"Hacked"}`, status: 403},
		{name: "a teamId in an update body is ignored", method: "PATCH", path: products + "/{miaProduct}", caller: "mia", body: `{"teamId":"{globex}","title":"Moved?"}`, status: 200,
			contains: []string{`"teamId":"{acme}"`}, hooks: 1, rows: 1},
		{name: "clearing a required field is refused", method: "PATCH", path: products + "/{miaProduct}", caller: "mia", body: `{"title":null}`, status: 400,
			contains: []string{`"fields":{"title":"is required"}`}},
		{name: "an empty update changes nothing and fires no hook", method: "PATCH", path: products + "/{miaProduct}", caller: "mia", body: `{}`, status: 200,
			contains: []string{`"sku":"MIA-1"`}},
		{name: "an anonymous caller cannot update", method: "PATCH", path: products + "/{miaProduct}", body: `{"title":"X"}`, status: 401},
		{name: "a banned member cannot update", method: "PATCH", path: products + "/{miaProduct}", caller: "ben", body: `{"title":"X"}`, status: 403},

		// Delete.
		{name: "a member deletes their own record", method: "DELETE", path: products + "/{miaProduct}", caller: "mia", status: 204, hooks: 1, rows: 1},
		{name: "a member cannot delete another member's record of the team: 403", method: "DELETE", path: products + "/{maxProduct}", caller: "mia", status: 403,
			contains: []string{`"message":"a member may delete only the records they own; team admins and owners may delete any"`}},
		{name: "an admin deletes any record of the team", method: "DELETE", path: products + "/{maxProduct}", caller: "adam", status: 204, hooks: 1, rows: 1},
		{name: "an owner cannot delete another team's record", method: "DELETE", path: products + "/{ginaProduct}", caller: "alice", status: 404, contains: []string{notFoundBody}},
		{name: "a referenced record cannot be deleted and the answer names who references it", method: "DELETE", path: "/api/teams/acme/shop-categories/{acmeCategory}", caller: "alice", status: 409,
			contains: []string{`"status":409`, "still referenced", `"data":{"referencedBy":[{"collection":"shopProducts","field":"categoryId","count":2}]}`}},
		{name: "an anonymous caller cannot delete", method: "DELETE", path: products + "/{miaProduct}", status: 401},

		// Super-admin.
		{name: "a super-admin reads a record of any team", method: "GET", path: "/api/super-admin/shopProducts/{ginaProduct}", caller: "root", status: 200,
			contains: []string{`"sku":"GINA-1"`}},
		{name: "the super-admin route accepts the apiPath too", method: "GET", path: "/api/super-admin/shop-products/{miaProduct}", caller: "root", status: 200},
		{name: "a team owner is not a super-admin", method: "GET", path: "/api/super-admin/shopProducts/{ginaProduct}", caller: "alice", status: 403,
			notContains: []string{"GINA-1"}},
		{name: "an anonymous caller is not a super-admin", method: "GET", path: "/api/super-admin/shopProducts/{ginaProduct}", status: 401},
		{name: "a super-admin read of a missing record is 404", method: "GET", path: "/api/super-admin/shopProducts/nope", caller: "root", status: 404},

		// Collection metadata.
		{name: "the registry is served in the kitCollections shape", method: "GET", path: "/api/kit/collections", caller: "mia", status: 200,
			contains: []string{`"shopProducts":{`, `"apiPath":"shop-products"`, `"references":{"categoryId":"shopCategories"}`}},
		{name: "a collection's JSON Schema is served", method: "GET", path: "/api/kit/collections/shopProducts/schema", caller: "mia", status: 200,
			contains: []string{`"$schema":"https://json-schema.org/draft/2020-12/schema"`, `"required":["title"]`}},
		{name: "the schema of an unknown collection is 404", method: "GET", path: "/api/kit/collections/nope/schema", caller: "mia", status: 404},
		{name: "the registry needs authentication", method: "GET", path: "/api/kit/collections", status: 401},
	})
}

func TestBadInputs(t *testing.T) {
	t.Parallel()
	big := `{"title":"` + strings.Repeat("x", 1<<20) + `"}`
	runScenarios(t, []scenario{
		{name: "malformed JSON is a 400", method: "POST", path: products, caller: "mia", body: `{"title":`, status: 400, contains: []string{"malformed JSON"}},
		{name: "trailing data after the object is a 400", method: "POST", path: products, caller: "mia", body: `{"title":"a"} {}`, status: 400, contains: []string{"malformed JSON"}},
		{name: "a JSON array body is a 400", method: "POST", path: products, caller: "mia", body: `[{"title":"a"}]`, status: 400, contains: []string{"JSON object"}},
		{name: "an empty body is a 400", method: "POST", path: products, caller: "mia", contentType: "application/json", status: 400, contains: []string{"empty"}},
		{name: "an unknown field is a 400 naming it", method: "POST", path: products, caller: "mia", body: `{"title":"a","colour":"red"}`, status: 400,
			contains: []string{`"colour":"unknown field"`}},
		{name: "a wrongly typed field is a 400 naming it", method: "POST", path: products, caller: "mia", body: `{"title":5}`, status: 400,
			contains: []string{`"title":"must be a string"`}},
		{name: "a missing required field is a 400", method: "POST", path: products, caller: "mia", body: `{"sku":"x"}`, status: 400,
			contains: []string{`"title":"is required"`}},
		{name: "a decimal with too many digits is a 400", method: "POST", path: products, caller: "mia", body: `{"title":"a","price":"1.234"}`, status: 400,
			contains: []string{`"price"`}},
		{name: "a NUL byte is a 400", method: "POST", path: products, caller: "mia", body: `{"title":"a\u0000b"}`, status: 400,
			contains: []string{"NUL"}},
		{name: "an integer beyond 2^53 in a number field is a 400 naming the field, not a rounded value", method: "POST", path: products, caller: "mia", body: `{"title":"a","stock":9007199254740993}`, status: 400,
			contains: []string{`"stock":"must be an integer between -9007199254740992 and 9007199254740992 (2^53) to be stored exactly"`}},
		{name: "a negative integer beyond 2^53 is a 400 too", method: "POST", path: products, caller: "mia", body: `{"title":"a","stock":-9007199254740993}`, status: 400,
			contains: []string{`"stock"`}},
		{name: "an integer beyond 2^53 in an update is a 400 and the record keeps its value", method: "PATCH", path: products + "/{miaProduct}", caller: "mia", body: `{"stock":12345678901234567890}`, status: 400,
			contains: []string{`"stock"`}},
		{name: "an integer at exactly 2^53 is stored", method: "POST", path: products, caller: "mia", body: `{"title":"a","stock":9007199254740992}`, status: 201, hooks: 1, rows: 1,
			contains: []string{`"stock":9007199254740992`}},
		{name: "invalid UTF-8 in a body is a 400, not stored as U+FFFD", method: "POST", path: products, caller: "mia", body: "{\"title\":\"a\xffb\"}", status: 400,
			contains: []string{"not valid UTF-8"}},
		{name: "a lone high surrogate escape is a 400", method: "POST", path: products, caller: "mia", body: `{"title":"a\ud800b"}`, status: 400,
			contains: []string{"lone UTF-16 surrogate"}},
		{name: "a lone low surrogate escape in an update is a 400", method: "PATCH", path: products + "/{miaProduct}", caller: "mia", body: `{"title":"\udc00"}`, status: 400,
			contains: []string{"lone UTF-16 surrogate"}},
		{name: "a surrogate pair escape is one character and is stored", method: "POST", path: products, caller: "mia", body: `{"title":"smile \ud83d\ude00"}`, status: 201, hooks: 1, rows: 1,
			contains: []string{"smile \U0001F600"}},
		{name: "a body over the limit is a 413", method: "POST", path: products, caller: "mia", body: big, status: 413,
			notContains: []string{"xxxxxxxx"}},
		{name: "a non-JSON body is a 415", method: "POST", path: products, caller: "mia", body: `title=a`, contentType: "application/x-www-form-urlencoded", status: 415},
		{name: "a body without a content type is a 415", method: "PATCH", path: products + "/{miaProduct}", caller: "mia", body: `{"title":"a"}`, contentType: "text/plain", status: 415},
		{name: "a wrong method is a 405 in the error shape", method: "PUT", path: products, caller: "mia", body: `{}`, status: 405,
			contains: []string{`"status":405`, `"statusText":"Method Not Allowed"`}},
		{name: "an unknown route is a 404 in the error shape", method: "GET", path: "/api/nowhere/at/all/really", caller: "mia", status: 404,
			contains: []string{`"status":404`, `"message":"no such route"`}},
		{name: "a bad filter is a 400 naming the parameter", method: "GET", path: products + "?filter=%7Bnope", caller: "mia", status: 400,
			contains: []string{`"param":"filter"`}},
		{name: "an integer beyond 2^53 in a filter is a 400 naming the parameter, not a rounded match", method: "GET", path: products + "?filter=%7B%22stock%22%3A%7B%22eq%22%3A9007199254740993%7D%7D", caller: "mia", status: 400,
			contains: []string{`"param":"filter"`, "2^53"}},
		{name: "invalid UTF-8 in a filter value is a 400 naming the parameter", method: "GET", path: products + "?filter=%7B%22title%22%3A%22a%FFb%22%7D", caller: "mia", status: 400,
			contains: []string{`"param":"filter"`}},
		{name: "a bad page is a 400 naming the parameter", method: "GET", path: products + "?page=0", caller: "mia", status: 400,
			contains: []string{`"param":"page"`}},
		{name: "a bad sort is a 400 naming the parameter", method: "GET", path: products + "?sort=nope", caller: "mia", status: 400,
			contains: []string{`"param":"sort"`}},
		{name: "too many ids is a 400 naming the parameter", method: "GET", path: products + "?ids=" + strings.Repeat("a,", 100) + "a", caller: "mia", status: 400,
			contains: []string{`"param":"ids"`}},
	})
}

func TestMethodNotAllowedListsTheAllowedMethods(t *testing.T) {
	t.Parallel()
	w := newWorld(t, testdb.EngineSQLite)
	res := w.do(t, "PUT", products+"/{miaProduct}", "mia", "application/json", `{}`)
	if got, want := res.header.Get("Allow"), "DELETE, GET, PATCH, POST"; got != want {
		t.Errorf("Allow: got %q, want %q", got, want)
	}
}

func TestHTTPTextSortsAsPeopleReadIt(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		w := newWorld(t, e)
		for i, title := range []string{"zebra", "Émile", "cherry", "Banana", "apple"} {
			body := fmt.Sprintf(`{"title":%q,"sku":"S-%d"}`, title, i)
			if r := w.do(t, "POST", products, "adam", "application/json", body); r.status != 201 {
				t.Fatalf("create %s: got %d, want 201 (%s)", title, r.status, r.body)
			}
		}
		filter := url.QueryEscape(`{"title":{"gte":"apple","lt":"mia"}}`)
		cases := []struct {
			name, query string
			want        []string
		}{
			{"sort=title orders as people read (case and accents aside), and a text range agrees", "?sort=title&filter=" + filter,
				[]string{"apple", "Banana", "cherry", "Émile", "max's product"}},
			{"sort=-title is the reverse", "?sort=-title&filter=" + filter,
				[]string{"max's product", "Émile", "cherry", "Banana", "apple"}},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				r := w.do(t, "GET", products+c.query, "adam", "", "")
				if r.status != 200 {
					t.Fatalf("got %d, want 200 (%s)", r.status, r.body)
				}
				var list struct {
					Items []struct {
						Title string `json:"title"`
					} `json:"items"`
				}
				testkit.DecodeJSON(t, r.body, &list)
				var got []string
				for _, it := range list.Items {
					got = append(got, it.Title)
				}
				if !slices.Equal(got, c.want) {
					t.Errorf("got %q, want %q", got, c.want)
				}
			})
		}
	})
}
