package kit_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/internal/testkit"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/kittest"
)

// corsOrigin is the origin of the front end the CORS tests allow; the
// kit server is on another (httptest's 127.0.0.1 port).
const corsOrigin = "https://app.example.com"

// corsWorld is the shop world with CORS on for corsOrigin.
func corsWorld(t *testing.T, e testdb.Engine) *world {
	return newWorld(t, e, func(c *kit.Config) {
		c.CORS = kit.CORSConfig{AllowedOrigins: []string{corsOrigin, "https://*.example.org"}}
	})
}

// preflight sends the OPTIONS request a browser sends before a
// cross-origin request of method with headers.
func preflight(t *testing.T, w *world, path, origin, method, headers string) response {
	t.Helper()
	h := []string{"Origin", origin, "Access-Control-Request-Method", method}
	if headers != "" {
		h = append(h, "Access-Control-Request-Headers", headers)
	}
	return w.do(t, http.MethodOptions, path, "", "", "", h...)
}

func TestCORSPreflights(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		w := corsWorld(t, e)
		tests := []struct {
			name, path, origin, method, headers string
			allowed                             bool
		}{
			{"a create from the allowed origin with a bearer token", "/api/teams/acme/shop-products", corsOrigin, "POST", "authorization,content-type", true},
			{"a conditional update of one record", "/api/teams/acme/shop-products/{miaProduct}", corsOrigin, "PATCH", "authorization,content-type,if-match", true},
			{"a delete", "/api/teams/acme/shop-products/{miaProduct}", corsOrigin, "DELETE", "authorization", true},
			{"a read of the change stream with Last-Event-ID", "/api/teams/acme/kit-changes", corsOrigin, "GET", "authorization,last-event-id", true},
			{"a route that does not exist, answered before routing", "/api/nowhere", corsOrigin, "PUT", "authorization", true},
			{"an origin matching the wildcard", "/api/teams/acme/shop-products", "https://shop.example.org", "POST", "authorization,content-type", true},
			{"an origin not listed", "/api/teams/acme/shop-products", "https://evil.example", "POST", "authorization,content-type", false},
			{"the allowed host over another scheme", "/api/teams/acme/shop-products", "http://app.example.com", "POST", "authorization", false},
			{"a method not allowed", "/api/teams/acme/shop-products", corsOrigin, "PROPFIND", "authorization", false},
			{"a header not allowed", "/api/teams/acme/shop-products", corsOrigin, "POST", "authorization,x-secret", false},
		}
		for _, tt := range tests {
			verdict := "is answered 204 with the allow headers"
			if !tt.allowed {
				verdict = "is answered 204 without them"
			}
			t.Run(tt.name+" "+verdict, func(t *testing.T) {
				before := w.snapshot(t)
				r := preflight(t, w, tt.path, tt.origin, tt.method, tt.headers)
				if r.status != http.StatusNoContent {
					t.Fatalf("status: got %d %s, want 204", r.status, r.body)
				}
				if r.body != "" {
					t.Errorf("body: got %q, want none", r.body)
				}
				want := map[string]string{
					"Access-Control-Allow-Origin":  tt.origin,
					"Access-Control-Allow-Methods": tt.method,
					"Access-Control-Allow-Headers": tt.headers,
					"Access-Control-Max-Age":       "600",
				}
				for name, v := range want {
					if !tt.allowed {
						v = ""
					}
					if got := r.header.Get(name); got != v {
						t.Errorf("%s: got %q, want %q", name, got, v)
					}
				}
				if got := r.header.Get("Access-Control-Allow-Credentials"); got != "" {
					t.Errorf("Access-Control-Allow-Credentials: got %q, want none", got)
				}
				if got := r.header.Values("Vary"); !strings.Contains(strings.Join(got, ","), "Origin") {
					t.Errorf("Vary: got %q, want it to name Origin", got)
				}
				if n := kittest.RowsChanged(before, w.snapshot(t)); n != 0 {
					t.Errorf("got %d rows changed by a preflight, want 0", n)
				}
			})
		}
	})
}

