package external

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/proxytransform"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// Register adds the collections to k and mounts their endpoints.
//
// Collections k does not know yet are registered, under ctx, with
// (*kit.Kit).Register,
// so that they appear in GET /api/kit/collections; ones already given to
// kit.New through [Collection.Definition] (which stored collections whose
// reference fields target them need) are left as they are. Then, for each
// collection that is proxied or has a Handler, Register mounts
//
//	GET <prefix>/teams/{team}/<apiPath>
//	GET <prefix>/teams/{team}/<apiPath>/{id}
//
// behind team membership (k.Auth().RequireTeamMember(), so the handler
// finds the caller's access with teamauth.AccessFrom). The {id} route
// answers the item for fetchStrategy "restful" and 404 for "query". A
// collection with neither proxy nor Handler gets no route: mount its
// handler yourself. The mounted routes are described in k's OpenAPI
// document ([kit.Kit.OpenAPI]).
//
// Register fails when a name is taken by a stored collection or kit
// refuses the definitions, and panics, as kit.Handle does, when a route
// is already taken (a collection registered twice).
func Register(ctx context.Context, k *kit.Kit, cols ...*Collection) error {
	var defs []collections.Definition
	for _, c := range cols {
		if c == nil {
			return errors.New("external: Register got a nil *Collection")
		}
		if have, ok := k.Collections().Get(c.Name()); ok {
			if !have.External() {
				return fmt.Errorf("external: collection %q: the name is the registry key of a stored collection", c.Name())
			}
			continue
		}
		defs = append(defs, c.Definition())
	}
	if len(defs) > 0 {
		if err := k.Register(ctx, defs...); err != nil {
			return err
		}
	}
	for _, c := range cols {
		mountRoutes(k, c)
	}
	return nil
}

// MustRegister is Register that panics on error, for setup code.
func MustRegister(ctx context.Context, k *kit.Kit, cols ...*Collection) {
	if err := Register(ctx, k, cols...); err != nil {
		panic(err)
	}
}

func mountRoutes(k *kit.Kit, c *Collection) {
	reg, ok := k.Collections().Get(c.Name())
	if !ok {
		return
	}
	p := reg.Proxy()
	proxied := p != nil && p.Enabled
	if !proxied && c.cfg.Handler == nil {
		return
	}
	cfg := k.Config()
	rt := &route{k: k, col: c, prefix: cfg.Prefix, logger: cfg.Logger}
	h := k.Auth().RequireTeamMember()(rt)
	path := "/teams/{team}/" + reg.APIPath()
	k.Handle(http.MethodGet, path, h)
	k.Handle(http.MethodGet, path+"/{id}", h)
	k.DescribeAPI(describe(cfg.Prefix, reg.Key(), reg.APIPath(), reg.FetchStrategy() == "restful", proxied))
}

// route serves a registered external collection: through its proxy, or
// its Handler.
type route struct {
	k      *kit.Kit
	col    *Collection
	prefix string       // k's Config().Prefix
	logger *slog.Logger // k's Config().Logger
}

func (rt *route) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	logger := rt.logger
	// The config is read per request: kit.Config.Collections and
	// kit.config.json may override what the definition said.
	reg, ok := rt.k.Collections().Get(rt.col.Name())
	if !ok || !reg.External() {
		writeError(w, r, logger, kit.ErrUnknownCollection)
		return
	}
	if r.PathValue("id") != "" && reg.FetchStrategy() != "restful" {
		writeError(w, r, logger, errWrongStrategy)
		return
	}
	if p := reg.Proxy(); p != nil && p.Enabled {
		rt.serveProxy(w, r, reg.APIPath(), p)
		return
	}
	if rt.col.cfg.Handler == nil {
		writeError(w, r, logger, kit.ErrUnknownCollection)
		return
	}
	rt.col.cfg.Handler.ServeHTTP(w, r.WithContext(withMount(r.Context(), &mount{logger: logger, col: rt.col})))
}

// maxProxyHops bounds a chain of proxies (a proxy of a proxy ...), which
// also stops a cycle.
const maxProxyHops = 4

type proxyHopsKey struct{}

var errProxyLoop = &kit.Error{Status: http.StatusLoopDetected, Message: "proxy loop"}

