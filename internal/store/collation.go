package store

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/uptrace/bun"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"github.com/collectionkit/kit/collections"
)

// Text sorts as people read it. Every string and text field has a shadow
// column "<column>__key" holding its sort key (sortKey: accents removed,
// case folded), written with the field in the same statement. Sorting by
// the field orders by (key, value), so "apple, Banana, cherry, Émile,
// zebra" on both engines, with the value's code point order breaking ties
// (deterministic: "Apple" before "apple"). The range operators compare
// the same pair, so a filter agrees with the order. Keys are computed in
// Go, identically for both engines, and compared bytewise (COLLATE "C" on
// PostgreSQL), so the result never depends on a server's locale or ICU
// version. Field names are identifiers, so no column of a field ends in
// "__key".

// sortKeySuffix ends the name of a sort key column.
const sortKeySuffix = "__key"

// maxSortKeyRunes bounds a sort key: beyond it, values that share the
// folded prefix are ordered by their code points.
const maxSortKeyRunes = 128

// hasSortKey reports whether attribute a has a sort key column.
func hasSortKey(a *collections.Attribute) bool {
	return !a.System && a.Managed == "" && (a.Type == collections.TypeString || a.Type == collections.TypeText)
}

// sortKeyColumn is the name of a's sort key column.
func sortKeyColumn(a *collections.Attribute) string { return a.Column + sortKeySuffix }

// sortKeyColumns lists the columns of c that have a sort key, in attribute
// order.
func sortKeyColumns(c *collections.Collection) []string {
	var cols []string
	for _, a := range c.Attributes() {
		if hasSortKey(a) {
			cols = append(cols, a.Column)
		}
	}
	return cols
}

var folder = cases.Fold()

// sortKey returns the sort key of a text: its canonical decomposition
// without combining marks (so "É" sorts as "e"), case folded, at most
// maxSortKeyRunes runes.
func sortKey(s string) string {
	// Only a prefix can reach the key: decompose no more than four runes
	// per key rune (a long text is not normalized whole on every write).
	if len(s) > 4*maxSortKeyRunes { // a string has at least as many bytes as runes
		runes := 0
		for i := range s {
			if runes == 4*maxSortKeyRunes {
				s = s[:i]
				break
			}
			runes++
		}
	}
	var b strings.Builder
	n := 0
	for _, r := range norm.NFD.String(s) {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		if n == maxSortKeyRunes {
			break
		}
		b.WriteRune(r)
		n++
	}
	return folder.String(b.String())
}

// sortKeyValue is the stored key of an encoded value (nil stays nil).
func sortKeyValue(v any) any {
	if s, ok := v.(string); ok {
		return sortKey(s)
	}
	return nil
}

// sortKeyColumnSQL is the definition of a's sort key column.
func (s *Store) sortKeyColumnSQL(a *collections.Attribute) string {
	return s.keyColumnSQL(sortKeyColumn(a))
}

// keyColumnSQL is the definition of a key column kit derives from a text
// field (a sort key, a unique key): text compared by its bytes on every
// engine.
func (s *Store) keyColumnSQL(col string) string {
	return quote(col) + " TEXT" + s.dialect.byteCollation()
}

// syncSortKeys brings an existing table's sort key columns to want: a
// missing one is added and filled from the rows' values, one whose field
// is gone or no longer text is dropped (it holds nothing of its own).
// Sync runs it once the columns are renamed and converted.
func (s *Store) syncSortKeys(ctx context.Context, tx bun.Tx, c *collections.Collection, have tableDef) error {
	had := map[string]bool{}
	for _, col := range have.SortKeys {
		had[col] = true
	}
	want := map[string]bool{}
	for _, a := range c.Attributes() {
		if !hasSortKey(a) {
			continue
		}
		want[a.Column] = true
		if had[a.Column] {
			// A key is its value's, which a change between string and
			// text keeps (sortKey reads any normalization form alike).
			continue
		}
		if _, err := s.execOnce(ctx, tx, "ALTER TABLE "+quote(c.Table())+" ADD COLUMN "+s.sortKeyColumnSQL(a)); err != nil {
			return fmt.Errorf("store: add column %s.%s: %w", c.Table(), sortKeyColumn(a), err)
		}
		if err := s.fillSortKeys(ctx, tx, c, a); err != nil {
			return err
		}
	}
	for _, col := range have.SortKeys {
		if want[col] {
			continue
		}
		if err := s.dropColumn(ctx, tx, c.Table(), col+sortKeySuffix, have); err != nil {
			return err
		}
	}
	return nil
}

// fillSortKeys writes the sort key of every row's value of a.
func (s *Store) fillSortKeys(ctx context.Context, tx bun.Tx, c *collections.Collection, a *collections.Attribute) error {
	rows, err := s.queryOnce(ctx, tx, `SELECT "id", `+quote(a.Column)+" FROM "+quote(c.Table())+" WHERE "+quote(a.Column)+" IS NOT NULL")
	if err != nil {
		return fmt.Errorf("store: read %s.%s: %w", c.Table(), a.Column, err)
	}
	var keys []convertedRow
	for rows.Next() {
		var id, v string
		if err := rows.Scan(&id, &v); err != nil {
			rows.Close()
			return fmt.Errorf("store: read %s.%s: %w", c.Table(), a.Column, err)
		}
		keys = append(keys, convertedRow{id, sortKey(v)})
	}
	err = rows.Err()
	rows.Close()
	if err != nil {
		return fmt.Errorf("store: read %s.%s: %w", c.Table(), a.Column, err)
	}
	q := "UPDATE " + quote(c.Table()) + " SET " + quote(sortKeyColumn(a)) + ` = NULL WHERE ` + quote(sortKeyColumn(a)) + " IS NOT NULL"
	if _, err := s.execOnce(ctx, tx, q); err != nil {
		return fmt.Errorf("store: fill %s.%s: %w", c.Table(), sortKeyColumn(a), err)
	}
	if err := s.updateByID(ctx, tx, c.Table(), sortKeyColumn(a), "TEXT", keys); err != nil {
		return fmt.Errorf("store: fill %s.%s: %w", c.Table(), sortKeyColumn(a), err)
	}
	return nil
}

// orderTerm is the ORDER BY term of one sort key: a text field orders by
// its sort key, then by its value.
func orderTerm(k collections.SortKey) string {
	dir, nulls := " ASC", " NULLS FIRST" // the same NULL placement on every engine: nulls are smallest
	if k.Desc {
		dir, nulls = " DESC", " NULLS LAST"
	}
	col := quote(k.Attr.Column)
	if hasSortKey(k.Attr) {
		return quote(sortKeyColumn(k.Attr)) + dir + nulls + ", " + col + dir + nulls
	}
	if k.Attr.System && k.Attr.Managed == "" {
		return col + dir // never null
	}
	return col + dir + nulls
}

// textRange is the condition "a op v" for a range operator on a text
// field: the (sort key, value) pair compared with v's, so that a filter
// agrees with the sort order. arg is the placeholder to write (see
// Store.hiddenArg).
func textRange(a *collections.Attribute, op string, v string, arg string) (string, []any) {
	key, col := quote(sortKeyColumn(a)), quote(a.Column)
	strict := strings.TrimSuffix(op, "=")
	return "(" + key + " " + strict + " " + arg + " OR (" + key + " = " + arg + " AND " + col + " " + op + " " + arg + "))", []any{sortKey(v), sortKey(v), v}
}
