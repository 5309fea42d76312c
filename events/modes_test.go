package events_test

import (
	"strings"
	"testing"

	"github.com/collectionkit/kit/events"
	"github.com/collectionkit/kit/kit"
)

// TestErrorModes makes the event insert fail for real (a trigger aborts
// it) and checks what each mode does with the mutation.
func TestErrorModes(t *testing.T) {
	type request struct{ method, path, body string }
	create := request{"POST", products, `{"title":"Hammer","sku":"H-1"}`}
	update := request{"PATCH", products + "/{miaProduct}", `{"title":"Renamed"}`}
	remove := request{"DELETE", products + "/{miaProduct}", ""}
	cases := []struct {
		name        string
		cfg         events.Config
		dev         bool
		req         request
		status      int
		committed   bool // the record change is in the table
		warning     bool // X-Kit-Event-Warning is set
		logged      bool
		breakByRoll bool // the failure rolls back the whole transaction
	}{
		{name: "throw fails a create with 500 and stores nothing", cfg: mode(events.ModeThrow), req: create, status: 500, logged: true},
		{name: "throw fails an update with 500 and leaves the record as it was", cfg: mode(events.ModeThrow), req: update, status: 500, logged: true},
		{name: "throw fails a delete with 500 and keeps the record", cfg: mode(events.ModeThrow), req: remove, status: 500, logged: true},
		{name: "throw in development fails the same way", cfg: mode(events.ModeThrow), dev: true, req: create, status: 500, logged: true},
		{name: "silent lets a create commit without its event and logs", cfg: mode(events.ModeSilent), req: create, status: 201, committed: true, logged: true},
		{name: "silent lets an update commit without its event", cfg: mode(events.ModeSilent), req: update, status: 200, committed: true, logged: true},
		{name: "silent lets a delete commit without its event", cfg: mode(events.ModeSilent), req: remove, status: 204, committed: true, logged: true},
		{name: "silent never warns the caller, even in development", cfg: mode(events.ModeSilent), dev: true, req: create, status: 201, committed: true, logged: true},
		{name: "silent without console logging logs nothing", cfg: events.Config{ErrorHandling: events.ErrorHandling{Mode: events.ModeSilent, NoConsoleLog: true}}, req: create, status: 201, committed: true},
		{name: "toast in production behaves like silent", cfg: mode(events.ModeToast), req: create, status: 201, committed: true, logged: true},
		{name: "toast in development also warns the caller in a header", cfg: mode(events.ModeToast), dev: true, req: update, status: 200, committed: true, warning: true, logged: true},
		{name: "the zero Config is toast mode", dev: true, req: create, status: 201, committed: true, warning: true, logged: true},
		{name: "a failure that aborts the whole transaction fails the request even in silent mode", cfg: mode(events.ModeSilent), req: create, status: 500, logged: true, breakByRoll: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, tc.cfg, func(c *kit.Config) { c.Dev = tc.dev })
			how := "abort"
			if tc.breakByRoll {
				how = "rollback"
			}
			w.breakTracking(t, how)
			before := w.snapshot(t)
			res := w.do(t, tc.req.method, tc.req.path, "mia", tc.req.body)
			if res.status != tc.status {
				t.Fatalf("status: got %d, want %d (body %s)", res.status, tc.status, res.body)
			}
			if tc.status == 500 && !strings.Contains(res.body, `"status":500`) {
				t.Errorf("body: got %s, want kit's 500 error shape", res.body)
			}
			if strings.Contains(res.body, "broken by the test") {
				t.Errorf("body: got %s, want no internal cause", res.body)
			}
			changed := len(w.snapshot(t)) != len(before)
			if tc.req == update {
				changed = w.snapshot(t)["shop_products/"+w.ids["miaProduct"]] != before["shop_products/"+w.ids["miaProduct"]]
			}
			if changed != tc.committed {
				t.Errorf("record change committed: got %v, want %v", changed, tc.committed)
			}
			if n := w.count(t, "kit_events"); n != 0 {
				t.Errorf("events: got %d, want 0", n)
			}
			warning := res.header.Get(events.WarningHeader)
			if (warning != "") != tc.warning {
				t.Errorf("%s: got %q, want set=%v", events.WarningHeader, warning, tc.warning)
			}
			if tc.warning && !strings.Contains(warning, "audit event") {
				t.Errorf("%s: got %q, want it to say the audit event is missing", events.WarningHeader, warning)
			}
			logged := strings.Contains(w.logs.String(), "events: tracking failed")
			if logged != tc.logged {
				t.Errorf("logged: got %v, want %v (log %s)", logged, tc.logged, w.logs.String())
			}
			h := w.tr.Health()
			if h.Total != 1 || h.Failed != 1 || !strings.Contains(h.LastError, "broken by the test") || h.LastErrorTime.IsZero() {
				t.Errorf("health: got %+v, want 1 attempt, 1 failure with its error and time", h)
			}
			if tc.breakByRoll && !strings.Contains(h.LastError, "savepoint") {
				t.Errorf("lastError: got %q, want the failed rollback to the savepoint", h.LastError)
			}
		})
	}
}

func mode(m events.Mode) events.Config {
	return events.Config{ErrorHandling: events.ErrorHandling{Mode: m}}
}

