package kit_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/internal/testkit"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/kittest"
	"github.com/collectionkit/kit/teamauth"
)

func TestMutationHookPayloadsOverHTTP(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		w := newWorld(t, e)
		res := w.do(t, "POST", products, "mia", "application/json", `{"title":"Hooked","price":"2"}`, "X-Correlation-Id", "req-123", "User-Agent", "kit-test/1")
		if res.status != 201 {
			t.Fatalf("create: got %d, want 201: %s", res.status, res.body)
		}
		if got := res.header.Get("X-Correlation-Id"); got != "req-123" {
			t.Errorf("response correlation id: got %q, want %q", got, "req-123")
		}
		var created map[string]any
		testkit.DecodeJSON(t, res.body, &created)
		id := created["id"].(string)
		w.do(t, "PATCH", products+"/"+id, "mia", "application/json", `{"price":"3"}`)
		w.do(t, "DELETE", products+"/"+id, "mia", "", "")

		w.mu.Lock()
		defer w.mu.Unlock()
		if len(w.after) != 3 {
			t.Fatalf("hooks: got %d, want 3", len(w.after))
		}
		c, u, d := w.after[0], w.after[1], w.after[2]
		tests := []struct {
			name      string
			got, want any
		}{
			{"create operation", c.Operation, kit.OpCreate},
			{"create collection is the registry key", c.Collection, "shopProducts"},
			{"create itemId", c.ItemID, id},
			{"create data holds the sent fields", c.Data["price"], "2.00"},
			{"create result is the stored record", c.Result.(kit.Record)["owner"], w.ids["mia"]},
			{"create correlation id comes from the header", c.CorrelationID, "req-123"},
			{"create user agent is kept", c.Request.UserAgent, "kit-test/1"},
			{"create team", c.TeamID, w.ids["acme"]},
			{"update operation", u.Operation, kit.OpUpdate},
			{"update updates hold only the change", len(u.Updates), 1},
			{"update beforeData holds the old value", u.BeforeData["price"], "2.00"},
			{"update result holds the new value", u.Result.(kit.Record)["price"], "3.00"},
			{"delete operation", d.Operation, kit.OpDelete},
			{"delete itemIds", strings.Join(d.ItemIDs, ","), id},
			{"delete beforeData is the last state", d.BeforeData["price"], "3.00"},
		}
		for _, tt := range tests {
			if tt.got != tt.want {
				t.Errorf("%s: got %v, want %v", tt.name, tt.got, tt.want)
			}
		}
		if c.Timestamp <= 0 || u.Timestamp < c.Timestamp {
			t.Errorf("timestamps: got create %d and update %d, want increasing ms", c.Timestamp, u.Timestamp)
		}
		if u.CorrelationID == "" || u.CorrelationID == "req-123" {
			t.Errorf("update correlation id: got %q, want a generated one", u.CorrelationID)
		}
	})
}

func TestTxHookErrorRollsBackAndAnswers500(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		w := newWorld(t, e)
		w.k.OnMutationTx(func(ctx context.Context, tx bun.Tx, m *kit.Mutation) error {
			return errors.New("audit store down")
		})
		before := w.snapshot(t)
		res := w.do(t, "POST", products, "mia", "application/json", `{"title":"Doomed"}`)
		if res.status != 500 {
			t.Errorf("status: got %d, want 500", res.status)
		}
		if strings.Contains(res.body, "audit store down") {
			t.Errorf("body: got %s, want no internal detail", res.body)
		}
		if got := kittest.RowsChanged(before, w.snapshot(t)); got != 0 {
			t.Errorf("rows changed: got %d, want 0", got)
		}
	})
}

func TestHandleTeamGivesAddOnsTheResolvedAccess(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		w := newWorld(t, e)
		w.k.HandleTeam(http.MethodGet, "whoami", func(rw http.ResponseWriter, r *http.Request, acc *teamauth.Access) {
			kit.WriteJSON(rw, 200, map[string]string{"team": acc.Team.Slug, "user": acc.User.Name, "role": string(acc.Membership.Role)})
		})
		tests := []struct {
			name, caller string
			status       int
			contains     string
		}{
			{"a member gets the resolved team, user and role", "adam", 200, `"role":"admin"`},
			{"a non-member is refused", "gina", 403, "not a member"},
			{"an anonymous caller is refused", "", 401, "authentication required"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				res := w.do(t, "GET", "/api/teams/acme/whoami", tt.caller, "", "")
				if res.status != tt.status || !strings.Contains(res.body, tt.contains) {
					t.Errorf("got %d %s, want %d containing %q", res.status, res.body, tt.status, tt.contains)
				}
			})
		}
	})
}

func TestMiddlewareWrapsEveryRoute(t *testing.T) {
	t.Parallel()
	calls := 0
	w := newWorld(t, testdb.EngineSQLite, func(c *kit.Config) {
		c.Middleware = append(c.Middleware, func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
				calls++
				if r.Header.Get("X-Block") != "" {
					kit.WriteJSON(rw, http.StatusTooManyRequests, map[string]any{"status": 429, "statusText": "Too Many Requests", "message": "slow down"})
					return
				}
				next.ServeHTTP(rw, r)
			})
		})
	})
	if res := w.do(t, "GET", products, "mia", "", "", "X-Block", "1"); res.status != 429 {
		t.Errorf("blocked request: got %d, want 429", res.status)
	}
	if res := w.do(t, "GET", "/api/nowhere", "mia", "", ""); res.status != 404 {
		t.Errorf("unknown route: got %d, want 404", res.status)
	}
	if calls != 2 {
		t.Errorf("middleware calls: got %d, want 2", calls)
	}
}

func TestPanickingHandlerAnswers500InTheErrorShape(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		w := newWorld(t, e)
		w.k.Handle(http.MethodGet, "/boom", http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("kaboom") }))
		res := w.do(t, "GET", "/api/boom", "", "", "")
		if res.status != 500 || !strings.Contains(res.body, `"status":500`) || strings.Contains(res.body, "kaboom") {
			t.Errorf("got %d %s, want a bare 500 in the error shape", res.status, res.body)
		}
	})
}
