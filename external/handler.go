package external

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/proxytransform"
	"github.com/collectionkit/kit/kit"
)

// HandlerOption configures a handler made by
// [CreateExternalCollectionHandler].
type HandlerOption func(*handlerOptions)

type handlerOptions struct {
	logger *slog.Logger
	schema *Collection
}

// WithLogger sends the handler's logs (failed fetches, skipped items) to
// logger. Default: kit's logger when [Register] mounts the handler, else
// slog.Default().
func WithLogger(logger *slog.Logger) HandlerOption {
	return func(o *handlerOptions) { o.logger = logger }
}

// WithSchema checks every item against c's schema ([Collection.ValidateItem])
// and skips, with a log line, the items that do not satisfy it. [Register]
// does this for the Handler of the collection it mounts.
func WithSchema(c *Collection) HandlerOption {
	return func(o *handlerOptions) { o.schema = c }
}

// CreateExternalCollectionHandler returns a GET handler that turns any data
// source into an external collection endpoint.
//
// For every request it calls fetch(r), which sees the route's wildcards
// (r.PathValue), the caller (teamauth.UserFrom, teamauth.AccessFrom behind
// the team guards) and the headers, then transform on every item, and
// answers a JSON array of items ({"id", "title", ...}). A nil transform is
// allowed when T is [Item]: items are answered as fetched.
//
//   - ?ids=a,b answers only those items, in the order asked; ids no item
//     has are left out. fetch may read ids too, to fetch less.
//   - When the route has an {id} wildcard, the handler answers that one
//     item as an object, or 404 in kit's error shape.
//   - An error from fetch is answered in kit's error shape with the
//     status it carries (an HTTPStatus() int method, such as
//     *kit.Error's); one that carries none is a 500 without detail,
//     logged. A panic in fetch is a logged 500 too.
//   - When transform fails for an item (it returns an error or panics),
//     the item is answered unchanged, as the source gave it (its JSON,
//     which must be an object; "id" still selects it), and the failure is
//     logged at warning level with a message starting
//     "[useCollectionProxy] Transform failed for item", as a proxy's
//     transform is: the other items are still transformed and answered.
//     An Item source is given to transform as a deep copy, so a failed
//     transform cannot leave it half-changed; other types are passed by
//     value, so a transform should not change what they point to.
//   - An item whose transform output has no non-empty string "id" or no
//     string "title" (or, with [WithSchema], breaks the schema) is
//     skipped and logged at warning level with its index and the reason:
//     one bad source row does not take the collection down, and the log
//     says which row to fix.
//
// It panics when fetch is nil, or transform is nil and T is not Item.
func CreateExternalCollectionHandler[T any](fetch func(r *http.Request) ([]T, error), transform func(T) (Item, error), opts ...HandlerOption) http.Handler {
	if fetch == nil {
		panic("external: CreateExternalCollectionHandler needs a fetch function")
	}
	h := &itemHandler[T]{fetch: fetch, transform: transform}
	if transform == nil {
		var zero T
		if _, ok := any(zero).(Item); !ok {
			panic(fmt.Sprintf("external: CreateExternalCollectionHandler needs a transform from %T to external.Item", zero))
		}
		h.transform = func(v T) (Item, error) { return any(v).(Item), nil }
		h.identity = true
	}
	for _, o := range opts {
		o(&h.opts)
	}
	return h
}

type itemHandler[T any] struct {
	fetch     func(r *http.Request) ([]T, error)
	transform func(T) (Item, error)
	identity  bool // transform is the identity of a nil transform: it cannot fail
	opts      handlerOptions
}

// encodedItem is a transformed item with its JSON form.
type encodedItem struct {
	id  string
	raw json.RawMessage
}