// TestTrackingRecoversAfterAFailure checks that a failure is not sticky:
// once the table accepts inserts again, events are written again.
func TestTrackingRecoversAfterAFailure(t *testing.T) {
	w := newWorld(t, mode(events.ModeThrow))
	repair := w.breakTracking(t, "abort")
	if res := w.do(t, "PATCH", products+"/{miaProduct}", "mia", `{"stock":1}`); res.status != 500 {
		t.Fatalf("broken: got %d, want 500", res.status)
	}
	repair()
	if res := w.do(t, "PATCH", products+"/{miaProduct}", "mia", `{"stock":2}`); res.status != 200 {
		t.Fatalf("repaired: got %d, want 200 (%s)", res.status, res.body)
	}
	got := w.stored(t)
	// The failed update never happened, so the old value is the seed's (none).
	if len(got) != 1 || changesJSON(got[0].Changes) != `[{"fieldName":"stock","oldValue":null,"newValue":"2"}]` {
		t.Fatalf("events: got %+v, want one update of stock from null to 2", got)
	}
	if h := w.tr.Health(); h.Total != 2 || h.Failed != 1 {
		t.Errorf("health: got total %d failed %d, want 2 and 1", h.Total, h.Failed)
	}
}

// TestHealthEndpoint reads the health record over HTTP.
func TestHealthEndpoint(t *testing.T) {
	w := newWorld(t, mode(events.ModeSilent))
	const health = "/api/kit-events/health"
	if res := w.do(t, "GET", health, "root", ""); res.status != 200 ||
		res.body != `{"total":0,"failed":0,"lastError":null,"lastErrorTime":null}`+"\n" {
		t.Fatalf("fresh health: got %d %s, want 200 with zero counts and nulls", res.status, res.body)
	}
	w.do(t, "PATCH", products+"/{miaProduct}", "mia", `{"stock":1}`)
	repair := w.breakTracking(t, "abort")
	w.do(t, "PATCH", products+"/{miaProduct}", "mia", `{"stock":2}`)
	repair()
	w.do(t, "POST", "/api/teams/acme/kit-collection-events", "mia", `{"operation":"delete","collection":"shopProducts","itemId":"gone"}`)

	scenarios := []struct {
		name, caller string
		status       int
		contains     []string
	}{
		{"a super-admin reads the counts of every attempt and failure", "root", 200, []string{`"total":3`, `"failed":1`, `"lastError":"`, "broken by the test", `"lastErrorTime":"20`}},
		{"a team owner who is not a super-admin is refused", "alice", 403, []string{"admin role required"}},
		{"an anonymous caller is refused", "", 401, nil},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			res := w.do(t, "GET", health, sc.caller, "")
			if res.status != sc.status {
				t.Fatalf("status: got %d, want %d (%s)", res.status, sc.status, res.body)
			}
			for _, s := range sc.contains {
				if !strings.Contains(res.body, s) {
					t.Errorf("body: got %s, want it to contain %q", res.body, s)
				}
			}
		})
	}
}

// TestDisabled checks that Disabled tracks nothing: no listener, no
// events, no attempts, manual tracking a no-op; the read endpoint stays.
func TestDisabled(t *testing.T) {
	w := newWorld(t, events.Config{Disabled: true})
	for _, req := range []struct {
		method, path, body string
		status             int
	}{
		{"POST", products, `{"title":"Hammer"}`, 201},
		{"PATCH", products + "/{miaProduct}", `{"title":"Renamed"}`, 200},
		{"DELETE", products + "/{miaProduct}", "", 204},
		{"POST", "/api/teams/acme/kit-collection-events", `{"operation":"delete","collection":"shopProducts","itemId":"x"}`, 200},
	} {
		if res := w.do(t, req.method, req.path, "mia", req.body); res.status != req.status {
			t.Errorf("%s %s: got %d, want %d (%s)", req.method, req.path, res.status, req.status, res.body)
		}
	}
	if n := w.count(t, "kit_events"); n != 0 {
		t.Errorf("events: got %d, want 0", n)
	}
	if h := w.tr.Health(); h.Total != 0 {
		t.Errorf("health total: got %d, want 0", h.Total)
	}
	if res := w.do(t, "GET", "/api/teams/acme/kit-events", "mia", ""); res.status != 200 || !strings.Contains(res.body, `"totalItems":0`) {
		t.Errorf("list: got %d %s, want 200 with no events", res.status, res.body)
	}
}

// TestInstall covers Install's own errors.
func TestInstall(t *testing.T) {
	t.Run("an unknown error mode is refused", func(t *testing.T) {
		k, err := kit.New(kit.Config{SQLitePath: ":memory:events_install_mode"})
		if err != nil {
			t.Fatal(err)
		}
		defer k.Close()
		if _, err := events.Install(k, mode("loud")); err == nil || !strings.Contains(err.Error(), `"loud"`) {
			t.Fatalf("got %v, want an error naming the mode", err)
		}
	})
	t.Run("a second Install on one Kit is an error, not a panic", func(t *testing.T) {
		w := newWorld(t, events.Config{})
		if _, err := events.Install(w.k, events.Config{}); err == nil || !strings.Contains(err.Error(), "twice") {
			t.Fatalf("got %v, want an error saying it was installed twice", err)
		}
	})
	t.Run("the migration is recorded once in kit_migrations", func(t *testing.T) {
		w := newWorld(t, events.Config{})
		var n int
		if err := w.k.DB().QueryRow("SELECT count(*) FROM kit_migrations WHERE name = '20261121000200'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			t.Fatalf("migration rows: got %d, want 1", n)
		}
	})
}
