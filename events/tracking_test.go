package events_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/events"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/internal/testkit"
	"github.com/collectionkit/kit/kit"
)

const products = "/api/teams/acme/shop-products"

// TestChangeRules sends one mutation per case and checks the events it
// wrote: how many, of what, and their exact change lists.
func TestChangeRules(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		type wantEvent struct {
			operation, item, user, userName string
			changes                         []events.Change
		}
		cases := []struct {
			name           string
			cfg            events.Config
			method, path   string
			caller, body   string
			status         int
			want           []wantEvent
			metadataKeys   []string
			notInEventData []string // text that must appear in no stored event
		}{
			{
				name: "a create stores a new-value entry per field set, in schema order, without auto-generated fields", method: "POST", path: products, caller: "mia",
				body:   `{"title":"Hammer","sku":"H-1","price":"1.5","stock":3,"isActive":true,"dimensions":{"w":2},"categoryId":"{acmeCategory}"}`,
				status: 201,
				want: []wantEvent{{operation: "create", user: "mia", userName: "Mia", changes: []events.Change{
					{FieldName: "title", NewValue: str(`"Hammer"`)},
					{FieldName: "sku", NewValue: str(`"H-1"`)},
					{FieldName: "price", NewValue: str(`"1.50"`)},
					{FieldName: "stock", NewValue: str(`3`)},
					{FieldName: "isActive", NewValue: str(`true`)},
					{FieldName: "dimensions", NewValue: str(`{"w":2}`)},
					{FieldName: "categoryId", NewValue: str(`"{acmeCategory}"`)},
				}}},
				notInEventData: []string{`"id"`, "createdAt", "updatedAt", "createdBy", "updatedBy", "teamId", `"owner"`},
			},
			{
				name: "a create leaves out fields that are null or not given", method: "POST", path: products, caller: "mia",
				body: `{"title":"Bare","sku":null}`, status: 201,
				want: []wantEvent{{operation: "create", user: "mia", userName: "Mia", changes: []events.Change{
					{FieldName: "title", NewValue: str(`"Bare"`)},
				}}},
			},
			{
				name: "a create ignores server-owned fields in the body", method: "POST", path: "/api/teams/acme/app-notes", caller: "max",
				body: `{"body":"<b>hi</b> & bye","id":"forged","owner":"{gina}","teamId":"{globex}"}`, status: 201,
				want: []wantEvent{{operation: "create", user: "max", userName: "Max", changes: []events.Change{
					{FieldName: "body", NewValue: str(`"<b>hi</b> & bye"`)},
				}}},
				notInEventData: []string{"forged", "{gina}", "{globex}"},
			},
			{
				name: "an update stores only the fields whose value changed, with old and new values", method: "PATCH", path: products + "/{miaProduct}", caller: "mia",
				body: `{"title":"mia's product","price":"12","stock":4}`, status: 200,
				want: []wantEvent{{operation: "update", item: "miaProduct", user: "mia", userName: "Mia", changes: []events.Change{
					{FieldName: "price", OldValue: str(`"9.99"`), NewValue: str(`"12.00"`)},
					{FieldName: "stock", NewValue: str(`4`)},
				}}},
				notInEventData: []string{"updatedAt", "updatedBy"},
			},
			{
				name: "clearing a field stores a null new value", method: "PATCH", path: products + "/{miaProduct}", caller: "mia",
				body: `{"sku":null}`, status: 200,
				want: []wantEvent{{operation: "update", item: "miaProduct", user: "mia", userName: "Mia", changes: []events.Change{
					{FieldName: "sku", OldValue: str(`"MIA-1"`)},
				}}},
			},
			{
				name: "an update to the stored values fires no hook and writes no event", method: "PATCH", path: products + "/{miaProduct}", caller: "mia",
				body: `{"title":"mia's product","dimensions":{"h":2,"w":1}}`, status: 200,
			},
			{
				name: "an admin's update is recorded as the admin's", method: "PATCH", path: products + "/{miaProduct}", caller: "alice",
				body: `{"title":"Renamed"}`, status: 200,
				want: []wantEvent{{operation: "update", item: "miaProduct", user: "alice", userName: "Alice", changes: []events.Change{
					{FieldName: "title", OldValue: str(`"mia's product"`), NewValue: str(`"Renamed"`)},
				}}},
			},
			{
				name: "a delete stores one event with no changes and no field dump", method: "DELETE", path: products + "/{miaProduct}", caller: "mia",
				status: 204,
				want:   []wantEvent{{operation: "delete", item: "miaProduct", user: "mia", userName: "Mia", changes: []events.Change{}}},
				// The deleted record's values appear nowhere in the event.
				notInEventData: []string{"MIA-1", "9.99", "mia's product", "dimensions"},
			},
			{
				name: "metadata carries the correlation id, user agent and remote address", method: "PATCH", path: products + "/{miaProduct}", caller: "mia",
				body: `{"stock":1}`, status: 200,
				want: []wantEvent{{operation: "update", item: "miaProduct", user: "mia", userName: "Mia", changes: []events.Change{
					{FieldName: "stock", NewValue: str(`1`)},
				}}},
				metadataKeys: []string{"correlationId", "remoteAddr", "userAgent"},
			},
			{
				name: "without the user name snapshot the name is stored empty", cfg: events.Config{NoUserNameSnapshot: true},
				method: "PATCH", path: products + "/{miaProduct}", caller: "mia", body: `{"stock":1}`, status: 200,
				want: []wantEvent{{operation: "update", item: "miaProduct", user: "mia", userName: "", changes: []events.Change{
					{FieldName: "stock", NewValue: str(`1`)},
				}}},
			},
			{name: "a rejected create writes no event", method: "POST", path: products, caller: "mia", body: `{"sku":"no title"}`, status: 400},
			{name: "a duplicate unique value writes no event", method: "POST", path: products, caller: "mia", body: `{"title":"X","sku":"MIA-1"}`, status: 409},
			{name: "an update of another member's record writes no event", method: "PATCH", path: products + "/{miaProduct}", caller: "max", body: `{"stock":1}`, status: 403},
			{name: "a delete of another team's record writes no event", method: "DELETE", path: products + "/{ginaProduct}", caller: "alice", status: 404},
			{name: "an empty update writes nothing and records nothing", method: "PATCH", path: products + "/{miaProduct}", caller: "mia", body: `{}`, status: 200},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel() // each case has its own world
				w := newWorld(t, e, tc.cfg)
				res := w.do(t, tc.method, tc.path, tc.caller, tc.body, "X-Correlation-Id", "corr-42", "User-Agent", "audit-test/1.0")
				if res.status != tc.status {
					t.Fatalf("status: got %d, want %d (body %s)", res.status, tc.status, res.body)
				}
				got := w.stored(t)
				if len(got) != len(tc.want) {
					t.Fatalf("events: got %d, want %d (%+v)", len(got), len(tc.want), got)
				}
				var created map[string]any
				if tc.method == "POST" && res.status == 201 {
					testkit.DecodeJSON(t, res.body, &created)
				}
				for i, want := range tc.want {
					e := got[i]
					item := w.ids[want.item]
					if want.item == "" {
						item, _ = created["id"].(string)
					}
					if e.Operation != want.operation || e.ItemID != item || e.TeamID != w.ids["acme"] {
						t.Errorf("event: got %s of %s in team %s, want %s of %s in team %s", e.Operation, e.ItemID, e.TeamID, want.operation, item, w.ids["acme"])
					}
					if e.UserID != w.ids[want.user] || e.UserName != want.userName {
						t.Errorf("user: got %s %q, want %s %q", e.UserID, e.UserName, w.ids[want.user], want.userName)
					}
					if g, wnt := changesJSON(e.Changes), w.expand(changesJSON(want.changes)); g != wnt {
						t.Errorf("changes:\n got %s\nwant %s", g, wnt)
					}
					if e.Metadata["correlationId"] != "corr-42" {
						t.Errorf("metadata.correlationId: got %v, want corr-42", e.Metadata["correlationId"])
					}
					if tc.metadataKeys != nil {
						if g := keys(e.Metadata); !slices.Equal(g, tc.metadataKeys) {
							t.Errorf("metadata keys: got %v, want %v", g, tc.metadataKeys)
						}
						if e.Metadata["userAgent"] != "audit-test/1.0" || e.Metadata["remoteAddr"] != "127.0.0.1" {
							t.Errorf("metadata: got %v, want the request's user agent and address", e.Metadata)
						}
					}
					for _, s := range tc.notInEventData {
						if s = w.expand(s); strings.Contains(e.rawChanges, s) || strings.Contains(e.rawMetadata, s) {
							t.Errorf("event data: got changes %s metadata %s, want no %q", e.rawChanges, e.rawMetadata, s)
						}
					}
				}
				if h := w.tr.Health(); h.Total != int64(len(tc.want)) || h.Failed != 0 {
					t.Errorf("health: got total %d failed %d, want total %d failed 0", h.Total, h.Failed, len(tc.want))
				}
			})
		}
	})
}

