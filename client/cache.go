package client

import (
	"strings"
	"sync"
)

// Cache holds answers of list and item requests, keyed
// "collection:<key>:<team>:<request>" (<key> the registry key), so that
// the spec's rule applies as a prefix: Invalidate("collection:shopProducts:")
// drops every cached answer of shopProducts, in every team. A client
// invalidates the collection it changed and every collection that
// collection references. It holds at most its limit of answers, dropping
// the oldest first. The zero Cache is not usable; use [NewCache]. It is
// safe for concurrent use.
type Cache struct {
	mu      sync.Mutex
	limit   int
	entries map[string][]byte
	order   []string // insertion order, for the limit
	gen     uint64   // counts invalidations
}

// NewCache returns an empty cache of at most limit answers (1,000 when
// limit <= 0).
func NewCache(limit int) *Cache {
	if limit <= 0 {
		limit = 1000
	}
	return &Cache{limit: limit, entries: map[string][]byte{}}
}

// CollectionPrefix returns the prefix of every key of collection key:
// "collection:<key>:".
func CollectionPrefix(key string) string { return "collection:" + key + ":" }

// Get returns the answer cached under key; the caller must not modify it.
func (c *Cache) Get(key string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.entries[key]
	return b, ok
}

// Set caches answer under key.
func (c *Cache) Set(key string, answer []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.set(key, answer)
}

// generation returns the count of invalidations so far.
func (c *Cache) generation() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// setSince caches answer under key unless an invalidation happened since
// generation gen: an answer requested before a mutation and received
// after it may predate the change.
func (c *Cache) setSince(gen uint64, key string, answer []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen == gen {
		c.set(key, answer)
	}
}

func (c *Cache) set(key string, answer []byte) {
	if _, ok := c.entries[key]; !ok {
		c.order = append(c.order, key)
	}
	c.entries[key] = answer
	for len(c.entries) > c.limit && len(c.order) > 0 {
		delete(c.entries, c.order[0])
		c.order = c.order[1:]
	}
}

// Keys returns the cached keys, oldest first.
func (c *Cache) Keys() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.order...)
}

// Invalidate drops every answer whose key starts with prefix; "" drops
// all.
func (c *Cache) Invalidate(prefix string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	kept := c.order[:0]
	for _, k := range c.order {
		if strings.HasPrefix(k, prefix) {
			delete(c.entries, k)
			continue
		}
		kept = append(kept, k)
	}
	c.order = kept
}
