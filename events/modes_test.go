package events_test

import (
	"context"
	"maps"
	"strings"
	"testing"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/events"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
)

// TestErrorModes makes the event insert fail for real, in every way the
// engine can stage (a trigger raising an error, a CHECK constraint, the
// table gone; see statementFailures), and checks what each mode does with
// the mutation: throw rolls the change back, silent and toast commit it
// without its event. On PostgreSQL a failed statement aborts the whole
// transaction, so the committed cases prove the savepoint path for real.
func TestErrorModes(t *testing.T) {
	t.Parallel()
	create := request{"POST", products, `{"title":"Hammer","sku":"H-1"}`}
	update := request{"PATCH", products + "/{miaProduct}", `{"title":"Renamed"}`}
	remove := request{"DELETE", products + "/{miaProduct}", ""}
	cases := []errorModeCase{
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
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		for _, f := range append(statementFailures(e), failTxLost) {
			t.Run(string(f), func(t *testing.T) {
				for _, tc := range cases {
					if tc.breakByRoll != (f == failTxLost) {
						continue
					}
					for _, later := range []bool{true, false} {
						name := tc.name + " with a later listener"
						if !later {
							// On PostgreSQL the write is then one
							// statement, and its event joins it.
							name = tc.name + " with no other listener"
						}
						t.Run(name, func(t *testing.T) {
							t.Parallel() // each case has its own world
							testErrorMode(t, e, f, tc, later)
						})
					}
				}
			})
		}
	})
}

type request struct{ method, path, body string }

// errorModeCase is a request whose event insert fails, in a mode, and what
// it must do.
type errorModeCase struct {
	name        string
	cfg         events.Config
	dev         bool
	req         request
	status      int
	committed   bool // the record change is in the table
	warning     bool // X-Kit-Event-Warning is set
	logged      bool
	breakByRoll bool // the failure rolls back the whole transaction
}

