package proxytransform

import (
	"context"
	"fmt"
	"log/slog"
)

// FailedMessage starts the log message of every transform that fails for
// an item (the spec's useCollectionProxy text); the item's id, or "at
// index N", follows it.
const FailedMessage = "[useCollectionProxy] Transform failed for item"

// Transformer transforms decoded JSON with Fn. The zero Logger is
// slog.Default(); Check, when not nil, tests each output first (its error
// is the one logged), before the rule that an output has a non-empty string
// id and a string title.
type Transformer struct {
	Logger     *slog.Logger
	Collection string // logged with each failure
	Fn         func(map[string]any) (map[string]any, error)
	Check      func(map[string]any) error
}

// Apply returns data transformed; data is not modified. data is decoded
// JSON: an array of items ([]any or []map[string]any), one item (an
// object), or a list answer (an object with an "items" array and no
// "id"), whose items are transformed and other members kept. Other values
// are returned as they are.
func (t Transformer) Apply(ctx context.Context, data any) any {
	if t.Logger == nil {
		t.Logger = slog.Default()
	}
	switch v := data.(type) {
	case []any:
		out := make([]any, len(v))
		for i, item := range v {
			out[i] = t.item(ctx, i, item)
		}
		return out
	case []map[string]any:
		out := make([]map[string]any, len(v))
		for i, item := range v {
			out[i], _ = t.item(ctx, i, item).(map[string]any)
		}
		return out
	case map[string]any:
		if IsList(v) {
			out := make(map[string]any, len(v))
			for k, val := range v {
				out[k] = val
			}
			out["items"] = t.Apply(ctx, v["items"])
			return out
		}
		return t.item(ctx, -1, v)
	}
	return data
}

// IsList reports whether an object is a list answer rather than one item:
// it has an "items" array and no "id".
func IsList(v map[string]any) bool {
	if _, ok := v["id"]; ok {
		return false
	}
	switch v["items"].(type) {
	case []any, []map[string]any:
		return true
	}
	return false
}

// item transforms one item (index -1 for a single one); on failure it
// logs and returns the item unchanged.
func (t Transformer) item(ctx context.Context, index int, item any) any {
	m, ok := item.(map[string]any)
	if !ok {
		t.fail(ctx, index, nil, fmt.Errorf("the item is %T, not an object", item))
		return item
	}
	out, err := t.call(m)
	if err == nil && t.Check != nil {
		err = t.Check(out)
	}
	if err == nil {
		if id, _ := out["id"].(string); id == "" {
			err = fmt.Errorf("the transform's output has no string id")
		} else if _, ok := out["title"].(string); !ok {
			err = fmt.Errorf("the transform's output has no string title")
		}
	}
	if err != nil {
		t.fail(ctx, index, m["id"], err)
		return item
	}
	return out
}

// call runs the transform on a deep copy of item, a panic becoming an
// error, so a failing transform cannot leave the item half-changed.
func (t Transformer) call(item map[string]any) (out map[string]any, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("transform panicked: %v", p)
		}
	}()
	return t.Fn(DeepCopy(item).(map[string]any))
}

// fail logs the failure of item index with LogFailure.
func (t Transformer) fail(ctx context.Context, index int, id any, err error) {
	LogFailure(ctx, t.Logger, t.Collection, index, id, err)
}

// LogFailure logs, at warning level, "[useCollectionProxy] Transform
// failed for item <id>" (or "at index N" without an id, or "(no id)" for
// a single item, index -1) with the collection, error, index and id as
// attributes, then attrs.
func LogFailure(ctx context.Context, logger *slog.Logger, collection string, index int, id any, err error, attrs ...any) {
	all := []any{slog.String("collection", collection), slog.Any("error", err)}
	if index >= 0 {
		all = append(all, slog.Int("index", index))
	}
	if id != nil {
		all = append(all, slog.Any("id", id))
	}
	which := fmt.Sprintf("at index %d", index)
	if id != nil {
		which = fmt.Sprint(id)
	} else if index < 0 {
		which = "(no id)"
	}
	logger.WarnContext(ctx, FailedMessage+" "+which, append(all, attrs...)...)
}

// DeepCopy copies the objects and arrays of a decoded JSON value.
func DeepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, val := range v {
			out[k] = DeepCopy(val)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, val := range v {
			out[i] = DeepCopy(val)
		}
		return out
	}
	return v
}
