package store

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/sqlexec"
)

// Trees and sortable collections.
//
// A tree record carries its parent's id, its materialized path (the ids
// from the root down to itself, each followed by "/": "/a/b/n/"), its depth
// and its order among its siblings (0..n-1). A record and its descendants
// are the records whose path starts with its path: one range on the
// (team_id, path) index (see subtreeRange), so a move rewrites a whole
// subtree with one UPDATE. A sortable collection has only the order, and
// all records of a team are siblings.
//
// Writers of one team's tree or order serialize on [Store.LockOrder]; the
// functions below assume the caller holds it.

// managedColumn returns the quoted column of the attribute playing role m.
// It panics when the collection has none: callers check IsTree/IsOrdered.
func managedColumn(c *collections.Collection, m collections.Managed) string {
	a, ok := c.ManagedAttribute(m)
	if !ok {
		panic(fmt.Sprintf("store: collection %s has no %s attribute", c.Key(), m))
	}
	return quote(a.Column)
}

// orderIndexes lists the indexes of a tree, (team_id, parent, order) for
// children in order and (team_id, path) for subtrees, or of a sortable
// collection, (team_id, order).
func orderIndexes(c *collections.Collection) []indexDef {
	col := func(m collections.Managed) string {
		a, _ := c.ManagedAttribute(m)
		return a.Column
	}
	switch {
	case c.IsTree():
		return []indexDef{
			{Name: indexName("ix", c.Table(), "tree_parent"), Columns: []string{"team_id", col(collections.ManagedParent), col(collections.ManagedOrder)}},
			{Name: indexName("ix", c.Table(), "tree_path"), Columns: []string{"team_id", col(collections.ManagedPath)}},
		}
	case c.IsOrdered():
		return []indexDef{{Name: indexName("ix", c.Table(), "sort_order"), Columns: []string{"team_id", col(collections.ManagedOrder)}}}
	}
	return nil
}

// LockOrder takes the lock that serializes the tree and order writes of
// team teamID in c until the transaction db ends: a PostgreSQL advisory
// transaction lock keyed by (table, team). On SQLite every write
// transaction already holds the database's write lock from BEGIN
// (_txlock=immediate), so there is nothing to take. Call it first in the
// transaction, before reading what the write depends on.
func (s *Store) LockOrder(ctx context.Context, db bun.IDB, c *collections.Collection, teamID string) error {
	lock := s.dialect.lockSQL()
	if lock == "" {
		return nil // write transactions are serialized
	}
	if _, err := s.exec(ctx, db, lock, advisoryKey("kit:order:"+c.Table()+"\x00"+teamID)); err != nil {
		return fmt.Errorf("store: lock order of %s: %w", c.Table(), err)
	}
	return nil
}

// siblingScope is the condition selecting the siblings under parent (nil:
// the roots) in a tree, or every record of the team in a sortable
// collection. Its arguments are hidden from SQLite's planner (hiddenArg).
func (s *Store) siblingScope(c *collections.Collection, teamID string, parent *string) (string, []any) {
	team := `"team_id" = ` + s.hiddenArg()
	if !c.IsTree() {
		return team, []any{teamID}
	}
	col := managedColumn(c, collections.ManagedParent)
	if parent == nil {
		return team + " AND " + col + " IS NULL", []any{teamID}
	}
	return team + " AND " + col + " = " + s.hiddenArg(), []any{teamID, *parent}
}

// NextOrder is the order a new last sibling under parent gets.
func (s *Store) NextOrder(ctx context.Context, db bun.IDB, c *collections.Collection, teamID string, parent *string) (int, error) {
	where, args := s.siblingScope(c, teamID, parent)
	order := managedColumn(c, collections.ManagedOrder)
	var next float64
	q := "SELECT COALESCE(MAX(" + order + "), -1) + 1 FROM " + quote(c.Table()) + " WHERE " + where
	if err := s.queryRow(ctx, db, q, args...).Scan(&next); err != nil {
		return 0, fmt.Errorf("store: next order in %s: %w", c.Table(), err)
	}
	return int(next), nil
}

// CountSiblings counts the siblings under parent, leaving out exceptID.
func (s *Store) CountSiblings(ctx context.Context, db bun.IDB, c *collections.Collection, teamID string, parent *string, exceptID string) (int, error) {
	where, args := s.siblingScope(c, teamID, parent)
	var n int
	q := "SELECT count(*) FROM " + quote(c.Table()) + " WHERE " + where + ` AND "id" <> ?`
	if err := s.queryRow(ctx, db, q, append(args, exceptID)...).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count siblings in %s: %w", c.Table(), err)
	}
	return n, nil
}

// siblingOrder is the ORDER BY of siblings: by order (a missing one last),
// then id.
func siblingOrder(c *collections.Collection) string {
	order := managedColumn(c, collections.ManagedOrder)
	return "(" + order + " IS NULL), " + order + `, "id"`
}

