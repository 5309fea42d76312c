package store

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
)

// A unique field with meta.uniqueIgnoreCase has a shadow column
// "<column>__ukey" holding collections.UniqueKey of its value, written with
// the field in the same statement, and a unique index on (team_id, key)
// besides the field's own unique index. The key is computed in Go, so both
// engines agree on which values collide whatever their locale; the column
// compares bytewise (COLLATE "C" on PostgreSQL). Field names are
// identifiers, so no column of a field ends in "__ukey".

// uniqueKeySuffix ends the name of a unique key column.
const uniqueKeySuffix = "__ukey"

// uniqueKeySetting names the field setting a unique key column serves, in
// drift errors.
const uniqueKeySetting = "meta.uniqueIgnoreCase"

// maxConflictSample bounds the values a drift error quotes.
const maxConflictSample = 5

// hasUniqueKey reports whether attribute a has a unique key column: a
// schema field of a text type with meta.unique and meta.uniqueIgnoreCase.
func hasUniqueKey(a *collections.Attribute) bool {
	return !a.System && a.Managed == "" && a.Field != nil && a.Type.IsTextual() &&
		a.Field.Meta.Unique && a.Field.Meta.UniqueIgnoreCase
}

// uniqueKeyColumn is the name of a's unique key column.
func uniqueKeyColumn(a *collections.Attribute) string { return a.Column + uniqueKeySuffix }

// uniqueKeyIndex is the name of the unique (team_id, key) index of a.
func uniqueKeyIndex(c *collections.Collection, a *collections.Attribute) string {
	return indexName("ux", c.Table(), a.Column+"_ukey")
}

// uniqueKeyColumns lists the columns of c that have a unique key, in
// attribute order.
func uniqueKeyColumns(c *collections.Collection) []string {
	var cols []string
	for _, a := range c.Attributes() {
		if hasUniqueKey(a) {
			cols = append(cols, a.Column)
		}
	}
	return cols
}

// uniqueKeyValue is the stored unique key of an encoded value (nil stays
// nil, which the unique index lets repeat).
func uniqueKeyValue(v any) any {
	if s, ok := v.(string); ok {
		return collections.UniqueKey(s)
	}
	return nil
}

// uniqueKeyColumnSQL is the definition of a's unique key column.
func (s *Store) uniqueKeyColumnSQL(a *collections.Attribute) string {
	return s.keyColumnSQL(uniqueKeyColumn(a))
}

// syncUniqueKeys brings an existing table's unique key columns to c's
// definition. A missing one is added and filled from the rows' values
// (syncOne then creates its index), unless two rows of a team hold values
// with the same key: that is a *DriftError naming the field and some of
// those values, and the caller's transaction is to change nothing. One
// whose field no longer asks for it is dropped with its index (it holds
// nothing of its own).
func (s *Store) syncUniqueKeys(ctx context.Context, tx bun.Tx, c *collections.Collection, have tableDef) error {
	had := map[string]bool{}
	for _, col := range have.UniqueKeys {
		had[col] = true
	}
	want := map[string]bool{}
	for _, a := range c.Attributes() {
		if !hasUniqueKey(a) {
			continue
		}
		want[a.Column] = true
		if had[a.Column] {
			// A key is its value's, which a change between string and
			// text keeps (UniqueKey reads any normalization form alike).
			continue
		}
		rows, err := s.readUniqueKeys(ctx, tx, c, a)
		if err != nil {
			return err
		}
		if sample := collidingValues(rows); sample != "" {
			label := typeLabel(a)
			return &DriftError{Collection: c.Key(), Field: a.Name, OldType: label, NewType: label, Setting: uniqueKeySetting, Conflict: sample}
		}
		if _, err := s.execOnce(ctx, tx, "ALTER TABLE "+quote(c.Table())+" ADD COLUMN "+s.uniqueKeyColumnSQL(a)); err != nil {
			return fmt.Errorf("store: add column %s.%s: %w", c.Table(), uniqueKeyColumn(a), err)
		}
		if err := s.fillUniqueKeys(ctx, tx, c, a, rows); err != nil {
			return err
		}
	}
	for _, col := range have.UniqueKeys {
		if want[col] {
			continue
		}
		ix := indexName("ux", c.Table(), col+"_ukey")
		if _, err := s.execOnce(ctx, tx, "DROP INDEX IF EXISTS "+quote(ix)); err != nil {
			return fmt.Errorf("store: drop index %s: %w", ix, err)
		}
		if err := s.dropColumn(ctx, tx, c.Table(), col+uniqueKeySuffix, have); err != nil {
			return err
		}
	}
	return nil
}

