package external

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/collectionkit/kit/collections"
)

// transformFailedMessage starts the log message of every proxy transform
// that fails for an item (spec: useCollectionProxy).
const transformFailedMessage = "[useCollectionProxy] Transform failed for item"

// ProxiedEndpoint returns the endpoint a collection's items come from:
// cfg.Proxy.SourceEndpoint when the proxy is enabled (and names one), else
// apiPath. It is useCollectionProxy's getProxiedEndpoint.
func ProxiedEndpoint(cfg collections.Config, apiPath string) string {
	if p := cfg.Proxy; p != nil && p.Enabled && p.SourceEndpoint != "" {
		return p.SourceEndpoint
	}
	return apiPath
}

// ApplyTransform applies cfg.Proxy.Transform to data as
// useCollectionProxy's applyTransform does, and returns the result; data is
// not modified. It does nothing unless the proxy is enabled and has a
// Transform.
//
// data is what a source endpoint answered, decoded from JSON: an array of
// items ([]any or []Item), a single item (an object), or a list ({"items":
// [...], ...}: an object with an "items" array and no "id"), whose items
// are transformed and other members kept.
//
// When the transform fails for an item (it returns an error, panics, or
// returns an object without a non-empty string "id" and a string "title"),
// the failure is logged to slog.Default() at warning level with a message
// starting "[useCollectionProxy] Transform failed for item" (the spec's
// text), and the item stays unchanged; the other items are still
// transformed. The transform gets a copy of each item, so a failed
// transform cannot leave an item half-changed.
func ApplyTransform(data any, cfg collections.Config) any {
	return applyTransform(context.Background(), slog.Default(), cfg.Name, data, cfg.Proxy, nil)
}

// applyTransform is ApplyTransform with a logger, and check, when not nil,
// as a further test of each output (the collection's schema).
func applyTransform(ctx context.Context, logger *slog.Logger, collection string, data any, p *collections.Proxy, check func(Item) error) any {
	if p == nil || !p.Enabled || p.Transform == nil {
		return data
	}
	t := transformer{ctx: ctx, logger: logger, collection: collection, fn: p.Transform, check: check}
	switch v := data.(type) {
	case []any:
		out := make([]any, len(v))
		for i, item := range v {
			out[i] = t.apply(i, item)
		}
		return out
	case []Item:
		out := make([]Item, len(v))
		for i, item := range v {
			if m, ok := t.apply(i, item).(Item); ok {
				out[i] = m
			}
		}
		return out
	case Item:
		if isListShape(v) {
			out := make(Item, len(v))
			for k, val := range v {
				out[k] = val
			}
			out["items"] = applyTransform(ctx, logger, collection, v["items"], p, check)
			return out
		}
		return t.apply(-1, v)
	}
	return data
}

// isListShape reports whether an object is a list answer ({"items": [...],
// "pagination": ...}) rather than one item: it has an "items" array and no
// "id".
func isListShape(v Item) bool {
	if _, hasID := v["id"]; hasID {
		return false
	}
	switch v["items"].(type) {
	case []any, []Item:
		return true
	}
	return false
}

type transformer struct {
	ctx        context.Context
	logger     *slog.Logger
	collection string
	fn         func(Item) (Item, error)
	check      func(Item) error
}

// apply transforms one item; index is its position in the array, -1 for a
// single item. On failure it logs and returns the item unchanged.
func (t transformer) apply(index int, item any) any {
	m, ok := item.(Item)
	if !ok {
		t.fail(index, nil, fmt.Errorf("the item is %T, not an object", item))
		return item
	}
	out, err := t.call(m)
	if err == nil {
		err = checkItem(out)
	}
	if err == nil && t.check != nil {
		err = t.check(out)
	}
	if err != nil {
		t.fail(index, m["id"], err)
		return item
	}
	return out
}

// call runs the transform on a deep copy of item, turning a panic into an
// error.
func (t transformer) call(item Item) (out Item, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("transform panicked: %v", p)
		}
	}()
	return t.fn(deepCopy(item).(Item))
}

func (t transformer) fail(index int, id any, err error) {
	attrs := []any{slog.String("collection", t.collection), slog.Any("error", err)}
	if index >= 0 {
		attrs = append(attrs, slog.Int("index", index))
	}
	if id != nil {
		attrs = append(attrs, slog.Any("id", id))
	}
	t.logger.WarnContext(t.ctx, transformFailedMessage, attrs...)
}

// deepCopy copies the objects and arrays of a decoded JSON value.
func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, val := range v {
			out[k] = deepCopy(val)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, val := range v {
			out[i] = deepCopy(val)
		}
		return out
	}
	return v
}
