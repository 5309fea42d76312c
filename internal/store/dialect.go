package store

import (
	"context"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/collectionkit/kit/collections"
)

// sqlDialect is everything the Store does differently on SQLite
// (dialect_sqlite.go) and PostgreSQL (dialect_pg.go): what each engine
// can do (features, as bun's dialects declare theirs) and the text of the
// statements and clauses they write differently. Outside the two
// implementations the Store asks for a feature or a clause, never for an
// engine.
type sqlDialect interface {
	// name is the engine's name, for errors and the Store's Dialect.
	name() dialect.Name
	// has reports whether the engine has every feature of f.
	has(f feature) bool

	// hiddenArg is a placeholder whose value the engine's planner does
	// not read (see Store.hiddenArg).
	hiddenArg() string
	// hiddenColumn is what a column of a select list is prefixed with so
	// that the planner reads no index for it ("+" on SQLite: a unary +
	// keeps an expression from being an indexed column).
	hiddenColumn() string
	// keyedTeamTest is the team test of a statement that names its rows
	// by primary key, written so that no index serves it (teamTest).
	keyedTeamTest() string
	// like is the case-insensitive (ASCII) LIKE operator.
	like() string
	// foldedMatch is the condition that the quoted column col holds term
	// (a prefix with prefix) compared without regard to case, for a term
	// with cased letters outside ASCII, and its argument (textMatch).
	foldedMatch(col, term string, prefix bool, hidden string) (string, any)
	// getManySQL is the statement that reads records of a team by id
	// (Store.getManySQL), and getManyArgs its arguments.
	getManySQL(s *Store, c *collections.Collection, probe string) string
	getManyArgs(teamID string, ids []string) []any
	// castFloatArg is a statement argument used as a DOUBLE PRECISION
	// value where the statement gives it no type of its own.
	castFloatArg() string
	// wholeNumber is the integer part of the numeric expression col.
	wholeNumber(col string) string
	// nullsFirst is what an index column that sorts NULL first adds.
	nullsFirst() string
	// byteCollation is what a TEXT column adds so that it compares by its
	// bytes whatever the database's locale ("" when TEXT does).
	byteCollation() string
	// updateOne is the verb of an UPDATE of one record by key. On SQLite
	// it is UPDATE OR FAIL: the record's constraints are checked before
	// its row changes, so a failed update of one row has changed nothing,
	// and with FAIL instead of the default ABORT the statement needs no
	// statement journal, into which SQLite would otherwise copy every page
	// the update touches (the search index's trigger makes an update of a
	// searched field two writes). The only failures that could then leave
	// a part written (a full disk, an I/O error) end the whole
	// transaction, which the write queue notices (see transactionLost).
	updateOne() string

	// columnType is the SQL type of an attribute (codec.go).
	columnType(a *collections.Attribute) string
	// encodeDecimal, encodeBool and encodeDate turn a canonical decimal,
	// boolean or date value (one that encode has checked) into the stored
	// value.
	encodeDecimal(a *collections.Attribute, s string) any
	encodeBool(b bool) any
	encodeDate(t time.Time) any
	// decodeDecimal turns a stored decimal back into its canonical text.
	decodeDecimal(a *collections.Attribute, s string) (string, error)

	// tableExistsSQL counts the tables of one name (the argument);
	// tableColumnsSQL lists a table's columns in order.
	tableExistsSQL() string
	tableColumnsSQL() string
	// columnChecks is what the definition of a's column adds inline: a
	// JSON check, a reference (SQLite; PostgreSQL adds its foreign keys
	// once the tables exist).
	columnChecks(s *Store, c *collections.Collection, a *collections.Attribute) string

	// changesDDL creates the change log (CreateChangesTable);
	// leanChanges brings an older one to the current shape.
	changesDDL() string
	leanChanges(ctx context.Context, db bun.IDB) error
	// insertChangeSQL records one change log row.
	insertChangeSQL() string
	// readChangesSQL reads the change log after a position: id, team,
	// collection, operation, ids, correlation, time and the snapshot's
	// xmin and xmax (0 and 0 where positions follow commit order).
	readChangesSQL(hidden string) string

	// countVersion is the column a count adds to learn the version of the
	// team's rows it counted, with its arguments; versionCheck what a
	// statement adds to learn whether they changed since (two columns,
	// see versionResult); unchanged reads that answer; versionDest the
	// destination of countVersion's column in e.
	countVersion(table, team string) (string, []any)
	versionCheck(table, team string, e *totalEntry) (string, []any)
	unchanged(r versionResult, e *totalEntry) bool
	versionDest(e *totalEntry) any

	// bulkRowsPerStatement is how many rows one INSERT of a bulk load
	// writes (BulkInsert).
	bulkRowsPerStatement() int
	// countsDDL creates kit_row_counts (idempotent) and readies table's
	// rows to be counted in sync's transaction.
	countsDDL(table string) []string

	// retypeColumnSQL empties the column col of table as type typ (def
	// being the column's whole definition), so that its values can be
	// written anew as that type: indexes on col must be dropped first.
	retypeColumnSQL(table, col, typ, def string) []string
	// castValue is expr, a statement argument, as a value of the SQL
	// type typ (a columnType) where the statement gives it no type (a
	// row of VALUES).
	castValue(expr, typ string) string
	// renameIndexSQL gives index from the name to; an engine that cannot
	// rename an index drops it, and sync creates it again under its new
	// name.
	renameIndexSQL(from, to string) string
	// freeColumnQuery reads (arguments: table, column, table) the declared
	// type of a column that has a constraint that would refuse rows
	// without a value (NOT NULL, a reference clause), no row when it has
	// none; "" when freeColumnSQL needs no such read.
	freeColumnQuery() string
	// freeColumnSQL frees col, a column of table kept for a removed field,
	// of its NOT NULL and its reference (fk names the constraint where
	// references are named constraints; declType is what freeColumnQuery
	// read), keeping its values, so that writes that leave it out work.
	freeColumnSQL(table, col, fk, declType string) []string

	// lockSQL takes a lock named by its argument (an advisory key) until
	// the transaction ends; "" when the engine's writes are serialized
	// already.
	lockSQL() string

	// copySQL writes a consistent copy of the whole database to the file
	// its argument names, while writes go on; "" when the engine's
	// copies are made by its own tools (pg_dump).
	copySQL() string
}

