package client

import (
	"context"

	"github.com/collectionkit/kit/internal/proxytransform"
)

// TransformFailedMessage starts the log message of every proxy transform
// that fails for an item (the spec's useCollectionProxy rule).
const TransformFailedMessage = proxytransform.FailedMessage

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
	t := proxytransform.Transformer{Logger: c.logger, Collection: cfg.Key, Fn: cfg.Proxy.Transform}
	return t.Apply(ctx, data)
}
