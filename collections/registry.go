package collections

import (
	"bytes"
	"encoding/json"
)

// Registry holds the built collections by registry key, in registration
// order. It is immutable: adding collections builds a new registry.
type Registry struct {
	byKey map[string]*Collection
	order []*Collection
}

// Get returns the collection registered under key ("shopProducts"); false
// for an unregistered one.
func (r *Registry) Get(key string) (*Collection, bool) {
	if r == nil {
		return nil, false
	}
	c, ok := r.byKey[key]
	return c, ok
}

// ByAPIPath returns the collection served at apiPath ("shop-products").
func (r *Registry) ByAPIPath(apiPath string) (*Collection, bool) {
	if r == nil {
		return nil, false
	}
	for _, c := range r.order {
		if c.config.APIPath == apiPath {
			return c, true
		}
	}
	return nil, false
}

// Named lists the collections whose name, as their schema or definition
// gives it, is name ("products" finds shopProducts and legacyProducts), in
// registration order.
func (r *Registry) Named(name string) []*Collection {
	if r == nil {
		return nil
	}
	var out []*Collection
	for _, c := range r.order {
		if c.name == name {
			out = append(out, c)
		}
	}
	return out
}

// All lists the collections in registration order.
func (r *Registry) All() []*Collection {
	if r == nil {
		return nil
	}
	return append([]*Collection(nil), r.order...)
}

// Len is the number of collections.
func (r *Registry) Len() int {
	if r == nil {
		return 0
	}
	return len(r.order)
}

// MarshalJSON writes the registry in the kitCollections shape: an object
// keyed by registry key whose values are the collections' configs.
func (r *Registry) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	if r != nil {
		for i, c := range r.order {
			if i > 0 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(c.key)
			b.Write(k)
			b.WriteByte(':')
			v, err := json.Marshal(c.config)
			if err != nil {
				return nil, err
			}
			b.Write(v)
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
