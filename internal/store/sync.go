package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
)

// ErrSchemaDrift is collections.ErrSchemaDrift, matched by every
// *DriftError.
var ErrSchemaDrift = collections.ErrSchemaDrift

// DriftError names the collection, the field and the old and new types;
// see collections.DriftError.
type DriftError = collections.DriftError

// SyncOptions configures [Store.Sync].
type SyncOptions struct {
	// Drop drops the columns sync keeps for fields removed from their
	// schemas (see evolve.go), with their values. Off, they stay, and
	// reads and writes ignore them.
	Drop bool
	// DryRun runs the sync in a transaction that is rolled back: it
	// changes nothing, and Changes (and the Store's query observer and
	// hook) see what it would do.
	DryRun bool
	// Changes, when not nil, is called with each change sync makes, in
	// order, in its transaction.
	Changes func(SchemaChange)
}

// errDryRun rolls back a dry run's transaction.
var errDryRun = errors.New("store: dry run")

// storedCollection is the kit_collections row: the normalized definition
// a table was last synced to.
type storedCollection struct {
	bun.BaseModel `bun:"table:kit_collections"`

	Key        string    `bun:"key,pk"`
	TableName  string    `bun:"table_name,notnull"`
	Definition string    `bun:"definition,notnull"`
	Hash       string    `bun:"hash,notnull"`
	UpdatedAt  time.Time `bun:"updated_at,notnull"`
}

// columnDef is one column in the normalized definition.
type columnDef struct {
	Name string `json:"name"`
	// Field is the JSON field name, so a drift names the field as the
	// schema spells it ("salePrice", not the column "sale_price"). Rows
	// written before it existed lack it; Name stands in then.
	Field string `json:"field,omitempty"`
	Type  string `json:"type"` // field type, with (p,s) for decimals
	Ref   string `json:"ref,omitempty"`
}

// fieldName is the field a column holds, as the schema names it.
func (cd columnDef) fieldName() string {
	if cd.Field != "" {
		return cd.Field
	}
	return cd.Name
}

type tableDef struct {
	Table   string      `json:"table"`
	Columns []columnDef `json:"columns"`
	Indexes []indexDef  `json:"indexes"`
	// Search lists the columns the search index covers.
	Search []string `json:"search,omitempty"`
	// SearchFormat is the layout of the search index: 2 since the SQLite
	// index is kept through a change log and stores no positions, 3 since
	// it has kit's merge settings, 4 since new rows are found by a
	// high-water mark instead of an insert trigger, 5 since PostgreSQL's
	// searched text is in a search table (see search.go). Its
	// change makes the stored definition differ, so sync brings older
	// indexes up to date (rebuilding those without a change log).
	SearchFormat int `json:"searchFormat,omitempty"`
	// SortKeys lists the columns that have a sort key column (see
	// collation.go).
	SortKeys []string `json:"sortKeys,omitempty"`
	// UniqueKeys lists the columns that have a unique key column (see
	// uniquekey.go).
	UniqueKeys []string `json:"uniqueKeys,omitempty"`
	// Counted is the layout of the table's row counts (countFormat, see
	// counts.go); 0 for a table synced before kit kept them.
	Counted int `json:"counted,omitempty"`
	// Kept lists the columns kept for fields removed from the schema (see
	// evolve.go). The definition's hash leaves them out: it is the hash of
	// what the collection wants.
	Kept []columnDef `json:"kept,omitempty"`
}

