package kit_test

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/internal/testkit"
	"github.com/collectionkit/kit/kit"
)

const (
	categories = "/api/teams/acme/shop-categories"
)

// manyIDs returns n distinct made-up ids joined with commas.
func manyIDs(n int) string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("no-such-id-%03d", i)
	}
	return strings.Join(ids, ",")
}

func TestBulkDeleteEndpoint(t *testing.T) {
	t.Parallel()
	runScenarios(t, []scenario{
		{name: "an admin deletes two records of the team in one request", method: "DELETE", path: products + "?ids={miaProduct},{maxProduct}", caller: "adam",
			status: 204, hooks: 1, rows: 2},
		{name: "a member deletes their own record through the bulk route", method: "DELETE", path: products + "?ids={miaProduct}", caller: "mia",
			status: 204, hooks: 1, rows: 1},
		{name: "a repeated id counts once", method: "DELETE", path: products + "?ids={miaProduct},{miaProduct}", caller: "adam",
			status: 204, hooks: 1, rows: 1},
		{name: "another team's record among the team's deletes nothing and answers like a missing one", method: "DELETE", path: products + "?ids={miaProduct},{ginaProduct}", caller: "adam",
			status: 404, contains: []string{notFoundBody}, notContains: []string{"{ginaProduct}", "GINA-1"}},
		{name: "a missing record among the team's deletes nothing and answers 404", method: "DELETE", path: products + "?ids={miaProduct}," + missingID, caller: "adam",
			status: 404, contains: []string{notFoundBody}},
		{name: "a teammate's record a member may not delete deletes nothing and is a 403, as the single delete answers", method: "DELETE", path: products + "?ids={miaProduct},{maxProduct}", caller: "mia",
			status: 403, contains: []string{forbiddenDel}},
		{name: "an owner cannot delete another team's records through their team", method: "DELETE", path: products + "?ids={ginaProduct}", caller: "alice",
			status: 404, contains: []string{notFoundBody}, notContains: []string{"GINA-1"}},
		{name: "a referenced record is a 409 naming who references it and nothing is deleted", method: "DELETE", path: categories + "?ids={acmeCategory}", caller: "alice",
			status: 409, contains: []string{`"status":409`, "still referenced", `"data":{"referencedBy":[{"collection":"shopProducts","field":"categoryId","count":2}]}`}},
		{name: "101 ids is a 400 naming ids and deletes nothing", method: "DELETE", path: products + "?ids={miaProduct}," + manyIDs(100), caller: "adam",
			status: 400, contains: []string{`"param":"ids"`, "at most 100 ids"}},
		{name: "100 ids of which one is missing answers 404 and deletes nothing", method: "DELETE", path: products + "?ids={miaProduct}," + manyIDs(99), caller: "adam",
			status: 404, contains: []string{notFoundBody}},
		{name: "no ids is a 400 naming ids, never a delete of every record", method: "DELETE", path: products, caller: "adam",
			status: 400, contains: []string{`"param":"ids"`, "is required"}},
		{name: "an empty ids is a 400 naming ids", method: "DELETE", path: products + "?ids=", caller: "adam",
			status: 400, contains: []string{`"param":"ids"`, "without empty entries"}},
		{name: "an empty entry in ids is a 400 naming ids", method: "DELETE", path: products + "?ids={miaProduct},,{maxProduct}", caller: "adam",
			status: 400, contains: []string{`"param":"ids"`}},
		{name: "ids given twice is a 400 naming ids", method: "DELETE", path: products + "?ids={miaProduct}&ids={maxProduct}", caller: "adam",
			status: 400, contains: []string{`"param":"ids"`, "once"}},
		{name: "a filter on a bulk delete is a 400 naming it, not a delete by filter", method: "DELETE", path: products + `?ids={miaProduct}&filter={"title":"x"}`, caller: "adam",
			status: 400, contains: []string{`"param":"filter"`, "does not apply to a delete"}},
		{name: "a search on a bulk delete is a 400 naming it", method: "DELETE", path: products + "?search=mia", caller: "adam",
			status: 400, contains: []string{`"param":"search"`}},
		{name: "If-Match on a bulk delete is a 400 naming the header, not a precondition silently ignored", method: "DELETE", path: products + "?ids={miaProduct},{maxProduct}", caller: "adam",
			header: []string{"If-Match", `"v1"`}, status: 400, contains: []string{`"data":{"header":"If-Match"}`, "DELETE .../{id}"}},
		{name: "a member of another team cannot bulk delete", method: "DELETE", path: products + "?ids={miaProduct}", caller: "gina",
			status: 403, notContains: []string{"MIA-1"}},
		{name: "a banned member cannot bulk delete", method: "DELETE", path: products + "?ids={miaProduct}", caller: "ben", status: 403},
		{name: "an anonymous caller cannot bulk delete", method: "DELETE", path: products + "?ids={miaProduct}", status: 401},
		{name: "an unknown collection answers 404", method: "DELETE", path: "/api/teams/acme/shop-nothing?ids={miaProduct}", caller: "alice",
			status: 404, contains: []string{"collection not found"}},
	})
}

