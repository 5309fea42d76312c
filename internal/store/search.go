package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
)

// Indexed search.
//
// On SQLite every collection with string or text fields has an FTS5 table
// with the trigram tokenizer (case-insensitive). It is contentless (the
// rows are in the collection table), keeps no positions (detail=none) and
// deletes by rowid (contentless_delete=1), which makes it small and cheap
// to change. A search term of at least minIndexedSearch characters narrows
// the candidates through it; the LIKE (or GLOB) test that a scan would make
// still runs on each candidate, so the results are exactly the scan's.
// Shorter terms scan.
//
// Writes to the collection table do not write the FTS table directly.
// Triggers log the rowid of each deleted or (in a searched column) updated
// row in a plain change log, and a high-water mark holds the table's
// largest rowid at the last flush: the rows above it are new (SQLite gives
// a new row the largest rowid plus one). FlushSearch brings the index
// entries of the logged and the new rows up to date, empties the log and
// moves the mark. A search takes the rows that wait in the log or above
// the mark as candidates too, so its results are right whenever the index
// was last flushed, and the rows and their log entries always commit
// together. kit flushes in its write transactions, once a few hundred rows
// wait (FlushSearchOver, called before the commit).
//
// The reason is cost. FTS5 writes its pending terms to disk at every
// statement boundary and savepoint of a transaction that touched it, as a
// new segment that later merges rewrite, and both costs grow with the
// number of segments more than with the number of rows: a trigger that
// wrote the index directly would cost a segment per changed row, a flush
// per group commit one per group, and a flush per few hundred rows one per
// few hundred rows. Inserts have no trigger at all: a statement that fires
// one journals every page it changes (so that it can be undone by itself).
// The figures behind these choices are in docs/decisions/0006. Rows changed by writers that do not flush (raw SQL,
// another program) wait in the log or above the mark for the next flush.
// A new row that takes the rowid of the deleted last row is found through
// the delete's log entry. (kit never sets or changes a row's rowid; a
// writer that inserts a row with a rowid of its own below the mark, or
// changes one, should touch a searched column of that row in a second
// statement.)
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

// ftsPending names the change log of table's FTS table: one row (op, rid)
// per change, op 'd' (delete) or 'u' (update of a searched column) and rid
// the row's rowid. (Logs of older kits also hold 'i', insert.)
func ftsPending(table string) string { return indexName("ftp", table, "search") }

// logTableSQL creates the change log table named pending. Its columns have
// no constraints on purpose: a statement that fires a trigger and may fail
// partway (a NOT NULL check in the trigger's insert is enough) makes SQLite
// journal every page the statement changes so that it can undo the
// statement alone, which cost a delete a fifth of its CPU.
func logTableSQL(pending string) string {
	return fmt.Sprintf(`CREATE TABLE %s (op TEXT, rid INTEGER)`, quote(pending))
}

// ftsMark names the high-water mark of table's FTS table: one row, hwm,
// the largest rowid of the table at the last flush. Every row up to it is
// in the index or in the change log; the rows above it are new.
func ftsMark(table string) string { return indexName("ftw", table, "search") }

// flushSearchSQL returns the statements that bring the index entries of
// the logged and the new rows up to date, empty the log and move the
// high-water mark: the entries of logged rows that may be in the index
// go, then the logged rows that still exist and the rows above the mark go
// in with their current values, by rowid (FTS5 writes its pending terms to
// disk whenever an insert names a smaller rowid than the one before), and
// the mark becomes the table's largest rowid.
func flushSearchSQL(c *collections.Collection) []string {
	cols := make([]string, 0, 4)
	for _, col := range searchColumns(c) {
		cols = append(cols, quote(col))
	}
	colList := strings.Join(cols, ", ")
	fts, pending, mark, table := quote(ftsTable(c.Table())), quote(ftsPending(c.Table())), quote(ftsMark(c.Table())), quote(c.Table())
	return []string{
		fmt.Sprintf(`DELETE FROM %s WHERE "rowid" IN (SELECT rid FROM %s WHERE op <> 'i')`, fts, pending),
		// The logged rows up to the mark, then the rows above it: rowids
		// ascend over both statements. (Two statements, since SQLite
		// would scan the whole table for "IN (...) OR > ...".)
		fmt.Sprintf(`INSERT INTO %s("rowid", %s) SELECT "rowid", %s FROM %s WHERE "rowid" IN (SELECT rid FROM %s) AND "rowid" <= (SELECT hwm FROM %s) ORDER BY "rowid"`,
			fts, colList, colList, table, pending, mark),
		fmt.Sprintf(`INSERT INTO %s("rowid", %s) SELECT "rowid", %s FROM %s WHERE "rowid" > (SELECT hwm FROM %s) ORDER BY "rowid"`,
			fts, colList, colList, table, mark),
		"DELETE FROM " + pending,
		fmt.Sprintf(`UPDATE %s SET hwm = (SELECT coalesce(max("rowid"), 0) FROM %s)`, mark, table),
	}
}