// definitionHash is the hash of td as kit_collections records it.
func definitionHash(td tableDef) string {
	b, _ := json.Marshal(td)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// searchFormat is the current tableDef.SearchFormat.
const searchFormat = 5

type indexDef struct {
	Name    string   `json:"name"`
	Columns []string `json:"columns"`
	Unique  bool     `json:"unique,omitempty"`
	// NullsFirst orders each column's nulls first, as the list's
	// ORDER BY does (on SQLite they are anyway), so that the index
	// serves that order in both directions on PostgreSQL.
	NullsFirst bool `json:"nullsFirst,omitempty"`
}

func typeLabel(a *collections.Attribute) string {
	if a.Type == collections.TypeDecimal {
		return fmt.Sprintf("decimal(%d,%d)", a.Field.Meta.Precision, a.Field.Meta.Scale)
	}
	if a.WholeNumber() {
		return integerLabel
	}
	return string(a.Type)
}

// integerLabel is the type label of a number field with meta.integer.
const integerLabel = "integer"

func definitionOf(c *collections.Collection) tableDef {
	td := tableDef{Table: c.Table()}
	for _, a := range c.Attributes() {
		cd := columnDef{Name: a.Column, Field: a.Name, Type: typeLabel(a)}
		if a.Field != nil && a.Field.RefTarget != "" {
			cd.Ref = a.Field.RefTarget
		}
		td.Columns = append(td.Columns, cd)
	}
	td.Indexes = indexesOf(c)
	td.SortKeys = sortKeyColumns(c)
	td.UniqueKeys = uniqueKeyColumns(c)
	td.Search = searchColumns(c)
	td.Counted = countFormat
	if len(td.Search) > 0 {
		td.SearchFormat = searchFormat
	}
	return td
}

// indexesOf lists the indexes a collection needs, team first: the default
// list order, one per unique or indexed field (and a second, on the
// unique key, per field with meta.uniqueIgnoreCase), one per reference.
func indexesOf(c *collections.Collection) []indexDef {
	var ix []indexDef
	if c.UseMetadata() {
		ix = append(ix, indexDef{Name: createdIndex(c), Columns: []string{"team_id", "created_at", "id"}})
	} else {
		ix = append(ix, indexDef{Name: indexName("ix", c.Table(), "team_id"), Columns: []string{"team_id", "id"}})
	}
	ix = append(ix, orderIndexes(c)...)
	for _, f := range c.AllFields() {
		col := collections.ColumnName(f.Name)
		switch {
		case f.Meta.Unique:
			ix = append(ix, indexDef{Name: indexName("ux", c.Table(), col), Columns: []string{"team_id", col}, Unique: true})
		case f.Meta.Index || f.RefTarget != "":
			ix = append(ix, indexDef{Name: indexName("ix", c.Table(), col), Columns: []string{"team_id", col}})
		}
		a, ok := c.Attribute(f.Name)
		if ok && hasUniqueKey(a) {
			ix = append(ix, indexDef{Name: uniqueKeyIndex(c, a), Columns: []string{"team_id", uniqueKeyColumn(a)}, Unique: true})
		}
		if ok && hasSortKey(a) && (f.Meta.Index || f.Meta.Unique) {
			// Sorting by an indexed text field walks this index.
			ix = append(ix, indexDef{Name: indexName("ix", c.Table(), col+"_sort"), Columns: []string{"team_id", sortKeyColumn(a), col, "id"}, NullsFirst: true})
		}
	}
	return ix
}

// createdIndex is the name of the (team_id, created_at, id) index of a
// collection with metadata.
func createdIndex(c *collections.Collection) string {
	return indexName("ix", c.Table(), "team_created")
}

// indexName builds "<prefix>_<table>_<suffix>", shortened with a hash to
// stay within PostgreSQL's 63-byte identifiers.
func indexName(prefix, table, suffix string) string {
	n := prefix + "_" + table + "_" + suffix
	if len(n) <= 63 {
		return n
	}
	h := sha256.Sum256([]byte(n))
	return n[:50] + "_" + hex.EncodeToString(h[:])[:12]
}

// Sync brings the tables of every stored (non-external) collection in reg
// in line with its definition, in one transaction that also serializes
// concurrent syncs (SQLite's write lock; a PostgreSQL advisory lock). It
// plans every table first and, when a change cannot be made (a type the
// stored values cannot take, a rename of a missing column), returns every
// such *DriftError, joined, having changed nothing (a dry run applies the
// other collections' plans before it rolls back). It keeps the columns
// of removed fields unless opts.Drop (see evolve.go). It is idempotent:
// an unchanged collection costs one read (and on PostgreSQL the whole
// sync one more, for triggers that name a renamed schema).
func (s *Store) Sync(ctx context.Context, reg *collections.Registry, opts SyncOptions) error {
	var dryRefused error
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if lock := s.dialect.lockSQL(); lock != "" {
			if _, err := s.execOnce(ctx, tx, lock, advisoryKey("kit:schema-sync")); err != nil {
				return fmt.Errorf("store: schema lock: %w", err)
			}
		}
		if err := CreateMetaTable(ctx, tx); err != nil {
			return err
		}
		stale, err := s.staleSearchTriggers(ctx, tx)
		if err != nil {
			return err
		}
		plans, refused, err := s.planSync(ctx, tx, reg, opts, stale)
		if err != nil || refused != nil && !opts.DryRun {
			return errors.Join(err, refused)
		}
		var pendingFKs []func() error
		for _, p := range plans {
			fk, err := s.syncOne(ctx, tx, p, opts)
			if err != nil {
				return err
			}
			pendingFKs = append(pendingFKs, fk...)
		}
		for _, f := range pendingFKs {
			if err := f(); err != nil {
				return err
			}
		}
		if opts.DryRun {
			// A dry run goes on past the refused collections, so that
			// Changes sees what the others would do, and reports them.
			dryRefused = refused
			return errDryRun
		}
		return nil
	})
	if opts.DryRun && errors.Is(err, errDryRun) {
		return dryRefused
	}
	return err
}

