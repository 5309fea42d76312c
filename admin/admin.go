package admin

import (
	"bytes"
	"compress/gzip"
	"embed"
	"fmt"
	"html"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/collectionkit/kit/kit"
)

// dist is the built app (npm run build:admin in web/).
//
//go:embed all:dist
var dist embed.FS

// The placeholders index.html is built with (web/admin/index.html), which
// Handler replaces per request.
const (
	basePlaceholder   = `<base href="./" />`
	prefixPlaceholder = `<meta name="kit-api-prefix" content="/api" />`
)

// immutableCache is the Cache-Control of the content-hashed assets.
const immutableCache = "public, max-age=31536000, immutable"

// Handler returns the handler that serves the admin app of k, built into
// the module. Mount it under any prefix with [http.StripPrefix] (see the
// package documentation); it answers only GET and HEAD. It panics if the
// embedded build lacks its index.html, which only a broken build can cause.
func Handler(k *kit.Kit) http.Handler {
	return newHandler(dist, k.Config().Prefix)
}

// handler serves one build for one API prefix.
type handler struct {
	files  fs.FS
	index  []byte // index.html with the API prefix set; the base is set per request
	prefix string
	// gzipped holds each compressible file of the build gzipped, by name,
	// made on its first request (the build never changes).
	gzipped sync.Map
}

func newHandler(embedded fs.FS, apiPrefix string) *handler {
	files, err := fs.Sub(embedded, "dist")
	if err != nil {
		panic(fmt.Sprintf("admin: %v", err))
	}
	index, err := fs.ReadFile(files, "index.html")
	if err != nil || !bytes.Contains(index, []byte(basePlaceholder)) || !bytes.Contains(index, []byte(prefixPlaceholder)) {
		panic("admin: the embedded build has no index.html with the base and prefix placeholders; rebuild it with npm run build:admin in web/")
	}
	if apiPrefix == "" {
		apiPrefix = "/api"
	}
	meta := fmt.Sprintf(`<meta name="kit-api-prefix" content="%s" />`, html.EscapeString(apiPrefix))
	return &handler{files: files, index: bytes.Replace(index, []byte(prefixPlaceholder), []byte(meta), 1), prefix: apiPrefix}
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.setSecurityHeaders(w.Header())
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	name := strings.TrimPrefix(path.Clean("/"+r.URL.Path), "/")
	if name != "" && name != "index.html" {
		if b, err := fs.ReadFile(h.files, name); err == nil {
			h.serveFile(w, r, name, b)
			return
		}
		if strings.HasPrefix(name, "assets/") {
			http.NotFound(w, r)
			return
		}
	}
	h.serveIndex(w, r)
}

// contentSecurityPolicy is the admin's policy: its own scripts, styles,
// fonts and API only (no inline script, no eval), no plugins, no framing,
// forms and <base> kept to its origin. Images come from anywhere over
// HTTP(S), since image fields hold URLs.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; " +
	"img-src 'self' data: blob: https: http:; font-src 'self' data:; connect-src 'self'; " +
	"object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"

// setSecurityHeaders sets the headers every answer of the admin carries:
// no sniffing, the policy above, and no referrer sent to other origins
// (the admin's URLs name teams and records).
func (h *handler) setSecurityHeaders(hd http.Header) {
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Content-Security-Policy", contentSecurityPolicy)
	hd.Set("Referrer-Policy", "same-origin")
}

// serveFile answers a file of the build, with its content type and cache policy.
func (h *handler) serveFile(w http.ResponseWriter, r *http.Request, name string, b []byte) {
	ctype := mime.TypeByExtension(path.Ext(name))
	switch path.Ext(name) {
	case ".js", ".mjs":
		ctype = "text/javascript; charset=utf-8"
	case ".css":
		ctype = "text/css; charset=utf-8"
	}
	if ctype == "" {
		ctype = http.DetectContentType(b)
	}
	w.Header().Set("Content-Type", ctype)
	if strings.HasPrefix(name, "assets/") {
		w.Header().Set("Cache-Control", immutableCache)
	} else {
		w.Header().Set("Cache-Control", "no-cache")
	}
	if compressible(ctype, b) {
		w.Header().Add("Vary", "Accept-Encoding")
		if acceptsGzip(r.Header.Get("Accept-Encoding")) {
			b = h.gzip(name, b)
			w.Header().Set("Content-Encoding", "gzip")
		}
	}
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(b))
}

// minGzip is the size from which a file is worth gzipping.
const minGzip = 1024

// compressible says whether a file of the type and content is sent
// gzipped to a client that takes it: text (scripts, styles, SVG, JSON) of
// at least minGzip bytes.
func compressible(ctype string, b []byte) bool {
	if len(b) < minGzip {
		return false
	}
	t, _, _ := strings.Cut(ctype, ";")
	return strings.HasPrefix(t, "text/") || t == "image/svg+xml" || t == "application/json" || t == "application/javascript"
}

// acceptsGzip says whether an Accept-Encoding header takes gzip: it names
// gzip with a q above 0, or, not naming gzip, * with a q above 0.
func acceptsGzip(header string) bool {
	gzipQ, starQ := -1.0, -1.0
	for _, part := range strings.Split(header, ",") {
		fields := strings.Split(part, ";")
		q := 1.0
		for _, p := range fields[1:] {
			if v, ok := strings.CutPrefix(strings.TrimSpace(p), "q="); ok {
				if f, err := strconv.ParseFloat(v, 64); err == nil {
					q = f
				}
			}
		}
		switch strings.ToLower(strings.TrimSpace(fields[0])) {
		case "gzip":
			gzipQ = q
		case "*":
			starQ = q
		}
	}
	if gzipQ >= 0 {
		return gzipQ > 0
	}
	return starQ > 0
}

// gzip returns the file name (content b) gzipped, made once.
func (h *handler) gzip(name string, b []byte) []byte {
	if z, ok := h.gzipped.Load(name); ok {
		return z.([]byte)
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_, _ = zw.Write(b)
	_ = zw.Close()
	z, _ := h.gzipped.LoadOrStore(name, buf.Bytes())
	return z.([]byte)
}

// serveIndex answers index.html with <base href> set to where the handler
// is mounted.
func (h *handler) serveIndex(w http.ResponseWriter, r *http.Request) {
	base := fmt.Sprintf(`<base href="%s" />`, html.EscapeString(mountPoint(r)))
	page := bytes.Replace(h.index, []byte(basePlaceholder), []byte(base), 1)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Frame-Options", "DENY")
	http.ServeContent(w, r, "index.html", time.Time{}, bytes.NewReader(page))
}

// mountPoint is the path the handler is mounted at, with a trailing
// slash: the part of the request URI's path that a StripPrefix in front
// of the handler removed ("/admin/" for /admin/teams/acme seen as
// /teams/acme). Without one, or when the request URI does not end with the
// path the handler sees, it is "/".
func mountPoint(r *http.Request) string {
	uri := r.RequestURI
	if i := strings.IndexAny(uri, "?#"); i >= 0 {
		uri = uri[:i]
	}
	seen := r.URL.EscapedPath()
	mount, ok := strings.CutSuffix(uri, seen)
	if !ok || mount != "" && (!strings.HasPrefix(mount, "/") || strings.HasPrefix(mount, "//")) {
		return "/"
	}
	if !strings.HasSuffix(mount, "/") {
		mount += "/"
	}
	return mount
}