// FlushSearch applies the change log of c's search index to the index
// (SQLite; a no-op elsewhere, or when c has no searched fields). Call it
// in the write transaction that changed c's rows, before it commits.
func (s *Store) FlushSearch(ctx context.Context, db bun.IDB, c *collections.Collection) error {
	if s.has(featSearchTable) || c.External() || len(searchColumns(c)) == 0 {
		return nil
	}
	for _, q := range flushSearchSQL(c) {
		if _, err := s.exec(ctx, db, q); err != nil {
			return fmt.Errorf("store: update search index of %s: %w", c.Table(), err)
		}
	}
	return nil
}

// searchBacklogSQL is SearchBacklog's query.
func searchBacklogSQL(c *collections.Collection) string {
	return fmt.Sprintf(`SELECT (SELECT count(*) FROM %s) + max(0, (SELECT coalesce(max("rowid"), 0) FROM %s) - (SELECT hwm FROM %s))`,
		quote(ftsPending(c.Table())), quote(c.Table()), quote(ftsMark(c.Table())))
}

// SearchBacklog returns how many rows of c wait for the search index: the
// entries in its change log plus the rows above its high-water mark (an
// upper bound: rowids left free by deletes count too; none are counted
// below the mark when the last rows were deleted). It is 0 on PostgreSQL
// and for a collection without searched fields.
func (s *Store) SearchBacklog(ctx context.Context, db bun.IDB, c *collections.Collection) (int, error) {
	if s.has(featSearchTable) || c.External() || len(searchColumns(c)) == 0 {
		return 0, nil
	}
	var n int
	if err := s.queryRow(ctx, db, s.textsOf(c).backlog).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: read search backlog of %s: %w", c.Table(), err)
	}
	return n, nil
}

// FlushSearchOver flushes c's search index (FlushSearch) when its backlog
// (SearchBacklog) is limit rows or more, and reports whether it did. A
// limit of 1 or less flushes whenever there is something to flush.
func (s *Store) FlushSearchOver(ctx context.Context, db bun.IDB, c *collections.Collection, limit int) (bool, error) {
	n, err := s.SearchBacklog(ctx, db, c)
	if err != nil || n == 0 || n < limit {
		return false, err
	}
	return true, s.FlushSearch(ctx, db, c)
}

// usesFTS reports whether a search for term on c goes through the FTS table.
func (s *Store) usesFTS(c *collections.Collection, term string) bool {
	return !s.has(featSearchTable) && !s.noSearchIndex && utf8.RuneCountInString(term) >= minIndexedSearch &&
		len(searchColumns(c)) > 0
}

// ftsCondition narrows a query to the FTS candidates for term: the rows
// the index matches, the rows whose changes wait in its log and the rows
// above its high-water mark.
//
// The index keeps no positions (detail=none: a much smaller index, cheaper
// to write), so it cannot match the term as a phrase. It matches rows that
// hold every trigram of a cover of the term (windows at 0, 3, 6, ... and
// the last one): every row containing the term holds them, and the
// substring test that follows drops the rows that hold them elsewhere.
func ftsCondition(c *collections.Collection, term string) (string, any) {
	fts, table := quote(ftsTable(c.Table())), quote(c.Table())
	return `"rowid" IN (SELECT "rowid" FROM ` + fts + " WHERE " + fts + ` MATCH ? UNION ALL SELECT rid FROM ` +
		quote(ftsPending(c.Table())) + ` UNION ALL SELECT "rowid" FROM ` + table + ` WHERE "rowid" > (SELECT hwm FROM ` +
		quote(ftsMark(c.Table())) + "))", ftsQuery(term)
}

