package client

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
)

// CollectionConfig is a collection's config as GET /kit/collections
// answers it (the spec's kitCollections shape), with the members the
// client uses typed and the whole object kept in Raw.
type CollectionConfig struct {
	// Key is the registry key ("shopProducts"); it keys the registry and
	// is not part of the JSON object.
	Key string `json:"-"`
	// Name is the collection's plural name ("products").
	Name string `json:"name"`
	// Layer is its layer ("shop", or "external").
	Layer string `json:"layer"`
	// APIPath is the endpoint segment ("shop-products"); empty means Key.
	APIPath string `json:"apiPath,omitempty"`
	// FetchStrategy is "restful" (GET /{id}) or "query" (?ids=<id>, the
	// default when empty).
	FetchStrategy string `json:"fetchStrategy,omitempty"`
	// References maps a field to the collection it refers to; a mutation
	// invalidates their cached answers too.
	References map[string]string `json:"references,omitempty"`
	// Readonly marks collections without create, update and delete
	// (external ones).
	Readonly bool `json:"readonly,omitempty"`
	// Hierarchy and Sortable are set for trees and ordered collections.
	Hierarchy *Hierarchy `json:"hierarchy,omitempty"`
	Sortable  *Sortable  `json:"sortable,omitempty"`
	// Proxy is an external collection's proxy settings.
	Proxy *Proxy `json:"proxy,omitempty"`
	// Raw is the config object as the server sent it.
	Raw json.RawMessage `json:"-"`
}

// Hierarchy is a tree collection's settings; empty field names take kit's
// defaults (parentId, path, depth, order).
type Hierarchy struct {
	Enabled     bool   `json:"enabled"`
	ParentField string `json:"parentField,omitempty"`
	PathField   string `json:"pathField,omitempty"`
	DepthField  string `json:"depthField,omitempty"`
	OrderField  string `json:"orderField,omitempty"`
}

// Sortable is an ordered collection's settings; an empty OrderField is
// "order".
type Sortable struct {
	Enabled    bool   `json:"enabled"`
	OrderField string `json:"orderField,omitempty"`
}

// Proxy is the spec's proxy settings of an external collection. Transform
// never travels over HTTP: set it on a config yourself for
// [Client.ApplyTransform].
type Proxy struct {
	Enabled        bool                                              `json:"enabled"`
	SourceEndpoint string                                            `json:"sourceEndpoint,omitempty"`
	Transform      func(item map[string]any) (map[string]any, error) `json:"-"`
}

// apiPath is the endpoint segment of the collection.
func (cfg CollectionConfig) apiPath() string {
	if cfg.APIPath != "" {
		return cfg.APIPath
	}
	return cfg.Key
}

// Collections returns the server's registry, keyed by registry key. The
// first call (of this or any collection method) loads it and later calls
// answer from memory; [Client.RefreshCollections] loads it again. The map
// is the caller's own copy.
func (c *Client) Collections(ctx context.Context) (map[string]CollectionConfig, error) {
	c.mu.Lock()
	reg := c.registry
	c.mu.Unlock()
	if reg != nil {
		return maps.Clone(reg), nil
	}
	return c.RefreshCollections(ctx)
}

// RefreshCollections loads the registry from GET /kit/collections, keeps
// it, and returns it.
func (c *Client) RefreshCollections(ctx context.Context) (map[string]CollectionConfig, error) {
	var raw map[string]json.RawMessage
	if err := c.Do(ctx, http.MethodGet, "/kit/collections", nil, nil, &raw); err != nil {
		return nil, err
	}
	reg := make(map[string]CollectionConfig, len(raw))
	for key, msg := range raw {
		var cfg CollectionConfig
		if err := json.Unmarshal(msg, &cfg); err != nil {
			return nil, fmt.Errorf("kit client: collection %q: decode config: %w", key, err)
		}
		cfg.Key, cfg.Raw = key, msg
		reg[key] = cfg
	}
	c.mu.Lock()
	c.registry = reg
	c.mu.Unlock()
	return maps.Clone(reg), nil
}

// Config returns the config of the collection with registry key key. A
// key the loaded registry lacks reloads it once (the server may have
// registered it since); still missing, the error matches
// [ErrUnknownCollection].
func (c *Client) Config(ctx context.Context, key string) (CollectionConfig, error) {
	reg, err := c.Collections(ctx)
	if err != nil {
		return CollectionConfig{}, err
	}
	if cfg, ok := reg[key]; ok {
		return cfg, nil
	}
	if reg, err = c.RefreshCollections(ctx); err != nil {
		return CollectionConfig{}, err
	}
	if cfg, ok := reg[key]; ok {
		return cfg, nil
	}
	return CollectionConfig{}, fmt.Errorf("%w: %q is not a registry key of the server", ErrUnknownCollection, key)
}

// referencedKeys returns the registry keys of the collections cfg refers
// to. A reference names a registry key, or a collection name, preferably
// in cfg's layer.
func referencedKeys(reg map[string]CollectionConfig, cfg CollectionConfig) []string {
	var keys []string
	seen := map[string]bool{}
	for _, target := range cfg.References {
		key := resolveReference(reg, cfg.Layer, target)
		if key != "" && !seen[key] {
			seen[key] = true
			keys = append(keys, key)
		}
	}
	return keys
}

func resolveReference(reg map[string]CollectionConfig, layer, target string) string {
	if _, ok := reg[target]; ok {
		return target
	}
	found := ""
	for key, cfg := range reg {
		if cfg.Name != target {
			continue
		}
		if cfg.Layer == layer {
			return key
		}
		if found == "" || key < found {
			found = key
		}
	}
	if found == "" {
		return target
	}
	return found
}