// TestBulkDeleteIsAllOrNothing deletes good records together with one that
// cannot go: nothing is deleted, no hook fires, and the answer is the one
// the bad record's single delete gives. The good case checks the one
// payload the hooks get.
func TestBulkDeleteIsAllOrNothing(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		// create adds records as caller and returns their ids.
		create := func(t *testing.T, w *world, caller, path string, bodies ...string) []string {
			t.Helper()
			var ids []string
			for _, b := range bodies {
				res := w.do(t, "POST", path, caller, "application/json", w.expand(b))
				if res.status != http.StatusCreated {
					t.Fatalf("create: got %d, want 201 (%s)", res.status, res.body)
				}
				var rec map[string]any
				testkit.DecodeJSON(t, res.body, &rec)
				ids = append(ids, rec["id"].(string))
			}
			return ids
		}
		cases := []struct {
			name     string
			caller   string
			path     string
			bodies   []string // records created first, as caller, at path
			ids      string   // {new0}, {new1}... are the records created
			status   int
			contains []string
		}{
			{name: "a referenced category after a free one deletes neither", caller: "alice", path: categories,
				bodies: []string{`{"title":"Spare"}`, `{"title":"Spare 2"}`}, ids: "{new0},{new1},{acmeCategory}",
				status: 409, contains: []string{`"referencedBy":[{"collection":"shopProducts","field":"categoryId","count":2}]`}},
			{name: "another team's record last among three deletes none", caller: "adam", path: products,
				bodies: []string{`{"title":"One"}`, `{"title":"Two"}`}, ids: "{new0},{new1},{ginaProduct}",
				status: 404, contains: []string{notFoundBody}},
			{name: "a missing record first among three deletes none", caller: "adam", path: products,
				bodies: []string{`{"title":"One"}`, `{"title":"Two"}`}, ids: missingID + ",{new0},{new1}",
				status: 404, contains: []string{notFoundBody}},
			{name: "a teammate's record among a member's own deletes none", caller: "mia", path: products,
				bodies: []string{`{"title":"One"}`, `{"title":"Two"}`}, ids: "{new0},{maxProduct},{new1}",
				status: 403, contains: []string{forbiddenDel}},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				w := newWorld(t, e)
				created := create(t, w, tc.caller, tc.path, tc.bodies...)
				ids := tc.ids
				for i, id := range created {
					ids = strings.ReplaceAll(ids, fmt.Sprintf("{new%d}", i), id)
				}
				checkScenario(t, w, scenario{method: "DELETE", path: tc.path + "?ids=" + ids, caller: tc.caller,
					status: tc.status, contains: tc.contains}, worldTables, nil)
			})
		}

		t.Run("a bulk delete fires one hook whose payload names every id and each record's last state", func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, e)
			sc := scenario{method: "DELETE", path: products + "?ids={maxProduct},{miaProduct}", caller: "alice",
				header: []string{"X-Correlation-Id", "bulk-1"}, status: 204, hooks: 1, rows: 2}
			checkScenario(t, w, sc, worldTables, func(t *testing.T) {
				w.mu.Lock()
				m := w.after[0]
				w.mu.Unlock()
				wantIDs := []string{w.ids["maxProduct"], w.ids["miaProduct"]}
				if m.Operation != kit.OpDelete || m.Collection != "shopProducts" {
					t.Errorf("operation: got %s of %s, want delete of shopProducts", m.Operation, m.Collection)
				}
				if !slices.Equal(m.ItemIDs, wantIDs) {
					t.Errorf("itemIds: got %v, want %v", m.ItemIDs, wantIDs)
				}
				if m.ItemID != "" {
					t.Errorf("itemId: got %q, want none for several records", m.ItemID)
				}
				if got := slices.Sorted(maps.Keys(m.BeforeData)); !slices.Equal(got, slices.Sorted(slices.Values(wantIDs))) {
					t.Errorf("beforeData keys: got %v, want the ids %v", got, wantIDs)
				}
				if rec, _ := m.BeforeData[w.ids["miaProduct"]].(kit.Record); rec["sku"] != "MIA-1" {
					t.Errorf("beforeData of miaProduct: got %v, want the record with sku MIA-1", m.BeforeData[w.ids["miaProduct"]])
				}
				if res, _ := m.Result.(map[string]any); res["deleted"] != 2 {
					t.Errorf("result: got %v, want deleted 2", m.Result)
				}
				if m.CorrelationID != "bulk-1" || m.TeamID != w.ids["acme"] || m.UserID != w.ids["alice"] {
					t.Errorf("who and where: got correlation %q team %q user %q, want bulk-1, acme, alice", m.CorrelationID, m.TeamID, m.UserID)
				}
			})
		})
	})
}