// ftsQuery is the FTS5 query of ftsCondition: every trigram of a cover of
// term.
func ftsQuery(term string) string {
	runes := []rune(term)
	var parts []string
	add := func(i int) {
		tri := string(runes[i : i+3])
		p := `"` + strings.ReplaceAll(tri, `"`, `""`) + `"`
		if !slices.Contains(parts, p) {
			parts = append(parts, p)
		}
	}
	for i := 0; i+3 <= len(runes); i += 3 {
		add(i)
	}
	if len(runes)%3 != 0 {
		add(len(runes) - 3)
	}
	return strings.Join(parts, " AND ")
}

// syncSearch makes the search index of c match want, rebuilding it when
// the searched columns changed (or it is missing).
func (s *Store) syncSearch(ctx context.Context, tx bun.Tx, c *collections.Collection, have *tableDef, want tableDef) error {
	if s.has(featSearchTable) {
		return s.syncSearchTable(ctx, tx, c, have, want)
	}
	fts, pending := ftsTable(c.Table()), ftsPending(c.Table())
	exists, err := s.tableExists(ctx, tx, fts)
	if err != nil {
		return err
	}
	if exists {
		// A search index made before the change log existed is rebuilt.
		if exists, err = s.tableExists(ctx, tx, pending); err != nil {
			return err
		}
	}
	if exists && have != nil && slices.Equal(have.Search, want.Search) {
		// Apply what other writers left in the log. (Format 5 changed
		// only PostgreSQL's search.)
		if have.SearchFormat >= 4 {
			return s.FlushSearch(ctx, tx, c)
		}
		// An index of an older kit logs inserts through a trigger, keeps
		// its log in a table with NOT NULL columns and has no high-water
		// mark: the trigger goes, the mark starts at the largest rowid
		// (every row is in the index or in the log), the log is applied
		// and made again without constraints (see logTableSQL). It also
		// has FTS5's merge settings.
		upgrade := append([]string{"DROP TRIGGER IF EXISTS " + quote(ftsTrigger(c.Table(), "ai"))}, markTableSQL(c.Table())...)
		if err := s.execAll(ctx, tx, "update", c.Table(), upgrade...); err != nil {
			return err
		}
		if err := s.FlushSearch(ctx, tx, c); err != nil {
			return err
		}
		if err := s.execAll(ctx, tx, "update", c.Table(), "DROP TABLE "+quote(pending), logTableSQL(pending)); err != nil {
			return err
		}
		return s.tuneSearch(ctx, tx, fts)
	}
	if err := s.dropSearch(ctx, tx, c.Table()); err != nil {
		return err
	}
	if len(want.Search) == 0 {
		return nil
	}
	cols := make([]string, len(want.Search))
	for i, col := range want.Search {
		cols[i] = quote(col)
	}
	colList := strings.Join(cols, ", ")
	table, qp := quote(c.Table()), quote(pending)
	logRow := func(op, ref string) string {
		return fmt.Sprintf(`INSERT INTO %s(op, rid) VALUES ('%s', %s."rowid");`, qp, op, ref)
	}
	create := fmt.Sprintf(`CREATE VIRTUAL TABLE %s USING fts5(%s, content='', contentless_delete=1, detail=none, tokenize='trigram case_sensitive 0')`,
		quote(fts), colList)
	if err := s.execAll(ctx, tx, "build", c.Table(), create); err != nil {
		return err
	}
	// Before the rows go in, so that the first build merges the tuned way
	// too.
	if err := s.tuneSearch(ctx, tx, fts); err != nil {
		return err
	}
	build := []string{
		logTableSQL(pending),
		fmt.Sprintf(`CREATE TRIGGER %s AFTER DELETE ON %s BEGIN %s END`, quote(ftsTrigger(c.Table(), "ad")), table, logRow("d", "old")),
		fmt.Sprintf(`CREATE TRIGGER %s AFTER UPDATE OF %s ON %s BEGIN %s END`, quote(ftsTrigger(c.Table(), "au")), colList, table, logRow("u", "new")),
		fmt.Sprintf(`INSERT INTO %s("rowid", %s) SELECT "rowid", %s FROM %s ORDER BY "rowid"`, quote(fts), colList, colList, table),
	}
	return s.execAll(ctx, tx, "build", c.Table(), append(build, markTableSQL(c.Table())...)...)
}