// advisoryKey maps a lock name to a PostgreSQL advisory lock key.
func advisoryKey(name string) int64 {
	h := sha256.Sum256([]byte(name))
	var k int64
	for _, b := range h[:8] {
		k = k<<8 | int64(b)
	}
	return k
}

// syncOne applies p, the plan of one table.
func (s *Store) syncOne(ctx context.Context, tx bun.Tx, p *tablePlan, opts SyncOptions) ([]func() error, error) {
	c, want := p.c, p.want
	var fks []func() error
	var err error
	if !p.exists {
		fks, err = s.createTable(ctx, tx, c)
		s.note(ctx, opts, c, SchemaChange{Kind: SchemaCreate})
	} else {
		fks, err = s.changeTable(ctx, tx, p, opts)
	}
	if err != nil {
		return nil, err
	}
	for _, ix := range want.Indexes {
		if err := s.createIndex(ctx, tx, c.Table(), ix); err != nil {
			return nil, err
		}
	}
	if err := s.syncSearch(ctx, tx, c, p.have, want); err != nil {
		return nil, err
	}
	if !p.exists || !hasCounts(p.have) {
		err = s.syncCounts(ctx, tx, c)
	} else {
		err = s.touchTable(ctx, tx, c)
	}
	if err != nil {
		return nil, err
	}
	stored := want
	stored.Kept = p.kept
	storedJSON, _ := json.Marshal(stored)
	if _, err := s.execOnce(ctx, tx, "INSERT INTO kit_collections (key, table_name, definition, hash, updated_at) VALUES (?, ?, ?, ?, ?)"+
		" ON CONFLICT (key) DO UPDATE SET table_name = EXCLUDED.table_name, definition = EXCLUDED.definition, hash = EXCLUDED.hash, updated_at = EXCLUDED.updated_at",
		c.Key(), c.Table(), string(storedJSON), p.hash, time.Now().UTC()); err != nil {
		return nil, fmt.Errorf("store: write kit_collections: %w", err)
	}
	return fks, nil
}

// storedDefinition reads the definition kit recorded under key (nil when
// none) and reports whether its hash is hash: the table is as the
// collection wants it.
func (s *Store) storedDefinition(ctx context.Context, tx bun.Tx, key, hash string) (*tableDef, bool, error) {
	var row storedCollection
	err := s.queryRowOnce(ctx, tx, "SELECT definition, hash FROM kit_collections WHERE key = ?", key).Scan(&row.Definition, &row.Hash)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, false, nil
	case err != nil:
		return nil, false, fmt.Errorf("store: read kit_collections: %w", err)
	}
	var td tableDef
	if err := json.Unmarshal([]byte(row.Definition), &td); err != nil {
		return nil, false, fmt.Errorf("store: kit_collections row %s: %w", key, err)
	}
	return &td, row.Hash == hash, nil
}

