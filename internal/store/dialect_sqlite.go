package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/collectionkit/kit/collections"
)

// sqliteDialect is SQLite's side of sqlDialect: one writer at a time
// (the Store's write queue commits writes in groups), a planner that
// reads some bound values (hence hiddenArg), an FTS table the Store fills
// for searches, and row counts kept with a generation per team.
type sqliteDialect struct{}

func (sqliteDialect) name() dialect.Name { return dialect.SQLite }

func (sqliteDialect) has(f feature) bool { return f == 0 }

func (sqliteDialect) hiddenArg() string     { return "+?" }
func (sqliteDialect) hiddenColumn() string  { return "+" }
func (sqliteDialect) keyedTeamTest() string { return `+"team_id" = ?` }
func (sqliteDialect) like() string          { return "LIKE" }

// foldedMatch is a GLOB pattern of case classes ("*[äÄ][rR]*").
func (sqliteDialect) foldedMatch(col, term string, prefix bool, hidden string) (string, any) {
	p := globFold(term) + "*"
	if !prefix {
		p = "*" + p
	}
	return col + " GLOB " + hidden, p
}

// getManySQL takes the ids as one argument, a JSON array (jsonIDs), and
// walks it (json_each), looking each id up in the primary key, the team
// tested with a unary + as in teamTest: "id" IN (?, ?, ...) would first
// copy the ids into a temporary B-tree, bind one argument per id and make
// one statement text per number of ids.
func (sqliteDialect) getManySQL(s *Store, c *collections.Collection, probe string) string {
	t := quote(c.Table())
	return "SELECT " + s.selectListOf(c, t+".") + probe + " FROM json_each(?) AS kit_j JOIN " + t + " ON " + t + `."id" = kit_j.value WHERE +` + t + `."team_id" = ?`
}

func (sqliteDialect) getManyArgs(teamID string, ids []string) []any {
	return []any{jsonIDs(ids), teamID}
}

func (sqliteDialect) castFloatArg() string { return "?" }

// wholeNumber is an INTEGER cast: a value equal to it is whole (and one
// past int64's range is not).
func (sqliteDialect) wholeNumber(col string) string { return "CAST(" + col + " AS INTEGER)" }

func (sqliteDialect) nullsFirst() string    { return "" }
func (sqliteDialect) byteCollation() string { return "" }

func (sqliteDialect) updateOne() string { return "UPDATE OR FAIL" }

func (sqliteDialect) columnType(a *collections.Attribute) string {
	switch a.Type {
	case collections.TypeNumber:
		if a.WholeNumber() {
			return "INTEGER"
		}
		return "REAL"
	case collections.TypeBoolean:
		return "INTEGER"
	}
	return "TEXT"
}

// encodeDecimal stores a decimal as text whose byte order is its numeric
// order (decimalKey).
func (sqliteDialect) encodeDecimal(a *collections.Attribute, s string) any {
	return decimalKey(s, a.Field.Meta.Precision, a.Field.Meta.Scale)
}

func (sqliteDialect) encodeBool(b bool) any {
	if b {
		return int64(1)
	}
	return int64(0)
}

// encodeDate stores a date as fixed-width UTC text (sqliteTime), so text
// order is time order.
func (sqliteDialect) encodeDate(t time.Time) any {
	return t.UTC().Format(sqliteTime)
}

func (sqliteDialect) decodeDecimal(a *collections.Attribute, s string) (string, error) {
	return decimalFromKey(s, a.Field.Meta.Precision, a.Field.Meta.Scale)
}

func (sqliteDialect) tableExistsSQL() string {
	return "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?"
}

func (sqliteDialect) tableColumnsSQL() string { return "SELECT name FROM pragma_table_info(?)" }

func (sqliteDialect) columnChecks(s *Store, c *collections.Collection, a *collections.Attribute) string {
	def := ""
	if a.Type.IsStructured() {
		def += fmt.Sprintf(" CHECK (%s IS NULL OR json_valid(%s))", quote(a.Column), quote(a.Column))
	}
	if a.Field != nil && a.Field.RefTarget != "" {
		if t, ok := s.refTable(c, a); ok {
			def += " REFERENCES " + quote(t) + " (\"id\")"
		}
	}
	return def
}

// changesDDL has no AUTOINCREMENT (which writes sqlite_sequence in every
// transaction); see CreateChangesTable.
func (sqliteDialect) changesDDL() string { return sqliteChangesDDL("kit_changes") }

func sqliteChangesDDL(table string) string {
	return `CREATE TABLE IF NOT EXISTS ` + table + ` (id INTEGER PRIMARY KEY, team_id TEXT NOT NULL,
		collection TEXT NOT NULL, operation TEXT NOT NULL, item_ids TEXT NOT NULL, correlation_id TEXT NOT NULL, ts BIGINT NOT NULL)`
}

