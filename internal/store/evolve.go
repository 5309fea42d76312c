package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
)

// Schema evolution. Sync first plans what it is to do to every stored
// collection (planTable: from the stored definition, the collection and,
// for a type change, the stored values), refusing a change the data
// cannot take with a *DriftError before any statement changes a table;
// then it applies the plans (syncOne). What it does to an existing table:
//
//   - a field with meta.renamedFrom whose column is missing takes the
//     former column (renamed with its sort and unique key columns, its
//     indexes renamed or made again, the search index rebuilt);
//   - a field whose type changed is converted in place (convert.go);
//   - a removed field's column is kept with its values (the stored
//     definition lists it in Kept), freed of NOT NULL and of its
//     reference so that writes that leave it out work, its indexes and
//     derived key columns dropped; reads and writes never name it. Only
//     SyncOptions.Drop drops it. A field that comes back under the same
//     name takes its kept column again, values and all (converted when
//     its type changed);
//   - a collection with the renamedFrom setting whose table is missing
//     takes the table kit stored under the former key (renameTable).

// SchemaChangeKind says what a SchemaChange does.
type SchemaChangeKind string

// The kinds of SchemaChange.
const (
	// SchemaCreate: the collection's table is created.
	SchemaCreate SchemaChangeKind = "create"
	// SchemaRenameCollection: the table stored under From (a registry
	// key) is renamed to the collection's.
	SchemaRenameCollection SchemaChangeKind = "renameCollection"
	// SchemaAdd: a column is added for a new field of type To.
	SchemaAdd SchemaChangeKind = "add"
	// SchemaRename: the column of field From is renamed to Field's.
	SchemaRename SchemaChangeKind = "rename"
	// SchemaConvert: the field's Values stored values are converted from
	// type From to type To.
	SchemaConvert SchemaChangeKind = "convert"
	// SchemaKeep: a removed field's column is kept, with its Values
	// values, until a sync with SyncOptions.Drop.
	SchemaKeep SchemaChangeKind = "keep"
	// SchemaRestore: a field takes the column kept for it since it was
	// removed, with its values.
	SchemaRestore SchemaChangeKind = "restore"
	// SchemaDrop: a removed field's column is dropped with its Values
	// values.
	SchemaDrop SchemaChangeKind = "drop"
)

// SchemaChange is one change sync makes (or, in a dry run, would make) to a
// stored collection.
type SchemaChange struct {
	// Collection is the collection's registry key, Table its table.
	Collection string `json:"collection"`
	Table      string `json:"table"`
	// Kind is what the change does.
	Kind SchemaChangeKind `json:"kind"`
	// Field is the field's name ("" for a change of the whole table).
	Field string `json:"field,omitempty"`
	// From is the former name (a rename) or type (a conversion).
	From string `json:"from,omitempty"`
	// To is the new type (a conversion, an added field).
	To string `json:"to,omitempty"`
	// Values counts the non-null values the change concerns: converted,
	// kept, dropped.
	Values int `json:"values,omitempty"`
}

// Destructive reports whether the change loses stored values: the drop of
// a kept column.
func (ch SchemaChange) Destructive() bool { return ch.Kind == SchemaDrop }

// String describes the change in a sentence.
func (ch SchemaChange) String() string {
	target := ch.Collection
	if ch.Field != "" {
		target += "." + ch.Field
	}
	switch ch.Kind {
	case SchemaCreate:
		return fmt.Sprintf("create table %s for %s", ch.Table, ch.Collection)
	case SchemaRenameCollection:
		return fmt.Sprintf("rename collection %s to %s (table %s)", ch.From, ch.Collection, ch.Table)
	case SchemaAdd:
		return fmt.Sprintf("add field %s (%s)", target, ch.To)
	case SchemaRename:
		return fmt.Sprintf("rename field %s.%s to %s, keeping its values", ch.Collection, ch.From, ch.Field)
	case SchemaConvert:
		return fmt.Sprintf("convert field %s from %s to %s (%s)", target, ch.From, ch.To, values(ch.Values))
	case SchemaKeep:
		return fmt.Sprintf("keep the column of removed field %s (%s) until a sync with drop", target, values(ch.Values))
	case SchemaRestore:
		return fmt.Sprintf("restore field %s from its kept column", target)
	case SchemaDrop:
		return fmt.Sprintf("drop the column of removed field %s (%s lost)", target, values(ch.Values))
	}
	return fmt.Sprintf("%s %s", ch.Kind, target)
}