// Siblings returns the siblings under parent (every record of the team in
// a sortable collection) in their order.
func (s *Store) Siblings(ctx context.Context, db bun.IDB, c *collections.Collection, teamID string, parent *string) ([]Record, error) {
	where, args := s.siblingScope(c, teamID, parent)
	q := "SELECT " + s.selectList(c) + " FROM " + quote(c.Table()) + " WHERE " + where + " ORDER BY " + siblingOrder(c)
	recs, err := s.scanRecords(ctx, db, c, q, args...)
	if err != nil {
		return nil, err
	}
	if recs == nil {
		recs = []Record{}
	}
	return recs, nil
}

// HasChildren reports whether record id has children.
func (s *Store) HasChildren(ctx context.Context, db bun.IDB, c *collections.Collection, teamID, id string) (bool, error) {
	where, args := s.siblingScope(c, teamID, &id)
	var n int
	q := "SELECT count(*) FROM (SELECT 1 FROM " + quote(c.Table()) + " WHERE " + where + " LIMIT 1) AS children"
	if err := s.queryRow(ctx, db, q, args...).Scan(&n); err != nil {
		return false, fmt.Errorf("store: look up children in %s: %w", c.Table(), err)
	}
	return n > 0, nil
}

// Renumber sets the orders of the siblings under parent to 0..n-1 in
// their current order (leaving out exceptID, which keeps its order), with
// one UPDATE that writes only the rows whose order changes. A record
// given a fractional order first (k - 0.5) lands at position k.
func (s *Store) Renumber(ctx context.Context, db bun.IDB, c *collections.Collection, teamID string, parent *string, exceptID string) error {
	where, args := s.siblingScope(c, teamID, parent)
	if exceptID != "" {
		where += ` AND "id" <> ?`
		args = append(args, exceptID)
	}
	t, order := quote(c.Table()), managedColumn(c, collections.ManagedOrder)
	q := "UPDATE " + t + " SET " + order + " = r.pos FROM (" +
		`SELECT "id", row_number() OVER (ORDER BY ` + siblingOrder(c) + ") - 1 AS pos FROM " + t + " WHERE " + where +
		") AS r WHERE " + t + `."id" = r."id" AND ` + t + "." + order + " IS DISTINCT FROM r.pos"
	res, err := s.exec(ctx, db, q, args...)
	if err != nil {
		return fmt.Errorf("store: renumber %s: %w", c.Table(), err)
	}
	if n, err := res.RowsAffected(); err != nil || n > 0 {
		return s.touchRows(ctx, db, c, teamID)
	}
	return nil
}

// subtreeRange returns the bounds of the paths that start with path
// (which ends in "/"): path <= p < path with its last byte incremented.
// On SQLite text compares bytewise; on PostgreSQL the path column is
// COLLATE "C", so the range is exactly the prefix and one index range scan.
func subtreeRange(path string) (lo, hi string) {
	if path == "" {
		panic("store: empty path")
	}
	return path, path[:len(path)-1] + string(path[len(path)-1]+1)
}