func TestCORSBearerRequestsFromAnotherOrigin(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		w := corsWorld(t, e)
		origin := []string{"Origin", corsOrigin, "Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "cors"}
		before := w.snapshot(t)

		r := w.do(t, "POST", "/api/teams/acme/shop-products", "mia", "application/json", `{"title":"from the front end","sku":"FE-1"}`, origin...)
		if r.status != http.StatusCreated {
			t.Fatalf("create: got %d %s, want 201", r.status, r.body)
		}
		checkCORSAnswer(t, "create", r, corsOrigin)
		if r.header.Get("Location") == "" || r.header.Get("ETag") == "" {
			t.Errorf("create: got Location %q and ETag %q, want both (exposed to the page)", r.header.Get("Location"), r.header.Get("ETag"))
		}
		if n := kittest.RowsChanged(before, w.snapshot(t)); n != 1 {
			t.Errorf("create: got %d rows changed, want 1", n)
		}
		var created struct {
			ID string `json:"id"`
		}
		testkit.DecodeJSON(t, r.body, &created)

		steps := []struct {
			name, method, path, body string
			header                   []string
			status                   int
		}{
			{"a list", "GET", "/api/teams/acme/shop-products?filter=" + `%7B%22sku%22%3A%22FE-1%22%7D`, "", nil, 200},
			{"an update", "PATCH", "/api/teams/acme/shop-products/" + created.ID, `{"title":"renamed"}`, nil, 200},
			{"an update with a stale If-Match", "PATCH", "/api/teams/acme/shop-products/" + created.ID, `{"title":"again"}`, []string{"If-Match", `"stale"`}, 412},
			{"a delete", "DELETE", "/api/teams/acme/shop-products/" + created.ID, "", nil, 204},
		}
		for _, s := range steps {
			ct := ""
			if s.body != "" {
				ct = "application/json"
			}
			r := w.do(t, s.method, s.path, "mia", ct, s.body, append(append([]string(nil), origin...), s.header...)...)
			if r.status != s.status {
				t.Fatalf("%s: got %d %s, want %d", s.name, r.status, r.body, s.status)
			}
			checkCORSAnswer(t, s.name, r, corsOrigin)
		}
		if n := kittest.RowsChanged(before, w.snapshot(t)); n != 0 {
			t.Errorf("after the delete: got %d rows changed from the start, want 0", n)
		}

		// An error is readable by the page too: without it a front end
		// could not tell a 401 from a network failure.
		r = w.do(t, "GET", "/api/teams/acme/shop-products", "", "", "", origin...)
		if r.status != http.StatusUnauthorized {
			t.Fatalf("anonymous list: got %d %s, want 401", r.status, r.body)
		}
		checkCORSAnswer(t, "anonymous list", r, corsOrigin)

		// A page of an origin not listed gets its answer without CORS
		// headers: the browser keeps it from the page.
		r = w.do(t, "GET", "/api/teams/acme/shop-products", "mia", "", "", "Origin", "https://evil.example")
		if r.status != http.StatusOK {
			t.Fatalf("list from an unlisted origin: got %d %s, want 200 (bearer tokens are not ambient)", r.status, r.body)
		}
		if got := r.header.Get("Access-Control-Allow-Origin"); got != "" {
			t.Errorf("list from an unlisted origin: Access-Control-Allow-Origin got %q, want none", got)
		}
	})
}

// checkCORSAnswer checks that r, an answer to a request from origin, lets
// the page read it and the headers it needs, and allows no credentials.
func checkCORSAnswer(t *testing.T, what string, r response, origin string) {
	t.Helper()
	if got := r.header.Get("Access-Control-Allow-Origin"); got != origin {
		t.Errorf("%s: Access-Control-Allow-Origin got %q, want %q", what, got, origin)
	}
	if got, want := r.header.Get("Access-Control-Expose-Headers"), "Etag, Location, Retry-After, X-Correlation-Id, X-Kit-Event-Warning"; got != want {
		t.Errorf("%s: Access-Control-Expose-Headers got %q, want %q", what, got, want)
	}
	if got := r.header.Get("Access-Control-Allow-Credentials"); got != "" {
		t.Errorf("%s: Access-Control-Allow-Credentials got %q, want none", what, got)
	}
}

