package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/collectionkit/kit/collections"
)

// pgDialect is PostgreSQL's side of sqlDialect: concurrent writers with
// row locks and advisory locks, a planner that keeps statistics, a
// trigram-indexed search table kept by triggers, row counts kept as delta
// rows stamped with their transaction, and typed columns.
type pgDialect struct{}

const pgFeatures = featConcurrentWrites | featRowLocks | featServerPlans | featSearchTable | featDeltaCounts |
	featPageWithTotal | featSharedScans | featWarmConns | featLateForeignKeys | featAlterColumnType

func (pgDialect) name() dialect.Name { return dialect.PG }

func (pgDialect) has(f feature) bool { return pgFeatures&f == f }

func (pgDialect) hiddenArg() string    { return "?" }
func (pgDialect) hiddenColumn() string { return "" }

// keyedTeamTest is an expression, which no index serves.
func (pgDialect) keyedTeamTest() string { return `("team_id" || '') = ?` }

// like is ILIKE on COLLATE "C" columns: ASCII letters fold, whatever the
// server's locale.
func (pgDialect) like() string { return "ILIKE" }

// foldedMatch is a regular expression of case classes.
func (pgDialect) foldedMatch(col, term string, prefix bool, _ string) (string, any) {
	p := regexFold(term)
	if prefix {
		p = "^" + p
	}
	return col + " ~ ?", p
}

func (pgDialect) getManySQL(s *Store, c *collections.Collection, probe string) string {
	return "SELECT " + s.selectList(c) + probe + " FROM " + quote(c.Table()) + " WHERE " + s.teamTest(true) + ` AND "id" IN (?)`
}

func (pgDialect) getManyArgs(teamID string, ids []string) []any {
	return []any{teamID, inListOf(ids)}
}

// castFloatArg: a driver argument in a CASE arm has no type of its own.
func (pgDialect) castFloatArg() string { return "CAST(? AS DOUBLE PRECISION)" }

// wholeNumber truncates: a cast would fail on a value past int64's range.
func (pgDialect) wholeNumber(col string) string { return "trunc(" + col + ")" }

func (pgDialect) nullsFirst() string { return " NULLS FIRST" }

// byteCollation: bytewise (code point) order and comparison, as on
// SQLite, whatever the database's locale; indexes follow.
func (pgDialect) byteCollation() string { return ` COLLATE "C"` }

func (pgDialect) updateOne() string { return "UPDATE" }

func (d pgDialect) columnType(a *collections.Attribute) string {
	switch a.Type {
	case collections.TypeNumber:
		if a.WholeNumber() {
			return "BIGINT"
		}
		return "DOUBLE PRECISION"
	case collections.TypeDecimal:
		return fmt.Sprintf("NUMERIC(%d,%d)", a.Field.Meta.Precision, a.Field.Meta.Scale)
	case collections.TypeBoolean:
		return "BOOLEAN"
	case collections.TypeDate:
		return "TIMESTAMPTZ"
	case collections.TypeJSON, collections.TypeRepeater, collections.TypeArray:
		return "JSONB"
	}
	return "TEXT" + d.byteCollation()
}

func (pgDialect) encodeDecimal(_ *collections.Attribute, s string) any { return s }
func (pgDialect) encodeBool(b bool) any                                { return b }
func (pgDialect) encodeDate(t time.Time) any                           { return t.UTC() }

func (pgDialect) decodeDecimal(a *collections.Attribute, s string) (string, error) {
	return collections.ParseDecimal(s, a.Field.Meta.Precision, a.Field.Meta.Scale)
}

func (pgDialect) tableExistsSQL() string {
	return "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ?"
}

func (pgDialect) tableColumnsSQL() string {
	return "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position"
}

// columnChecks: JSONB checks itself, and references are foreign keys
// added once the tables exist (featLateForeignKeys).
func (pgDialect) columnChecks(*Store, *collections.Collection, *collections.Attribute) string {
	return ""
}

// changesDDL stamps each row with its transaction (xid), so that a
// reader can tell a position that may still commit (see changes.go).
func (pgDialect) changesDDL() string {
	return `CREATE TABLE IF NOT EXISTS kit_changes (id BIGSERIAL PRIMARY KEY, xid xid8 NOT NULL, team_id TEXT NOT NULL,
				collection TEXT NOT NULL, operation TEXT NOT NULL, item_ids TEXT NOT NULL, correlation_id TEXT NOT NULL, ts BIGINT NOT NULL)`
}

