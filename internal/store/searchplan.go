package store

import (
	"context"
	"database/sql"
	"fmt"
	"runtime"
	"strings"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/sqlexec"
)

// Search plans (SQLite).
//
// A search for a term of at least minIndexedSearch characters can start
// from the trigram index or scan the team's rows; both give the same rows
// (the index only narrows the candidates, see ftsCondition). The index
// wins while the term is rare: its cost grows with its candidates (the
// rows of any team that hold the term's trigrams), each a lookup by rowid
// and a LIKE test, and a candidate costs about what four rows of a scan
// cost (candidateCost; docs/decisions/0007). So
// planSearch samples the table (teamShare: the team's share, and how many
// sampled rows of the team hold the term) and, unless half of those hold
// it, counts the candidates in the index, never more of them than it needs
// to decide: a search uses the index when they are at most rareCandidates,
// or fewer than a quarter of the rows a scan would read; otherwise it
// scans. A common term thus costs one pass over the team's rows, as a scan
// does, and never the index's lookups on top; a rare one costs its
// candidates. A wrong estimate costs time, never results.
//
// A scan reads the table in rowid order, not through the team's index,
// when the team holds more than half of the table's rows: a sequential
// pass is cheaper than a lookup per row of the team.
//
// A search that may read more than rareCandidates rows (a scan, or an
// index plan with many candidates) holds one of Store.SearchScans slots
// while it runs; the others wait their turn (or their context's end), so
// a burst of expensive searches takes a bounded share of the machine and
// the other requests keep theirs. On PostgreSQL, whose planner chooses
// the plan on the server, every search holds a slot, and one that shares
// the slots with another runs without parallel workers (sharedScan).

// rareCandidates is the most index candidates a search takes without
// looking at the team's size, and the most rows a search reads without a
// scan slot.
const rareCandidates = 5000

// candidateCost is how many rows of a scan in table order cost what one
// index candidate costs.
const candidateCost = 4

// searchPlan is how List runs a search.
type searchPlan struct {
	// index: start from the index's candidates (ftsCondition).
	index bool
	// tableOrder: count by reading the table in rowid order ("+team_id"),
	// not through the team's index.
	tableOrder bool
	// heavy: the search may read more than rareCandidates rows, so it
	// runs in a scan slot.
	heavy bool
	// team estimates the team's rows (teamShare).
	team int
}

// sortMatches reports whether the page of an indexed search whose count
// found total matches should sort the index's candidates rather than walk
// the team's rows in the page's order and stop at the page. Sorting costs
// each candidate again; walking in created order through the team's index
// reads about (offset+size) * team/total rows, and wins once the matches
// are dense. In another order the walk is a sort of the team's matches,
// so the candidates are sorted while they are few enough (maxSortedMatches).
func (p searchPlan) sortMatches(q collections.ListQuery, total int) bool {
	if !createdOrder(q.Sort) || p.team == 0 {
		return total <= maxSortedMatches
	}
	walk := (q.Offset() + q.PageSize) * p.team / total
	return total*candidateCost < walk+walk/4
}

// createdOrder reports whether keys are the created order that the
// team's (team_id, created_at, id) index serves.
func createdOrder(keys []collections.SortKey) bool {
	return len(keys) == 2 && keys[0].Attr.Column == "created_at" && keys[1].Attr.Column == "id" && keys[0].Desc == keys[1].Desc
}

// planSearch chooses how to run a search for term in team teamID's rows
// of c. On PostgreSQL the server's planner chooses (it keeps statistics
// on the trigram indexes), and every search counts as heavy: it takes a
// scan slot, so that searches never hold more than their share of the
// pool's connections (see SearchScans).
func (s *Store) planSearch(ctx context.Context, db bun.IDB, c *collections.Collection, teamID, term string) (searchPlan, error) {
	if s.has(featServerPlans) {
		return searchPlan{heavy: true}, nil
	}
	team, rows, sampled, hits, err := s.teamShare(ctx, db, c, teamID, term)
	if err != nil {
		return searchPlan{}, err
	}
	// A scan in table order reads every row of the table; through the
	// team's index it reads the team's rows, each a quarter dearer.
	tableOrder := 2*team > rows
	scanCost := team + team/4
	if tableOrder {
		scanCost = rows
	}
	// Half the team's sampled rows or more hold the term: scan without
	// asking the index.
	common := sampled >= teamSample/4 && 2*hits >= sampled
	if !common && s.usesFTS(c, term) {
		rare := s.rareCandidates()
		limit := max(rare, scanCost/candidateCost)
		n, err := s.countCandidates(ctx, db, c, term, limit)
		if err != nil {
			return searchPlan{}, err
		}
		if n <= rare || n*candidateCost <= scanCost {
			return searchPlan{index: true, heavy: n > rare, team: team}, nil
		}
	}
	return searchPlan{tableOrder: tableOrder, heavy: true, team: team}, nil
}

func (s *Store) rareCandidates() int {
	if s.planRare > 0 {
		return s.planRare
	}
	return rareCandidates
}

