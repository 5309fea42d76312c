package store

import (
	"context"

	"github.com/collectionkit/kit/collections"
)

// Filter plans (SQLite).
//
// SQLite keeps no statistics here (kit does not ANALYZE), so for a filter
// it starts from any index whose columns the conditions name, whatever
// share of the team the condition holds: a count over a condition on an
// unindexed field walks a team index and looks up every row of the team
// in an order unrelated to the table's; a page newest first over an
// indexed range looks up every row of the range and sorts them, even when
// the first twenty matches lie in the first few hundred rows of the
// team's (team_id, created_at, id) index. planFilter estimates instead,
// from the rows teamShare samples, the team's rows and the share of them
// that each indexed condition holds, and List then:
//
//   - counts in table order ("+team_id", no index) when a pass over the
//     table costs less than the planner's walk: the rows of the smallest
//     indexed range, or of the whole team when no condition is indexed,
//     each a lookup costing candidateCost rows of a table-order pass. A
//     filter whose conditions all name one indexed column is counted in
//     that index alone and keeps the planner's plan (no sample);
//   - walks the team's created index for a page in the created order
//     ("INDEXED BY") when the rows it reads before the page is full,
//     (offset+size) * team / total with the exact total from the count,
//     cost less than looking up the smallest indexed range.
//
// A wrong estimate costs time, never results: every plan reads the same
// rows with the same conditions.

// filterPlan is how List runs a filtered list on SQLite.
type filterPlan struct {
	// tableOrder: count by reading the table in rowid order.
	tableOrder bool
	// indexed: some condition can start from an index, whose range is
	// about rangeRows rows (-1: the count's total).
	indexed   bool
	rangeRows int
	// team estimates the team's rows (0: unknown, the planner decides the
	// page).
	team int
}

// walkCreated reports whether the page of a filtered list whose count
// found total matches should walk the team's created index (see the
// comment above).
func (p filterPlan) walkCreated(q collections.ListQuery, total int) bool {
	if !p.indexed || p.team == 0 || total == 0 || !createdOrder(q.Sort) {
		return false
	}
	scanned := p.rangeRows
	if scanned < 0 {
		scanned = total
	}
	walk := (q.Offset() + q.PageSize) * p.team / total
	return walk+walk/4 < scanned*candidateCost
}

// indexedCondition reports whether SQLite can start from an index for
// cond: an index of c leads with (team_id, the condition's column) and the
// condition is an equality, a range, an IN list or a null test on the
// column itself (a text range compares the sort key column, see
// textRange, which that index does not hold).
func indexedCondition(c *collections.Collection, cond collections.Condition) bool {
	switch cond.Op {
	case collections.OpEq, collections.OpIn, collections.OpIsNull:
	case collections.OpGt, collections.OpGte, collections.OpLt, collections.OpLte:
		if hasSortKey(cond.Attr) {
			return false
		}
	default:
		return false
	}
	for _, ix := range indexesOf(c) {
		if len(ix.Columns) >= 2 && ix.Columns[0] == "team_id" && ix.Columns[1] == cond.Attr.Column {
			return true
		}
	}
	return false
}

// planFilter chooses how List runs q's filter in team teamID's rows of c
// (q has a filter and neither search nor ids). On PostgreSQL the server's
// planner chooses (it keeps statistics); the plan is then the zero one.
func (s *Store) planFilter(ctx context.Context, r Read, c *collections.Collection, teamID string, q collections.ListQuery) (filterPlan, error) {
	db := r.db(s)
	if s.has(featServerPlans) || len(q.Filter) == 0 {
		return filterPlan{}, nil
	}
	var conds []collections.Condition
	sameColumn := true
	for _, cond := range q.Filter {
		if indexedCondition(c, cond) {
			conds = append(conds, cond)
		}
		sameColumn = sameColumn && cond.Attr.Column == q.Filter[0].Attr.Column
	}
	if sameColumn && len(conds) == len(q.Filter) {
		// The count reads the one index alone and its range is the
		// matches: the page decides with the count's total and the
		// team's row count.
		team, err := s.teamRows(ctx, r, c, teamID)
		if err != nil {
			return filterPlan{}, err
		}
		return filterPlan{indexed: true, rangeRows: -1, team: team}, nil
	}
	var exprs []string
	var args []any
	for _, cond := range conds {
		part, condArgs, err := s.condition(c, teamID, cond)
		if err != nil {
			return filterPlan{}, err
		}
		exprs = append(exprs, part)
		args = append(args, condArgs...)
	}
	rows, k, sampled, held, err := s.sampleTeam(ctx, db, c, teamID, exprs, args)
	if err != nil || rows == 0 {
		return filterPlan{}, err
	}
	p := filterPlan{team: sampled * rows / k, indexed: len(conds) > 0, rangeRows: sampled * rows / k}
	for _, hits := range held {
		p.rangeRows = min(p.rangeRows, hits*rows/k)
	}
	p.tableOrder = sampled > 0 && rows < p.rangeRows*candidateCost
	return p, nil
}