// leanChanges rebuilds a change log made with AUTOINCREMENT without it,
// keeping its rows.
func (sqliteDialect) leanChanges(ctx context.Context, db bun.IDB) error {
	var ddl string
	err := db.QueryRowContext(ctx, `SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'kit_changes'`).Scan(&ddl)
	if errors.Is(err, sql.ErrNoRows) || err == nil && !strings.Contains(strings.ToUpper(ddl), "AUTOINCREMENT") {
		return nil
	}
	if err != nil {
		return err
	}
	for _, q := range []string{
		sqliteChangesDDL("kit_changes_lean"),
		`INSERT INTO kit_changes_lean SELECT id, team_id, collection, operation, item_ids, correlation_id, ts FROM kit_changes`,
		`DROP TABLE kit_changes`,
		`ALTER TABLE kit_changes_lean RENAME TO kit_changes`,
		`DELETE FROM sqlite_sequence WHERE name = 'kit_changes'`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

func (sqliteDialect) insertChangeSQL() string { return insertChangeSQL }

func (sqliteDialect) readChangesSQL(hidden string) string {
	return `SELECT id, team_id, collection, operation, item_ids, correlation_id, ts, 0, 0 FROM kit_changes WHERE id > ? ORDER BY id LIMIT ` + hidden
}

// countVersion is the team's generation, which every write increments.
func (sqliteDialect) countVersion(table, team string) (string, []any) {
	return ", coalesce((SELECT gen FROM kit_row_counts WHERE table_name = ? AND team_id = ?), 0)", []any{table, team}
}

func (sqliteDialect) versionCheck(table, team string, _ *totalEntry) (string, []any) {
	return ", coalesce((SELECT gen FROM kit_row_counts WHERE table_name = ? AND team_id = ?), 0), 0", []any{table, team}
}

func (sqliteDialect) unchanged(r versionResult, e *totalEntry) bool { return r.v == e.gen }

func (sqliteDialect) versionDest(e *totalEntry) any { return &e.gen }

func (sqliteDialect) lockSQL() string { return "" }

// copySQL: VACUUM INTO reads the database in one read transaction, so the
// copy holds every write committed before it started, and writes go on
// meanwhile (WAL).
func (sqliteDialect) copySQL() string { return "VACUUM INTO ?" }

func (sqliteDialect) bulkRowsPerStatement() int { return bulkRowsPerStatementSQLite }

// countsDDL: one row per team, WITHOUT ROWID; sync's transaction holds
// the write lock.
func (sqliteDialect) countsDDL(string) []string {
	return []string{`CREATE TABLE IF NOT EXISTS kit_row_counts (table_name TEXT NOT NULL, team_id TEXT NOT NULL,
	n INTEGER NOT NULL, gen INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (table_name, team_id)) WITHOUT ROWID`}
}

// retypeColumnSQL makes the column again: SQLite cannot change a column's
// declared type, which decides how it stores values (its affinity).
func (sqliteDialect) retypeColumnSQL(table, col, _, def string) []string {
	return []string{
		"ALTER TABLE " + quote(table) + " DROP COLUMN " + quote(col),
		"ALTER TABLE " + quote(table) + " ADD COLUMN " + def,
	}
}

// renameIndexSQL drops the index: SQLite cannot rename one.
func (sqliteDialect) renameIndexSQL(from, _ string) string {
	return "DROP INDEX IF EXISTS " + quote(from)
}

func (sqliteDialect) freeColumnQuery() string {
	return `SELECT type FROM pragma_table_info(?) WHERE name = ? AND ("notnull" = 1 OR name IN (SELECT "from" FROM pragma_foreign_key_list(?)))`
}

// freeColumnSQL copies the column to a new one of the same declared type
// without constraints, which takes its name: SQLite cannot drop a
// column's constraints. (Its indexes must be dropped first.)
func (sqliteDialect) freeColumnSQL(table, col, _, declType string) []string {
	t, tmp := quote(table), quote(freedColumn)
	return []string{
		"ALTER TABLE " + t + " ADD COLUMN " + tmp + " " + declType,
		"UPDATE " + t + " SET " + tmp + " = " + quote(col),
		"ALTER TABLE " + t + " DROP COLUMN " + quote(col),
		"ALTER TABLE " + t + " RENAME COLUMN " + tmp + " TO " + quote(col),
	}
}

// freedColumn is the name freeColumnSQL copies a column to on SQLite; no
// field's column has two underscores in a row.
const freedColumn = "kit__freed"

// castValue: the column's affinity converts the value.
func (sqliteDialect) castValue(expr, _ string) string { return expr }