// feature is a set of things an engine can do.
type feature uint

const (
	// featConcurrentWrites: writes run concurrently, each in its own
	// transaction (PostgreSQL), and a write may be one statement that
	// logs and guards itself (InsertLogged and its kin). Without it the
	// Store's write queue commits writes in groups (SQLite).
	featConcurrentWrites feature = 1 << iota
	// featRowLocks: SELECT ... FOR UPDATE locks the rows it reads.
	featRowLocks
	// featServerPlans: the server's planner chooses how a search or a
	// filter runs, from statistics it keeps; without it the Store plans
	// them (planSearch, planFilter).
	featServerPlans
	// featSearchTable: searches read a search table that triggers keep,
	// with a trigram index; without it an FTS table that the Store
	// fills (FlushSearch).
	featSearchTable
	// featDeltaCounts: each write of a team's rows adds a delta row to
	// kit_row_counts, stamped with its transaction, and reads sum them
	// (compacted when they pile up); without it one row per team keeps
	// the count and a generation that every write increments.
	featDeltaCounts
	// featPageWithTotal: an unfiltered page and the team's row count are
	// read in one statement.
	featPageWithTotal
	// featSharedScans: a list that scans beside another one runs in a
	// read-only transaction without parallel workers (sharedScan).
	featSharedScans
	// featWarmConns: Warm opens the pool's connections before the first
	// requests (a connection is a server process).
	featWarmConns
	// featLateForeignKeys: references are foreign keys added once every
	// table exists, not clauses of the column.
	featLateForeignKeys
	// featAlterColumnType: a column's type can change in place.
	featAlterColumnType
)

// dialectOf returns the implementation of the engine named name.
func dialectOf(name dialect.Name) sqlDialect {
	if name == dialect.PG {
		return pgDialect{}
	}
	return sqliteDialect{}
}

// has reports whether the Store's engine has every feature of f.
func (s *Store) has(f feature) bool { return s.dialect.has(f) }
