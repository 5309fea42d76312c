package events_test

import (
	"testing"

	"github.com/collectionkit/kit/events"
	"github.com/collectionkit/kit/internal/testdb"
)

// TestAdminDeletesWithoutReadingTheRecord checks the delete that the
// add-on lets kit run as one statement (a delete's event records no
// changes, so the add-on registers with NoDeleteState, and with no other
// listener an admin's delete does not read the record first): the event
// is recorded as before, a missing record is the same 404 with no event,
// and a failed event insert does in each mode what it does for any
// other write.
func TestAdminDeletesWithoutReadingTheRecord(t *testing.T) {
	t.Parallel()
	const path = products + "/{miaProduct}"
	cases := []struct {
		name    string
		cfg     events.Config
		path    string
		breakBy failure
		status  int
		deleted bool
		events  int
	}{
		{name: "an admin's delete records one event with no changes", path: path, status: 204, deleted: true, events: 1},
		{name: "an admin's delete of a missing record is a 404 with no event", path: products + "/00000000-0000-7000-8000-000000000000", status: 404},
		{name: "an admin's delete of another team's record is a 404 with no event", path: products + "/{ginaProduct}", status: 404},
		{name: "in throw mode a failed event insert fails the delete and keeps the record", cfg: mode(events.ModeThrow), path: path, breakBy: failTrigger, status: 500},
		{name: "in silent mode a failed event insert lets the delete commit without its event", cfg: mode(events.ModeSilent), path: path, breakBy: failTrigger, status: 204, deleted: true},
		{name: "a failure that ends the transaction fails the delete even in silent mode", cfg: mode(events.ModeSilent), path: path, breakBy: failTxLost, status: 500},
	}
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel() // each case has its own world
				w := newWorld(t, e, tc.cfg)
				repair := func() {}
				if tc.breakBy != "" {
					repair, _ = w.breakTracking(t, tc.breakBy)
				}
				before := w.count(t, "shop_products")
				res := w.do(t, "DELETE", tc.path, "alice", "")
				repair()
				if res.status != tc.status {
					t.Fatalf("status: got %d, want %d (%s)", res.status, tc.status, res.body)
				}
				want := before
				if tc.deleted {
					want--
				}
				if got := w.count(t, "shop_products"); got != want {
					t.Errorf("products: got %d, want %d", got, want)
				}
				got := w.stored(t)
				if len(got) != tc.events {
					t.Fatalf("events: got %d, want %d", len(got), tc.events)
				}
				if tc.events == 1 {
					ev := got[0]
					if ev.Operation != "delete" || ev.ItemID != w.ids["miaProduct"] || ev.UserID != w.ids["alice"] || ev.UserName != "Alice" || len(ev.Changes) != 0 {
						t.Errorf("event: got %s of %s by %s (%q) with %d changes, want delete of miaProduct by alice (\"Alice\") with none",
							ev.Operation, ev.ItemID, ev.UserID, ev.UserName, len(ev.Changes))
					}
				}
			})
		}
	})
}
