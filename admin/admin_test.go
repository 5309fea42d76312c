package admin_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/collectionkit/kit/admin"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/kittest"
)

// build is a small stand-in for admin/dist with the placeholders of
// web/admin/index.html.
var build = fstest.MapFS{
	"dist/index.html":             {Data: []byte(`<html><head><base href="./" /><meta name="kit-api-prefix" content="/api" /><script src="./assets/app-abc123.js"></script></head></html>`)},
	"dist/assets/app-abc123.js":   {Data: []byte(`console.log("app")`)},
	"dist/assets/app-abc123.css":  {Data: []byte(`body{}`)},
	"dist/assets/logo-abc123.svg": {Data: []byte(`<svg xmlns="http://www.w3.org/2000/svg"></svg>`)},
	"dist/favicon.ico":            {Data: []byte{0, 0, 1, 0}},
}

func TestHandlerServesTheBuild(t *testing.T) {
	mux := http.NewServeMux()
	h := admin.NewHandlerForTest(build, "/v1/api")
	mux.Handle("/admin/", http.StripPrefix("/admin", h))
	mux.Handle("/ops/kit/", http.StripPrefix("/ops/kit/", h))
	mux.Handle("/", h)
	srv := httptest.NewServer(mux)
	defer srv.Close()

	index := `<html><head><base href="%BASE%" /><meta name="kit-api-prefix" content="/v1/api" /><script src="./assets/app-abc123.js"></script></head></html>`
	for _, c := range []struct {
		name, method, path        string
		status                    int
		ctype, cache, body, allow string
	}{
		{"the mount point answers index.html with its base", "GET", "/admin/", 200, "text/html; charset=utf-8", "no-cache", strings.ReplaceAll(index, "%BASE%", "/admin/"), ""},
		{"an app route answers index.html (SPA fallback)", "GET", "/admin/teams/acme/collections/shopProducts", 200, "text/html; charset=utf-8", "no-cache", strings.ReplaceAll(index, "%BASE%", "/admin/"), ""},
		{"index.html by name answers the same page", "GET", "/admin/index.html", 200, "text/html; charset=utf-8", "no-cache", strings.ReplaceAll(index, "%BASE%", "/admin/"), ""},
		{"a prefix of two segments (StripPrefix with a slash) is the base", "GET", "/ops/kit/teams/acme", 200, "text/html; charset=utf-8", "no-cache", strings.ReplaceAll(index, "%BASE%", "/ops/kit/"), ""},
		{"mounted at the root the base is /", "GET", "/teams/acme", 200, "text/html; charset=utf-8", "no-cache", strings.ReplaceAll(index, "%BASE%", "/"), ""},
		{"a hashed script is JavaScript, cached for a year", "GET", "/admin/assets/app-abc123.js", 200, "text/javascript; charset=utf-8", "public, max-age=31536000, immutable", `console.log("app")`, ""},
		{"a hashed stylesheet is CSS, cached for a year", "GET", "/admin/assets/app-abc123.css", 200, "text/css; charset=utf-8", "public, max-age=31536000, immutable", `body{}`, ""},
		{"an SVG has its type", "GET", "/admin/assets/logo-abc123.svg", 200, "image/svg+xml", "public, max-age=31536000, immutable", `<svg xmlns="http://www.w3.org/2000/svg"></svg>`, ""},
		{"a file outside assets is revalidated", "GET", "/admin/favicon.ico", 200, "image/vnd.microsoft.icon", "no-cache", "\x00\x00\x01\x00", ""},
		{"a missing asset is a 404, not the page", "GET", "/admin/assets/gone-123.js", 404, "text/plain; charset=utf-8", "", "404 page not found\n", ""},
		{"HEAD answers the headers", "HEAD", "/admin/assets/app-abc123.js", 200, "text/javascript; charset=utf-8", "public, max-age=31536000, immutable", "", ""},
		{"POST is a 405 naming GET and HEAD", "POST", "/admin/teams", 405, "text/plain; charset=utf-8", "", "method not allowed\n", "GET, HEAD"},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequestWithContext(t.Context(), c.method, srv.URL+c.path, nil)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			body, _ := io.ReadAll(res.Body)
			if res.StatusCode != c.status {
				t.Errorf("got status %d, want %d", res.StatusCode, c.status)
			}
			if got := res.Header.Get("Content-Type"); got != c.ctype {
				t.Errorf("got Content-Type %q, want %q", got, c.ctype)
			}
			if got := res.Header.Get("Cache-Control"); got != c.cache {
				t.Errorf("got Cache-Control %q, want %q", got, c.cache)
			}
			if got := string(body); got != c.body {
				t.Errorf("got body %q, want %q", got, c.body)
			}
			if got := res.Header.Get("Allow"); got != c.allow {
				t.Errorf("got Allow %q, want %q", got, c.allow)
			}
			if got := res.Header.Get("X-Content-Type-Options"); got != "nosniff" {
				t.Errorf("got X-Content-Type-Options %q, want nosniff", got)
			}
			if got := res.Header.Get("Referrer-Policy"); got != "same-origin" {
				t.Errorf("got Referrer-Policy %q, want same-origin", got)
			}
			csp := res.Header.Get("Content-Security-Policy")
			for _, want := range []string{"default-src 'self'", "script-src 'self';", "object-src 'none'", "base-uri 'self'", "frame-ancestors 'none'"} {
				if !strings.Contains(csp, want) {
					t.Errorf("got Content-Security-Policy %q, want it to hold %q", csp, want)
				}
			}
			for _, directive := range strings.Split(csp, ";") {
				if d := strings.TrimSpace(directive); strings.HasPrefix(d, "script-src") && d != "script-src 'self'" {
					t.Errorf("got the directive %q, want script-src 'self' alone", d)
				}
			}
		})
	}
}