func values(n int) string {
	if n == 1 {
		return "1 value"
	}
	return fmt.Sprintf("%d values", n)
}

// tablePlan is what sync is to do to one collection's table.
type tablePlan struct {
	c    *collections.Collection
	want tableDef
	hash string // of want
	// exists: the table is there (after a collection rename, under its
	// former name).
	exists bool
	// have is the stored definition (the catalog's columns for a table kit
	// did not record; nil for a new table), with the names the renames
	// give; before is it without the restored columns.
	have   *tableDef
	before tableDef
	// searchBefore is have's searched columns before the renames.
	searchBefore []string
	// fromKey and fromTable: the collection is renamed from that key and
	// table.
	fromKey, fromTable string
	renames            []fieldRename
	adds               []*collections.Attribute
	converts           []*conversion
	restored           []columnDef
	keep, drop         []columnDef
	// kept is the columns kept for removed fields after the sync.
	kept []columnDef
}

// fieldRename renames the column from to to, and its key columns.
type fieldRename struct {
	from, to           string
	field, formerField string
	sortKey, uniqueKey bool
}

// planSync plans every stored collection of reg before anything is
// changed: the plans of the collections sync can bring in line, and the
// *DriftErrors of the others, joined (nil when none); err is any other
// error.
func (s *Store) planSync(ctx context.Context, tx bun.Tx, reg *collections.Registry, opts SyncOptions, stale map[string]bool) (plans []*tablePlan, refused, err error) {
	var drift []error
	for _, c := range reg.All() {
		if c.External() {
			continue
		}
		p, err := s.planTable(ctx, tx, c, opts, stale[c.Table()])
		switch {
		case errors.Is(err, ErrSchemaDrift):
			drift = append(drift, err)
		case err != nil:
			return nil, nil, err
		case p != nil:
			plans = append(plans, p)
		}
	}
	return plans, errors.Join(drift...), nil
}

// planTable plans c's table; nil when it is as c wants it (and force is
// not set: see staleSearchTriggers).
func (s *Store) planTable(ctx context.Context, tx bun.Tx, c *collections.Collection, opts SyncOptions, force bool) (*tablePlan, error) {
	p := &tablePlan{c: c, want: definitionOf(c)}
	p.hash = definitionHash(p.want)
	have, same, err := s.storedDefinition(ctx, tx, c.Key(), p.hash)
	if err != nil || same && !force && !(opts.Drop && len(have.Kept) > 0) {
		return nil, err
	}
	if p.exists, err = s.tableExists(ctx, tx, c.Table()); err != nil {
		return nil, err
	}
	if !p.exists && have == nil {
		if have, err = s.planTableRename(ctx, tx, p); err != nil {
			return nil, err
		}
	}
	if !p.exists {
		p.have = have
		return p, nil
	}
	if have == nil {
		// A table kit did not record: read its columns, trust nothing.
		if have, err = s.unrecordedTable(ctx, tx, c); err != nil {
			return nil, err
		}
	}
	p.have = have.clone()
	p.searchBefore = have.Search
	if err := p.planRenames(); err != nil {
		return nil, err
	}
	return p, s.planColumns(ctx, tx, p, opts)
}

// planTableRename looks for the table of the key c is renamed from, when
// c has none: the stored definition kit recorded under that key, whose
// table exists. It returns that definition (nil when there is none: c's
// table is then created).
func (s *Store) planTableRename(ctx context.Context, tx bun.Tx, p *tablePlan) (*tableDef, error) {
	from := p.c.RenamedFrom()
	if from == "" {
		return nil, nil
	}
	have, _, err := s.storedDefinition(ctx, tx, from, "")
	if err != nil || have == nil {
		return nil, err
	}
	if p.exists, err = s.tableExists(ctx, tx, have.Table); err != nil || !p.exists {
		return nil, err
	}
	p.fromKey, p.fromTable = from, have.Table
	return have, nil
}

// clone returns a copy of td that shares no slice with it.
func (td *tableDef) clone() *tableDef {
	out := *td
	out.Columns = slices.Clone(td.Columns)
	out.Kept = slices.Clone(td.Kept)
	out.Indexes = slices.Clone(td.Indexes)
	out.Search = slices.Clone(td.Search)
	out.SortKeys = slices.Clone(td.SortKeys)
	out.UniqueKeys = slices.Clone(td.UniqueKeys)
	return &out
}