// keyedRow is one row's value of a field and its unique key.
type keyedRow struct{ id, team, value, key string }

// readUniqueKeys reads the non-null values of a with their team and
// computes their unique keys.
func (s *Store) readUniqueKeys(ctx context.Context, tx bun.Tx, c *collections.Collection, a *collections.Attribute) ([]keyedRow, error) {
	rows, err := s.queryOnce(ctx, tx, `SELECT "id", "team_id", `+quote(a.Column)+" FROM "+quote(c.Table())+" WHERE "+quote(a.Column)+" IS NOT NULL")
	if err != nil {
		return nil, fmt.Errorf("store: read %s.%s: %w", c.Table(), a.Column, err)
	}
	defer rows.Close()
	var out []keyedRow
	for rows.Next() {
		var r keyedRow
		if err := rows.Scan(&r.id, &r.team, &r.value); err != nil {
			return nil, fmt.Errorf("store: read %s.%s: %w", c.Table(), a.Column, err)
		}
		r.key = collections.UniqueKey(r.value)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: read %s.%s: %w", c.Table(), a.Column, err)
	}
	return out, nil
}

// collidingValues returns, quoted and comma-separated, the values of the
// first (by team and key) group of rows of one team that share a unique
// key, at most maxConflictSample of them in byte order; "" when no two
// rows collide.
func collidingValues(rows []keyedRow) string {
	sorted := make([]keyedRow, len(rows))
	copy(sorted, rows)
	sort.Slice(sorted, func(i, j int) bool {
		x, y := sorted[i], sorted[j]
		if x.team != y.team {
			return x.team < y.team
		}
		if x.key != y.key {
			return x.key < y.key
		}
		return x.value < y.value
	})
	for i := 0; i+1 < len(sorted); i++ {
		if sorted[i].team != sorted[i+1].team || sorted[i].key != sorted[i+1].key {
			continue
		}
		var quoted []string
		for j := i; j < len(sorted) && sorted[j].team == sorted[i].team && sorted[j].key == sorted[i].key && len(quoted) < maxConflictSample; j++ {
			quoted = append(quoted, strconv.Quote(sorted[j].value))
		}
		return strings.Join(quoted, ", ")
	}
	return ""
}

// fillUniqueKeys writes the unique key of every row in rows, and null in
// the rows whose value is null.
func (s *Store) fillUniqueKeys(ctx context.Context, tx bun.Tx, c *collections.Collection, a *collections.Attribute, rows []keyedRow) error {
	col := quote(uniqueKeyColumn(a))
	q := "UPDATE " + quote(c.Table()) + " SET " + col + " = NULL WHERE " + col + " IS NOT NULL"
	if _, err := s.execOnce(ctx, tx, q); err != nil {
		return fmt.Errorf("store: fill %s.%s: %w", c.Table(), uniqueKeyColumn(a), err)
	}
	keys := make([]convertedRow, len(rows))
	for i, r := range rows {
		keys[i] = convertedRow{r.id, r.key}
	}
	if err := s.updateByID(ctx, tx, c.Table(), uniqueKeyColumn(a), "TEXT", keys); err != nil {
		return fmt.Errorf("store: fill %s.%s: %w", c.Table(), uniqueKeyColumn(a), err)
	}
	return nil
}
