package external

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/collectionkit/kit/collections"
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
//   - An error from fetch or transform is answered in kit's error shape
//     with the status it carries (an HTTPStatus() int method, such as
//     *kit.Error's); one that carries none is a 500 without detail,
//     logged. A panic in fetch or transform is a logged 500 too.
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
	if transform == nil {
		var zero T
		if _, ok := any(zero).(Item); !ok {
			panic(fmt.Sprintf("external: CreateExternalCollectionHandler needs a transform from %T to external.Item", zero))
		}
		transform = func(v T) (Item, error) { return any(v).(Item), nil }
	}
	h := &itemHandler[T]{fetch: fetch, transform: transform}
	for _, o := range opts {
		o(&h.opts)
	}
	return h
}

type itemHandler[T any] struct {
	fetch     func(r *http.Request) ([]T, error)
	transform func(T) (Item, error)
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
	items := make([]encodedItem, 0, len(src))
	for i, s := range src {
		item, err := h.callTransform(s)
		if err != nil {
			writeError(w, r, logger, fmt.Errorf("external: transform of item %d: %w", i, err))
			return
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

// callTransform runs transform, turning a panic into an error.
func (h *itemHandler[T]) callTransform(v T) (item Item, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return h.transform(v)
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