// unrecordedTable is the definition of c's table, which kit did not
// record, as its columns tell it: their names, types unknown.
func (s *Store) unrecordedTable(ctx context.Context, tx bun.Tx, c *collections.Collection) (*tableDef, error) {
	cols, err := s.tableColumns(ctx, tx, c.Table())
	if err != nil {
		return nil, err
	}
	have := &tableDef{Table: c.Table()}
	for _, name := range cols {
		switch {
		case strings.HasSuffix(name, sortKeySuffix):
			have.SortKeys = append(have.SortKeys, strings.TrimSuffix(name, sortKeySuffix))
		case strings.HasSuffix(name, uniqueKeySuffix):
			have.UniqueKeys = append(have.UniqueKeys, strings.TrimSuffix(name, uniqueKeySuffix))
		default:
			have.Columns = append(have.Columns, columnDef{Name: name, Type: "unknown"})
		}
	}
	return have, nil
}

func (s *Store) tableExists(ctx context.Context, tx bun.Tx, table string) (bool, error) {
	var n int
	if err := s.queryRowOnce(ctx, tx, s.dialect.tableExistsSQL(), table).Scan(&n); err != nil {
		return false, fmt.Errorf("store: look up table %s: %w", table, err)
	}
	return n > 0, nil
}

func (s *Store) tableColumns(ctx context.Context, tx bun.Tx, table string) ([]string, error) {
	cols, err := s.queryStringsOnce(ctx, tx, s.dialect.tableColumnsSQL(), table)
	if err != nil {
		return nil, fmt.Errorf("store: read columns of %s: %w", table, err)
	}
	return cols, nil
}

func (s *Store) columnSQL(c *collections.Collection, a *collections.Attribute, inCreate bool) string {
	def := quote(a.Column) + " " + columnType(s.dialect, a)
	if a.Managed == collections.ManagedPath && !strings.Contains(def, "COLLATE") {
		// Byte order, so a subtree is one index range whatever the
		// database's locale (see subtreeRange).
		def += s.dialect.byteCollation()
	}
	switch {
	case a.Name == "id":
		def += " PRIMARY KEY NOT NULL"
	case a.Managed == collections.ManagedParent:
		// null for a root
	case a.System && inCreate:
		def += " NOT NULL"
	}
	return def + s.dialect.columnChecks(s, c, a)
}

// refTable is the table a reference column points at; false for
// references to external collections.
func (s *Store) refTable(c *collections.Collection, a *collections.Attribute) (string, bool) {
	if s.registry == nil {
		return "", false
	}
	t, ok := s.registry().Get(a.Field.RefTarget)
	if !ok || t.External() {
		return "", false
	}
	return t.Table(), true
}

// createTable creates c's table: its attributes' columns in attribute
// order, then the sort keys, then the unique keys. Keys last: a row is read from its first column
// on, so a scan that tests other fields never steps over a long text's key
// (docs/decisions/0017). Tables made before keep their order.
func (s *Store) createTable(ctx context.Context, tx bun.Tx, c *collections.Collection) ([]func() error, error) {
	var defs, keys, ukeys []string
	var fks []func() error
	for _, a := range c.Attributes() {
		defs = append(defs, s.columnSQL(c, a, true))
		if hasSortKey(a) {
			keys = append(keys, s.sortKeyColumnSQL(a))
		}
		if hasUniqueKey(a) {
			ukeys = append(ukeys, s.uniqueKeyColumnSQL(a))
		}
		if s.has(featLateForeignKeys) && a.Field != nil && a.Field.RefTarget != "" {
			fks = append(fks, s.pgForeignKey(ctx, tx, c, a))
		}
	}
	defs = append(defs, keys...)
	defs = append(defs, ukeys...)
	q := "CREATE TABLE IF NOT EXISTS " + quote(c.Table()) + " (\n  " + strings.Join(defs, ",\n  ") + "\n)"
	if _, err := s.execOnce(ctx, tx, q); err != nil {
		return nil, fmt.Errorf("store: create table %s: %w", c.Table(), err)
	}
	return fks, nil
}

