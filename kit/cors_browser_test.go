package kit_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/kittest"
)

// startChromium starts a headless Chromium for t and returns its context,
// or skips t, saying why, when there is none ($KIT_CHROMIUM, else chromium
// on the PATH).
func startChromium(t *testing.T) context.Context {
	t.Helper()
	path := os.Getenv("KIT_CHROMIUM")
	if path == "" {
		for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
			if p, err := exec.LookPath(name); err == nil {
				path = p
				break
			}
		}
	}
	if path == "" {
		t.Skip("Chromium is not installed: skipping the browser's cross-origin test (apt-get install chromium, or set KIT_CHROMIUM)")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	ctx, cancelTimeout := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(cancelTimeout)
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("Chromium (%s) did not start: %v", path, err)
	}
	return ctx
}

// pageServer serves an empty HTML page at / on an origin of its own.
func pageServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<!doctype html><title>front end</title>")
	}))
	t.Cleanup(srv.Close)
	return srv
}

// fetchResult is what the page's fetch saw: the status and headers it
// could read, or the error the browser gave it.
type fetchResult struct {
	Status   int    `json:"status"`
	ETag     string `json:"etag"`
	Location string `json:"location"`
	Error    string `json:"error"`
}

// pageFetch runs fetch(url, init) in the page the browser shows; init is
// a JavaScript object literal.
func pageFetch(t *testing.T, ctx context.Context, url, init string) fetchResult {
	t.Helper()
	js := fmt.Sprintf(`(async () => {
		try {
			const r = await fetch(%q, %s);
			return {status: r.status, etag: r.headers.get('ETag') || '', location: r.headers.get('Location') || '', error: ''};
		} catch (e) {
			return {status: 0, etag: '', location: '', error: String(e)};
		}
	})()`, url, init)
	res, err := chromedp.Run(ctx, chromedp.Evaluate[fetchResult](js, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("fetch in the page: %v", err)
	}
	return res
}

// cookieWriteLog notes the status of every request other than GET, HEAD
// and OPTIONS that reaches kit with a Cookie header.
type cookieWriteLog struct {
	mu   sync.Mutex
	seen []int
}

func (l *cookieWriteLog) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Cookie") == "" || r.Method == "GET" || r.Method == "HEAD" || r.Method == "OPTIONS" {
			next.ServeHTTP(w, r)
			return
		}
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(rec, r)
		l.mu.Lock()
		l.seen = append(l.seen, rec.status)
		l.mu.Unlock()
	})
}

func (l *cookieWriteLog) statuses() []int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.seen)
}

// statusRecorder notes the status a handler writes.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	s.status = code
	s.ResponseWriter.WriteHeader(code)
}