func TestHandlerRefusesABrokenBuild(t *testing.T) {
	for _, c := range []struct {
		name  string
		files fstest.MapFS
	}{
		{"no index.html", fstest.MapFS{"dist/assets/a.js": {Data: []byte("x")}}},
		{"an index.html without the placeholders", fstest.MapFS{"dist/index.html": {Data: []byte("<html></html>")}}},
	} {
		t.Run(c.name+" panics at construction", func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("got no panic, want one naming the broken build")
				}
			}()
			admin.NewHandlerForTest(c.files, "/api")
		})
	}
}

// TestEmbeddedBuild serves the committed admin/dist: its page names the
// Kit's prefix, and every script and stylesheet it links is served with
// its type.
func TestEmbeddedBuild(t *testing.T) {
	k := kittest.NewKit(t, kit.Config{Schemas: schemas, Prefix: "/v2"})
	srv := httptest.NewServer(http.StripPrefix("/admin", admin.Handler(k)))
	defer srv.Close()
	page := get(t, srv.URL+"/admin/", "text/html; charset=utf-8")
	for _, want := range []string{`<base href="/admin/" />`, `<meta name="kit-api-prefix" content="/v2" />`} {
		if !strings.Contains(page, want) {
			t.Errorf("got the page\n%s\nwant it to contain %s", page, want)
		}
	}
	links := regexp.MustCompile(`(?:src|href)="\./(assets/[^"]+)"`).FindAllStringSubmatch(page, -1)
	if len(links) < 2 {
		t.Fatalf("got %d assets linked from index.html, want a script and a stylesheet", len(links))
	}
	for _, l := range links {
		want := "text/javascript; charset=utf-8"
		if strings.HasSuffix(l[1], ".css") {
			want = "text/css; charset=utf-8"
		}
		get(t, srv.URL+"/admin/"+l[1], want)
	}
}

// get fetches url, checks a 200 of the content type and returns the body.
func get(t *testing.T, url, ctype string) string {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), "GET", url, nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != ctype {
		t.Errorf("GET %s: got %d %q, want 200 %q", url, res.StatusCode, res.Header.Get("Content-Type"), ctype)
	}
	return string(body)
}