// testErrorMode runs case want with failure f, with a later listener
// that writes in the mutation's transaction, or with none.
func testErrorMode(t *testing.T, e testdb.Engine, f failure, want errorModeCase, later bool) {
	w := newWorld(t, e, want.cfg, func(c *kit.Config) { c.Dev = want.dev })
	method, path, body := want.req.method, want.req.path, want.req.body
	// A later listener writes a marker row in the mutation's transaction:
	// it must commit exactly when the change does. When a failure loses
	// the transaction unnoticed, SQLite would commit the marker on its
	// own (autocommit), without the change.
	if _, err := w.k.DB().ExecContext(context.Background(), "CREATE TABLE later_listener (n INTEGER)"); err != nil {
		t.Fatal(err)
	}
	if later {
		w.k.OnMutationTx(func(ctx context.Context, tx bun.Tx, m *kit.Mutation) error {
			_, err := tx.ExecContext(ctx, "INSERT INTO later_listener (n) VALUES (1)")
			return err
		})
	}
	// On PostgreSQL, a one-statement write whose session ends mid-statement
	// fails as a whole: that is the write's failure, not the event's, and
	// nothing tells the add-on of it.
	sessionLost := !later && f == failTxLost && e == testdb.EnginePostgres
	if sessionLost {
		want.logged = false
	}
	repair, cause := w.breakTracking(t, f)
	before := w.snapshot(t)
	res := w.do(t, method, path, "mia", body)
	repair()
	if res.status != want.status {
		t.Fatalf("status: got %d, want %d (body %s)", res.status, want.status, res.body)
	}
	if want.status == 500 && !strings.Contains(res.body, `"status":500`) {
		t.Errorf("body: got %s, want kit's 500 error shape", res.body)
	}
	if strings.Contains(res.body, cause) {
		t.Errorf("body: got %s, want no internal cause", res.body)
	}
	after := w.snapshot(t)
	if changed := !maps.Equal(before, after); changed != want.committed {
		t.Errorf("record change committed: got %v, want %v", changed, want.committed)
	}
	if want.committed {
		wantRows := len(before)
		switch method {
		case "POST":
			wantRows++
		case "DELETE":
			wantRows--
		}
		if len(after) != wantRows {
			t.Errorf("records: got %d, want %d after the %s", len(after), wantRows, method)
		}
		if method == "PATCH" && after["shop_products/"+w.ids["miaProduct"]] == before["shop_products/"+w.ids["miaProduct"]] {
			t.Errorf("records: got the updated record unchanged, want the update committed")
		}
	}
	if n := w.count(t, "kit_events"); n != 0 {
		t.Errorf("events: got %d, want 0", n)
	}
	if n, want := w.count(t, "later_listener"), map[bool]int{true: 1}[want.committed && later]; n != want {
		t.Errorf("the later listener's rows: got %d, want %d (committed with the change)", n, want)
	}
	warning := res.header.Get(events.WarningHeader)
	if (warning != "") != want.warning {
		t.Errorf("%s: got %q, want set=%v", events.WarningHeader, warning, want.warning)
	}
	if want.warning && !strings.Contains(warning, "audit event") {
		t.Errorf("%s: got %q, want it to say the audit event is missing", events.WarningHeader, warning)
	}
	logged := strings.Contains(w.logs.String(), "events: tracking failed")
	if logged != want.logged {
		t.Errorf("logged: got %v, want %v (log %s)", logged, want.logged, w.logs.String())
	}
	h := w.tr.Health()
	switch {
	case sessionLost:
		if h.Total != 0 {
			t.Errorf("health: got %+v, want no attempt recorded", h)
		}
	case h.Total != 1 || h.Failed != 1 || !strings.Contains(h.LastError, cause) || h.LastErrorTime.IsZero():
		t.Errorf("health: got %+v, want 1 attempt, 1 failure with its error (%q) and time", h, cause)
	}
	if f == failTxLost && !sessionLost && !strings.Contains(h.LastError, "transaction lost") {
		t.Errorf("lastError: got %q, want it to say the transaction was lost", h.LastError)
	}
	// The database is usable again: the next change commits with its event.
	if res := w.do(t, "POST", products, "mia", `{"title":"After"}`); res.status != 201 {
		t.Fatalf("create after the repair: got %d, want 201 (%s)", res.status, res.body)
	}
	if n := w.count(t, "kit_events"); n != 1 {
		t.Errorf("events after the repair: got %d, want 1", n)
	}
}

func mode(m events.Mode) events.Config {
	return events.Config{ErrorHandling: events.ErrorHandling{Mode: m}}
}

// TestTrackingRecoversAfterAFailure checks that a failure is not sticky:
// once the table accepts inserts again, events are written again.
func TestTrackingRecoversAfterAFailure(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		for _, f := range statementFailures(e) {
			t.Run(string(f), func(t *testing.T) {
				w := newWorld(t, e, mode(events.ModeThrow))
				repair, _ := w.breakTracking(t, f)
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
			})
		}
	})
}

// TestHealthEndpoint reads the health record over HTTP.
func TestHealthEndpoint(t *testing.T) {
	t.Parallel()
	testdb.Each(t, testHealthEndpoint)
}

func testHealthEndpoint(t *testing.T, e testdb.Engine) {
	w := newWorld(t, e, mode(events.ModeSilent))
	const health = "/api/kit-events/health"
	if res := w.do(t, "GET", health, "root", ""); res.status != 200 ||
		res.body != `{"total":0,"failed":0,"lastError":null,"lastErrorTime":null}`+"\n" {
		t.Fatalf("fresh health: got %d %s, want 200 with zero counts and nulls", res.status, res.body)
	}
	w.do(t, "PATCH", products+"/{miaProduct}", "mia", `{"stock":1}`)
	repair, _ := w.breakTracking(t, failTrigger)
	w.do(t, "PATCH", products+"/{miaProduct}", "mia", `{"stock":2}`)
	repair()
	w.do(t, "POST", "/api/teams/acme/kit-collection-events", "mia", `{"operation":"delete","collection":"shopProducts","itemId":"{miaProduct}"}`)

	scenarios := []struct {
		name, caller string
		status       int
		contains     []string
	}{
		{"a super-admin reads the counts of every attempt and failure", "root", 200, []string{`"total":3`, `"failed":1`, `"lastError":"`, brokenBy, `"lastErrorTime":"20`}},
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
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		w := newWorld(t, e, events.Config{Disabled: true})
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
	})
}