// TestCORSInABrowser has Chromium, on a page of one origin, call kit on
// another: the browser sends its own preflights and decides what the page
// may read.
func TestCORSInABrowser(t *testing.T) {
	ctx := startChromium(t)
	page, otherPage := pageServer(t), pageServer(t)
	var cookieWrites cookieWriteLog
	w := newWorld(t, testdb.EngineSQLite, func(c *kit.Config) {
		c.CORS = kit.CORSConfig{AllowedOrigins: []string{page.URL}}
		c.Middleware = []func(http.Handler) http.Handler{cookieWrites.wrap}
	})
	products := w.srv.URL + "/api/teams/acme/shop-products"
	bearer := fmt.Sprintf(`'Authorization': 'Bearer %s'`, w.tokens["mia"])
	if err := chromedp.Do(ctx, chromedp.Navigate(page.URL)); err != nil {
		t.Fatal(err)
	}

	before := w.snapshot(t)
	created := pageFetch(t, ctx, products, `{method: 'POST', headers: {`+bearer+`, 'Content-Type': 'application/json'},
		body: JSON.stringify({title: 'from a page', sku: 'PAGE-1'})}`)
	if created.Status != 201 || created.ETag == "" || created.Location == "" {
		t.Fatalf("a create with a token: the page got %+v, want 201 with an ETag and a Location it can read", created)
	}
	if n := kittest.RowsChanged(before, w.snapshot(t)); n != 1 {
		t.Fatalf("a create with a token: got %d rows changed, want 1", n)
	}
	item := w.srv.URL + created.Location
	if !strings.HasPrefix(created.Location, "/api/teams/") {
		t.Fatalf("Location: got %q, want a path under /api/teams/", created.Location)
	}
	steps := []struct {
		name, init string
		status     int
	}{
		{"a read", `{headers: {` + bearer + `}}`, 200},
		{"an update with If-Match", `{method: 'PATCH', headers: {` + bearer + `, 'Content-Type': 'application/json', 'If-Match': '` + created.ETag + `'},
			body: JSON.stringify({title: 'renamed'})}`, 200},
		{"an update with a stale If-Match", `{method: 'PATCH', headers: {` + bearer + `, 'Content-Type': 'application/json', 'If-Match': '` + created.ETag + `'},
			body: JSON.stringify({title: 'again'})}`, 412},
		{"a read without a token", `{}`, 401},
		{"a delete", `{method: 'DELETE', headers: {` + bearer + `}}`, 204},
	}
	for _, s := range steps {
		if got := pageFetch(t, ctx, item, s.init); got.Status != s.status {
			t.Errorf("%s: the page got %+v, want status %d", s.name, got, s.status)
		}
	}
	if n := kittest.RowsChanged(before, w.snapshot(t)); n != 0 {
		t.Errorf("after the delete: got %d rows changed from the start, want 0", n)
	}

	// The session cookie of a signed-in user of kit's origin: the
	// browser holds it, as after a sign-in there.
	secret, _, err := w.k.Accounts().CreateSession(context.Background(), w.ids["mia"])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, network.SetCookie, network.SetCookieParams{Name: "kit_session", Value: secret, URL: w.srv.URL + "/api/"}); err != nil {
		t.Fatal(err)
	}
	refused := []struct{ name, init string }{
		{"a create with the cookie (credentials included)", `{method: 'POST', credentials: 'include', headers: {'Content-Type': 'application/json'},
			body: JSON.stringify({title: 'forged'})}`},
		{"a read with the cookie (credentials included)", `{credentials: 'include'}`},
	}
	for _, s := range refused {
		if got := pageFetch(t, ctx, products, s.init); got.Error == "" {
			t.Errorf("%s: the page got %+v, want the browser to refuse it (no credentials are allowed)", s.name, got)
		}
	}
	// A form-like POST needs no preflight, so the browser sends it with
	// the cookie; kit refuses it as a cross-origin cookie write.
	if got := pageFetch(t, ctx, products, `{method: 'POST', mode: 'no-cors', credentials: 'include', headers: {'Content-Type': 'text/plain'},
		body: JSON.stringify({title: 'forged'})}`); got.Error != "" {
		t.Errorf("a no-cors POST with the cookie: the page got %+v, want an opaque answer", got)
	}
	if got := cookieWrites.statuses(); !slices.Equal(got, []int{http.StatusForbidden}) {
		t.Errorf("writes that reached kit with the cookie: got statuses %v, want one 403 (the no-cors POST)", got)
	}
	if n := kittest.RowsChanged(before, w.snapshot(t)); n != 0 {
		t.Errorf("after the cookie requests: got %d rows changed, want 0", n)
	}

	// A page of an origin not listed cannot call the API at all.
	if err := chromedp.Do(ctx, chromedp.Navigate(otherPage.URL)); err != nil {
		t.Fatal(err)
	}
	if got := pageFetch(t, ctx, products, `{method: 'POST', headers: {`+bearer+`, 'Content-Type': 'application/json'},
		body: JSON.stringify({title: 'elsewhere'})}`); got.Error == "" {
		t.Errorf("a create from an origin not listed: the page got %+v, want the browser to refuse it", got)
	}
	if n := kittest.RowsChanged(before, w.snapshot(t)); n != 0 {
		t.Errorf("after the unlisted origin's create: got %d rows changed, want 0", n)
	}
}