// serveProxy answers the team's <sourceEndpoint> with the proxy transform
// applied. The source is asked through k.Handler() with the caller's
// context and headers, so it authorizes the same caller exactly as a
// direct request: a proxy never widens access. The source's refusals and
// errors are relayed unchanged.
func (rt *route) serveProxy(w http.ResponseWriter, r *http.Request, apiPath string, p *collections.Proxy) {
	logger := rt.logger
	ctx := r.Context()
	hops, _ := ctx.Value(proxyHopsKey{}).(int)
	if hops >= maxProxyHops {
		writeError(w, r, logger, fmt.Errorf("external: %q: more than %d proxies in a row: %w", rt.col.Name(), maxProxyHops, errProxyLoop))
		return
	}
	acc, ok := teamauth.AccessFrom(ctx)
	if !ok {
		writeError(w, r, logger, errors.New("external: proxy route reached without team access"))
		return
	}
	id := r.PathValue("id")
	rawQuery := r.URL.RawQuery
	var ids []string
	switch q := r.URL.Query(); {
	case id != "":
		ids = []string{id}
		rawQuery = url.Values{"ids": {id}}.Encode()
	case q.Has("ids"):
		// No count limit here: the source applies kit's (Config.Limits).
		var err error
		if ids, err = collections.ParseIDs(q.Get("ids"), strings.Count(q.Get("ids"), ",")+1); err != nil {
			writeError(w, r, logger, err)
			return
		}
	}

	target := rt.prefix + "/teams/" + url.PathEscape(acc.Team.ID) + "/" + ProxiedEndpoint(collections.Config{Proxy: p}, apiPath)
	if rawQuery != "" {
		target += "?" + rawQuery
	}
	sub, err := http.NewRequestWithContext(context.WithValue(ctx, proxyHopsKey{}, hops+1), http.MethodGet, target, nil)
	if err != nil {
		writeError(w, r, logger, fmt.Errorf("external: proxy request: %w", err))
		return
	}
	sub.Header = forwardHeaders(r)
	sub.RemoteAddr, sub.Host = r.RemoteAddr, r.Host
	res := newBufferedResponse()
	rt.k.Handler().ServeHTTP(res, sub)

	if res.status != http.StatusOK {
		res.relay(w)
		return
	}
	dec := json.NewDecoder(bytes.NewReader(res.body.Bytes()))
	dec.UseNumber() // keep numbers (and decimals) exactly as the source wrote them
	var data any
	if err := dec.Decode(&data); err != nil {
		writeError(w, r, logger, &kit.Error{Status: http.StatusBadGateway, Message: "the proxied endpoint did not answer JSON",
			Err: fmt.Errorf("external: %q: proxied %s: %w", rt.col.Name(), sub.URL.Path, err)})
		return
	}
	data = applyTransform(ctx, logger, rt.col.Name(), data, p, rt.col.ValidateItem)
	if ids == nil {
		kit.WriteJSON(w, http.StatusOK, data)
		return
	}
	// The source was asked for the ids; select again in case it is a
	// route that ignores ?ids=, and answer an array in the order asked.
	items := selectIDs(itemsOf(data), ids, func(v any) string {
		m, _ := v.(Item)
		s, _ := itemID(m)
		return s
	})
	if id == "" {
		kit.WriteJSON(w, http.StatusOK, items)
		return
	}
	if len(items) == 0 {
		writeError(w, r, logger, kit.ErrNotFound)
		return
	}
	kit.WriteJSON(w, http.StatusOK, items[0])
}

// itemsOf returns the items of an array, a list answer or a single item.
func itemsOf(data any) []any {
	switch v := data.(type) {
	case []any:
		return v
	case Item:
		if proxytransform.IsList(v) {
			return itemsOf(v["items"])
		}
		return []any{v}
	}
	return nil
}

// hopHeaders are the per-connection headers a forwarded request drops.
var hopHeaders = []string{"Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization",
	"Te", "Trailer", "Transfer-Encoding", "Upgrade", "Content-Length", "Content-Type", "Accept-Encoding"}

// forwardHeaders copies the caller's headers (Authorization, cookies,
// whatever a host authenticator reads) for the proxied request, and keeps
// the correlation id so both requests log under one.
func forwardHeaders(r *http.Request) http.Header {
	h := r.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	for _, k := range hopHeaders {
		h.Del(k)
	}
	if info, ok := kit.RequestInfoFrom(r.Context()); ok && info.CorrelationID != "" {
		h.Set("X-Correlation-Id", info.CorrelationID)
	}
	return h
}

// bufferedResponse keeps what the source answered.
type bufferedResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func newBufferedResponse() *bufferedResponse { return &bufferedResponse{header: http.Header{}} }

func (b *bufferedResponse) Header() http.Header { return b.header }

func (b *bufferedResponse) WriteHeader(status int) {
	if b.status == 0 {
		b.status = status
	}
}

func (b *bufferedResponse) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.body.Write(p)
}

// relayedHeaders are the source's headers a relayed answer keeps.
var relayedHeaders = []string{"Content-Type", "X-Content-Type-Options", "WWW-Authenticate", "Allow", "Retry-After"}

// relay answers what the source answered: its refusal or error, as is.
func (b *bufferedResponse) relay(w http.ResponseWriter) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	for _, k := range relayedHeaders {
		if v := b.header.Values(k); len(v) > 0 {
			w.Header()[k] = v
		}
	}
	w.WriteHeader(b.status)
	w.Write(b.body.Bytes())
}
