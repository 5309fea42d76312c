package kit

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/collectionkit/kit/internal/wire"
	"github.com/collectionkit/kit/teamauth"
)

// router keeps kit's routes and the mux built from them. Routes are
// registered by path; the method is dispatched inside, so a wrong method
// answers 405 in kit's error shape with an Allow header.
type router struct {
	mu     sync.Mutex
	routes map[string]map[string]http.Handler // path pattern -> method -> handler
	mux    atomic.Pointer[http.ServeMux]
}

// Handler returns the HTTP API, serving under Config.Prefix (default
// "/api"): mount it with mux.Handle("/api/", k.Handler()). Every response,
// errors included, is JSON; see docs/http-api.md.
// Config.Middleware wraps the whole handler once: each request, whatever
// route, 404 or 405 it meets, passes each middleware exactly once; with
// Config.CORS on, CORS preflights are answered before it.
func (k *Kit) Handler() http.Handler {
	k.routerOnce.Do(k.registerCoreRoutes)
	return k.handler
}

// buildHandler composes the handler Handler returns: CORS when
// configured, then Config.Middleware (outermost first), then request facts
// and panic recovery, then the routes of the moment.
func (k *Kit) buildHandler() http.Handler {
	var h http.Handler = k.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := checkRequestText(r); err != nil {
			k.WriteError(w, r, err)
			return
		}
		k.router.mux.Load().ServeHTTP(w, r)
	}))
	for i := len(k.cfg.Middleware) - 1; i >= 0; i-- {
		h = k.cfg.Middleware[i](h)
	}
	if k.cfg.CORS.on() {
		h = corsHandler(k.cfg.CORS, h)
	}
	return h
}

// Auth returns the team helpers configured with kit's Directory and
// Authenticator, for host routes: ResolveTeamAndCheckMembership,
// IsTeamMemberWithEvent and the guards.
func (k *Kit) Auth() *teamauth.Auth { return k.teamAuth }

// TeamHandlerFunc serves a team-scoped route whose caller is authenticated
// and a member of the route's team.
type TeamHandlerFunc func(w http.ResponseWriter, r *http.Request, acc *teamauth.Access)

// HandleTeam adds a team-scoped route at Prefix + "/teams/{team}/" + path
// (path may hold further wildcards, such as "kit-events/{id}"). The
// handler runs after authentication and the membership check; a refused
// caller gets kit's 401/403/404 answers. Add-ons and hosts use it for
// routes that need the resolved team, user and membership.
func (k *Kit) HandleTeam(method, path string, h TeamHandlerFunc) {
	k.handle(method, "/teams/{team}/"+strings.TrimPrefix(path, "/"), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		acc, err := k.teamAuth.ResolveTeamAndCheckMembership(r)
		if err != nil {
			k.WriteError(w, r, err)
			return
		}
		h(w, r.WithContext(teamauth.WithAccess(r.Context(), acc)), acc)
	}))
}

// Handle adds a route at Prefix + path (for example "/admin/reports") that
// is served behind Config.Middleware, with JSON 404/405 answers and panic
// recovery, but no authentication: wrap h with Auth()'s guards.
func (k *Kit) Handle(method, path string, h http.Handler) {
	k.handle(method, "/"+strings.TrimPrefix(path, "/"), h)
}

func (k *Kit) handle(method, path string, h http.Handler) {
	if method == "" || strings.ToUpper(method) != method {
		panic(fmt.Sprintf("kit: bad method %q for route %s", method, path))
	}
	k.routerOnce.Do(k.registerCoreRoutes)
	k.router.add(k, method, k.cfg.Prefix+path, h)
}

func (rt *router) add(k *Kit, method, pattern string, h http.Handler) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.routes == nil {
		rt.routes = map[string]map[string]http.Handler{}
	}
	if rt.routes[pattern] == nil {
		rt.routes[pattern] = map[string]http.Handler{}
	}
	if _, dup := rt.routes[pattern][method]; dup {
		panic(fmt.Sprintf("kit: route %s %s registered twice", method, pattern))
	}
	rt.routes[pattern][method] = h
	// Rebuild the mux: ServeMux cannot replace a pattern, and the set of
	// routes is small and changes only at setup.
	mux := http.NewServeMux()
	for p, methods := range rt.routes {
		mux.Handle(p, dispatch(k, pathWildcards(p), methods))
	}
	mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k.WriteError(w, r, &Error{Status: http.StatusNotFound, Message: "no such route"})
	}))
	rt.mux.Store(mux)
}

func dispatch(k *Kit, wildcards []string, methods map[string]http.Handler) http.Handler {
	allowed := make([]string, 0, len(methods))
	for m := range methods {
		allowed = append(allowed, m)
	}
	sort.Strings(allowed)
	allow := strings.Join(allowed, ", ")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m := r.Method
		if m == http.MethodHead {
			m = http.MethodGet
		}
		h, ok := methods[m]
		if !ok {
			w.Header().Set("Allow", allow)
			k.WriteError(w, r, &Error{Status: http.StatusMethodNotAllowed, Message: fmt.Sprintf("method %s is not allowed here (allowed: %s)", r.Method, allow)})
			return
		}
		namesNothing(r, wildcards)
		h.ServeHTTP(w, r)
	})
}

// wildcardName matches a wildcard of a route pattern, "{id}" or "{rest...}".
var wildcardName = regexp.MustCompile(`\{([^{}.]+)(?:\.\.\.)?\}`)