// markTableSQL creates the high-water mark of table's search index, unless
// it exists, at the table's largest rowid: run it once every row is in the
// index or in its log.
func markTableSQL(table string) []string {
	mark := quote(ftsMark(table))
	return []string{
		fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %s (hwm INTEGER NOT NULL)`, mark),
		fmt.Sprintf(`INSERT INTO %s(hwm) SELECT coalesce(max("rowid"), 0) FROM %s WHERE NOT EXISTS (SELECT 1 FROM %s)`,
			mark, quote(table), mark),
	}
}

// execAll runs stmts in tx, stopping at the first error, which it reports
// as a failure to <what> (build, update) the search index of table.
func (s *Store) execAll(ctx context.Context, tx bun.Tx, what, table string, stmts ...string) error {
	for _, q := range stmts {
		if _, err := s.execOnce(ctx, tx, q); err != nil {
			return fmt.Errorf("store: %s search index of %s: %w", what, table, err)
		}
	}
	return nil
}

// ftsMerge holds the FTS5 merge settings of kit's search indexes.
//
// FTS5 writes each transaction's changes as a new segment and merges
// segments in the background of later writes. Its defaults (merge 4
// segments of a level into one, and do it in work units of 64 pages times
// the number of levels) make one commit in a few dozen pay for a merge of
// several hundred pages, which is the slowest write of a busy minute, and
// rewrite each row once per level. Merging 16 segments at a time halves
// the levels, so each row is rewritten about half as often and merges come
// less often; a search then reads a few more segments per term, still far
// less than a scan (docs/decisions/0006).
var ftsMerge = []struct {
	name  string
	value int
}{
	// Merge 16 segments of a level into one, by itself...
	{"automerge", 16},
	// ...and when asked ('merge' command).
	{"usermerge", 16},
	// A level that reaches 64 segments (writes faster than merging keeps
	// up with) is merged at once.
	{"crisismerge", 64},
	// Merge a segment for its deleted rows only once half of them are gone
	// (FTS5's default, a tenth, rewrites large segments again and again
	// under random deletes).
	{"deletemerge", 50},
}

// tuneSearch applies ftsMerge to the FTS table fts. FTS5 keeps them in the
// table itself, so this is needed once per table; applying them again
// changes nothing.
func (s *Store) tuneSearch(ctx context.Context, tx bun.Tx, fts string) error {
	for _, o := range ftsMerge {
		q := fmt.Sprintf(`INSERT INTO %s(%s, rank) VALUES ('%s', %d)`, quote(fts), quote(fts), o.name, o.value)
		if _, err := s.execOnce(ctx, tx, q); err != nil {
			return fmt.Errorf("store: set %s of search index %s: %w", o.name, fts, err)
		}
	}
	return nil
}

// dropSearch removes the SQLite search index of table and its triggers;
// on PostgreSQL the search table's triggers and their functions (the table
// stays, for syncSearchTable to fill again).
func (s *Store) dropSearch(ctx context.Context, tx bun.Tx, table string) error {
	if s.has(featSearchTable) {
		for _, name := range searchTriggers(table) {
			if _, err := s.execOnce(ctx, tx, "DROP TRIGGER IF EXISTS "+quote(name)+" ON "+quote(table)); err != nil {
				return fmt.Errorf("store: drop search trigger: %w", err)
			}
			if _, err := s.execOnce(ctx, tx, "DROP FUNCTION IF EXISTS "+quote(name)+"()"); err != nil {
				return fmt.Errorf("store: drop search trigger: %w", err)
			}
		}
		return nil
	}
	for _, op := range []string{"ai", "ad", "au"} {
		if _, err := s.execOnce(ctx, tx, "DROP TRIGGER IF EXISTS "+quote(ftsTrigger(table, op))); err != nil {
			return fmt.Errorf("store: drop search trigger: %w", err)
		}
	}
	for _, t := range []string{ftsTable(table), ftsPending(table), ftsMark(table)} {
		if _, err := s.execOnce(ctx, tx, "DROP TABLE IF EXISTS "+quote(t)); err != nil {
			return fmt.Errorf("store: drop search index: %w", err)
		}
	}
	return nil
}

// The search table (PostgreSQL).
//
// On PostgreSQL the text a search looks in is copied to a table of its own
// (searchTable: team, id, creation time and doc, the searched fields of
// the row joined by docSeparator, ASCII letters in lower case: docMatch),
// and that table carries the GIN trigram
// index (pg_trgm) that ILIKE and ~ use. Triggers on the collection table
// keep it: a statement-level one inserts the new rows of every INSERT
// (from its transition table), row-level ones delete and, when the team,
// the id, the creation time or a searched field changes, update, and
// TRUNCATE empties it. So every writer keeps it exact, kit or not, in the
// write's own transaction. The functions name the search table with its
// schema, so that a writer with another search_path writes the right one
// (finding it at run time through TG_TABLE_SCHEMA would take dynamic SQL,
// planned at every call); after the schema is renamed, writes fail until
// the next sync makes them again (staleSearchTriggers).
//
// The reason is the cost of writes. PostgreSQL writes a new version of a
// row on every update, and unless the update is HOT (it changes no
// indexed column) every index of the table gets new entries: a GIN
// trigram index on the collection table takes every trigram of the text
// again when an update changes only a number. In the search table a row
// changes only when its text does. A search's count reads the search
// table alone, and its page reads the collection table for the page's
// rows only (see List).
//
// A search matches a row when the term is a substring of its doc, which is
// the same as being a substring of one of the fields unless the term holds
// docSeparator; such a term (and any search when noSearchIndex is set)
// tests the fields themselves, a scan of the team's rows. When pg_trgm
// cannot be had the table is kept without the index, and searches scan it.

// docSeparator joins the searched fields of a row in the search table's
// doc. A term without it matches doc where it matches one of the fields.
const docSeparator = "\x1f"

// searchTable is the name of table's search table on PostgreSQL.
func searchTable(table string) string { return indexName("sx", table, "search") }

// SearchTable is the name of the PostgreSQL search table that holds the
// searched text of the collection table table (see syncSearchTable), for
// tools that load or restore a table in bulk.
func SearchTable(table string) string { return searchTable(table) }

// searchTriggers names the triggers on table that keep its search table,
// each with its function (named like it).
func searchTriggers(table string) []string {
	var names []string
	for _, op := range []string{"ins", "upd", "del", "trn"} {
		names = append(names, indexName("st", table, "search_"+op))
	}
	return names
}

// usesSearchTable reports whether a search for term on c matches the
// search table's doc rather than the fields.
func (s *Store) usesSearchTable(c *collections.Collection, term string) bool {
	return s.has(featSearchTable) && !s.noSearchIndex && !strings.Contains(term, docSeparator) && len(searchColumns(c)) > 0
}

// docMatch returns the condition that the search table's doc contains
// term, and its argument. doc is stored with its ASCII letters in lower
// case (lower under COLLATE "C", which folds only those, as ILIKE on the
// fields does), so a plain LIKE with the term's ASCII letters lowered
// matches where ILIKE would, without folding every row's text again; a
// term with other cased letters is the regular expression of textMatch,
// whose classes hold both cases.
func docMatch(term string) (string, any) {
	if needsUnicodeFold(term) {
		return `"doc" ~ ?`, regexFold(term)
	}
	lowered := strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + ('a' - 'A')
		}
		return r
	}, term)
	return `"doc" LIKE ? ESCAPE '\'`, "%" + likeEscape(lowered) + "%"
}

// searchTableMatch returns the condition that keeps the rows of team teamID
// whose searched text (any field) contains term, and its arguments.
func (s *Store) searchTableMatch(c *collections.Collection, teamID, term string) (string, []any) {
	cond, arg := docMatch(term)
	return `"id" IN (SELECT "id" FROM ` + quote(searchTable(c.Table())) + ` WHERE "team_id" = ? AND ` + cond + ")", []any{teamID, arg}
}

// syncSearchTable makes the search table of c match want: it creates the
// table and its index, replaces the triggers (they name the columns) and
// fills the table again when it is new or the searched columns changed.
// The per-column trigram indexes of kit before searchFormat 5 go.
func (s *Store) syncSearchTable(ctx context.Context, tx bun.Tx, c *collections.Collection, have *tableDef, want tableDef) error {
	table := c.Table()
	if err := s.dropTrigramIndexes(ctx, tx, table); err != nil {
		return err
	}
	if len(want.Search) == 0 {
		if err := s.dropSearch(ctx, tx, table); err != nil {
			return err
		}
		_, err := s.execOnce(ctx, tx, "DROP TABLE IF EXISTS "+quote(searchTable(table)))
		return err
	}
	trgm, err := s.trigramSchema(ctx, tx)
	if err != nil {
		return err
	}
	var schema string
	if err := s.queryRowOnce(ctx, tx, "SELECT current_schema()").Scan(&schema); err != nil {
		return fmt.Errorf("store: read the current schema: %w", err)
	}
	// The creation time is copied when the collection keeps one (see
	// List's sorted matches); a table of the other layout is made anew.
	keys := []string{"team_id", "id"}
	colDefs := []string{`"team_id" TEXT COLLATE "C" NOT NULL`, `"id" TEXT COLLATE "C" NOT NULL`}
	if slices.ContainsFunc(c.Attributes(), func(a *collections.Attribute) bool { return a.Column == "created_at" }) {
		keys = append(keys, "created_at")
		colDefs = append(colDefs, `"created_at" TIMESTAMPTZ NOT NULL`)
	}
	exists, err := s.tableExists(ctx, tx, searchTable(table))
	if err != nil {
		return err
	}
	if exists {
		got, err := s.tableColumns(ctx, tx, searchTable(table))
		if err != nil {
			return err
		}
		if !slices.Equal(got, append(slices.Clone(keys), "doc")) {
			if _, err := s.execOnce(ctx, tx, "DROP TABLE "+quote(searchTable(table))); err != nil {
				return fmt.Errorf("store: drop search table of %s: %w", table, err)
			}
			exists = false
		}
	}
	fill := !exists || have == nil || !slices.Equal(have.Search, want.Search) || have.SearchFormat < searchFormat
	st, main := pgIdent(schema)+"."+quote(searchTable(table)), quote(table)
	index := quote(indexName("sg", table, "search"))
	doc := func(row string) string {
		parts := make([]string, len(want.Search))
		for i, col := range want.Search {
			parts[i] = "coalesce(" + row + "." + quote(col) + ", '')"
		}
		return "lower(" + strings.Join(parts, ` || E'\x1f' || `) + ")"
	}
	var changed, cols, sets []string
	for _, col := range keys {
		changed = append(changed, "OLD."+quote(col)+" IS DISTINCT FROM NEW."+quote(col))
		cols = append(cols, quote(col))
		sets = append(sets, quote(col)+" = NEW."+quote(col))
	}
	keyList := strings.Join(cols, ", ")
	copied := func(row string) string {
		out := make([]string, len(keys))
		for i, col := range keys {
			out[i] = row + "." + quote(col)
		}
		return strings.Join(out, ", ") + ", " + doc(row)
	}
	for _, col := range want.Search {
		changed = append(changed, "OLD."+quote(col)+" IS DISTINCT FROM NEW."+quote(col))
		cols = append(cols, quote(col))
	}
	trg := searchTriggers(table)
	fn := func(name, body string) string {
		return fmt.Sprintf("CREATE OR REPLACE FUNCTION %s.%s() RETURNS trigger LANGUAGE plpgsql AS $kit$ BEGIN %s RETURN NULL; END $kit$",
			pgIdent(schema), quote(name), body)
	}
	stmts := []string{
		`CREATE TABLE IF NOT EXISTS ` + st + ` (` + strings.Join(colDefs, ", ") + `, "doc" TEXT COLLATE "C" NOT NULL, PRIMARY KEY ("team_id", "id"))`,
		fn(trg[0], fmt.Sprintf(`INSERT INTO %s (%s, "doc") SELECT %s FROM kit_new AS r;`, st, keyList, copied("r"))),
		fn(trg[1], fmt.Sprintf(`UPDATE %s SET %s, "doc" = %s WHERE "team_id" = OLD."team_id" AND "id" = OLD."id";`, st, strings.Join(sets, ", "), doc("NEW"))),
		fn(trg[2], fmt.Sprintf(`DELETE FROM %s WHERE "team_id" = OLD."team_id" AND "id" = OLD."id";`, st)),
		fn(trg[3], fmt.Sprintf(`TRUNCATE %s;`, st)),
	}
	if err := s.dropSearch(ctx, tx, table); err != nil {
		return err
	}
	stmts = append(stmts,
		fmt.Sprintf(`CREATE TRIGGER %s AFTER INSERT ON %s REFERENCING NEW TABLE AS kit_new FOR EACH STATEMENT EXECUTE FUNCTION %s.%s()`, quote(trg[0]), main, pgIdent(schema), quote(trg[0])),
		fmt.Sprintf(`CREATE TRIGGER %s AFTER UPDATE OF %s ON %s FOR EACH ROW WHEN (%s) EXECUTE FUNCTION %s.%s()`, quote(trg[1]), strings.Join(cols, ", "), main, strings.Join(changed, " OR "), pgIdent(schema), quote(trg[1])),
		fmt.Sprintf(`CREATE TRIGGER %s AFTER DELETE ON %s FOR EACH ROW EXECUTE FUNCTION %s.%s()`, quote(trg[2]), main, pgIdent(schema), quote(trg[2])),
		fmt.Sprintf(`CREATE TRIGGER %s AFTER TRUNCATE ON %s FOR EACH STATEMENT EXECUTE FUNCTION %s.%s()`, quote(trg[3]), main, pgIdent(schema), quote(trg[3])),
	)
	if fill {
		// The index is built once over the filled table, not row by row.
		stmts = append(stmts, "DROP INDEX IF EXISTS "+pgIdent(schema)+"."+index, "TRUNCATE "+st,
			fmt.Sprintf(`INSERT INTO %s (%s, "doc") SELECT %s FROM %s AS r`, st, keyList, copied("r"), main))
	}
	if trgm != "" {
		stmts = append(stmts, fmt.Sprintf(`CREATE INDEX IF NOT EXISTS %s ON %s USING gin ("doc" %s.gin_trgm_ops)`, index, st, pgIdent(trgm)))
	}
	if fill {
		stmts = append(stmts, "ANALYZE "+st)
	}
	return s.execAll(ctx, tx, "build", table, stmts...)
}

// staleSearchTriggers returns the tables (as keys) of the current schema
// whose search table triggers name another schema: the function bodies
// name the search table with its schema, so that a writer with another
// search_path writes the right one, and a renamed schema leaves them
// naming the old name (every write to the table then fails, loudly). Sync
// builds them again. Nil on SQLite.
func (s *Store) staleSearchTriggers(ctx context.Context, tx bun.Tx) (map[string]bool, error) {
	if !s.has(featSearchTable) {
		return nil, nil
	}
	tables, err := s.queryStringsOnce(ctx, tx, `SELECT c.relname FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid JOIN pg_class c ON c.oid = t.tgrelid
		WHERE p.pronamespace = current_schema()::regnamespace AND t.tgname LIKE 'st\_%\_search\_ins'
		AND position('"' || replace(current_schema(), '"', '""') || '".' IN p.prosrc) = 0`)
	if err != nil {
		return nil, fmt.Errorf("store: read the search triggers: %w", err)
	}
	stale := map[string]bool{}
	for _, table := range tables {
		stale[table] = true
	}
	return stale, nil
}

// dropTrigramIndexes drops the GIN trigram indexes that kit made on table
// itself before the search table (searchFormat 5), named tg_<table>_<column>
// (see indexName); trigram indexes of other names are not kit's and stay.
func (s *Store) dropTrigramIndexes(ctx context.Context, tx bun.Tx, table string) error {
	// indexName keeps the first 50 bytes of a long name.
	prefix := "tg_" + table + "_"
	if len(prefix) > 50 {
		prefix = prefix[:50]
	}
	names, err := s.queryStringsOnce(ctx, tx, `SELECT indexname FROM (SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = ? OFFSET 0) AS ix
		WHERE indexdef LIKE '%gin_trgm_ops%' AND indexname LIKE ? ESCAPE '\'`, table, likeEscape(prefix)+"%")
	if err != nil {
		return fmt.Errorf("store: read the indexes of %s: %w", table, err)
	}
	for _, name := range names {
		if _, err := s.execOnce(ctx, tx, "DROP INDEX "+pgIdent(name)); err != nil {
			return fmt.Errorf("store: drop trigram index %s: %w", name, err)
		}
	}
	return nil
}

// trigramSchema returns the schema pg_trgm is installed in, installing it
// in public when the role may; when it cannot be had it logs a notice once
// and returns "" (search then scans).
func (s *Store) trigramSchema(ctx context.Context, tx bun.Tx) (string, error) {
	const lookup = "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm'"
	var schema string
	switch err := s.queryRowOnce(ctx, tx, lookup).Scan(&schema); {
	case err == nil:
		return schema, nil
	case !errors.Is(err, sql.ErrNoRows):
		return "", fmt.Errorf("store: look up pg_trgm: %w", err)
	}
	// A failed CREATE EXTENSION aborts the transaction: try it in a
	// savepoint so sync goes on without the index. In public, not the
	// current schema, so that it outlives any one schema.
	sp, err := tx.BeginTx(ctx, nil)
	if err != nil {
		return "", err
	}
	if _, err := s.execOnce(ctx, sp, "CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public"); err != nil {
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
