package external

import (
	"context"
	"log/slog"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/proxytransform"
)

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
	t := proxytransform.Transformer{Logger: logger, Collection: collection, Fn: p.Transform, Check: func(out Item) error {
		if err := checkItem(out); err != nil {
			return err
		}
		if check != nil {
			return check(out)
		}
		return nil
	}}
	return t.Apply(ctx, data)
}