func (pgDialect) leanChanges(context.Context, bun.IDB) error { return nil }

func (pgDialect) insertChangeSQL() string {
	return `INSERT INTO kit_changes (xid, id, team_id, collection, operation, item_ids, correlation_id, ts)
			VALUES (pg_current_xact_id(), nextval('kit_changes_id_seq'), ?, ?, ?, ?, ?, ?)`
}

func (pgDialect) readChangesSQL(string) string {
	return `SELECT id, team_id, collection, operation, item_ids, correlation_id, ts,
			pg_snapshot_xmin(pg_current_snapshot())::text::bigint, pg_snapshot_xmax(pg_current_snapshot())::text::bigint
			FROM kit_changes WHERE id > ? ORDER BY id LIMIT ?`
}

// countVersion is the count's snapshot.
func (pgDialect) countVersion(string, string) (string, []any) {
	return ", pg_current_snapshot()::text", nil
}

// versionCheck counts the team's delta rows the entry's snapshot did not
// see, and all of them.
func (pgDialect) versionCheck(table, team string, e *totalEntry) (string, []any) {
	return `, (SELECT count(*) FILTER (WHERE NOT pg_visible_in_snapshot("xid", ?::pg_snapshot)) FROM kit_row_counts WHERE table_name = ? AND team_id = ?)` +
			", (SELECT count(*) FROM kit_row_counts WHERE table_name = ? AND team_id = ?)",
		[]any{e.snap, table, team, table, team}
}

func (pgDialect) unchanged(r versionResult, _ *totalEntry) bool { return r.v == 0 }

func (pgDialect) versionDest(e *totalEntry) any { return &e.snap }

func (pgDialect) lockSQL() string { return "SELECT pg_advisory_xact_lock(?)" }

func (pgDialect) copySQL() string { return "" }

func (pgDialect) bulkRowsPerStatement() int { return bulkRowsPerStatement }

// countsDDL: delta rows stamped with their transaction (the column is
// added to a table made before it); the table is locked against writers
// (SHARE mode, until sync commits), so that no write of an older kit
// falls between the count and the end of the sync.
func (pgDialect) countsDDL(table string) []string {
	return []string{
		`CREATE TABLE IF NOT EXISTS kit_row_counts (table_name TEXT NOT NULL, team_id TEXT NOT NULL, n BIGINT NOT NULL,
	xid xid8 NOT NULL DEFAULT pg_current_xact_id())`,
		`ALTER TABLE kit_row_counts ADD COLUMN IF NOT EXISTS xid xid8 NOT NULL DEFAULT pg_current_xact_id()`,
		`CREATE INDEX IF NOT EXISTS kit_row_counts_key ON kit_row_counts (table_name, team_id)`,
		"LOCK TABLE " + quote(table) + " IN SHARE MODE",
	}
}

// retypeColumnSQL changes the type in place, every value null.
func (pgDialect) retypeColumnSQL(table, col, typ, _ string) []string {
	return []string{"ALTER TABLE " + quote(table) + " ALTER COLUMN " + quote(col) + " TYPE " + typ + " USING NULL"}
}

func (pgDialect) renameIndexSQL(from, to string) string {
	return "ALTER INDEX " + quote(from) + " RENAME TO " + quote(to)
}

// freeColumnQuery: freeColumnSQL's statements change nothing where there
// is nothing to drop.
func (pgDialect) freeColumnQuery() string { return "" }

func (pgDialect) freeColumnSQL(table, col, fk, _ string) []string {
	return []string{
		"ALTER TABLE " + quote(table) + " ALTER COLUMN " + quote(col) + " DROP NOT NULL",
		"ALTER TABLE " + quote(table) + " DROP CONSTRAINT IF EXISTS " + quote(fk),
	}
}

// castValue: an argument in VALUES would be text, and the driver would
// encode it as text; a collation is the column's, not the cast's.
func (pgDialect) castValue(expr, typ string) string {
	typ, _, _ = strings.Cut(typ, " COLLATE")
	return "CAST(" + expr + " AS " + typ + ")"
}