// TestHandlerGzipsText serves a build with a script, a stylesheet, an SVG
// large enough to be worth compressing, a small script and an image:
// text of 1 KB or more goes gzipped to a client that takes gzip, the same
// bytes as the file once unzipped, and plain to one that does not.
func TestHandlerGzipsText(t *testing.T) {
	big := strings.Repeat("console.log('kit admin');\n", 100)
	files := fstest.MapFS{
		"dist/index.html":          build["dist/index.html"],
		"dist/assets/app-big.js":   {Data: []byte(big)},
		"dist/assets/app-big.css":  {Data: []byte(strings.Repeat("body{margin:0}\n", 100))},
		"dist/assets/logo-big.svg": {Data: []byte(`<svg xmlns="http://www.w3.org/2000/svg">` + strings.Repeat("<g/>", 300) + `</svg>`)},
		"dist/assets/app-small.js": {Data: []byte(`console.log("app")`)},
		"dist/assets/photo.png":    {Data: append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 2000)...)},
	}
	srv := httptest.NewServer(http.StripPrefix("/admin", admin.NewHandlerForTest(files, "/api")))
	defer srv.Close()
	for _, c := range []struct {
		name, path, acceptEncoding string
		gzipped                    bool
		vary                       string
	}{
		{"a script of 1 KB or more is gzipped for a client that takes gzip", "/admin/assets/app-big.js", "gzip, deflate, br", true, "Accept-Encoding"},
		{"a stylesheet is gzipped", "/admin/assets/app-big.css", "gzip", true, "Accept-Encoding"},
		{"an SVG is gzipped", "/admin/assets/logo-big.svg", "br;q=1.0, gzip;q=0.8", true, "Accept-Encoding"},
		{"any encoding (*) takes gzip", "/admin/assets/app-big.js", "*", true, "Accept-Encoding"},
		{"a client without Accept-Encoding gets the file plain", "/admin/assets/app-big.js", "", false, "Accept-Encoding"},
		{"gzip;q=0 refuses gzip", "/admin/assets/app-big.js", "gzip;q=0, *", false, "Accept-Encoding"},
		{"a client that takes only br gets the file plain", "/admin/assets/app-big.js", "br", false, "Accept-Encoding"},
		{"a script under 1 KB is sent plain", "/admin/assets/app-small.js", "gzip", false, ""},
		{"an image is sent as it is", "/admin/assets/photo.png", "gzip", false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequestWithContext(t.Context(), "GET", srv.URL+c.path, nil)
			if c.acceptEncoding != "" {
				req.Header.Set("Accept-Encoding", c.acceptEncoding)
			}
			// Without its own Accept-Encoding the transport asks for gzip
			// and unzips; this one must see the answer as sent.
			res, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			body, _ := io.ReadAll(res.Body)
			if res.StatusCode != 200 {
				t.Fatalf("got status %d, want 200", res.StatusCode)
			}
			want := files["dist/"+strings.TrimPrefix(c.path, "/admin/")].Data
			wantEncoding := ""
			if c.gzipped {
				wantEncoding = "gzip"
				zr, err := gzip.NewReader(bytes.NewReader(body))
				if err != nil {
					t.Fatalf("got a body that is not gzip: %v", err)
				}
				if body, err = io.ReadAll(zr); err != nil {
					t.Fatal(err)
				}
			}
			if got := res.Header.Get("Content-Encoding"); got != wantEncoding {
				t.Errorf("got Content-Encoding %q, want %q", got, wantEncoding)
			}
			if got := res.Header.Get("Vary"); got != c.vary {
				t.Errorf("got Vary %q, want %q", got, c.vary)
			}
			if !bytes.Equal(body, want) {
				t.Errorf("got a body of %d bytes (unzipped), want the file's %d", len(body), len(want))
			}
		})
	}
}
