package store

import (
	"sync"
	"sync/atomic"

	"github.com/collectionkit/kit/collections"
)

// recordTexts is the SQL text of a collection's fixed-shape record
// statements. It depends on the collection's definition and the Store's
// dialect only, so the Store builds it once per collection (textsOf)
// instead of quoting and joining every column again on every request.
type recordTexts struct {
	get     string // getSQL
	getMany string // getManySQL
	insert  string // insertSQL: every attribute, sort keys included
	delete  string // deleteSQL
	backlog string // searchBacklogSQL (SQLite)
	// probed holds get and getMany with the version probe's column last
	// asked for (see probeColumn; it is the same on every request of a
	// Kit).
	probed atomic.Pointer[probedTexts]
}

// probedTexts is the get and getMany text of a version probe's column.
type probedTexts struct {
	probe, get, getMany string
}

// maxTexts bounds the Store's memo of record texts: a registry synced
// again makes new collections, and the memo starts over when it is full.
const maxTexts = 1024

// textMemo is the Store's memo of record texts, per collection.
type textMemo struct {
	mu sync.RWMutex
	m  map[*collections.Collection]*recordTexts
}

// textsOf returns c's record texts, building them on first use.
func (s *Store) textsOf(c *collections.Collection) *recordTexts {
	s.texts.mu.RLock()
	t := s.texts.m[c]
	s.texts.mu.RUnlock()
	if t != nil {
		return t
	}
	t = &recordTexts{get: s.getSQL(c), getMany: s.getManySQL(c, ""), insert: s.insertSQL(c), delete: s.deleteSQL(c), backlog: searchBacklogSQL(c)}
	s.texts.mu.Lock()
	defer s.texts.mu.Unlock()
	if prev := s.texts.m[c]; prev != nil {
		return prev
	}
	if s.texts.m == nil || len(s.texts.m) >= maxTexts {
		s.texts.m = map[*collections.Collection]*recordTexts{}
	}
	s.texts.m[c] = t
	return t
}

// getText is getSQLWith(c, probe), from the memo.
func (s *Store) getText(c *collections.Collection, probe string) string {
	t := s.textsOf(c)
	if probe == "" {
		return t.get
	}
	return s.probedOf(c, t, probe).get
}

// getManyText is getManySQL(c, probe), from the memo.
func (s *Store) getManyText(c *collections.Collection, probe string) string {
	t := s.textsOf(c)
	if probe == "" {
		return t.getMany
	}
	return s.probedOf(c, t, probe).getMany
}

// probedOf returns t's texts with probe's column, building them when the
// probe differs from the one t holds.
func (s *Store) probedOf(c *collections.Collection, t *recordTexts, probe string) *probedTexts {
	if p := t.probed.Load(); p != nil && p.probe == probe {
		return p
	}
	p := &probedTexts{probe: probe, get: s.getSQLWith(c, probe), getMany: s.getManySQL(c, probe)}
	t.probed.Store(p)
	return p
}