// planRenames finds the fields to rename: those with meta.renamedFrom
// whose column the table lacks. The former column (kept for a removed
// field, or not) must be there; else it is a *DriftError. p.have then
// takes the new names.
func (p *tablePlan) planRenames() error {
	present := map[string]bool{}
	for _, col := range append(slices.Clone(p.have.Columns), p.have.Kept...) {
		present[col.Name] = true
	}
	var refused []error
	for _, a := range p.c.Attributes() {
		if a.Field == nil || a.Field.Meta.RenamedFrom == "" || present[a.Column] {
			continue
		}
		from := collections.ColumnName(a.Field.Meta.RenamedFrom)
		if !present[from] {
			refused = append(refused, &DriftError{Collection: p.c.Key(), Field: a.Name, RenamedFrom: a.Field.Meta.RenamedFrom})
			continue
		}
		present[from], present[a.Column] = false, true
		p.renames = append(p.renames, fieldRename{from: from, to: a.Column, field: a.Name, formerField: a.Field.Meta.RenamedFrom,
			sortKey: slices.Contains(p.have.SortKeys, from), uniqueKey: slices.Contains(p.have.UniqueKeys, from)})
	}
	if len(refused) > 0 {
		return errors.Join(refused...)
	}
	for _, r := range p.renames {
		p.have.rename(r)
	}
	return nil
}

// rename gives column r.from the name r.to in td (columns, kept columns,
// key and searched columns; indexes are renamed by renameIndexes).
func (td *tableDef) rename(r fieldRename) {
	for _, cols := range [][]columnDef{td.Columns, td.Kept} {
		for i := range cols {
			if cols[i].Name == r.from {
				cols[i].Name, cols[i].Field = r.to, r.field
			}
		}
	}
	for _, names := range [][]string{td.SortKeys, td.UniqueKeys, td.Search} {
		for i := range names {
			if names[i] == r.from {
				names[i] = r.to
			}
		}
	}
}

// planColumns plans the columns of an existing table: each attribute's
// column added, taken back from the kept ones, or converted to its new
// type; each column no attribute has kept (or, with opts.Drop, dropped).
func (s *Store) planColumns(ctx context.Context, tx bun.Tx, p *tablePlan, opts SyncOptions) error {
	p.before = *p.have.clone()
	haveCols, kept := columnsByName(p.have.Columns), columnsByName(p.have.Kept)
	wanted := map[string]bool{}
	var refused []error
	for _, a := range p.c.Attributes() {
		wanted[a.Column] = true
		old, ok := haveCols[a.Column]
		if k, isKept := kept[a.Column]; !ok && isKept {
			p.restored = append(p.restored, k)
			p.have.Columns = append(p.have.Columns, k)
			old, ok = k, true
		}
		switch {
		case !ok:
			p.adds = append(p.adds, a)
		case old.Type == typeLabel(a) || old.Type == "unknown":
		default:
			cv, err := s.planConversion(ctx, tx, p.c, a, old)
			switch {
			case errors.Is(err, ErrSchemaDrift):
				refused = append(refused, err)
			case err != nil:
				return err
			default:
				p.converts = append(p.converts, cv)
			}
		}
	}
	for _, col := range p.have.Columns {
		switch {
		case wanted[col.Name]:
		case opts.Drop:
			p.drop = append(p.drop, col)
		default:
			p.keep = append(p.keep, col)
		}
	}
	for _, col := range p.have.Kept {
		switch {
		case wanted[col.Name]:
		case opts.Drop:
			p.drop = append(p.drop, col)
		default:
			p.kept = append(p.kept, col)
		}
	}
	p.kept = append(p.kept, p.keep...)
	return errors.Join(refused...)
}

// columnsByName indexes cols by their names.
func columnsByName(cols []columnDef) map[string]columnDef {
	m := make(map[string]columnDef, len(cols))
	for _, col := range cols {
		m[col.Name] = col
	}
	return m
}

