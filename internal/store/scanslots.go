package store

import (
	"context"
	"time"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/apierror"
)

// Scan slots.
//
// A list that may read more than an index range of the team's rows holds
// one of Store.SearchScans slots while it runs: a search that may read
// more than rareCandidates rows (see planSearch), a filter none of whose
// conditions an index can start from, and a list without filter or search
// in an order that no index of the collection holds (a sort of every row
// of the team for one page). A team of at most rareCandidates rows reads
// little whatever its plan, so its filters and sorts take a free slot when
// there is one and run without one otherwise; a large team's wait their
// turn. At most ScanQueue lists wait at once; one more is refused at once
// with ErrBusy (503, Retry-After), so that one caller's burst of expensive
// lists takes a bounded share of the machine and never a queue without
// end, while the cheap requests of every team keep theirs.

// ErrBusy is the error of a list that needs a scan slot while every slot
// is taken and ScanQueue lists already wait for one: answered 503 with a
// Retry-After header.
var ErrBusy error = &apierror.Busy{
	Message: "too many expensive lists (searches, unindexed sorts, scanning filters) are running; retry shortly",
	After:   time.Second,
}

// scanQueueLen is the most lists that wait for a scan slot: ScanQueue, or
// its default, 4 per slot.
func (s *Store) scanQueueLen() int64 {
	if s.ScanQueue > 0 {
		return int64(s.ScanQueue)
	}
	return 4 * int64(s.scanSlotCount())
}

// acquireScan waits for a scan slot (see SearchScans) and returns its
// release; ErrBusy when ScanQueue lists already wait, ctx's error when ctx
// ends first.
func (s *Store) acquireScan(ctx context.Context) (func(), error) {
	s.scanOnce.Do(func() { s.scanSlots = make(chan struct{}, s.scanSlotCount()) })
	release := func() { <-s.scanSlots }
	select {
	case s.scanSlots <- struct{}{}:
		return release, nil
	default:
	}
	if s.scanWaiting.Add(1) > s.scanQueueLen() {
		s.scanWaiting.Add(-1)
		return nil, ErrBusy
	}
	defer s.scanWaiting.Add(-1)
	select {
	case s.scanSlots <- struct{}{}:
		return release, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// acquireTeamScan is acquireScan for a filter or sort that reads beyond an
// index range (scansTeam): a free slot is taken; when none is free, a team
// of at most rareCandidates rows runs without one (the release does
// nothing), and a larger team waits as acquireScan does.
func (s *Store) acquireTeamScan(ctx context.Context, r Read, c *collections.Collection, teamID string) (func(), error) {
	s.scanOnce.Do(func() { s.scanSlots = make(chan struct{}, s.scanSlotCount()) })
	select {
	case s.scanSlots <- struct{}{}:
		return func() { <-s.scanSlots }, nil
	default:
	}
	rows, err := s.teamRows(ctx, r, c, teamID)
	if err != nil {
		return nil, err
	}
	if rows <= s.rareCandidates() {
		return func() {}, nil
	}
	return s.acquireScan(ctx)
}

// scansTeam reports whether a list of q without search or ids reads more
// than an index range of the team's rows: a filter none of whose
// conditions an index of c can start from (indexedCondition), or no
// filter and an order that no index of c holds (indexedOrder).
func scansTeam(c *collections.Collection, q collections.ListQuery) bool {
	if q.Search != "" || q.IDs != nil {
		return false
	}
	if len(q.Filter) > 0 {
		for _, cond := range q.Filter {
			if indexedCondition(c, cond) {
				return false
			}
		}
		return true
	}
	return !indexedOrder(c, q.Sort)
}

// indexedOrder reports whether an index of c holds the team's rows in the
// order of keys' first key, so that a page walks it and stops: the
// created order, or an index that leads with (team_id, the key's column)
// (its sort key column for text, see orderTerm).
func indexedOrder(c *collections.Collection, keys []collections.SortKey) bool {
	if len(keys) == 0 || c.UseMetadata() && createdOrder(keys) {
		return true
	}
	col := keys[0].Attr.Column
	if hasSortKey(keys[0].Attr) {
		col = sortKeyColumn(keys[0].Attr)
	}
	for _, ix := range indexesOf(c) {
		if len(ix.Columns) >= 2 && ix.Columns[0] == "team_id" && ix.Columns[1] == col {
			return true
		}
	}
	return false
}
