package teamauth

import (
	"context"
	"sync"
	"time"
)

// The Store's authorization cache. Every request kit serves needs the
// caller's token (UserByToken) and the route's team with the caller's
// membership (TeamAndMembership); the cache answers both from memory while
// nothing they depend on has changed.
//
// "Nothing has changed" is the version of kit_auth_state (authstate.go),
// which triggers increment in the transaction of every change to the four
// identity tables, made by any process. A lookup reads the version first
// and the data second, and keeps the data under that version: a change
// committed after the version was read increments it past that version,
// so the entry is never used again, and a change committed before is in
// the data. An entry is used only when its version is the current one.
//
// Reading the version is one small query; a request served by
// Auth.ResolveTeamAndCheckMembership reads it once for both lookups
// (withRequestVersion), instead of running the two lookups' queries.

// authCacheSize bounds each of the two caches. Past it, the cache is
// emptied and fills again: simpler than an eviction order, and a working
// set that large costs one query per lookup at worst, as without a cache.
const authCacheSize = 4096

const sqlAuthVersion = `SELECT version FROM kit_auth_state WHERE id = 1`

// AuthCounter is kit_auth_state's version as a counter that statements
// on the same database read in their own snapshot: the way a caller of
// [Store.CachedAccess] confirms the version without a query of its own
// (kit's store takes it as a store.Counter for its version probes and
// write guards). Get one from [Store.AuthCounter].
type AuthCounter struct{}

// Subquery returns the scalar subquery of the version, taking no
// arguments.
func (AuthCounter) Subquery() string { return `(` + sqlAuthVersion + `)` }

// AuthCounter returns the counter of the Store's authorization version
// (see [AuthCounter]).
func (s *Store) AuthCounter() AuthCounter { return AuthCounter{} }

// tokenEntry is what UserByToken found for a token hash.
type tokenEntry struct {
	user     User
	tokenID  string
	lastUsed time.Time // the last recorded use; zero for none
}

// teamKey is a TeamAndMembership lookup: the team's canonical id or its
// slug, and the user.
type teamKey struct{ team, user string }

// teamEntry is what TeamAndMembership found: the team and the membership,
// or member false for a user who is not a member. An unknown team is not
// cached.
type teamEntry struct {
	team       Team
	member     bool
	membership Membership
}

// versionedMap is a bounded map whose entries were all read under one
// version of kit_auth_state. It answers only for that version.
type versionedMap[K comparable, V any] struct {
	mu      sync.RWMutex
	version int64
	m       map[K]V
}

// get returns the entry of k when it was read under version.
func (c *versionedMap[K, V]) get(k K, version int64) (V, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.m == nil || c.version != version {
		var zero V
		return zero, false
	}
	v, ok := c.m[k]
	return v, ok
}

// latest returns the entry of k and the version it was read under, the
// newest version the map has seen, whatever the current one is.
func (c *versionedMap[K, V]) latest(k K) (V, int64, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	v, ok := c.m[k]
	return v, c.version, ok
}

// put stores v, read under version, for k. A newer version empties the
// map first (its entries are dead); an older one is not stored (a request
// that read the version just before another request read a newer one).
func (c *versionedMap[K, V]) put(k K, version int64, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.m == nil || version > c.version:
		c.m = make(map[K]V)
		c.version = version
	case version < c.version:
		return
	case len(c.m) >= authCacheSize:
		if _, ok := c.m[k]; !ok {
			clear(c.m)
		}
	}
	c.m[k] = v
}

// reset empties the map.
func (c *versionedMap[K, V]) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m = nil
	c.version = 0
}

// requestVersion carries the version of kit_auth_state through one
// request. The first of the Store's lookups that needs it reads it, before
// reading any data; the others use the same value. Nothing is read for a
// request refused before any lookup (no credentials).
type requestVersion struct {
	store   *Store
	once    sync.Once
	version int64
	ok      bool
}

type requestVersionKey struct{}

// withRequestVersion returns ctx carrying a version holder for s, so that
// the lookups of one request read the version once. Auth installs it for
// the duration of ResolveTeamAndCheckMembership only: a handler running
// long after must not decide with the version its request started with.
func (s *Store) withRequestVersion(ctx context.Context) context.Context {
	return context.WithValue(ctx, requestVersionKey{}, &requestVersion{store: s})
}

// currentVersion returns the version to look the cache up with: the one
// ctx carries for s, else one read now. ok is false when there is none (a
// database without kit_auth_state, or a failing query): the lookup then
// reads the database and caches nothing.
func (s *Store) currentVersion(ctx context.Context) (version int64, ok bool) {
	if s.uncached {
		return 0, false
	}
	if rv, has := ctx.Value(requestVersionKey{}).(*requestVersion); has && rv.store == s {
		rv.once.Do(func() { rv.version, rv.ok = s.readVersion(ctx) })
		return rv.version, rv.ok
	}
	return s.readVersion(ctx)
}

// readVersion reads kit_auth_state's version. Without one the cache is
// emptied: the counter was dropped (a migration rolled back), and entries
// of the old counter must not outlive it.
func (s *Store) readVersion(ctx context.Context) (int64, bool) {
	var v int64
	if err := s.run.QueryRowKeyed(ctx, s.db, sqlAuthVersion).Scan(&v); err != nil {
		s.tokens.reset()
		s.teams.reset()
		return 0, false
	}
	return v, true
}

// copyTeam returns a copy of t whose Settings shares nothing with t's.
func copyTeam(t *Team) *Team {
	c := *t
	c.Settings = copyJSON(t.Settings).(map[string]any)
	return &c
}

// copyJSON deep-copies a value decoded from JSON: maps and slices are
// copied, everything else (strings, numbers, booleans, nil) is immutable.
func copyJSON(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if x == nil {
			return map[string]any{}
		}
		c := make(map[string]any, len(x))
		for k, e := range x {
			c[k] = copyJSON(e)
		}
		return c
	case []any:
		if x == nil {
			return x
		}
		c := make([]any, len(x))
		for i, e := range x {
			c[i] = copyJSON(e)
		}
		return c
	}
	return v
}

// AuthVersion returns the current value of kit_auth_state's counter, which
// changes in the transaction of every change to users, teams, members,
// tokens and sessions. A long-lived request (kit's change stream) reads it
// to learn cheaply whether its caller's authorization may have changed:
// while the value stays the same, a check made earlier still holds. ok is
// false when the counter cannot be read (the caller must then check in
// full).
func (s *Store) AuthVersion(ctx context.Context) (version int64, ok bool) {
	return s.readVersion(ctx)
}
