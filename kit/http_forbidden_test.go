package kit_test

import (
	"strings"
	"testing"

	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kittest"
)

// The exact bodies of a refused change (issue 16, item 3.2): inside one's
// own team a 403 that says why; a record of another team answers exactly
// like a missing one.
const (
	notFoundExact  = `{"status":404,"statusText":"Not Found","message":"record not found"}`
	forbiddenPatch = `{"status":403,"statusText":"Forbidden","message":"a member may update only the records they own; team admins and owners may update any"}`
	forbiddenDel   = `{"status":403,"statusText":"Forbidden","message":"a member may delete only the records they own; team admins and owners may delete any"}`
	forbiddenMove  = `{"status":403,"statusText":"Forbidden","message":"a member may move only the records they own; team admins and owners may move any"}`
	forbiddenOrder = `{"status":403,"statusText":"Forbidden","message":"a member may reorder only when every record that changes place is theirs"}`
	missingID      = "00000000-0000-7000-8000-000000000000"
)

// TestRefusedChangesInsideTheTeam checks, on every engine, that a member
// who can read a teammate's record but may not change it gets a 403 on
// PATCH, DELETE, move and reorder, while another team's record and a
// missing one answer the identical 404; each refusal answers its exact
// body, fires no hook and changes no row.
func TestRefusedChangesInsideTheTeam(t *testing.T) {
	t.Parallel()
	move := func(id string) string { return treeFolders + "/" + id + "/move" }
	cases := []struct {
		name, method, path, caller, body string
		status                           int
		want                             string // the exact body
	}{
		{"a member updating a teammate's record gets 403", "PATCH", products + "/{maxProduct}", "mia", `{"price":"12"}`, 403, forbiddenPatch},
		{"a member updating another team's record gets 404", "PATCH", products + "/{ginaProduct}", "mia", `{"price":"12"}`, 404, notFoundExact},
		{"a member updating a missing record gets the same 404", "PATCH", products + "/" + missingID, "mia", `{"price":"12"}`, 404, notFoundExact},
		{"an owner updating another team's record gets the same 404", "PATCH", products + "/{ginaProduct}", "alice", `{"price":"12"}`, 404, notFoundExact},
		{"an update the body would refuse is still a 403 first: rights before validation of references",
			"PATCH", products + "/{maxProduct}", "mia", `{"categoryId":"{globexCategory}"}`, 403, forbiddenPatch},

		{"a member deleting a teammate's record gets 403", "DELETE", products + "/{maxProduct}", "mia", "", 403, forbiddenDel},
		{"a member deleting another team's record gets 404", "DELETE", products + "/{ginaProduct}", "mia", "", 404, notFoundExact},
		{"a member deleting a missing record gets the same 404", "DELETE", products + "/" + missingID, "mia", "", 404, notFoundExact},
		{"a member deleting a teammate's leaf of a tree gets 403", "DELETE", treeFolders + "/{fB}", "mia", "", 403, forbiddenDel},
		{"a member deleting another team's node gets 404", "DELETE", treeFolders + "/{gC}", "mia", "", 404, notFoundExact},

		{"a member moving a teammate's node gets 403", "PATCH", move("{fB}"), "mia", `{"parentId":null,"order":0}`, 403, forbiddenMove},
		{"a member moving another team's node gets 404", "PATCH", move("{gR}"), "mia", `{"parentId":null,"order":0}`, 404, notFoundExact},
		{"a member moving a missing node gets the same 404", "PATCH", move(missingID), "mia", `{"parentId":null,"order":0}`, 404, notFoundExact},

		{"a member reordering a teammate's task gets 403", "PATCH", treeTasks + "/reorder", "mia", `{"ids":["{task3}","{task1}","{task2}"]}`, 403, forbiddenOrder},
	}
	tables := []string{foldersTable, tasksTable, "shop_categories", "shop_products", "app_notes"}
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel() // each case has its own world
				w := newTreeWorld(t, e)
				before := kittest.TableRows(t, w.k.DB(), tables...)
				w.reset()
				ct := ""
				if tc.body != "" {
					ct = "application/json"
				}
				res := w.do(t, tc.method, tc.path, tc.caller, ct, tc.body)
				if res.status != tc.status {
					t.Errorf("status: got %d, want %d", res.status, tc.status)
				}
				if got := strings.TrimSpace(res.body); got != tc.want {
					t.Errorf("body:\n got %s\nwant %s", got, tc.want)
				}
				if tx, after := w.counts(); tx != 0 || after != 0 {
					t.Errorf("hooks: got %d in tx and %d after commit, want none", tx, after)
				}
				if n := kittest.RowsChanged(before, kittest.TableRows(t, w.k.DB(), tables...)); n != 0 {
					t.Errorf("rows changed: got %d, want 0", n)
				}
			})
		}
	})
}