func TestCORSLeavesCrossOriginCookieWritesRefused(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		w := corsWorld(t, e)
		secret, _, err := w.k.Accounts().CreateSession(context.Background(), w.ids["mia"])
		if err != nil {
			t.Fatal(err)
		}
		cookie := "kit_session=" + secret
		tests := []struct {
			name, method, path, body string
			header                   []string
		}{
			{"a create from the allowed origin", "POST", "/api/teams/acme/shop-products", `{"title":"forged"}`,
				[]string{"Origin", corsOrigin, "Sec-Fetch-Site", "cross-site"}},
			{"an update from the allowed origin", "PATCH", "/api/teams/acme/shop-products/{miaProduct}", `{"title":"forged"}`,
				[]string{"Origin", corsOrigin, "Sec-Fetch-Site", "cross-site"}},
			{"a delete from the allowed origin", "DELETE", "/api/teams/acme/shop-products/{miaProduct}", "",
				[]string{"Origin", corsOrigin, "Sec-Fetch-Site", "cross-site"}},
			{"a create with an Origin header alone (no Sec-Fetch-Site)", "POST", "/api/teams/acme/shop-products", `{"title":"forged"}`,
				[]string{"Origin", corsOrigin}},
			{"a create from an origin not listed", "POST", "/api/teams/acme/shop-products", `{"title":"forged"}`,
				[]string{"Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site"}},
		}
		for _, tt := range tests {
			t.Run(tt.name+" with the session cookie is refused with 403", func(t *testing.T) {
				before := w.snapshot(t)
				ct := ""
				if tt.body != "" {
					ct = "application/json"
				}
				r := w.do(t, tt.method, tt.path, "", ct, tt.body, append([]string{"Cookie", cookie}, tt.header...)...)
				if r.status != http.StatusForbidden || !strings.Contains(r.body, "cross-origin request refused") {
					t.Errorf("got %d %s, want 403 cross-origin request refused", r.status, r.body)
				}
				if n := kittest.RowsChanged(before, w.snapshot(t)); n != 0 {
					t.Errorf("got %d rows changed, want 0", n)
				}
			})
		}
		t.Run("a read with the session cookie from the allowed origin allows no credentials", func(t *testing.T) {
			r := w.do(t, "GET", "/api/teams/acme/shop-products", "", "", "", "Cookie", cookie, "Origin", corsOrigin, "Sec-Fetch-Site", "cross-site")
			if r.status != http.StatusOK {
				t.Fatalf("got %d %s, want 200", r.status, r.body)
			}
			if got := r.header.Get("Access-Control-Allow-Credentials"); got != "" {
				t.Errorf("Access-Control-Allow-Credentials: got %q, want none, so the browser keeps the answer from the page", got)
			}
		})
		t.Run("the same create from the server's own origin is accepted", func(t *testing.T) {
			before := w.snapshot(t)
			r := w.do(t, "POST", "/api/teams/acme/shop-products", "", "application/json", `{"title":"same origin"}`,
				"Cookie", cookie, "Sec-Fetch-Site", "same-origin")
			if r.status != http.StatusCreated {
				t.Errorf("got %d %s, want 201", r.status, r.body)
			}
			if n := kittest.RowsChanged(before, w.snapshot(t)); n != 1 {
				t.Errorf("got %d rows changed, want 1", n)
			}
		})
	})
}

func TestCORSOffByDefault(t *testing.T) {
	w := newWorld(t, testdb.EngineSQLite)
	r := preflight(t, w, "/api/teams/acme/shop-products", corsOrigin, "POST", "authorization,content-type")
	if r.status != http.StatusMethodNotAllowed {
		t.Errorf("preflight: got %d %s, want 405", r.status, r.body)
	}
	r = w.do(t, "GET", "/api/teams/acme/shop-products", "mia", "", "", "Origin", corsOrigin)
	if r.status != http.StatusOK {
		t.Fatalf("list: got %d %s, want 200", r.status, r.body)
	}
	for _, name := range []string{"Access-Control-Allow-Origin", "Access-Control-Expose-Headers"} {
		if got := r.header.Get(name); got != "" {
			t.Errorf("%s: got %q, want none", name, got)
		}
	}
}

