package kit

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/rs/cors"
)

// CORSConfig lets pages served from other origins call the API with
// bearer tokens (cross-origin resource sharing). Its zero value is off:
// no CORS headers are sent, and a preflight (OPTIONS) is answered 405 like
// any method no route serves.
//
// With AllowedOrigins set, a preflight from a listed origin is answered
// 204 with the Access-Control-Allow-* headers, and every answer to a
// listed origin (errors included) carries Access-Control-Allow-Origin and
// Access-Control-Expose-Headers. Preflights are answered before
// Config.Middleware, so no middleware sees them. A preflight from another
// origin, or asking for a method or header not allowed, is answered 204
// without those headers, which the browser takes as a refusal.
//
// Credentials are never allowed (no Access-Control-Allow-Credentials), so
// a browser neither sends kit's session cookie with a cross-origin request
// nor shows the page the answer to one that carried it: pages of other
// origins authenticate with an API token in the Authorization header. A
// cookie-authenticated request that changes state and comes from another
// origin stays refused with 403 (see teamauth.ErrCrossOrigin and
// teamauth.AccountsConfig.TrustedOrigins), whatever AllowedOrigins says.
type CORSConfig struct {
	// AllowedOrigins are the origins whose pages may call the API, each a
	// scheme and host with an optional port and no path
	// ("https://app.example.com", "http://localhost:5173"). One "*" may
	// stand for any part of a host ("https://*.example.com"); "*" alone
	// allows every origin. Empty: CORS is off.
	AllowedOrigins []string
	// AllowedMethods are the methods a page may send. Default GET, HEAD,
	// POST, PUT, PATCH and DELETE.
	AllowedMethods []string
	// AllowedHeaders are the request headers a page may send beyond the
	// CORS-safelisted ones. Default Authorization, Content-Type, If-Match,
	// If-None-Match, Last-Event-ID and X-Correlation-Id.
	AllowedHeaders []string
	// MaxAge is how long a browser may reuse a preflight's answer, in
	// whole seconds (browsers cap it: Chromium at 2 hours). Default (0):
	// 10 minutes; negative: not at all (Access-Control-Max-Age: 0).
	MaxAge time.Duration
}

// CORS defaults: see CORSConfig.
var (
	corsDefaultMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}
	corsDefaultHeaders = []string{"Authorization", "Content-Type", "If-Match", "If-None-Match", "Last-Event-ID", "X-Correlation-Id"}
	// corsExposedHeaders are the response headers kit and its add-ons set
	// that a page needs to read: the record version, a created record's
	// address, how long to wait after a 429 or 503, the correlation id,
	// and the events add-on's warning.
	corsExposedHeaders = []string{"ETag", "Location", "Retry-After", "X-Correlation-Id", "X-Kit-Event-Warning"}
)

const corsDefaultMaxAge = 10 * time.Minute

// on reports whether c turns CORS on.
func (c CORSConfig) on() bool { return len(c.AllowedOrigins) > 0 }

// check returns why c is not a usable configuration, or nil.
func (c CORSConfig) check() error {
	for _, o := range c.AllowedOrigins {
		if err := checkOrigin(o); err != nil {
			return fmt.Errorf("kit: Config.CORS.AllowedOrigins: %q %w", o, err)
		}
	}
	for _, m := range c.AllowedMethods {
		if m == "" || strings.ToUpper(m) != m || strings.ContainsAny(m, " ,") {
			return fmt.Errorf("kit: Config.CORS.AllowedMethods: %q is not a method name such as PATCH", m)
		}
	}
	for _, h := range c.AllowedHeaders {
		if h == "" || strings.ContainsAny(h, " ,:") {
			return fmt.Errorf("kit: Config.CORS.AllowedHeaders: %q is not a header name such as Authorization", h)
		}
	}
	if c.MaxAge > 0 && c.MaxAge < time.Second {
		return fmt.Errorf("kit: Config.CORS.MaxAge: %v is under a second; browsers count whole seconds", c.MaxAge)
	}
	return nil
}

// checkOrigin returns why o is not "*" or a scheme://host[:port] origin
// with at most one "*" in the host, or nil.
func checkOrigin(o string) error {
	if o == "*" {
		return nil
	}
	if strings.Count(o, "*") > 1 {
		return fmt.Errorf("has more than one \"*\"")
	}
	u, err := url.Parse(strings.Replace(o, "*", "wildcard", 1))
	switch {
	case err != nil || u.Scheme == "" || u.Host == "" || u.Opaque != "":
		return fmt.Errorf("is not an origin such as https://app.example.com")
	case u.Path != "" || u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(o, "?") || strings.HasSuffix(o, "#"):
		return fmt.Errorf("has a path, query or fragment; an origin is a scheme and host with an optional port (https://app.example.com)")
	case u.User != nil:
		return fmt.Errorf("has a user name; an origin is a scheme and host with an optional port")
	case strings.Contains(o, "*") && !strings.Contains(u.Hostname(), "wildcard"):
		return fmt.Errorf("has \"*\" outside the host")
	}
	return nil
}

// corsHandler wraps h with the CORS handling c configures (see
// CORSConfig); c must be on and checked.
func corsHandler(c CORSConfig, h http.Handler) http.Handler {
	opts := cors.Options{
		AllowedOrigins: c.AllowedOrigins,
		AllowedMethods: c.AllowedMethods,
		AllowedHeaders: c.AllowedHeaders,
		ExposedHeaders: corsExposedHeaders,
		MaxAge:         int(c.MaxAge / time.Second),
	}
	if len(opts.AllowedMethods) == 0 {
		opts.AllowedMethods = corsDefaultMethods
	}
	if len(opts.AllowedHeaders) == 0 {
		opts.AllowedHeaders = corsDefaultHeaders
	}
	switch {
	case c.MaxAge == 0:
		opts.MaxAge = int(corsDefaultMaxAge / time.Second)
	case c.MaxAge < 0:
		opts.MaxAge = -1 // rs/cors sends Access-Control-Max-Age: 0
	}
	return cors.New(opts).Handler(h)
}