// note reports a change to opts.Changes and, unless this is a dry run, to
// the log: a kept or dropped column as a warning.
func (s *Store) note(ctx context.Context, opts SyncOptions, c *collections.Collection, ch SchemaChange) {
	ch.Collection, ch.Table = c.Key(), c.Table()
	if opts.Changes != nil {
		opts.Changes(ch)
	}
	if opts.DryRun {
		return
	}
	switch ch.Kind {
	case SchemaKeep:
		s.logger().WarnContext(ctx, "kit: schema sync kept the column of a removed field with its values; reads and writes ignore it, and a sync with drop (kit migrate apply --drop, Config.AllowDestructiveSchemaChanges) drops it",
			slog.String("change", ch.String()))
	case SchemaDrop:
		s.logger().WarnContext(ctx, "kit: schema sync dropped the column of a removed field", slog.String("change", ch.String()))
	case SchemaCreate:
		s.logger().DebugContext(ctx, "kit: schema sync", slog.String("change", ch.String()))
	default:
		s.logger().InfoContext(ctx, "kit: schema sync", slog.String("change", ch.String()))
	}
}

// changeTable brings c's existing table from p.have to p.want: the table
// and column renames, kept, dropped and added columns, conversions, sort
// and unique keys and managed columns; it returns the foreign keys to add
// once every table exists.
func (s *Store) changeTable(ctx context.Context, tx bun.Tx, p *tablePlan, opts SyncOptions) ([]func() error, error) {
	c := p.c
	if p.fromTable != "" {
		if err := s.renameTable(ctx, tx, p, opts); err != nil {
			return nil, err
		}
	}
	if !slices.Equal(p.searchBefore, p.want.Search) {
		// The search triggers name the searched columns: drop them before
		// a column changes; syncSearch builds them again.
		if err := s.dropSearch(ctx, tx, c.Table()); err != nil {
			return nil, err
		}
	}
	if err := s.renameColumns(ctx, tx, p, opts); err != nil {
		return nil, err
	}
	if err := s.keepColumns(ctx, tx, p, opts); err != nil {
		return nil, err
	}
	fks, err := s.addColumns(ctx, tx, p, opts)
	if err != nil {
		return nil, err
	}
	for _, cv := range p.converts {
		if err := s.applyConversion(ctx, tx, c, cv, *p.have); err != nil {
			return nil, err
		}
		s.note(ctx, opts, c, SchemaChange{Kind: SchemaConvert, Field: cv.a.Name, From: typeLabel(cv.from), To: typeLabel(cv.a), Values: cv.total})
	}
	for _, col := range p.restored {
		s.note(ctx, opts, c, SchemaChange{Kind: SchemaRestore, Field: col.fieldName()})
	}
	if err := s.syncSortKeys(ctx, tx, c, *p.have); err != nil {
		return nil, err
	}
	if err := s.syncUniqueKeys(ctx, tx, c, *p.have); err != nil {
		return nil, err
	}
	if err := s.backfillManaged(ctx, tx, c, p.before); err != nil {
		return nil, err
	}
	return fks, nil
}

// renameColumns renames the columns of p.renames with their key columns,
// foreign keys and indexes.
func (s *Store) renameColumns(ctx context.Context, tx bun.Tx, p *tablePlan, opts SyncOptions) error {
	if len(p.renames) == 0 {
		return nil
	}
	t := quote(p.c.Table())
	moved := map[string]string{}
	for _, r := range p.renames {
		pairs := [][2]string{{r.from, r.to}}
		if r.sortKey {
			pairs = append(pairs, [2]string{r.from + sortKeySuffix, r.to + sortKeySuffix})
		}
		if r.uniqueKey {
			pairs = append(pairs, [2]string{r.from + uniqueKeySuffix, r.to + uniqueKeySuffix})
		}
		for _, pr := range pairs {
			if _, err := s.execOnce(ctx, tx, "ALTER TABLE "+t+" RENAME COLUMN "+quote(pr[0])+" TO "+quote(pr[1])); err != nil {
				return fmt.Errorf("store: rename column %s.%s: %w", p.c.Table(), pr[0], err)
			}
			moved[pr[0]] = pr[1]
		}
		if err := s.renameForeignKey(ctx, tx, p.c.Table(), indexName("fk", p.c.Table(), r.from), indexName("fk", p.c.Table(), r.to)); err != nil {
			return err
		}
		s.note(ctx, opts, p.c, SchemaChange{Kind: SchemaRename, Field: r.field, From: r.formerField})
	}
	var err error
	p.have.Indexes, err = s.renameIndexes(ctx, tx, p.have.Indexes, moved, false, p.want.Indexes)
	return err
}