func TestCORSSettings(t *testing.T) {
	w := newWorld(t, testdb.EngineSQLite, func(c *kit.Config) {
		c.CORS = kit.CORSConfig{AllowedOrigins: []string{"*"}, AllowedMethods: []string{"GET"},
			AllowedHeaders: []string{"Authorization"}, MaxAge: time.Hour}
	})
	r := preflight(t, w, "/api/teams/acme/shop-products", "https://any.example", "GET", "authorization")
	for name, want := range map[string]string{"Access-Control-Allow-Origin": "*", "Access-Control-Allow-Methods": "GET",
		"Access-Control-Allow-Headers": "authorization", "Access-Control-Max-Age": "3600"} {
		if got := r.header.Get(name); got != want {
			t.Errorf("a GET preflight: %s got %q, want %q", name, got, want)
		}
	}
	r = preflight(t, w, "/api/teams/acme/shop-products", "https://any.example", "POST", "authorization")
	if got := r.header.Get("Access-Control-Allow-Origin"); r.status != 204 || got != "" {
		t.Errorf("a POST preflight: got %d with Access-Control-Allow-Origin %q, want 204 without it", r.status, got)
	}
	r = preflight(t, w, "/api/teams/acme/shop-products", "https://any.example", "GET", "authorization,content-type")
	if got := r.header.Get("Access-Control-Allow-Origin"); got != "" {
		t.Errorf("a preflight asking for Content-Type: Access-Control-Allow-Origin got %q, want none", got)
	}

	w = newWorld(t, testdb.EngineSQLite, func(c *kit.Config) {
		c.CORS = kit.CORSConfig{AllowedOrigins: []string{corsOrigin}, MaxAge: -1}
	})
	r = preflight(t, w, "/api/teams/acme/shop-products", corsOrigin, "GET", "authorization")
	if got := r.header.Get("Access-Control-Max-Age"); got != "0" {
		t.Errorf("a negative MaxAge: Access-Control-Max-Age got %q, want \"0\"", got)
	}
}

func TestCORSRefusesABadConfiguration(t *testing.T) {
	tests := []struct {
		name string
		cors kit.CORSConfig
		want string
	}{
		{"an origin without a scheme", kit.CORSConfig{AllowedOrigins: []string{"app.example.com"}},
			`kit: Config.CORS.AllowedOrigins: "app.example.com" is not an origin such as https://app.example.com`},
		{"an origin with a trailing slash", kit.CORSConfig{AllowedOrigins: []string{"https://app.example.com/"}},
			`kit: Config.CORS.AllowedOrigins: "https://app.example.com/" has a path, query or fragment; an origin is a scheme and host with an optional port (https://app.example.com)`},
		{"an origin with a path", kit.CORSConfig{AllowedOrigins: []string{"https://app.example.com/app"}},
			`kit: Config.CORS.AllowedOrigins: "https://app.example.com/app" has a path, query or fragment; an origin is a scheme and host with an optional port (https://app.example.com)`},
		{"an origin with a user name", kit.CORSConfig{AllowedOrigins: []string{"https://me@app.example.com"}},
			`kit: Config.CORS.AllowedOrigins: "https://me@app.example.com" has a user name; an origin is a scheme and host with an optional port`},
		{"an origin with two wildcards", kit.CORSConfig{AllowedOrigins: []string{"https://*.*.example.com"}},
			`kit: Config.CORS.AllowedOrigins: "https://*.*.example.com" has more than one "*"`},
		{"a wildcard scheme", kit.CORSConfig{AllowedOrigins: []string{"*://app.example.com"}},
			`kit: Config.CORS.AllowedOrigins: "*://app.example.com" has "*" outside the host`},
		{"an empty origin", kit.CORSConfig{AllowedOrigins: []string{""}},
			`kit: Config.CORS.AllowedOrigins: "" is not an origin such as https://app.example.com`},
		{"a lower-case method", kit.CORSConfig{AllowedOrigins: []string{corsOrigin}, AllowedMethods: []string{"patch"}},
			`kit: Config.CORS.AllowedMethods: "patch" is not a method name such as PATCH`},
		{"two methods in one string", kit.CORSConfig{AllowedOrigins: []string{corsOrigin}, AllowedMethods: []string{"GET, POST"}},
			`kit: Config.CORS.AllowedMethods: "GET, POST" is not a method name such as PATCH`},
		{"a header with its value", kit.CORSConfig{AllowedOrigins: []string{corsOrigin}, AllowedHeaders: []string{"Authorization: Bearer"}},
			`kit: Config.CORS.AllowedHeaders: "Authorization: Bearer" is not a header name such as Authorization`},
		{"a max age under a second", kit.CORSConfig{AllowedOrigins: []string{corsOrigin}, MaxAge: 500 * time.Millisecond},
			`kit: Config.CORS.MaxAge: 500ms is under a second; browsers count whole seconds`},
	}
	for _, tt := range tests {
		t.Run(tt.name+" fails Open", func(t *testing.T) {
			k, err := kit.Open(t.Context(), kit.Config{SQLitePath: memPath(t), Logger: quietLogger(), CORS: tt.cors})
			if err == nil {
				k.Close()
				t.Fatalf("got no error, want %q", tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("got error %q, want %q", err, tt.want)
			}
		})
	}
}