// pgForeignKey adds a reference's foreign key once every table exists.
func (s *Store) pgForeignKey(ctx context.Context, tx bun.Tx, c *collections.Collection, a *collections.Attribute) func() error {
	return func() error {
		t, ok := s.refTable(c, a)
		if !ok {
			return nil
		}
		name := indexName("fk", c.Table(), a.Column)
		var n int
		if err := s.queryRowOnce(ctx, tx, "SELECT count(*) FROM information_schema.table_constraints WHERE constraint_schema = current_schema() AND constraint_name = ?", name).Scan(&n); err != nil {
			return fmt.Errorf("store: look up %s: %w", name, err)
		}
		if n > 0 {
			return nil
		}
		q := fmt.Sprintf("ALTER TABLE %s ADD CONSTRAINT %s FOREIGN KEY (%s) REFERENCES %s (\"id\")", quote(c.Table()), quote(name), quote(a.Column), quote(t))
		if _, err := s.execOnce(ctx, tx, q); err != nil {
			return fmt.Errorf("store: add foreign key %s: %w", name, err)
		}
		return nil
	}
}

// isNumberLabel reports whether a column type label is a number's, with or
// without meta.integer.
func isNumberLabel(label string) bool {
	return label == string(collections.TypeNumber) || label == integerLabel
}

// retypeNumber converts a's column in place between number and integer
// (label, the new type), keeping its data: a whole number within 2^53 is
// exact either way, and planConversion has checked that every value is
// one when the new type is integer. On SQLite the column keeps its
// declared type (SQLite cannot change it in place) and its values as they
// are stored, which kit reads either way; on PostgreSQL it becomes BIGINT
// or DOUBLE PRECISION, its indexes rebuilt with it.
func (s *Store) retypeNumber(ctx context.Context, tx bun.Tx, c *collections.Collection, a *collections.Attribute, label string) error {
	if !s.has(featAlterColumnType) {
		return nil
	}
	table, col := quote(c.Table()), quote(a.Column)
	q := fmt.Sprintf(`ALTER TABLE %s ALTER COLUMN %s TYPE DOUBLE PRECISION`, table, col)
	if label == integerLabel {
		q = fmt.Sprintf(`ALTER TABLE %s ALTER COLUMN %s TYPE BIGINT USING %s::bigint`, table, col, col)
	}
	if _, err := s.execOnce(ctx, tx, q); err != nil {
		return fmt.Errorf("store: change the type of %s.%s: %w", c.Table(), a.Column, err)
	}
	return nil
}

func (s *Store) dropColumn(ctx context.Context, tx bun.Tx, table, column string, have tableDef) error {
	for _, ix := range have.Indexes {
		for _, col := range ix.Columns {
			if col == column {
				if _, err := s.execOnce(ctx, tx, "DROP INDEX IF EXISTS "+quote(ix.Name)); err != nil {
					return fmt.Errorf("store: drop index %s: %w", ix.Name, err)
				}
			}
		}
	}
	if _, err := s.execOnce(ctx, tx, "ALTER TABLE "+quote(table)+" DROP COLUMN "+quote(column)); err != nil {
		return fmt.Errorf("store: drop column %s.%s: %w", table, column, err)
	}
	return nil
}

func (s *Store) createIndex(ctx context.Context, tx bun.Tx, table string, ix indexDef) error {
	cols := make([]string, len(ix.Columns))
	for i, c := range ix.Columns {
		cols[i] = quote(c)
		if ix.NullsFirst {
			cols[i] += s.dialect.nullsFirst()
		}
	}
	kind := "INDEX"
	if ix.Unique {
		kind = "UNIQUE INDEX"
	}
	q := fmt.Sprintf("CREATE %s IF NOT EXISTS %s ON %s (%s)", kind, quote(ix.Name), quote(table), strings.Join(cols, ", "))
	if _, err := s.execOnce(ctx, tx, q); err != nil {
		return fmt.Errorf("store: create index %s: %w", ix.Name, err)
	}
	return nil
}

// CreateMetaTable creates kit_collections (idempotent).
func CreateMetaTable(ctx context.Context, db bun.IDB) error {
	_, err := db.NewCreateTable().Model((*storedCollection)(nil)).IfNotExists().Exec(ctx)
	if err != nil {
		return fmt.Errorf("store: create kit_collections: %w", err)
	}
	return nil
}