// renameIndexes gives the indexes of have that name a moved column (a
// key of moved), or all of them when the table was renamed, the names
// want gives indexes of their columns: renamed where the engine can,
// else dropped, for sync to create again under the new name. One that
// want has no longer is dropped. It returns the indexes as they are then.
func (s *Store) renameIndexes(ctx context.Context, tx bun.Tx, have []indexDef, moved map[string]string, tableMoved bool, want []indexDef) ([]indexDef, error) {
	var out []indexDef
	for _, ix := range have {
		cols := make([]string, len(ix.Columns))
		changed := tableMoved
		for i, col := range ix.Columns {
			cols[i] = col
			if to, ok := moved[col]; ok {
				cols[i], changed = to, true
			}
		}
		if !changed {
			out = append(out, ix)
			continue
		}
		i := slices.IndexFunc(want, func(w indexDef) bool {
			return slices.Equal(w.Columns, cols) && w.Unique == ix.Unique && w.NullsFirst == ix.NullsFirst
		})
		q := "DROP INDEX IF EXISTS " + quote(ix.Name)
		if i >= 0 {
			if want[i].Name == ix.Name {
				out = append(out, want[i])
				continue
			}
			q = s.dialect.renameIndexSQL(ix.Name, want[i].Name)
			out = append(out, want[i])
		}
		if _, err := s.execOnce(ctx, tx, q); err != nil {
			return nil, fmt.Errorf("store: rename index %s: %w", ix.Name, err)
		}
	}
	return out, nil
}

// keepColumns keeps the columns of p.keep (freed, their indexes dropped)
// and drops those of p.drop.
func (s *Store) keepColumns(ctx context.Context, tx bun.Tx, p *tablePlan, opts SyncOptions) error {
	table := p.c.Table()
	for _, col := range p.keep {
		n, err := s.countValues(ctx, tx, table, col.Name)
		if err != nil {
			return err
		}
		if err := s.dropIndexesOn(ctx, tx, col.Name, *p.have); err != nil {
			return err
		}
		if err := s.freeColumn(ctx, tx, table, col.Name); err != nil {
			return err
		}
		s.note(ctx, opts, p.c, SchemaChange{Kind: SchemaKeep, Field: col.fieldName(), Values: n})
	}
	for _, col := range p.drop {
		n, err := s.countValues(ctx, tx, table, col.Name)
		if err != nil {
			return err
		}
		if err := s.dropColumn(ctx, tx, table, col.Name, *p.have); err != nil {
			return err
		}
		s.note(ctx, opts, p.c, SchemaChange{Kind: SchemaDrop, Field: col.fieldName(), Values: n})
	}
	return nil
}

// countValues counts the non-null values of table's column col.
func (s *Store) countValues(ctx context.Context, tx bun.Tx, table, col string) (int, error) {
	var n int
	if err := s.queryRowOnce(ctx, tx, "SELECT count("+quote(col)+") FROM "+quote(table)).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count the values of %s.%s: %w", table, col, err)
	}
	return n, nil
}

// dropIndexesOn drops the indexes of have that name column col.
func (s *Store) dropIndexesOn(ctx context.Context, tx bun.Tx, col string, have tableDef) error {
	for _, ix := range have.Indexes {
		if slices.Contains(ix.Columns, col) {
			if _, err := s.execOnce(ctx, tx, "DROP INDEX IF EXISTS "+quote(ix.Name)); err != nil {
				return fmt.Errorf("store: drop index %s: %w", ix.Name, err)
			}
		}
	}
	return nil
}

