package client

import (
	"context"
	"fmt"
	"log/slog"
)

// TransformFailedMessage starts the log message of every proxy transform
// that fails for an item (the spec's useCollectionProxy rule).
const TransformFailedMessage = "[useCollectionProxy] Transform failed for item"

// ProxiedEndpoint returns the endpoint a collection's items come from:
// cfg.Proxy.SourceEndpoint when the proxy is enabled and names one, else
// apiPath. It is useCollectionProxy's getProxiedEndpoint; the endpoint is
// resolved as /teams/<team>/<endpoint> under the base URL.
func ProxiedEndpoint(cfg CollectionConfig, apiPath string) string {
	if p := cfg.Proxy; p != nil && p.Enabled && p.SourceEndpoint != "" {
		return p.SourceEndpoint
	}
	return apiPath
}

// ApplyTransform applies cfg.Proxy.Transform to data as useCollectionProxy's
// applyTransform does and returns the result; data is not modified. It
// does nothing unless the proxy is enabled and has a Transform.
//
// data is decoded JSON: an array of items ([]any or []Record), one item
// (a Record), or a list answer (an object with an "items" array and no
// "id"), whose items are transformed and other members kept.
//
// When the transform fails for an item (it returns an error, panics, or
// returns an object without a non-empty string "id" and a string
// "title"), the failure is logged at warning level through the client's
// logger ([WithLogger]) with a message starting [TransformFailedMessage],
// and that item stays unchanged; the other items are still transformed.
func (c *Client) ApplyTransform(ctx context.Context, data any, cfg CollectionConfig) any {
	if cfg.Proxy == nil || !cfg.Proxy.Enabled || cfg.Proxy.Transform == nil {
		return data
	}
	logger := c.logger
	if logger == nil {
		logger = slog.Default()
	}
	t := transformer{ctx: ctx, logger: logger, collection: cfg.Key, fn: cfg.Proxy.Transform}
	return t.data(data)
}

type transformer struct {
	ctx        context.Context
	logger     *slog.Logger
	collection string
	fn         func(map[string]any) (map[string]any, error)
}

func (t transformer) data(data any) any {
	switch v := data.(type) {
	case []any:
		out := make([]any, len(v))
		for i, item := range v {
			out[i] = t.item(i, item)
		}
		return out
	case []Record:
		out := make([]Record, len(v))
		for i, item := range v {
			out[i], _ = t.item(i, item).(Record)
		}
		return out
	case Record:
		if isList(v) {
			out := make(Record, len(v))
			for k, val := range v {
				out[k] = val
			}
			out["items"] = t.data(v["items"])
			return out
		}
		return t.item(-1, v)
	}
	return data
}

// isList reports whether an object is a list answer: an "items" array and
// no "id".
func isList(v Record) bool {
	if _, ok := v["id"]; ok {
		return false
	}
	switch v["items"].(type) {
	case []any, []Record:
		return true
	}
	return false
}

// item transforms one item (index -1 for a single one); on failure it
// logs and returns the item unchanged.
func (t transformer) item(index int, item any) any {
	m, ok := item.(Record)
	if !ok {
		t.fail(index, nil, fmt.Errorf("the item is %T, not an object", item))
		return item
	}
	out, err := t.call(m)
	if err == nil {
		if id, _ := out["id"].(string); id == "" {
			err = fmt.Errorf("the transform's output has no string id")
		} else if _, ok := out["title"].(string); !ok {
			err = fmt.Errorf("the transform's output has no string title")
		}
	}
	if err != nil {
		t.fail(index, m["id"], err)
		return item
	}
	return out
}

// call runs the transform on a deep copy of item, a panic becoming an
// error, so a failing transform cannot leave the item half-changed.
func (t transformer) call(item Record) (out Record, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("transform panicked: %v", p)
		}
	}()
	return t.fn(deepCopy(item).(Record))
}

func (t transformer) fail(index int, id any, err error) {
	attrs := []any{slog.String("collection", t.collection), slog.Any("error", err)}
	if index >= 0 {
		attrs = append(attrs, slog.Int("index", index))
	}
	if id != nil {
		attrs = append(attrs, slog.Any("id", id))
	}
	which := fmt.Sprintf("at index %d", index)
	if id != nil {
		which = fmt.Sprint(id)
	} else if index < 0 {
		which = "(no id)"
	}
	t.logger.WarnContext(t.ctx, TransformFailedMessage+" "+which, attrs...)
}

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
