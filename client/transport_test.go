package client_test

import (
	"errors"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/collectionkit/kit/client"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/teamauth"
)

// methodCounts counts requests per method; it is safe for concurrent use.
type methodCounts struct {
	mu     sync.Mutex
	counts map[string]int
}

func (c *methodCounts) add(method string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.counts == nil {
		c.counts = map[string]int{}
	}
	c.counts[method]++
}

func (c *methodCounts) count(method string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counts[method]
}

// clear forgets every count.
func (c *methodCounts) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.counts = nil
}

// flakyFront serves kit's API but closes the connection, unanswered, of
// the next drop requests; it counts the requests per method.
type flakyFront struct {
	methodCounts
	drop atomic.Int32
}

func (f *flakyFront) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.add(r.Method)
		if f.drop.Add(-1) >= 0 {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		f.drop.Store(0)
		next.ServeHTTP(w, r)
	})
}

func (f *flakyFront) reset(drop int32) {
	f.clear()
	f.drop.Store(drop)
}

func TestRetries(t *testing.T) {
	s := newServer(t, testdb.EngineSQLite)
	front := &flakyFront{}
	mux := http.NewServeMux()
	mux.Handle("/api/", front.wrap(s.k.Handler()))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	// No keep-alive: every request has a connection of its own, so the
	// transport never retries on its own.
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	newClient := func(t *testing.T, retries int) *client.Collection {
		c, err := client.New(srv.URL+"/api", client.WithToken(s.tokens["mia"]), client.WithHTTPClient(hc), client.WithRetries(retries, time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Collections(t.Context()); err != nil {
			t.Fatal(err)
		}
		return c.Team("acme").Collection("appNotes")
	}
	for _, tc := range []struct {
		name            string
		retries         int
		drop            int32
		method          string
		wantOK          bool
		wantAttempts    int
		wantStatusError bool
	}{
		{"a GET is retried after dropped connections until it gets through", 2, 2, http.MethodGet, true, 3, false},
		{"a GET fails once its retries are spent", 2, 3, http.MethodGet, false, 3, false},
		{"a GET without retries fails on the first dropped connection", 0, 1, http.MethodGet, false, 1, false},
		{"a POST is never retried", 3, 1, http.MethodPost, false, 1, false},
		{"a DELETE is retried: it is idempotent", 1, 1, http.MethodDelete, false, 2, true},
		{"an error answer is never retried", 3, 0, http.MethodDelete, false, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			notes := newClient(t, tc.retries)
			front.reset(tc.drop)
			var err error
			switch tc.method {
			case http.MethodGet:
				_, err = notes.List(t.Context(), client.Query{})
			case http.MethodPost:
				_, err = notes.Create(t.Context(), map[string]any{"body": "x"})
			case http.MethodDelete:
				err = notes.Delete(t.Context(), "01900000-0000-7000-8000-000000000000")
			}
			if (err == nil) != tc.wantOK {
				t.Errorf("got error %v, want success %v", err, tc.wantOK)
			}
			var kerr *client.Error
			if got := errors.As(err, &kerr); got != tc.wantStatusError {
				t.Errorf("got an answer from the server %v (%v), want %v", got, err, tc.wantStatusError)
			}
			if got := front.count(tc.method); got != tc.wantAttempts {
				t.Errorf("got %d %s attempts, want %d", got, tc.method, tc.wantAttempts)
			}
		})
	}
}

// TestCookieSession signs in through a host's own session cookie, which
// a client with a cookie jar keeps, and sets its user agent.
func TestCookieSessionAndUserAgent(t *testing.T) {
	s := newServer(t, testdb.EngineSQLite)
	session := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if ck, err := r.Cookie("sid"); err == nil {
				if u, err := s.k.Accounts().User(r.Context(), ck.Value); err == nil {
					r = r.WithContext(teamauth.WithUser(r.Context(), u))
				}
			}
			next.ServeHTTP(w, r)
		})
	}
	var agents sync.Map
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/signin", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: s.ids["mia"], Path: "/", HttpOnly: true})
		w.WriteHeader(http.StatusNoContent)
	})
	mux.Handle("/api/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		agents.Store(r.UserAgent(), true)
		session(s.k.Handler()).ServeHTTP(w, r)
	}))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(srv.URL+"/api", client.WithHTTPClient(&http.Client{Jar: jar}), client.WithUserAgent("shop-sync/1.0"))
	if err != nil {
		t.Fatal(err)
	}
	notes := c.Team("acme").Collection("appNotes")
	t.Run("without the cookie the caller is unauthorized", func(t *testing.T) {
		_, err := notes.List(t.Context(), client.Query{})
		wantStatus(t, err, http.StatusUnauthorized, client.ErrUnauthorized)
	})
	t.Run("with the session cookie in the jar the caller is the signed-in user", func(t *testing.T) {
		if err := c.Do(t.Context(), http.MethodPost, "/signin", nil, nil, nil); err != nil {
			t.Fatal(err)
		}
		rec, err := notes.Create(t.Context(), map[string]any{"body": "hello"})
		if err != nil {
			t.Fatal(err)
		}
		if rec["owner"] != s.ids["mia"] {
			t.Errorf("got owner %v, want mia %s", rec["owner"], s.ids["mia"])
		}
	})
	t.Run("every request carries the user agent", func(t *testing.T) {
		n := 0
		agents.Range(func(k, _ any) bool {
			n++
			if k != "shop-sync/1.0" {
				t.Errorf("got user agent %q, want shop-sync/1.0", k)
			}
			return true
		})
		if n == 0 {
			t.Errorf("got no requests")
		}
	})
}

func TestNewRefusesABadBaseURL(t *testing.T) {
	for _, u := range []string{"", "localhost:8080/api", "ftp://example.com/api", "http://"} {
		t.Run(u, func(t *testing.T) {
			if _, err := client.New(u); err == nil {
				t.Errorf("New(%q) succeeded, want an error", u)
			}
		})
	}
}