// freeColumn frees table's column col, kept for a removed field, of
// NOT NULL and its reference (see sqlDialect.freeColumnSQL).
func (s *Store) freeColumn(ctx context.Context, tx bun.Tx, table, col string) error {
	declType := ""
	if q := s.dialect.freeColumnQuery(); q != "" {
		switch err := s.queryRowOnce(ctx, tx, q, table, col, table).Scan(&declType); {
		case errors.Is(err, sql.ErrNoRows):
			return nil
		case err != nil:
			return fmt.Errorf("store: read column %s.%s: %w", table, col, err)
		case strings.Trim(declType, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 (),") != "":
			return fmt.Errorf("store: column %s.%s has a declared type kit does not write: %q", table, col, declType)
		}
	}
	for _, q := range s.dialect.freeColumnSQL(table, col, indexName("fk", table, col), declType) {
		if _, err := s.execOnce(ctx, tx, q); err != nil {
			return fmt.Errorf("store: keep column %s.%s: %w", table, col, err)
		}
	}
	return nil
}

// addColumns adds the columns of p.adds; it returns their foreign keys,
// to add once every table exists.
func (s *Store) addColumns(ctx context.Context, tx bun.Tx, p *tablePlan, opts SyncOptions) ([]func() error, error) {
	c := p.c
	var fks []func() error
	for _, a := range p.adds {
		if _, err := s.execOnce(ctx, tx, "ALTER TABLE "+quote(c.Table())+" ADD COLUMN "+s.columnSQL(c, a, false)); err != nil {
			return nil, fmt.Errorf("store: add column %s.%s: %w", c.Table(), a.Column, err)
		}
		if s.has(featLateForeignKeys) && a.Field != nil && a.Field.RefTarget != "" {
			fks = append(fks, s.pgForeignKey(ctx, tx, c, a))
		}
		if !a.System {
			s.note(ctx, opts, c, SchemaChange{Kind: SchemaAdd, Field: a.Name, To: typeLabel(a)})
		}
	}
	return fks, nil
}

// renameTable renames the table of p.fromKey to c's: its search index is
// dropped (sync builds it again under the new names), its indexes and
// foreign keys renamed, its row counts moved, its kit_collections row
// removed (sync writes c's).
func (s *Store) renameTable(ctx context.Context, tx bun.Tx, p *tablePlan, opts SyncOptions) error {
	from, to := p.fromTable, p.c.Table()
	if err := s.dropSearch(ctx, tx, from); err != nil {
		return err
	}
	stmts := [][]any{{"DROP TABLE IF EXISTS " + quote(searchTable(from))}}
	if !s.has(featSearchTable) {
		stmts = nil
	}
	stmts = append(stmts,
		[]any{"ALTER TABLE " + quote(from) + " RENAME TO " + quote(to)},
		[]any{"UPDATE kit_row_counts SET table_name = ? WHERE table_name = ?", to, from},
		[]any{"DELETE FROM kit_collections WHERE key = ?", p.fromKey})
	for _, st := range stmts {
		if _, err := s.execOnce(ctx, tx, st[0].(string), st[1:]...); err != nil {
			return fmt.Errorf("store: rename table %s to %s: %w", from, to, err)
		}
	}
	s.totals.forget(from)
	if err := s.renameForeignKeys(ctx, tx, p); err != nil {
		return err
	}
	var err error
	if p.have.Indexes, err = s.renameIndexes(ctx, tx, p.have.Indexes, nil, true, p.want.Indexes); err != nil {
		return err
	}
	p.have.Table = to
	s.note(ctx, opts, p.c, SchemaChange{Kind: SchemaRenameCollection, From: p.fromKey})
	return nil
}

// renameForeignKeys gives the foreign keys of a renamed table (where
// references are named constraints) the names pgForeignKey gives them.
func (s *Store) renameForeignKeys(ctx context.Context, tx bun.Tx, p *tablePlan) error {
	for _, col := range p.have.Columns {
		if err := s.renameForeignKey(ctx, tx, p.c.Table(), indexName("fk", p.fromTable, col.Name), indexName("fk", p.c.Table(), col.Name)); err != nil {
			return err
		}
	}
	return nil
}

// renameForeignKey gives table's foreign key from, when it has one (and
// references are named constraints), the name to.
func (s *Store) renameForeignKey(ctx context.Context, tx bun.Tx, table, from, to string) error {
	if !s.has(featLateForeignKeys) {
		return nil
	}
	var n int
	if err := s.queryRowOnce(ctx, tx, "SELECT count(*) FROM information_schema.table_constraints WHERE constraint_schema = current_schema() AND constraint_name = ?", from).Scan(&n); err != nil {
		return fmt.Errorf("store: look up %s: %w", from, err)
	}
	if n == 0 {
		return nil
	}
	if _, err := s.execOnce(ctx, tx, "ALTER TABLE "+quote(table)+" RENAME CONSTRAINT "+quote(from)+" TO "+quote(to)); err != nil {
		return fmt.Errorf("store: rename foreign key %s: %w", from, err)
	}
	return nil
}