// pathWildcards lists the wildcard names of a route pattern.
func pathWildcards(pattern string) []string {
	var names []string
	for _, m := range wildcardName.FindAllStringSubmatch(pattern, -1) {
		names = append(names, m[1])
	}
	return names
}

// nothingNamed stands for a path value that is not valid UTF-8 or holds
// NUL: no id, slug or key kit or teamauth makes holds U+FFFD.
const nothingNamed = "\uFFFD"

// namesNothing replaces each of r's path values that is not valid UTF-8 or
// holds a NUL byte with a valid value that names nothing. Such a value
// cannot name a team, record, user or collection (they are valid text
// without NUL), and the databases refuse it differently (PostgreSQL fails
// the statement, SQLite finds no row), so the route runs as for a missing
// id: the same authentication first, then the same 404 and body on every
// engine.
func namesNothing(r *http.Request, wildcards []string) {
	for _, name := range wildcards {
		if v := r.PathValue(name); !isText(v) {
			r.SetPathValue(name, nothingNamed)
		}
	}
}

// isText reports whether s is valid UTF-8 without NUL bytes: what a
// database text column can hold on every engine.
func isText(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}

// checkRequestText refuses, before routing, what no route can serve:
//
//   - a path with an empty segment ("/api/teams//x") or a "." or ".."
//     segment is a 400 (ServeMux would answer it with an HTML redirect to
//     a cleaned path that names something else, a team route without its
//     team, say);
//   - a query parameter whose name or value is not valid UTF-8 or holds a
//     NUL byte is a 400 *QueryError naming the parameter (data.param; a
//     name that is not text is quoted with Go's escapes).
func checkRequestText(r *http.Request) error {
	// An empty segment anywhere but at the end is a "//"; a trailing
	// slash alone is a route's business.
	if p := r.URL.Path; strings.Contains(p, "//") {
		return &Error{Status: http.StatusBadRequest, Message: "the path has an empty segment (two slashes in a row): a team, collection or id is missing"}
	} else if strings.Contains(p, "/./") || strings.Contains(p, "/../") || strings.HasSuffix(p, "/.") || strings.HasSuffix(p, "/..") || p == "." || p == ".." {
		return &Error{Status: http.StatusBadRequest, Message: "the path has a \".\" or \"..\" segment"}
	}
	if r.URL.RawQuery == "" {
		return nil
	}
	q := r.URL.Query()
	names := make([]string, 0, len(q))
	for name := range q {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if !isText(name) {
			return &QueryError{Param: fmt.Sprintf("%q", name), Message: "the name is not valid UTF-8 text without NUL"}
		}
		for _, v := range q[name] {
			if !isText(v) {
				return &QueryError{Param: name, Message: "the value is not valid UTF-8 text without NUL"}
			}
		}
	}
	return nil
}

// wrap adds what every request gets: request facts and correlation id in
// the context, no caching, panic recovery.
func (k *Kit) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info := RequestInfo{
			CorrelationID: correlationID(r.Header.Get("X-Correlation-Id")),
			UserAgent:     r.UserAgent(),
			RemoteAddr:    r.RemoteAddr,
			Method:        r.Method,
			Path:          r.URL.Path,
		}
		w.Header().Set("X-Correlation-Id", info.CorrelationID)
		ctx := context.WithValue(WithRequestInfo(r.Context(), info), responseHeaderKey{}, w.Header())
		w.Header().Set("Cache-Control", "no-store")
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				k.logger.ErrorContext(r.Context(), "kit: handler panicked", slog.String("panic", fmt.Sprint(p)),
					slog.String("method", r.Method), slog.String("path", r.URL.Path))
				k.WriteError(w, r, &Error{Status: http.StatusInternalServerError, Message: "internal error"})
			}
		}()
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}

// correlationID keeps a client's X-Correlation-Id when it is short and
// printable, else makes one.
func correlationID(s string) string {
	if s == "" || len(s) > 128 {
		return NewCorrelationID()
	}
	for _, r := range s {
		if r > unicode.MaxASCII || !unicode.IsPrint(r) {
			return NewCorrelationID()
		}
	}
	return s
}

// WriteError answers err in kit's error shape,
// {"status","statusText","message","data"}, with the status the error
// carries (500 when none: logged to kit's logger, answered without detail).
func (k *Kit) WriteError(w http.ResponseWriter, r *http.Request, err error) {
	WriteError(w, r, k.logger, err)
}

// WriteError answers err in kit's error shape, like [Kit.WriteError], for
// handlers that run without a Kit; 5xx errors are logged to logger
// (slog.Default() when nil).
func WriteError(w http.ResponseWriter, r *http.Request, logger *slog.Logger, err error) {
	if cw, ok := w.(*confirmingWriter); ok && !cw.decide() {
		// An attempt served from a stale cached authorization: its answer
		// is thrown away and the request served again, so its error is no
		// outcome of the request and is not logged (the retry's is).
		return
	}
	wire.Error(w, r, logger, err)
}

// WriteJSON answers v as JSON with status.
func WriteJSON(w http.ResponseWriter, status int, v any) { wire.JSON(w, status, v) }

type responseHeaderKey struct{}

// SetResponseHeader sets a header on the response of the HTTP request
// behind ctx, when there is one and it has not been written yet: mutation
// listeners run before the response is written, so an add-on can tell the
// caller something (the events add-on's dev-mode warning). It reports
// whether ctx came from kit's handler.
func SetResponseHeader(ctx context.Context, key, value string) bool {
	h, ok := ctx.Value(responseHeaderKey{}).(http.Header)
	if ok {
		h.Set(key, value)
	}
	return ok
}
