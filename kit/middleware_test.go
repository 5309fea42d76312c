package kit_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// countingMiddleware counts how often it is built and how often each
// request passes it, and notes its name in the order requests pass.
type countingMiddleware struct {
	name   string
	mu     sync.Mutex
	builds int
	calls  int
	trail  *[]string
}

func (m *countingMiddleware) wrap(next http.Handler) http.Handler {
	m.mu.Lock()
	m.builds++
	m.mu.Unlock()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.mu.Lock()
		m.calls++
		*m.trail = append(*m.trail, m.name)
		m.mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

func TestMiddlewareWrapsTheWholeHandlerOnce(t *testing.T) {
	var trail []string
	outer := &countingMiddleware{name: "outer", trail: &trail}
	inner := &countingMiddleware{name: "inner", trail: &trail}
	k := newKitConfig(t, kit.Config{SQLitePath: memPath(t), Definitions: shopDefs(),
		Middleware: []func(http.Handler) http.Handler{outer.wrap, inner.wrap}})
	k.Handle(http.MethodGet, "/ping", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		kit.WriteJSON(w, http.StatusOK, map[string]string{"pong": "yes"})
	}))
	k.Handle(http.MethodGet, "/boom", http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("kaboom") }))
	k.HandleTeam(http.MethodGet, "whoami", func(w http.ResponseWriter, r *http.Request, _ *teamauth.Access) {})
	h := k.Handler()
	_ = k.Handler()

	for _, tc := range []struct {
		name, method, path string
		status             int
	}{
		{"a route the host added", "GET", "/api/ping", 200},
		{"a collection route without credentials", "GET", "/api/teams/acme/shop-products", 401},
		{"a team route the host added, without credentials", "GET", "/api/teams/acme/whoami", 401},
		{"an unknown route", "GET", "/api/nowhere", 404},
		{"a path outside the prefix", "GET", "/elsewhere", 404},
		{"a wrong method", "DELETE", "/api/ping", 405},
		{"a path with a dot segment, refused before routing", "GET", "/api/x/../ping", 400},
		{"a handler that panics", "GET", "/api/boom", 500},
	} {
		t.Run(tc.name+" passes each middleware once, outermost first", func(t *testing.T) {
			trail = nil
			outer.calls, inner.calls = 0, 0
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(tc.method, tc.path, nil))
			if got := rec.Code; got != tc.status {
				t.Errorf("status: got %d, want %d", rec.Code, tc.status)
			}
			if outer.calls != 1 || inner.calls != 1 {
				t.Errorf("middleware calls: got outer %d and inner %d, want 1 each", outer.calls, inner.calls)
			}
			if got := strings.Join(trail, ","); got != "outer,inner" {
				t.Errorf("order: got %s, want outer,inner", got)
			}
		})
	}
	if outer.builds != 1 || inner.builds != 1 {
		t.Errorf("middleware built: got outer %d and inner %d times, want once each", outer.builds, inner.builds)
	}
}