// TestGoAPIMutationsAreTracked covers mutations made with kit's Go record
// API: no HTTP request, no user in the context.
func TestGoAPIMutationsAreTracked(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		w := newWorld(t, e, events.Config{})
		ctx := context.Background()
		recs := w.k.Records("shopProducts")
		rec, err := recs.Create(ctx, w.actors["max"], map[string]any{"title": "From Go"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := recs.Update(ctx, w.actors["max"], rec["id"].(string), map[string]any{"title": "From Go, again"}); err != nil {
			t.Fatal(err)
		}
		if err := recs.Delete(ctx, w.actors["max"], rec["id"].(string)); err != nil {
			t.Fatal(err)
		}
		got := w.stored(t)
		if len(got) != 3 {
			t.Fatalf("events: got %d, want 3", len(got))
		}
		for i, op := range []string{"create", "update", "delete"} {
			e := got[i]
			if e.Operation != op || e.ItemID != rec["id"] {
				t.Errorf("event %d: got %s of %s, want %s of %s", i, e.Operation, e.ItemID, op, rec["id"])
			}
			// The name comes from the Directory when the context has no user.
			if e.UserName != "Max" {
				t.Errorf("event %d userName: got %q, want %q", i, e.UserName, "Max")
			}
			if g := keys(e.Metadata); !slices.Equal(g, []string{"correlationId"}) {
				t.Errorf("event %d metadata keys: got %v, want [correlationId]", i, g)
			}
		}
		if got[0].Metadata["correlationId"] == got[1].Metadata["correlationId"] {
			t.Errorf("correlation ids: got the same %v for two operations, want one each", got[0].Metadata["correlationId"])
		}
	})
}