func (h *itemHandler[T]) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	logger, schema := h.opts.logger, h.opts.schema
	if m, ok := r.Context().Value(mountKey{}).(*mount); ok {
		if logger == nil {
			logger = m.logger
		}
		if schema == nil {
			schema = m.col
		}
	}
	if logger == nil {
		logger = slog.Default()
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeError(w, r, logger, errMethod)
		return
	}
	id := r.PathValue("id")
	var ids []string
	if q := r.URL.Query(); id == "" && q.Has("ids") {
		var err error
		if ids, err = collections.ParseIDs(q.Get("ids"), 0); err != nil {
			writeError(w, r, logger, err)
			return
		}
	}
	src, err := h.callFetch(r)
	if err != nil {
		writeError(w, r, logger, err)
		return
	}
	collection := ""
	if schema != nil {
		collection = schema.Name()
	}
	items := make([]encodedItem, 0, len(src))
	for i, s := range src {
		item, err := h.callTransform(s)
		if err != nil {
			kept, id, keptErr := unchangedItem(s)
			proxytransform.LogFailure(r.Context(), logger, collection, i, id, err, slog.String("path", r.URL.Path))
			if keptErr != nil {
				logger.WarnContext(r.Context(), "external: item skipped", slog.Int("index", i),
					slog.String("reason", keptErr.Error()), slog.String("path", r.URL.Path))
				continue
			}
			items = append(items, kept)
			continue
		}
		enc, err := encodeItem(item, schema)
		if err != nil {
			logger.WarnContext(r.Context(), "external: item skipped", slog.Int("index", i), slog.Any("id", item["id"]),
				slog.String("reason", err.Error()), slog.String("path", r.URL.Path))
			continue
		}
		items = append(items, enc)
	}
	switch {
	case id != "":
		for _, it := range items {
			if it.id == id {
				kit.WriteJSON(w, http.StatusOK, it.raw)
				return
			}
		}
		writeError(w, r, logger, kit.ErrNotFound)
		return
	case ids != nil:
		items = selectIDs(items, ids, func(it encodedItem) string { return it.id })
	}
	out := make([]json.RawMessage, len(items))
	for i, it := range items {
		out[i] = it.raw
	}
	kit.WriteJSON(w, http.StatusOK, out)
}

// callFetch runs fetch, turning a panic into an error.
func (h *itemHandler[T]) callFetch(r *http.Request) (items []T, err error) {
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			err = fmt.Errorf("external: fetch panicked: %v", p)
		}
	}()
	return h.fetch(r)
}

// callTransform runs transform, turning a panic into an error. An Item
// (or map[string]any) is given as a deep copy, so a transform that fails
// half-way cannot change the item kept unchanged.
func (h *itemHandler[T]) callTransform(v T) (item Item, err error) {
	defer func() {
		if p := recover(); p != nil {
			item, err = nil, fmt.Errorf("transform panicked: %v", p)
		}
	}()
	if m, ok := any(v).(map[string]any); ok && m != nil && !h.identity {
		v = any(proxytransform.DeepCopy(m)).(T)
	}
	return h.transform(v)
}

// unchangedItem encodes a source item whose transform failed, to be
// answered as it is: the JSON of v, which must be an object. id is its
// "id" when that is a string, for ?ids=, the {id} route and the log.
func unchangedItem[T any](v T) (enc encodedItem, id any, err error) {
	var buf bytes.Buffer
	e := json.NewEncoder(&buf)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return encodedItem{}, nil, fmt.Errorf("the item whose transform failed cannot be encoded as JSON: %w", err)
	}
	raw := bytes.TrimRight(buf.Bytes(), "\n")
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil || fields == nil {
		return encodedItem{}, nil, fmt.Errorf("the item whose transform failed is not a JSON object")
	}
	var s string
	if json.Unmarshal(fields["id"], &s) == nil && s != "" {
		id = s
	}
	return encodedItem{id: s, raw: raw}, id, nil
}

// encodeItem checks an item and encodes it once, for the answer and the
// schema check alike.
func encodeItem(item Item, schema *Collection) (encodedItem, error) {
	if err := checkItem(item); err != nil {
		return encodedItem{}, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(item); err != nil {
		return encodedItem{}, fmt.Errorf("the item cannot be encoded as JSON: %w", err)
	}
	raw := bytes.TrimRight(buf.Bytes(), "\n")
	if schema != nil {
		if err := schema.validateJSON(raw); err != nil {
			return encodedItem{}, err
		}
	}
	id, _ := itemID(item)
	return encodedItem{id: id, raw: raw}, nil
}

// selectIDs keeps the items whose id is in ids, in the order of ids; the
// first item wins when several share an id.
func selectIDs[E any](items []E, ids []string, idOf func(E) string) []E {
	byID := make(map[string]E, len(items))
	for _, it := range items {
		id := idOf(it)
		if _, dup := byID[id]; !dup {
			byID[id] = it
		}
	}
	out := make([]E, 0, len(ids))
	for _, id := range ids {
		if it, ok := byID[id]; ok {
			out = append(out, it)
		}
	}
	return out
}

// mountKey carries the *mount of a route that Register mounted.
type mountKey struct{}

// mount is what Register tells the handler it mounts: kit's logger and the
// collection whose schema items must satisfy.
type mount struct {
	logger *slog.Logger
	col    *Collection
}

func withMount(ctx context.Context, m *mount) context.Context {
	return context.WithValue(ctx, mountKey{}, m)
}