// countCandidates counts the candidates of a search for term in c: the
// rows its search index matches, up to limit+1, and the rows that wait for
// the index (SearchBacklog's upper bound).
func (s *Store) countCandidates(ctx context.Context, db bun.IDB, c *collections.Collection, term string, limit int) (int, error) {
	fts := quote(ftsTable(c.Table()))
	q := `SELECT (SELECT count(*) FROM (SELECT "rowid" FROM ` + fts + " WHERE " + fts + ` MATCH ? LIMIT ` + s.hiddenArg() + `)) + (SELECT count(*) FROM ` +
		quote(ftsPending(c.Table())) + `) + max(0, (SELECT coalesce(max("rowid"), 0) FROM ` + quote(c.Table()) + `) - (SELECT hwm FROM ` +
		quote(ftsMark(c.Table())) + "))"
	var n int
	// At most limit+1 candidates: bounded (sqlexec.Bounded).
	if err := s.queryRow(sqlexec.Bounded(ctx), db, q, ftsQuery(term), limit+1).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count search candidates in %s: %w", c.Table(), err)
	}
	return n, nil
}

// teamSample is how many rowids teamShare looks at.
const teamSample = 64

// teamShare estimates the number of team teamID's rows of c, and returns
// an upper bound of the table's rows (its largest rowid), how many rows of
// the team it sampled and how many of those a search for term finds (see
// sampleTeam).
func (s *Store) teamShare(ctx context.Context, db bun.IDB, c *collections.Collection, teamID, term string) (team, rows, sampled, hits int, err error) {
	match, matchArgs := s.searchMatch(c, teamID, term)
	rows, k, sampled, held, err := s.sampleTeam(ctx, db, c, teamID, []string{match}, matchArgs)
	if err != nil || rows == 0 {
		return 0, 0, 0, 0, err
	}
	return sampled * rows / k, rows, sampled, held[0], nil
}

// sampleTeam looks up k = min(rows, teamSample) rowids of c spread evenly
// over the table (a rowid left free by a delete counts as another team's),
// which costs a few dozen lookups instead of a pass over the team's index.
// It returns rows, the table's largest rowid (0: an empty table, nothing
// sampled), k, how many of the sampled rows are team teamID's, and for each
// of exprs (SQL expressions of a row that are 0 or 1, taking args in
// order) how many of the team's sampled rows it holds. The team has about
// sampled * rows / k rows.
func (s *Store) sampleTeam(ctx context.Context, db bun.IDB, c *collections.Collection, teamID string, exprs []string, args []any) (rows, k, sampled int, held []int, err error) {
	// The largest rowid, then k lookups by rowid: bounded (sqlexec.Bounded).
	ctx = sqlexec.Bounded(ctx)
	table := quote(c.Table())
	if err := s.queryRow(ctx, db, `SELECT coalesce(max("rowid"), 0) FROM `+table).Scan(&rows); err != nil {
		return 0, 0, 0, nil, fmt.Errorf("store: count rows of %s: %w", c.Table(), err)
	}
	if rows == 0 {
		return 0, 0, 0, nil, nil
	}
	k = min(rows, teamSample)
	sums := []string{"count(*)"}
	for _, e := range exprs {
		sums = append(sums, "coalesce(sum("+e+"), 0)")
	}
	// The midpoints of k equal slices of 1..rows.
	q := `WITH RECURSIVE s(i) AS (VALUES(0) UNION ALL SELECT i + 1 FROM s WHERE i + 1 < ?) SELECT ` + strings.Join(sums, ", ") + ` FROM ` +
		table + ` WHERE "rowid" IN (SELECT 1 + (2 * i + 1) * ? / (2 * ?) FROM s) AND +"team_id" = ?`
	qargs := append(append([]any{k}, args...), rows, k, teamID)
	counts := make([]int, len(sums))
	dst := make([]any, len(counts))
	for i := range counts {
		dst[i] = &counts[i]
	}
	if err := s.queryRow(ctx, db, q, qargs...).Scan(dst...); err != nil {
		return 0, 0, 0, nil, fmt.Errorf("store: sample rows of %s: %w", c.Table(), err)
	}
	return rows, k, counts[0], counts[1:], nil
}

// sharedScan returns the database a search that holds a scan slot runs
// on, and the function that ends it. On PostgreSQL, when the search runs
// on the Store's own database and another search holds a slot too, that is
// a read-only transaction without parallel workers
// (max_parallel_workers_per_gather 0): each search then keeps to one
// backend, so SearchScans searches use about SearchScans of the server's
// CPUs instead of three times as many processes, and the other requests
// keep their share. A search that runs alone keeps the planner's parallel
// scan. Otherwise sharedScan returns db as it is.
func (s *Store) sharedScan(ctx context.Context, r Read) (Read, func(), error) {
	if !s.has(featSharedScans) || !r.pool() || len(s.scanSlots) < 2 {
		return r, func() {}, nil
	}
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return Read{}, nil, fmt.Errorf("store: begin a shared search: %w", err)
	}
	if _, err := s.execOnce(ctx, tx, "SET LOCAL max_parallel_workers_per_gather = 0"); err != nil {
		tx.Rollback()
		return Read{}, nil, fmt.Errorf("store: begin a shared search: %w", err)
	}
	return Read{Tx: tx, Probe: r.Probe}, func() { tx.Rollback() }, nil
}

// scanSlotCount is the number of scan slots: SearchScans, or its default
// (see SearchScans).
func (s *Store) scanSlotCount() int {
	n := s.SearchScans
	switch {
	case n > 0:
	case s.has(featServerPlans):
		// A search is a backend on the server (with its parallel
		// workers). At least two slots: with one, a burst of
		// searches used half of a two-CPU server (docs/decisions/0008).
		n = max(2, runtime.GOMAXPROCS(0))
		if open := s.db.DB.Stats().MaxOpenConnections; open > 0 {
			n = max(1, min(n, open/2))
		}
	default:
		n = max(1, runtime.GOMAXPROCS(0)/2)
	}
	return n
}
