package store

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Totals of filtered and searched lists. An unfiltered page takes its
// total from the row counts (counts.go); a filter or a search has to count
// its matches, which costs what the matching rows cost to find, and for a
// condition on a field without an index, a pass over every row of the
// team. The Store remembers such totals (TotalsCache entries, per
// collection table, team and query) together with the version of the
// team's rows they were counted at, and a later list of the same query
// uses the remembered total only after checking, in the same statement
// that reads its page, that the team's rows of that table have not changed
// since: the total is exact, never an estimate, and a team's writes never
// touch another team's totals.
//
// The version is kept with the row counts, in the transaction of every
// write of kit that changes a row (a create, an update, a delete, a move,
// a reorder):
//
//   - SQLite: kit_row_counts.gen, one per (table, team), raised by one by
//     every write group that changed the team's rows (applyCounts), and by
//     every write outside the queue. A total is valid while gen is the one
//     read with it, in the count's own statement.
//   - PostgreSQL: kit_row_counts.xid, the transaction id of every delta
//     row. An update now inserts a delta row of 0, as a create inserts one
//     of +1 and a delete one of -1, so every write of a team's rows leaves
//     a delta row of its own transaction, and compaction replaces rows
//     only by a row of its own. The count's statement also returns its
//     snapshot (pg_current_snapshot); a total is valid while no delta row
//     of the team is visible whose transaction that snapshot did not see
//     (pg_visible_in_snapshot). A transaction still running when the total
//     was counted is therefore caught when it commits, whatever position
//     in time its row took; no counter row is shared, so concurrent writes
//     still never wait for one another.
//
// Only kit's writes are seen, as for the row counts: SQL of another
// program that changes a collection's rows without going through kit
// leaves remembered totals as they were, until kit writes that team's
// rows or syncs the collection.

// defaultTotalsCache is how many totals a Store remembers when
// TotalsCache is 0.
const defaultTotalsCache = 1024

// totalEntry is one remembered total.
type totalEntry struct {
	total, teamSize int
	// gen (SQLite) or snap (PostgreSQL) is the version of the team's rows
	// the total was counted at.
	gen  int64
	snap string
	// counted is when the count's statement was about to start: its
	// snapshot is younger.
	counted time.Time
	used    time.Time
}

// totalsCache is a Store's remembered totals, bounded in number, and the
// counts under way.
type totalsCache struct {
	mu      sync.Mutex
	entries map[string]*totalEntry
	flights map[string]*totalFlight
}

// totalFlight is a count under way. entry and err are set before done is
// closed.
type totalFlight struct {
	started time.Time
	done    chan struct{}
	entry   totalEntry
	err     error
}

// flight returns the count of key under way, or just ended, that started
// after since: an ended one as a closed flight holding its entry, one
// under way for the caller to wait for (mine false); or else a new flight
// of the caller's own (mine true), which it must land. The newest flight
// of a key is the one later lists join.
func (t *totalsCache) flight(key string, since time.Time) (f *totalFlight, mine bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if f, ok := t.flights[key]; ok && f.started.After(since) {
		return f, false
	}
	if e, ok := t.entries[key]; ok && e.counted.After(since) {
		f := &totalFlight{started: e.counted, done: make(chan struct{}), entry: *e}
		close(f.done)
		return f, false
	}
	if t.flights == nil {
		t.flights = map[string]*totalFlight{}
	}
	f = &totalFlight{started: time.Now(), done: make(chan struct{})}
	t.flights[key] = f
	return f, true
}

// land ends f, the caller's flight of key, with err.
func (t *totalsCache) land(key string, f *totalFlight, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	f.err = err
	if t.flights[key] == f {
		delete(t.flights, key)
	}
	close(f.done)
}

// totalsLimit is the number of totals s remembers: 0 for none.
func (s *Store) totalsLimit() int {
	switch {
	case s.TotalsCache < 0:
		return 0
	case s.TotalsCache == 0:
		return defaultTotalsCache
	}
	return s.TotalsCache
}

// get returns the total remembered under key, or nil.
func (t *totalsCache) get(key string) *totalEntry {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.entries[key]
	if !ok {
		return nil
	}
	e.used = time.Now()
	cp := *e
	return &cp
}

// put remembers e under key, forgetting the least recently used entries
// of a sample when limit is reached.
func (t *totalsCache) put(key string, e totalEntry, limit int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.entries == nil {
		t.entries = map[string]*totalEntry{}
	}
	if _, ok := t.entries[key]; !ok && len(t.entries) >= limit {
		// Map order is random: the oldest of a few entries goes. Cheap,
		// and close enough to least recently used for a cache whose miss
		// costs one count.
		var oldest string
		var at time.Time
		n := 0
		for k, v := range t.entries {
			if oldest == "" || v.used.Before(at) {
				oldest, at = k, v.used
			}
			if n++; n == 8 {
				break
			}
		}
		delete(t.entries, oldest)
	}
	e.used = time.Now()
	t.entries[key] = &e
}

// forget drops the remembered totals of table.
func (t *totalsCache) forget(table string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	prefix := table + "\x00"
	for k := range t.entries {
		if strings.HasPrefix(k, prefix) {
			delete(t.entries, k)
		}
	}
}

// totalKey is the cache key of a list's total: the table, then the WHERE
// clause and its arguments (which include the team and the query's
// values), so that two queries share a key only when they count the same
// rows.
func totalKey(table, where string, args []any) string {
	var b strings.Builder
	b.WriteString(table)
	b.WriteByte(0)
	b.WriteString(where)
	for _, a := range args {
		b.WriteByte(0)
		switch v := a.(type) {
		case nil:
			b.WriteString("n")
		case string:
			b.WriteString("s" + v)
		case []byte:
			b.WriteString("b" + string(v))
		case int64:
			b.WriteString("i" + strconv.FormatInt(v, 10))
		case int:
			b.WriteString("i" + strconv.Itoa(v))
		case float64:
			b.WriteString("f" + strconv.FormatUint(math.Float64bits(v), 16))
		case bool:
			b.WriteString("t" + strconv.FormatBool(v))
		default:
			fmt.Fprintf(&b, "%T:%#v", v, v)
		}
	}
	return b.String()
}

// countVersion is the column a count adds to its select list to learn the
// version of the team's rows it counted, and its arguments.
func (s *Store) countVersion(table, team string) (string, []any) {
	return s.dialect.countVersion(table, team)
}

// versionCheck is what a statement adds to its select list to learn
// whether the team's rows changed since e was counted (two columns, see
// versionResult), and its arguments.
func (s *Store) versionCheck(table, team string, e *totalEntry) (string, []any) {
	return s.dialect.versionCheck(table, team, e)
}

// versionResult holds a versionCheck's two columns as a statement read
// them.
type versionResult struct {
	// v is the SQLite gen, or the PostgreSQL count of delta rows the
	// entry's snapshot did not see.
	v int64
	// rows is the team's PostgreSQL delta rows (0 on SQLite).
	rows int64
}

// dest returns the scan destinations of the check's columns.
func (r *versionResult) dest() []any { return []any{&r.v, &r.rows} }

// unchanged reports whether the check found the team's rows as e was
// counted.
func (s *Store) unchanged(r versionResult, e *totalEntry) bool { return s.dialect.unchanged(r, e) }
