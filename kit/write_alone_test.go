package kit_test

import (
	"testing"

	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/internal/testkit"
	"github.com/collectionkit/kit/kit"
)

// TestChangeStreamWithoutListenersGetsOnlyCommittedWrites checks the
// change log of writes made without an OnMutationTx listener (on
// PostgreSQL one statement each, outside any transaction, see
// store.InsertLogged): a refused write, a conflict, an update that changes
// nothing and a write of no record leave no change; each committed
// create, update and delete leaves exactly one, in order.
func TestChangeStreamWithoutListenersGetsOnlyCommittedWrites(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		k, seed := worlds.Open(t, e, "shop", kit.Config{Definitions: shopDefinitions()}, shopWorld)
		w := serveWorld(t, k, seed)
		s, _ := w.stream(t, "alice", "")
		products := "/api/teams/acme/shop-products"
		refused := []struct {
			name, method, path, caller, body string
			status                           int
		}{
			{"a unique conflict on create is a 409", "POST", products, "alice", `{"title":"Dup","sku":"MIA-1"}`, 409},
			{"a unique conflict on update is a 409", "PATCH", products + "/{maxProduct}", "alice", `{"sku":"MIA-1"}`, 409},
			{"an update to the stored values is a 200", "PATCH", products + "/{miaProduct}", "alice", `{"price":"9.99","title":"mia's product"}`, 200},
			{"a member's update of another's record is a 403", "PATCH", products + "/{maxProduct}", "mia", `{"price":"1.00"}`, 403},
			{"a member's delete of another's record is a 403", "DELETE", products + "/{maxProduct}", "mia", "", 403},
			{"an update of no record is a 404", "PATCH", products + "/0190c0de-0000-7000-8000-000000000000", "alice", `{"price":"1.00"}`, 404},
			{"a delete of no record is a 404", "DELETE", products + "/0190c0de-0000-7000-8000-000000000000", "alice", "", 404},
			{"a delete of a referenced record is a 409", "DELETE", "/api/teams/acme/shop-categories/{acmeCategory}", "alice", "", 409},
		}
		for _, c := range refused {
			t.Run(c.name+" and leaves no change", func(t *testing.T) {
				if res := w.do(t, c.method, c.path, c.caller, "application/json", c.body); res.status != c.status {
					t.Fatalf("got %d %s, want %d", res.status, res.body, c.status)
				}
			})
		}
		committed := []struct {
			name, method, path, body string
			status                   int
			op                       kit.Operation
			id                       string
		}{
			{"a create", "POST", "/api/teams/acme/app-notes", `{"body":"note"}`, 201, kit.OpCreate, ""},
			{"an update", "PATCH", products + "/{miaProduct}", `{"price":"1.00"}`, 200, kit.OpUpdate, "{miaProduct}"},
			{"a delete", "DELETE", products + "/{maxProduct}", "", 204, kit.OpDelete, "{maxProduct}"},
		}
		for _, c := range committed {
			t.Run(c.name+" leaves one change, after every earlier one", func(t *testing.T) {
				res := w.do(t, c.method, c.path, "alice", "application/json", c.body)
				if res.status != c.status {
					t.Fatalf("got %d %s, want %d", res.status, res.body, c.status)
				}
				want := w.expand(c.id)
				if want == "" {
					var rec map[string]any
					testkit.DecodeJSON(t, res.body, &rec)
					want, _ = rec["id"].(string)
				}
				if got := s.change(t); got.Operation != c.op || got.ItemID != want {
					t.Errorf("got %+v, want a %s of %s (nothing of the refused writes)", got, c.op, want)
				}
			})
		}
	})
}
