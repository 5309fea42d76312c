package store

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/collectionkit/kit/collections"
)

// Indexed search.
//
// On SQLite every collection with string or text fields has an FTS5 table
// with the trigram tokenizer (case-insensitive), external-content on the
// collection table and kept in sync by triggers, so it changes in the same
// transaction as the row. A search term of at least minIndexedSearch
// characters narrows the candidates through it; the LIKE (or GLOB) test
// that a scan would make still runs on each candidate, so the results are
// exactly the scan's. Shorter terms scan.
//
// On PostgreSQL each such field gets a GIN trigram index (pg_trgm) that
// ILIKE and ~ use by themselves; when the extension cannot be created the
// search scans, and sync logs a notice once.

// minIndexedSearch is the shortest term a trigram index can serve.
const minIndexedSearch = 3

// searchColumns lists the columns search looks in: the schema's string and
// text fields.
func searchColumns(c *collections.Collection) []string {
	var cols []string
	for _, a := range c.Attributes() {
		if !a.System && a.Type.IsTextual() {
			cols = append(cols, a.Column)
		}
	}
	return cols
}

func ftsTable(table string) string { return indexName("fts", table, "search") }

func ftsTrigger(table, op string) string { return indexName("trg", table, "search_"+op) }

// usesFTS reports whether a search for term on c goes through the FTS table.
func (s *Store) usesFTS(c *collections.Collection, term string) bool {
	return s.dialect != dialect.PG && !s.noSearchIndex && utf8.RuneCountInString(term) >= minIndexedSearch &&
		len(searchColumns(c)) > 0
}

// ftsCondition narrows a query to the FTS candidates for term.
func ftsCondition(c *collections.Collection, term string) (string, any) {
	phrase := `"` + strings.ReplaceAll(term, `"`, `""`) + `"`
	fts := quote(ftsTable(c.Table))
	return `"rowid" IN (SELECT "rowid" FROM ` + fts + " WHERE " + fts + " MATCH ?)", phrase
}

// syncSearch makes the search index of c match want, rebuilding it when
// the searched columns changed (or it is missing).
func (s *Store) syncSearch(ctx context.Context, tx bun.Tx, c *collections.Collection, have *tableDef, want tableDef) error {
	if s.dialect == dialect.PG {
		return s.syncTrigramIndexes(ctx, tx, c, want)
	}
	fts := ftsTable(c.Table)
	exists, err := s.tableExists(ctx, tx, fts)
	if err != nil {
		return err
	}
	if exists && have != nil && slices.Equal(have.Search, want.Search) {
		return nil
	}
	if err := s.dropSearch(ctx, tx, c.Table); err != nil {
		return err
	}
	if len(want.Search) == 0 {
		return nil
	}
	cols := make([]string, len(want.Search))
	newVals := make([]string, len(want.Search))
	oldVals := make([]string, len(want.Search))
	for i, col := range want.Search {
		cols[i] = quote(col)
		newVals[i] = "new." + quote(col)
		oldVals[i] = "old." + quote(col)
	}
	colList := strings.Join(cols, ", ")
	table := quote(c.Table)
	stmts := []string{
		fmt.Sprintf(`CREATE VIRTUAL TABLE %s USING fts5(%s, content=%s, content_rowid='rowid', tokenize='trigram case_sensitive 0')`,
			quote(fts), colList, "'"+c.Table+"'"),
		fmt.Sprintf(`CREATE TRIGGER %s AFTER INSERT ON %s BEGIN INSERT INTO %s("rowid", %s) VALUES (new."rowid", %s); END`,
			quote(ftsTrigger(c.Table, "ai")), table, quote(fts), colList, strings.Join(newVals, ", ")),
		fmt.Sprintf(`CREATE TRIGGER %s AFTER DELETE ON %s BEGIN INSERT INTO %s(%s, "rowid", %s) VALUES ('delete', old."rowid", %s); END`,
			quote(ftsTrigger(c.Table, "ad")), table, quote(fts), quote(fts), colList, strings.Join(oldVals, ", ")),
		fmt.Sprintf(`CREATE TRIGGER %s AFTER UPDATE OF %s ON %s BEGIN INSERT INTO %s(%s, "rowid", %s) VALUES ('delete', old."rowid", %s); INSERT INTO %s("rowid", %s) VALUES (new."rowid", %s); END`,
			quote(ftsTrigger(c.Table, "au")), colList, table, quote(fts), quote(fts), colList, strings.Join(oldVals, ", "), quote(fts), colList, strings.Join(newVals, ", ")),
		fmt.Sprintf(`INSERT INTO %s(%s) VALUES ('rebuild')`, quote(fts), quote(fts)),
	}
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("store: build search index of %s: %w", c.Table, err)
		}
	}
	return nil
}

// dropSearch removes the SQLite search index of table and its triggers.
func (s *Store) dropSearch(ctx context.Context, tx bun.Tx, table string) error {
	if s.dialect == dialect.PG {
		return nil
	}
	for _, op := range []string{"ai", "ad", "au"} {
		if _, err := tx.ExecContext(ctx, "DROP TRIGGER IF EXISTS "+quote(ftsTrigger(table, op))); err != nil {
			return fmt.Errorf("store: drop search trigger: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, "DROP TABLE IF EXISTS "+quote(ftsTable(table))); err != nil {
		return fmt.Errorf("store: drop search index: %w", err)
	}
	return nil
}

// syncTrigramIndexes creates a GIN trigram index per searched column when
// pg_trgm is available (creating the extension if allowed).
func (s *Store) syncTrigramIndexes(ctx context.Context, tx bun.Tx, c *collections.Collection, want tableDef) error {
	if len(want.Search) == 0 {
		return nil
	}
	schema, err := s.trigramSchema(ctx, tx)
	if err != nil {
		return err
	}
	if schema == "" {
		return nil
	}
	for _, col := range want.Search {
		q := fmt.Sprintf("CREATE INDEX IF NOT EXISTS %s ON %s USING gin (%s %s.gin_trgm_ops)",
			quote(indexName("tg", c.Table, col)), quote(c.Table), quote(col), pgIdent(schema))
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("store: create trigram index on %s.%s: %w", c.Table, col, err)
		}
	}
	return nil
}

// trigramSchema returns the schema pg_trgm is installed in, installing it
// in public when the role may; when it cannot be had it logs a notice once
// and returns "" (search then scans).
func (s *Store) trigramSchema(ctx context.Context, tx bun.Tx) (string, error) {
	const lookup = "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm'"
	var schemas []string
	if err := tx.NewRaw(lookup).Scan(ctx, &schemas); err != nil {
		return "", fmt.Errorf("store: look up pg_trgm: %w", err)
	}
	if len(schemas) > 0 {
		return schemas[0], nil
	}
	// A failed CREATE EXTENSION aborts the transaction: try it in a
	// savepoint so sync goes on without the index. In public, not the
	// current schema, so that it outlives any one schema.
	sp, err := tx.BeginTx(ctx, nil)
	if err != nil {
		return "", err
	}
	if _, err := sp.ExecContext(ctx, "CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public"); err != nil {
		_ = sp.Rollback()
		if !s.trgmNoticeLogged.Swap(true) {
			s.logger().Warn("kit: pg_trgm is not available, so search scans every row of a team; install it (CREATE EXTENSION pg_trgm) for indexed search",
				slog.String("err", err.Error()))
		}
		return "", nil
	}
	if err := sp.Commit(); err != nil {
		return "", err
	}
	return "public", nil
}

// pgIdent double-quotes a PostgreSQL identifier read from the catalog.
func pgIdent(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

func (s *Store) logger() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}