// MoveSubtree rewrites the path and depth of the record whose path is
// oldPath and of all its descendants, in one UPDATE: the prefix oldPath
// becomes newPath and depthDelta is added to every depth. It returns the
// number of records rewritten.
func (s *Store) MoveSubtree(ctx context.Context, db bun.IDB, c *collections.Collection, teamID, oldPath, newPath string, depthDelta int) (int64, error) {
	path, depth := managedColumn(c, collections.ManagedPath), managedColumn(c, collections.ManagedDepth)
	lo, hi := subtreeRange(oldPath)
	q := "UPDATE " + quote(c.Table()) + " SET " + path + " = ? || substr(" + path + ", ?), " + depth + " = " + depth + ` + ? WHERE "team_id" = ? AND ` +
		path + " >= ? AND " + path + " < ?"
	res, err := s.exec(ctx, db, q, newPath, utf8.RuneCountInString(oldPath)+1, depthDelta, teamID, lo, hi)
	if err != nil {
		return 0, fmt.Errorf("store: move subtree in %s: %w", c.Table(), err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("store: move subtree in %s: %w", c.Table(), err)
	}
	if n > 0 {
		if err := s.touchRows(ctx, db, c, teamID); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// SetOrders sets the order of each record of orders (id to order), with
// one UPDATE per 500 records.
func (s *Store) SetOrders(ctx context.Context, db bun.IDB, c *collections.Collection, teamID string, orders map[string]int) error {
	ids := make([]string, 0, len(orders))
	for id := range orders {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	order := managedColumn(c, collections.ManagedOrder)
	for len(ids) > 0 {
		batch := ids[:min(500, len(ids))]
		ids = ids[len(batch):]
		var b strings.Builder
		args := make([]any, 0, 2*len(batch)+2)
		b.WriteString("UPDATE " + quote(c.Table()) + " SET " + order + ` = CASE "id"`)
		then := " WHEN ? THEN " + s.dialect.castFloatArg()
		for _, id := range batch {
			b.WriteString(then)
			args = append(args, id, orders[id])
		}
		b.WriteString(` END WHERE "team_id" = ? AND "id" IN (?)`)
		args = append(args, teamID, sqlexec.Strings(batch))
		// One-off shapes (one per batch length): not worth a cached statement.
		if _, err := s.execOnce(ctx, db, b.String(), args...); err != nil {
			return fmt.Errorf("store: set orders in %s: %w", c.Table(), err)
		}
	}
	if len(orders) > 0 {
		return s.touchRows(ctx, db, c, teamID)
	}
	return nil
}

// Subtree returns record rootID of team teamID and its descendants, or
// every record of the team when rootID is empty, in no particular order;
// none when rootID is not a record of the team. One statement reads the
// root's path and the range it opens on the (team_id, path) index, so a
// concurrent move cannot tear the answer. With limit > 0 it returns at
// most limit records.
func (s *Store) Subtree(ctx context.Context, db bun.IDB, c *collections.Collection, teamID, rootID string, limit int) ([]Record, error) {
	t := quote(c.Table())
	q := "SELECT " + s.selectList(c) + " FROM " + t + ` WHERE "team_id" = ` + s.hiddenArg()
	args := []any{teamID}
	if rootID != "" {
		// The range of subtreeRange, computed in SQL: the root's path up
		// to the next path that does not start with it ('/' + 1 is '0').
		col := managedColumn(c, collections.ManagedPath)
		q += " AND " + col + " >= (SELECT " + col + " FROM " + t + ` WHERE "team_id" = ? AND "id" = ?)` +
			" AND " + col + " < (SELECT substr(" + col + ", 1, length(" + col + ") - 1) || '0' FROM " + t + ` WHERE "team_id" = ? AND "id" = ?)`
		args = append(args, teamID, rootID, teamID, rootID)
	}
	if limit > 0 {
		q += " LIMIT " + s.hiddenArg()
		args = append(args, limit)
	}
	recs, err := s.scanRecords(ctx, db, c, q, args...)
	if err != nil {
		return nil, err
	}
	if recs == nil {
		recs = []Record{}
	}
	return recs, nil
}

// backfillManaged fills the managed columns that sync just added to a
// table that has rows (a collection that became a tree or sortable):
// paths and depths follow the parent chain (every record is a root when
// the parent column is new), and orders number each team's siblings in
// id order, which is creation order.
func (s *Store) backfillManaged(ctx context.Context, tx bun.Tx, c *collections.Collection, have tableDef) error {
	had := map[string]bool{}
	for _, col := range have.Columns {
		had[col.Name] = true
	}
	added := func(m collections.Managed) bool {
		a, ok := c.ManagedAttribute(m)
		return ok && !had[a.Column]
	}
	t := quote(c.Table())
	if c.IsTree() && (added(collections.ManagedParent) || added(collections.ManagedPath) || added(collections.ManagedDepth)) {
		parent := managedColumn(c, collections.ManagedParent)
		path, depth := managedColumn(c, collections.ManagedPath), managedColumn(c, collections.ManagedDepth)
		q := `WITH RECURSIVE tr ("id", "team_id", "p", "d") AS (` +
			`SELECT "id", "team_id", '/' || "id" || '/', 0 FROM ` + t + " WHERE " + parent + " IS NULL " +
			`UNION ALL SELECT n."id", n."team_id", tr."p" || n."id" || '/', tr."d" + 1 FROM ` + t + " AS n JOIN tr ON n." + parent + ` = tr."id" AND n."team_id" = tr."team_id"` +
			") UPDATE " + t + " SET " + path + ` = tr."p", ` + depth + ` = tr."d" FROM tr WHERE ` + t + `."id" = tr."id"`
		if _, err := s.execOnce(ctx, tx, q); err != nil {
			return fmt.Errorf("store: fill the tree columns of %s: %w", c.Table(), err)
		}
	}
	if c.IsOrdered() && added(collections.ManagedOrder) {
		partition := `"team_id"`
		if c.IsTree() {
			partition += ", " + managedColumn(c, collections.ManagedParent)
		}
		order := managedColumn(c, collections.ManagedOrder)
		q := "UPDATE " + t + " SET " + order + " = r.pos FROM (" +
			`SELECT "id", row_number() OVER (PARTITION BY ` + partition + ` ORDER BY "id") - 1 AS pos FROM ` + t +
			") AS r WHERE " + t + `."id" = r."id"`
		if _, err := s.execOnce(ctx, tx, q); err != nil {
			return fmt.Errorf("store: fill the order column of %s: %w", c.Table(), err)
		}
	}
	return nil
}
