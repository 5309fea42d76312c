package store

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
)

// SetRareCandidates makes a search with more than n index candidates
// weigh the team's size (rareCandidates), so that small tables reach
// every plan.
func (s *Store) SetRareCandidates(n int) { s.planRare = n }

// SetNoSearchIndex makes searches test the fields by a scan, without
// the search index (or PostgreSQL's search table), to compare.
func (s *Store) SetNoSearchIndex(on bool) { s.noSearchIndex = on }

// SearchPlan is the plan List chooses for a search, as tests see it.
type SearchPlan struct{ Index, TableOrder, Heavy bool }

// PlanSearch returns the plan List would choose for a search for term.
func (s *Store) PlanSearch(ctx context.Context, db bun.IDB, c *collections.Collection, teamID, term string) (SearchPlan, error) {
	p, err := s.planSearch(ctx, db, c, teamID, term)
	return SearchPlan{Index: p.index, TableOrder: p.tableOrder, Heavy: p.heavy}, err
}

// AcquireScan takes a scan slot (SearchScans) and returns its release.
func (s *Store) AcquireScan(ctx context.Context) (func(), error) { return s.acquireScan(ctx) }

// SetWALRestartFrames sets the WAL length past which the write queue
// checkpoints between groups (walRestartFrames); set it before writing.
func (s *Store) SetWALRestartFrames(n int64) { s.writes.walRestart = n }

// HitRateRecords returns the records the hit-rate benchmarks seed: n of
// team t1 and n/10 of t2, oldest first, with "yonder" in 95% of them (see
// hitRateTerms).
func HitRateRecords(n int) []Record { return hitRateRecords(n) }

// BenchRows is KIT_BENCH_ROWS, default 20,000 (see benchRows).
func BenchRows() int { return benchRows() }

// QueuedWritesToShare reports how many creates and deletes wait for a
// shared statement (PostgreSQL: InsertLogged, DeleteLogged).
func (s *Store) QueuedWritesToShare() int {
	s.batches.mu.Lock()
	defer s.batches.mu.Unlock()
	n := 0
	for _, sh := range s.batches.shapes {
		n += len(sh.queue)
	}
	return n
}

// WarmConnCount is how many pool connections Warm opens on PostgreSQL.
func (s *Store) WarmConnCount() int { return s.warmConnCount() }

// ScanWaiting returns how many lists wait for a scan slot.
func (s *Store) ScanWaiting() int64 { return s.scanWaiting.Load() }

// QueryCounter is a Counter read by query, a SELECT of one BIGINT value.
func QueryCounter(query string) Counter { return queryCounter(query) }

type queryCounter string

func (q queryCounter) Subquery() string { return "(" + string(q) + ")" }

// The tests hand a write's guard down through its context, as the
// closures they share take only one.
type testGuardKey struct{}

// WithWriteGuard returns ctx carrying g, for GuardOf.
func WithWriteGuard(ctx context.Context, g *WriteGuard) context.Context {
	return context.WithValue(ctx, testGuardKey{}, g)
}

// GuardOf returns the guard ctx carries (WithWriteGuard), or nil.
func GuardOf(ctx context.Context) *WriteGuard {
	g, _ := ctx.Value(testGuardKey{}).(*WriteGuard)
	return g
}