// TestInstall covers Install's own errors.
func TestInstall(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		t.Run("an unknown error mode is refused", func(t *testing.T) {
			k, err := kit.New(kit.Config{DB: testdb.Open(t, e)})
			if err != nil {
				t.Fatal(err)
			}
			defer k.Close()
			if _, err := events.Install(t.Context(), k, mode("loud")); err == nil || !strings.Contains(err.Error(), `"loud"`) {
				t.Fatalf("got %v, want an error naming the mode", err)
			}
		})
		t.Run("a second Install on one Kit is an error, not a panic", func(t *testing.T) {
			w := newWorld(t, e, events.Config{})
			if _, err := events.Install(t.Context(), w.k, events.Config{}); err == nil || !strings.Contains(err.Error(), "twice") {
				t.Fatalf("got %v, want an error saying it was installed twice", err)
			}
		})
		t.Run("the migration is recorded once in kit_migrations", func(t *testing.T) {
			w := newWorld(t, e, events.Config{})
			var n int
			if err := w.k.DB().QueryRow("SELECT count(*) FROM kit_migrations WHERE name = '20261121000200'").Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != 1 {
				t.Fatalf("migration rows: got %d, want 1", n)
			}
		})
	})
}

// TestErrorModesWithoutRequest fails the event insert of mutations made
// through kit's Go API with no user in the context: the user's name is
// looked up through the transaction, so the savepoint is opened before
// the lookup rather than with the insert. Throw still rolls the change
// back; silent still commits it without its event.
func TestErrorModesWithoutRequest(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		for _, f := range statementFailures(e) {
			for _, m := range []events.Mode{events.ModeThrow, events.ModeSilent} {
				t.Run(string(f)+"/"+string(m), func(t *testing.T) {
					t.Parallel() // each case has its own world
					w := newWorld(t, e, mode(m))
					repair, cause := w.breakTracking(t, f)
					before := w.snapshot(t)
					ctx := context.Background()
					_, err := w.k.Records("shopProducts").Update(ctx, w.actors["mia"], w.ids["miaProduct"], map[string]any{"stock": 5})
					repair()
					after := w.snapshot(t)
					changed := !maps.Equal(before, after)
					switch m {
					case events.ModeThrow:
						if err == nil || changed {
							t.Errorf("throw: got error %v and change %v, want an error and no change", err, changed)
						}
					default:
						if err != nil || !changed {
							t.Errorf("silent: got error %v and change %v, want no error and the change", err, changed)
						}
					}
					if n := w.count(t, "kit_events"); n != 0 {
						t.Errorf("events: got %d, want 0", n)
					}
					if h := w.tr.Health(); h.Total != 1 || h.Failed != 1 || !strings.Contains(h.LastError, cause) {
						t.Errorf("health: got %+v, want 1 attempt and 1 failure with %q", h, cause)
					}
					// The next change commits with its event, the name looked up.
					if _, err := w.k.Records("shopProducts").Update(ctx, w.actors["mia"], w.ids["miaProduct"], map[string]any{"stock": 6}); err != nil {
						t.Fatal(err)
					}
					if got := w.stored(t); len(got) != 1 || got[0].UserName != "Mia" {
						t.Errorf("events after the repair: got %+v, want one by Mia", got)
					}
				})
			}
		}
	})
}
