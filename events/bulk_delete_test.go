package events_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/collectionkit/kit/events"
	"github.com/collectionkit/kit/internal/testdb"
)

// TestBulkDeleteIsTracked: DELETE ?ids=a,b writes one delete event per
// record in the deletion's transaction, with one correlation id; a bulk
// delete refused for one of its records writes no event at all.
func TestBulkDeleteIsTracked(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		// create adds a product as mia and returns its id.
		create := func(t *testing.T, w *world, title string) string {
			t.Helper()
			res := w.do(t, "POST", products, "mia", `{"title":"`+title+`"}`)
			if res.status != 201 {
				t.Fatalf("create: got %d, want 201 (%s)", res.status, res.body)
			}
			var rec map[string]any
			if err := json.Unmarshal([]byte(res.body), &rec); err != nil {
				t.Fatal(err)
			}
			return rec["id"].(string)
		}
		cases := []struct {
			name   string
			ids    string // {new} is a product mia creates first
			status int
			events []string // the deleted items, in the order asked
		}{
			{name: "a bulk delete writes one delete event per record", ids: "{new},{miaProduct}", status: 204, events: []string{"{new}", "{miaProduct}"}},
			{name: "a bulk delete with another team's record writes no event", ids: "{new},{ginaProduct}", status: 404},
			{name: "a bulk delete with a missing record writes no event", ids: "{new},00000000-0000-0000-0000-000000000000", status: 404},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				w := newWorld(t, e, events.Config{})
				w.ids["new"] = create(t, w, "Bulk")
				creates := len(w.stored(t))
				before := w.snapshot(t)
				res := w.do(t, "DELETE", products+"?ids="+tc.ids, "mia", "")
				if res.status != tc.status {
					t.Fatalf("status: got %d, want %d (%s)", res.status, tc.status, res.body)
				}
				got := w.stored(t)[creates:]
				if len(got) != len(tc.events) {
					t.Fatalf("events: got %d, want %d", len(got), len(tc.events))
				}
				if len(tc.events) == 0 {
					if after := w.snapshot(t); len(after) != len(before) {
						t.Errorf("records: got %d rows, want the %d before", len(after), len(before))
					}
					return
				}
				var items []string
				for _, ev := range got {
					items = append(items, ev.ItemID)
					if ev.Operation != "delete" || ev.UserName != "Mia" || len(ev.Changes) != 0 {
						t.Errorf("event of %s: got %s by %q with %d changes, want a delete by Mia with none", ev.ItemID, ev.Operation, ev.UserName, len(ev.Changes))
					}
					if ev.Metadata["correlationId"] != got[0].Metadata["correlationId"] {
						t.Errorf("correlation ids: got %v and %v, want one for the request", ev.Metadata["correlationId"], got[0].Metadata["correlationId"])
					}
				}
				want := make([]string, len(tc.events))
				for i, p := range tc.events {
					want[i] = w.expand(p)
				}
				slices.Sort(items)
				slices.Sort(want)
				if !slices.Equal(items, want) {
					t.Errorf("deleted items: got %v, want %v", items, want)
				}
			})
		}
	})
}