// TestUserNameIsASnapshot renames a user after an event: the event keeps
// the name at event time.
func TestUserNameIsASnapshot(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		w := newWorld(t, e, events.Config{})
		if res := w.do(t, "PATCH", products+"/{miaProduct}", "mia", `{"stock":5}`); res.status != 200 {
			t.Fatalf("status: got %d, want 200 (%s)", res.status, res.body)
		}
		if _, err := w.k.DB().ExecContext(context.Background(), "UPDATE kit_users SET name = 'Mia Renamed' WHERE id = ?", w.ids["mia"]); err != nil {
			t.Fatal(err)
		}
		if res := w.do(t, "PATCH", products+"/{miaProduct}", "mia", `{"stock":6}`); res.status != 200 {
			t.Fatalf("status: got %d, want 200 (%s)", res.status, res.body)
		}
		got := w.stored(t)
		if len(got) != 2 || got[0].UserName != "Mia" || got[1].UserName != "Mia Renamed" {
			t.Fatalf("user names: got %+v, want Mia then Mia Renamed", got)
		}
	})
}

// TestEventsCommitWithTheirChange registers a transaction listener after
// Install that fails: the mutation rolls back, and its event with it.
func TestEventsCommitWithTheirChange(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		for _, mode := range []events.Mode{events.ModeToast, events.ModeSilent, events.ModeThrow} {
			t.Run("a later listener's failure rolls back the event in mode "+string(mode), func(t *testing.T) {
				w := newWorld(t, e, events.Config{ErrorHandling: events.ErrorHandling{Mode: mode}})
				w.k.OnMutationTx(func(ctx context.Context, tx bun.Tx, m *kit.Mutation) error {
					if m.Operation == kit.OpDelete {
						return nil
					}
					return errors.New("a later listener fails")
				})
				before := w.snapshot(t)
				for _, req := range []struct{ method, path, body string }{
					{"POST", products, `{"title":"Never"}`},
					{"PATCH", products + "/{miaProduct}", `{"title":"Never"}`},
				} {
					if res := w.do(t, req.method, req.path, "mia", req.body); res.status != 500 {
						t.Errorf("%s status: got %d, want 500 (%s)", req.method, res.status, res.body)
					}
				}
				if n := w.count(t, "kit_events"); n != 0 {
					t.Errorf("events: got %d, want 0", n)
				}
				if after := w.snapshot(t); len(after) != len(before) || after["shop_products/"+w.ids["miaProduct"]] != before["shop_products/"+w.ids["miaProduct"]] {
					t.Errorf("records: got a change, want none")
				}
				// The listener let deletes through: those commit with their event.
				if res := w.do(t, "DELETE", products+"/{miaProduct}", "mia", ""); res.status != 204 {
					t.Fatalf("delete status: got %d, want 204", res.status)
				}
				if n := w.count(t, "kit_events"); n != 1 {
					t.Errorf("events after the delete: got %d, want 1", n)
				}
			})
		}
	})
}
