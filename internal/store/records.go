package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/sqlexec"
)

// Record is a stored record keyed by JSON field name, values canonical
// (see collections.NormalizeValue).
type Record = map[string]any

// selectList is the column list of every attribute, in attribute order,
// read by position (see scanRowsEach), not by name.
//
// On SQLite each column is written +"column": the same value, but an
// expression rather than the column itself, so it has no declared type.
// The driver (modernc.org/sqlite) asks for the declared type of every TEXT
// value of every row it reads, a C call and a string allocation each, to
// turn values of DATE, DATETIME and TIMESTAMP columns into time.Time; kit
// declares no such column and decodes its values itself (decode). The
// result columns' names change with it (they are not used), an ORDER BY
// by a column's name still means the column, and the plan is the same.
func (s *Store) selectList(c *collections.Collection) string { return s.selectListOf(c, "") }

// selectListOf is selectList with each column qualified by qual (a quoted
// table name and a dot, or "").
func (s *Store) selectListOf(c *collections.Collection, qual string) string {
	attrs := c.Attributes()
	cols := make([]string, len(attrs))
	prefix := s.dialect.hiddenColumn() + qual
	for i, a := range attrs {
		cols[i] = prefix + quote(a.Column)
	}
	return strings.Join(cols, ", ")
}

func (s *Store) scanRecords(ctx context.Context, db bun.IDB, c *collections.Collection, query string, args ...any) ([]Record, error) {
	return s.scanRecordsAnd(ctx, db, c, nil, query, args...)
}

// scanRecordsAnd is scanRecords for a query whose rows have columns after
// the attributes': they are scanned into extra (the last row's stay).
func (s *Store) scanRecordsAnd(ctx context.Context, db bun.IDB, c *collections.Collection, extra []any, query string, args ...any) ([]Record, error) {
	rows, err := s.query(ctx, db, query, args...)
	return s.scanRows(c, extra, rows, err)
}

// scanKeyed and scanKeyedAnd are scanRecords and scanRecordsAnd for a
// statement by key (see queryKeyed).
func (s *Store) scanKeyed(ctx context.Context, db bun.IDB, c *collections.Collection, query string, args ...any) ([]Record, error) {
	return s.scanKeyedAnd(ctx, db, c, nil, query, args...)
}

func (s *Store) scanKeyedAnd(ctx context.Context, db bun.IDB, c *collections.Collection, extra []any, query string, args ...any) ([]Record, error) {
	rows, err := s.queryKeyed(ctx, db, query, args...)
	return s.scanRows(c, extra, rows, err)
}

// scanRows reads the records of rows, the result of a query (err its
// error), closing rows.
func (s *Store) scanRows(c *collections.Collection, extra []any, rows *sql.Rows, err error) ([]Record, error) {
	return s.scanRowsEach(c, extra, rows, err, nil)
}

// scanRowsEach is scanRows calling each (when not nil) after every row is
// read, while extra holds that row's values.
func (s *Store) scanRowsEach(c *collections.Collection, extra []any, rows *sql.Rows, err error, each func(Record)) ([]Record, error) {
	if err != nil {
		return nil, fmt.Errorf("store: query %s: %w", c.Table(), err)
	}
	defer rows.Close()
	attrs := c.Attributes()
	vals := make([]any, len(attrs))
	ptrs := make([]any, len(attrs), len(attrs)+len(extra))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	ptrs = append(ptrs, extra...)
	var out []Record
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("store: scan %s: %w", c.Table(), err)
		}
		rec := make(Record, len(attrs))
		for i, a := range attrs {
			v, err := decode(s.dialect, a, vals[i])
			if err != nil {
				return nil, err
			}
			rec[a.Name] = v
		}
		out = append(out, rec)
		if each != nil {
			each(rec)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: read %s: %w", c.Table(), err)
	}
	return out, nil
}

// Get returns the record id of team teamID, or ErrNotFound.
func (s *Store) Get(ctx context.Context, r Read, c *collections.Collection, teamID, id string) (Record, error) {
	if !storableID(id) {
		return nil, ErrNotFound
	}
	col, dst := r.probeColumn()
	recs, err := s.scanKeyedAnd(ctx, r.db(s), c, extraOf(dst), s.getText(c, col), teamID, id)
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, ErrNotFound
	}
	return recs[0], nil
}

// GetForUpdate is Get inside a write transaction db that must see the
// record as no other transaction can change it until db ends: on
// PostgreSQL the row is locked (SELECT ... FOR UPDATE; a concurrent writer
// waits, and a read that waited sees the row as the other transaction
// committed it), so a check on the record and the write that depends on
// it are atomic, and the record read is the version the write replaces
// (what kit gives the audit trail and listeners as before). SQLite's
// write transactions are serialized already, so there it is Get.
func (s *Store) GetForUpdate(ctx context.Context, db bun.IDB, c *collections.Collection, teamID, id string) (Record, error) {
	if !storableID(id) {
		return nil, ErrNotFound
	}
	if !s.has(featRowLocks) {
		// Write transactions are serialized: nothing else changes the row.
		return s.Get(ctx, InTx(db), c, teamID, id)
	}
	recs, err := s.scanKeyed(ctx, db, c, s.getSQL(c)+" FOR UPDATE", teamID, id)
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, ErrNotFound
	}
	return recs[0], nil
}

// GetAnyTeam returns the record id whatever its team (super-admin reads).
func (s *Store) GetAnyTeam(ctx context.Context, db bun.IDB, c *collections.Collection, id string) (Record, error) {
	if !storableID(id) {
		return nil, ErrNotFound
	}
	q := "SELECT " + s.selectList(c) + " FROM " + quote(c.Table()) + ` WHERE "id" = ?`
	recs, err := s.scanKeyed(ctx, db, c, q, id)
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, ErrNotFound
	}
	return recs[0], nil
}

// GetMany returns the records of team teamID among ids, in the order of
// ids; unknown ids are left out.
func (s *Store) GetMany(ctx context.Context, r Read, c *collections.Collection, teamID string, ids []string) ([]Record, error) {
	if len(ids) == 0 {
		return []Record{}, nil
	}
	col, dst := r.probeColumn()
	args := s.dialect.getManyArgs(teamID, ids)
	recs, err := s.scanKeyedAnd(ctx, r.db(s), c, extraOf(dst), s.getManyText(c, col), args...)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]Record, len(recs))
	for _, rec := range recs {
		byID[rec["id"].(string)] = rec
	}
	out := make([]Record, 0, len(recs))
	for _, id := range ids {
		if rec, ok := byID[id]; ok {
			out = append(out, rec)
		}
	}
	return out, nil
}

// getManySQL reads records by id: the primary key finds them, the team
// is tested on each (see teamTest). probe is a version probe's column or
// "".
//
// On SQLite the ids come as one argument, a JSON array (jsonIDs), and the
// statement walks it (json_each) and looks each id up in the primary key,
// the team tested with a unary + as in teamTest: "id" IN (?, ?, ...) would
// first copy the ids into a temporary B-tree, bind one argument per id and
// make one statement text per number of ids. Its arguments are the array
// and the team.
func (s *Store) getManySQL(c *collections.Collection, probe string) string {
	return s.dialect.getManySQL(s, c, probe)
}

// hiddenArg is a placeholder whose value SQLite's planner does not read:
// "+?" on SQLite, "?" on PostgreSQL. SQLite reads some bound values when
// it plans a statement (a LIMIT's, to estimate its rows; a LIKE or GLOB
// pattern, for a prefix it could look up; and, once ANALYZE has stored
// STAT4 samples, the value compared with an indexed column, to estimate
// how many rows match) and then marks the statement to be planned again
// whenever that argument is bound anew: a cached prepared statement would
// be compiled again on every call. A unary + hides the argument from the
// planner (it is an expression, no longer a variable; its value, type,
// affinity and collation are the argument's): the value is read when the
// statement runs, an index on the column it is compared with is used as
// before, and the statement compiles once. A list argument written "+?"
// expands to "+?, +?, ..." (sqlexec.List).
//
// kit writes it for every argument of a read that the planner could read:
// LIMITs, the team of a list, a count or a reference check, filter values
// and search patterns. Lookups by a unique key (a record by id, a unique
// field's value) need none: SQLite plans a unique key's equality without
// reading its value (TestSQLiteReadsAreCompiledOnce).
func (s *Store) hiddenArg() string { return s.dialect.hiddenArg() }

// jsonIDs is ids as the JSON array getManySQL walks on SQLite. Only what
// JSON requires is escaped (quotation marks, backslashes and control
// characters); every other byte is written as it is, so that json_each
// gives back each id byte for byte, even one that is not valid UTF-8
// (which encoding/json would change into U+FFFD).
func jsonIDs(ids []string) string {
	n := 2
	for _, id := range ids {
		n += len(id) + 3
	}
	b := make([]byte, 0, n)
	b = append(b, '[')
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		for j := 0; j < len(id); j++ {
			switch c := id[j]; {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			default:
				b = append(b, c)
			}
		}
		b = append(b, '"')
	}
	return string(append(b, ']'))
}

const hexDigits = "0123456789abcdef"

// teamTest is the condition on a row's team, with one argument. byKey
// says that the query also names its rows by primary key (?ids=): the
// team is then written so that no engine can look it up in an index (a
// unary + on SQLite, an expression on PostgreSQL), and the plan is the
// primary key's whatever the statistics say. Without statistics SQLite
// otherwise walks the team's index, every row of the team, for three ids
// or more.
func (s *Store) teamTest(byKey bool) string {
	switch {
	case !byKey:
		return `"team_id" = ` + s.hiddenArg()
	default:
		return s.dialect.keyedTeamTest()
	}
}

// Insert stores rec, which must hold every system field it needs (id,
// teamId, owner and, with metadata, the four metadata fields).
func (s *Store) Insert(ctx context.Context, db bun.IDB, c *collections.Collection, rec Record) error {
	q, args, err := s.insertOf(c, rec)
	if err != nil {
		return err
	}
	if _, err := s.execKeyed(ctx, db, q, args...); err != nil {
		return classifyFor(c, fmt.Errorf("store: insert %s: %w", c.Table(), err))
	}
	team, _ := rec["teamId"].(string)
	return s.countRows(ctx, db, c, team, 1)
}

// insertOf returns the INSERT of rec's attributes into c's table, with its
// row count (counted), and its arguments. A record with every attribute
// (what Create stores) gets the memoized text (insertSQL).
func (s *Store) insertOf(c *collections.Collection, rec Record) (string, []any, error) {
	full := true
	for _, a := range c.Attributes() {
		if _, ok := rec[a.Name]; !ok {
			full = false
			break
		}
	}
	cols, marks, args, err := s.insertParts(c, rec, !full)
	if err != nil {
		return "", nil, err
	}
	if full {
		return s.textsOf(c).insert, args, nil
	}
	return s.counted(c, insertSQLFor(c.Table(), cols, marks), 1), args, nil
}

// insertParts returns the arguments of rec's attributes in c's table (sort
// and unique keys included) and, with names, their quoted columns and placeholders.
func (s *Store) insertParts(c *collections.Collection, rec Record, names bool) (cols, marks []string, args []any, err error) {
	args = make([]any, 0, len(rec)+4)
	for _, a := range c.Attributes() {
		v, ok := rec[a.Name]
		if !ok {
			continue
		}
		ev, err := encode(s.dialect, a, v)
		if err != nil {
			return nil, nil, nil, err
		}
		args = append(args, ev)
		if names {
			cols = append(cols, quote(a.Column))
			marks = append(marks, "?")
		}
		if hasSortKey(a) {
			args = append(args, sortKeyValue(ev))
			if names {
				cols = append(cols, quote(sortKeyColumn(a)))
				marks = append(marks, "?")
			}
		}
		if hasUniqueKey(a) {
			args = append(args, uniqueKeyValue(ev))
			if names {
				cols = append(cols, quote(uniqueKeyColumn(a)))
				marks = append(marks, "?")
			}
		}
	}
	return cols, marks, args, nil
}

// InsertLogged is Insert on PostgreSQL as one statement outside any
// transaction (it commits by itself): the record, its row count and, when
// ch is not nil, its change log row are written together or not at all
// (see the top of changes.go). Concurrent creates of a collection may
// share a statement (see batch.go); each returns once the statement
// holding its record has committed, with its own outcome. Under a
// WriteGuard the statement writes only when the guard holds, and returns
// ErrWriteGuardRefused otherwise. It returns ErrUnsupported on SQLite,
// whose writes go through RunWrite.
//
// rows, optional commit rows that JoinsRows accepts, are inserted in the
// same statement when the record is (see joinedrows.go).
func (s *Store) InsertLogged(ctx context.Context, g *WriteGuard, c *collections.Collection, rec Record, ch *Change, rows ...CommitRows) error {
	if !s.has(featConcurrentWrites) {
		return ErrUnsupported
	}
	cols, _, args, err := s.insertParts(c, rec, true)
	if err != nil {
		return err
	}
	extra, err := s.joinedRowsParams(rows)
	if err != nil {
		return err
	}
	g, _, _ = stmtGuard(g)
	return s.insertBatched(ctx, c, ch, cols, args, g, rows, extra)
}

// insertOne writes one record (its columns cols and their values args),
// its row count, its change row and its joined rows in one statement,
// under guard g (nil: none).
func (s *Store) insertOne(ctx context.Context, g *WriteGuard, c *collections.Collection, cols []string, args []any, ch *Change, rows []CommitRows) error {
	marks := make([]string, len(cols))
	for i := range marks {
		marks[i] = "?"
	}
	args = slices.Clip(args)
	g, cond, garg := stmtGuard(g)
	var q string
	if g == nil {
		q = insertSQLFor(c.Table(), cols, marks)
	} else {
		// INSERT ... SELECT: PostgreSQL types the parameters from the
		// columns, as it does for VALUES.
		q = "INSERT INTO " + quote(c.Table()) + " (" + strings.Join(cols, ", ") + ") SELECT " + strings.Join(marks, ", ") + " WHERE " + cond
		args = append(args, garg)
	}
	q, args, err := s.logged(c, "", q, `"team_id"`, 1, ch, rows, "SELECT count(*) FROM kit_row", args)
	if err != nil {
		return err
	}
	var n int64
	if err := s.queryRowKeyed(ctx, s.db, q, args...).Scan(&n); err != nil {
		return classifyFor(c, fmt.Errorf("store: insert %s: %w", c.Table(), err))
	}
	if g != nil {
		return g.settle(n > 0) // only the guard keeps the row out
	}
	return nil
}

// Update sets the fields in changes on record id of team teamID. It
// reports ErrNotFound when no such record exists.
func (s *Store) Update(ctx context.Context, db bun.IDB, c *collections.Collection, teamID, id string, changes Record) error {
	if !storableID(id) {
		return ErrNotFound
	}
	sets, args, err := s.setList(c, changes)
	if err != nil || len(sets) == 0 {
		return err
	}
	args = append(args, teamID, id)
	// On PostgreSQL the statement also inserts the delta row of 0 that
	// marks the team's rows changed (totals.go); its rows affected are
	// the updated rows still.
	q := s.counted(c, s.dialect.updateOne()+" "+quote(c.Table())+" SET "+strings.Join(sets, ", ")+` WHERE "team_id" = ? AND "id" = ?`, 0)
	res, err := s.execKeyed(ctx, db, q, args...)
	if err != nil {
		return classifyFor(c, fmt.Errorf("store: update %s: %w", c.Table(), err))
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return ErrNotFound
	}
	if s.has(featDeltaCounts) {
		return nil // an update adds no delta row
	}
	return s.touchRows(ctx, db, c, teamID)
}

// setList returns the "column = ?" assignments of changes and their
// encoded values (an attribute with a sort key or a unique key sets those
// too); id and teamId are never set.
func (s *Store) setList(c *collections.Collection, changes Record) ([]string, []any, error) {
	var sets []string
	var args []any
	for _, a := range c.Attributes() {
		v, ok := changes[a.Name]
		if !ok || a.Name == "id" || a.Name == "teamId" {
			continue
		}
		ev, err := encode(s.dialect, a, v)
		if err != nil {
			return nil, nil, err
		}
		sets = append(sets, quote(a.Column)+" = ?")
		args = append(args, ev)
		if hasSortKey(a) {
			sets = append(sets, quote(sortKeyColumn(a))+" = ?")
			args = append(args, sortKeyValue(ev))
		}
		if hasUniqueKey(a) {
			sets = append(sets, quote(uniqueKeyColumn(a))+" = ?")
			args = append(args, uniqueKeyValue(ev))
		}
	}
	return sets, args, nil
}

// ErrUnsupported: the operation is not available on this engine.
var ErrUnsupported = errors.New("store: not supported on this engine")

// UpdateReturningBefore is Update on PostgreSQL in one statement that
// also returns the record as it was just before it: the row is locked
// first (SELECT ... FOR UPDATE in the statement), so what it returns is
// the version the update replaced, whatever other transactions committed
// meanwhile. With ownerID not empty only a record of that owner is
// updated. It returns ErrNotFound, having changed nothing, when no record
// matched (none, another team's, another owner's), and ErrUnsupported on
// SQLite. changes must set at least one attribute.
func (s *Store) UpdateReturningBefore(ctx context.Context, db bun.IDB, c *collections.Collection, teamID, id, ownerID string, changes Record) (Record, error) {
	if !storableID(id) {
		return nil, ErrNotFound
	}
	if !s.has(featConcurrentWrites) {
		return nil, ErrUnsupported
	}
	sets, args, err := s.setList(c, changes)
	if err != nil {
		return nil, err
	}
	if len(sets) == 0 {
		return nil, errors.New("store: UpdateReturningBefore: nothing to set")
	}
	table, before := quote(c.Table()), quote("kit_before")
	var ret []string
	for _, a := range c.Attributes() {
		ret = append(ret, before+"."+quote(a.Column))
	}
	sub, subArgs, err := s.lockedGet(c, teamID, id, ownerID, "", nil)
	if err != nil {
		return nil, err
	}
	args = append(args, subArgs...)
	// The delta row of 0 that marks the team's rows changed (totals.go)
	// is inserted by the same statement.
	q := "WITH kit_row AS (UPDATE " + table + " SET " + strings.Join(sets, ", ") +
		" FROM (" + sub + ") AS " + before +
		" WHERE " + table + `."team_id" = ` + before + `."team_id" AND ` + table + `."id" = ` + before + `."id"` +
		" RETURNING " + strings.Join(ret, ", ") + ", " + table + `."team_id" AS kit_team)` +
		", kit_count AS (" + deltaRows(c, "kit_team", "0", false) + ")" +
		" SELECT " + s.selectList(c) + " FROM kit_row"
	recs, err := s.scanKeyed(ctx, db, c, q, args...)
	if err != nil {
		return nil, classifyFor(c, fmt.Errorf("store: update %s: %w", c.Table(), err))
	}
	if len(recs) == 0 {
		return nil, ErrNotFound
	}
	return recs[0], nil
}

// lockedGet is the read of record id that locks its row (FOR UPDATE),
// of ownerID's records only when ownerID is not empty, and its arguments.
// cond, when not empty, is one more condition, with its argument arg.
func (s *Store) lockedGet(c *collections.Collection, teamID, id, ownerID, cond string, arg any) (string, []any, error) {
	q, args := s.getSQL(c), []any{teamID, id}
	if ownerID != "" {
		owner, ok := c.Attribute("owner")
		if !ok {
			return "", nil, fmt.Errorf("store: update %s: no owner attribute", c.Table())
		}
		q += " AND " + quote(owner.Column) + " = ?"
		args = append(args, ownerID)
	}
	if cond != "" {
		q += " AND " + cond
		args = append(args, arg)
	}
	return q + " FOR UPDATE", args, nil
}

// UpdateLogged is UpdateReturningBefore outside any transaction, as one
// statement that commits by itself and writes the record only when one
// attribute of differ (attribute name to new value, each one that
// ComparesInSQL) is distinct from its stored value as PostgreSQL compares
// them; ch, when not nil, is added to the change log in the same
// statement (see the top of changes.go), so the record and its change row
// are written together, or neither is. It returns the record as it was
// before and whether it was written (false: equal to differ, nothing
// written). It returns ErrNotFound, having written nothing, when no record
// matched (none, another team's, another owner's), and ErrUnsupported on
// SQLite. Under a WriteGuard the statement reads and writes the record only
// when the guard holds, and returns ErrWriteGuardRefused otherwise.
func (s *Store) UpdateLogged(ctx context.Context, g *WriteGuard, c *collections.Collection, teamID, id, ownerID string, changes, differ Record, ch *Change) (Record, bool, error) {
	if !storableID(id) {
		return nil, false, ErrNotFound
	}
	if !s.has(featConcurrentWrites) {
		return nil, false, ErrUnsupported
	}
	sets, setArgs, err := s.setList(c, changes)
	if err != nil {
		return nil, false, err
	}
	if len(sets) == 0 {
		return nil, false, errors.New("store: UpdateLogged: nothing to set")
	}
	var compared []string
	var differArgs []any
	for _, a := range c.Attributes() {
		v, ok := differ[a.Name]
		if !ok {
			continue
		}
		if !ComparesInSQL(c, a.Name) {
			return nil, false, fmt.Errorf("store: UpdateLogged: %s cannot be compared in SQL", a.Name)
		}
		ev, err := encode(s.dialect, a, v)
		if err != nil {
			return nil, false, err
		}
		compared = append(compared, quote(a.Column))
		differArgs = append(differArgs, ev)
	}
	if len(compared) == 0 {
		return nil, false, errors.New("store: UpdateLogged: nothing to compare")
	}
	// Concurrent updates of c that set and compare the same columns may
	// share a statement (see batch.go).
	u := &update{sets: sets, compared: compared}
	g, _, _ = stmtGuard(g)
	r := &batchReq{ctx: ctx, ch: ch, team: teamID, id: id, owner: ownerID, args: setArgs, differ: differArgs, guard: g}
	err = s.shareUpdate(c, u, r, len(setArgs)+len(differArgs)+10)
	return r.before, r.written, err
}

// shareUpdate runs update r of shape u (see share), params being its
// share of a statement's parameters.
func (s *Store) shareUpdate(c *collections.Collection, u *update, r *batchReq, params int) error {
	shape := strings.Join(u.sets, ",") + "|" + strings.Join(u.compared, ",")
	if r.owner != "" {
		shape += "|owner"
	}
	if u.versioned {
		shape += "|version"
	}
	return s.share(keyOf("update", c, []string{shape}, r.ch != nil, r.guard), r, params,
		func(ctx context.Context, r *batchReq) error { return s.updateOne(ctx, c, u, r) },
		func(batch []*batchReq) error { return s.runUpdateBatch(c, u, batch) })
}

// GetVersioned is Get outside any transaction, with the row version the
// record has (PostgreSQL's xmin, which every write of the row changes),
// for UpdateLoggedAt. Concurrent reads of c share a statement, as writes
// do (see batch.go). It returns ErrNotFound when team teamID has no
// record id, and ErrUnsupported on SQLite.
func (s *Store) GetVersioned(ctx context.Context, c *collections.Collection, teamID, id string) (Record, string, error) {
	if !storableID(id) {
		return nil, "", ErrNotFound
	}
	if !s.has(featConcurrentWrites) {
		return nil, "", ErrUnsupported
	}
	r := &batchReq{ctx: ctx, team: teamID, id: id}
	err := s.share(keyOf("get-versioned", c, nil, false, nil), r, 3,
		func(ctx context.Context, r *batchReq) error { return s.getVersionedOne(ctx, c, r) },
		func(batch []*batchReq) error { return s.runGetVersionedBatch(c, batch) })
	if err != nil {
		return nil, "", err
	}
	return r.before, r.version, nil
}

// getVersionedOne reads r's record and version alone.
func (s *Store) getVersionedOne(ctx context.Context, c *collections.Collection, r *batchReq) error {
	var version string
	recs, err := s.scanKeyedAnd(ctx, s.db, c, []any{&version}, s.getSQLWith(c, ", CAST(xmin AS TEXT)"), r.team, r.id)
	if err != nil {
		return err
	}
	if len(recs) == 0 {
		return ErrNotFound
	}
	r.before, r.version = recs[0], version
	return nil
}

// runGetVersionedBatch reads the records and versions of batch in one
// statement, and sets every member's outcome (ErrNotFound for a record the
// team does not have).
func (s *Store) runGetVersionedBatch(c *collections.Collection, batch []*batchReq) error {
	var b strings.Builder
	args := make([]any, 0, len(batch)*3)
	b.WriteString("SELECT " + s.selectListOf(c, "kit_t.") + ", CAST(kit_t.xmin AS TEXT), kit_v.kit_k FROM " + quote(c.Table()) + " AS kit_t JOIN (VALUES ")
	for i, r := range batch {
		if i > 0 {
			b.WriteString(", (?, ?, ?)")
		} else {
			b.WriteString("(CAST(? AS INTEGER), CAST(? AS TEXT), CAST(? AS TEXT))")
		}
		args = append(args, i, r.team, r.id)
	}
	b.WriteString(`) AS kit_v (kit_k, kit_team, kit_rid) ON kit_t."team_id" = kit_v.kit_team AND kit_t."id" = kit_v.kit_rid`)
	ctx := context.WithoutCancel(batch[0].ctx)
	var version string
	var k int64
	rows, err := s.queryKeyed(ctx, s.db, b.String(), args...)
	if _, err := s.scanRowsEach(c, []any{&version, &k}, rows, err, func(rec Record) {
		if k >= 0 && int(k) < len(batch) {
			batch[k].before, batch[k].version = rec, version
		}
	}); err != nil {
		return fmt.Errorf("store: read %s: %w", c.Table(), err)
	}
	for _, r := range batch {
		if r.before == nil {
			r.err = ErrNotFound
		}
	}
	return nil
}

// UpdateLoggedAt is UpdateLogged of a record read with GetVersioned: one
// statement, outside any transaction, that writes changes (which must set
// something) only when the record still has version, with ch's change
// row when ch is not nil and rows (optional commit rows that JoinsRows
// accepts, see joinedrows.go). It returns the record as it was before,
// and ErrNotFound, having written nothing, when the record is gone or has
// been written since it was read. Under a WriteGuard it writes only when
// the guard holds, and returns ErrWriteGuardRefused otherwise. It returns
// ErrUnsupported on SQLite.
func (s *Store) UpdateLoggedAt(ctx context.Context, g *WriteGuard, c *collections.Collection, teamID, id, version string, changes Record, ch *Change, rows ...CommitRows) (Record, error) {
	if !storableID(id) {
		return nil, ErrNotFound
	}
	if !s.has(featConcurrentWrites) {
		return nil, ErrUnsupported
	}
	sets, setArgs, err := s.setList(c, changes)
	if err != nil {
		return nil, err
	}
	if len(sets) == 0 {
		return nil, errors.New("store: UpdateLoggedAt: nothing to set")
	}
	extra, err := s.joinedRowsParams(rows)
	if err != nil {
		return nil, err
	}
	g, _, _ = stmtGuard(g)
	r := &batchReq{ctx: ctx, ch: ch, team: teamID, id: id, args: setArgs, guard: g, version: version, rows: rows}
	err = s.shareUpdate(c, &update{sets: sets, versioned: true}, r, len(setArgs)+11+extra)
	if err == nil && !r.written {
		// Found with its version, it is written: no value is compared.
		return nil, fmt.Errorf("store: UpdateLoggedAt: %s %s found but not written", c.Table(), id)
	}
	return r.before, err
}

// update is the shape of an UpdateLogged or UpdateLoggedAt: its
// assignments ("column = ?"), the quoted columns its values are compared
// with (the record is written when one differs; none: always), and
// whether the record must have the version its write names.
type update struct {
	sets, compared []string
	versioned      bool
}

// updateOne runs update r alone, in one statement under its guard,
// setting r.before and r.written.
func (s *Store) updateOne(ctx context.Context, c *collections.Collection, u *update, r *batchReq) error {
	g, cond, garg := stmtGuard(r.guard)
	sub, args, err := s.lockedGet(c, r.team, r.id, r.owner, cond, garg)
	if err != nil {
		return err
	}
	if u.versioned {
		sub = strings.TrimSuffix(sub, " FOR UPDATE") + " AND CAST(xmin AS TEXT) = ? FOR UPDATE"
		args = append(args, r.version)
	}
	args = append(args, r.args...)
	table, before := quote(c.Table()), quote("kit_before")
	ors := make([]string, len(u.compared))
	for i, col := range u.compared {
		ors[i] = before + "." + col + " IS DISTINCT FROM ?"
	}
	args = append(args, r.differ...)
	q := "UPDATE " + table + " SET " + strings.Join(u.sets, ", ") + " FROM " + before +
		" WHERE " + table + `."team_id" = ` + before + `."team_id" AND ` + table + `."id" = ` + before + `."id"`
	if len(ors) > 0 {
		q += " AND (" + strings.Join(ors, " OR ") + ")"
	}
	q, args, err = s.logged(c, before+" AS ("+sub+")", q, table+`."team_id"`, 0, r.ch, r.rows,
		"SELECT "+before+".*, (SELECT count(*) FROM kit_row) FROM "+before, args)
	if err != nil {
		return err
	}
	var written int64
	recs, err := s.scanKeyedAnd(ctx, s.db, c, []any{&written}, q, args...)
	if err != nil {
		return classifyFor(c, fmt.Errorf("store: update %s: %w", c.Table(), err))
	}
	if err := s.settleGuard(ctx, g, int64(len(recs))); err != nil {
		return err
	}
	if len(recs) == 0 {
		return ErrNotFound
	}
	r.before, r.written = recs[0], written > 0
	return nil
}

// ComparesInSQL reports whether UpdateLogged can compare attribute name
// of c in SQL the way kit does: values kit finds equal (the same JSON)
// are never distinct in PostgreSQL. Every type but the JSON ones, whose
// numbers PostgreSQL keeps exactly and kit reads as float64.
func ComparesInSQL(c *collections.Collection, name string) bool {
	a, ok := c.Attribute(name)
	if !ok {
		return false
	}
	switch a.Type {
	case collections.TypeJSON, collections.TypeRepeater, collections.TypeArray:
		return false
	}
	return true
}

// Delete removes record id of team teamID, or reports ErrNotFound.
// A record that the team's records of other (or the same) collections
// still reference is refused with a *ConstraintError of Kind
// ConstraintReferenced naming them and their counts, before anything is
// deleted.
func (s *Store) Delete(ctx context.Context, db bun.IDB, c *collections.Collection, teamID, id string) error {
	if !storableID(id) {
		return ErrNotFound
	}
	refs, err := s.referrers(ctx, db, c, teamID, id)
	if err != nil {
		return err
	}
	if len(refs) > 0 {
		return &ConstraintError{Kind: collections.ConstraintReferenced, Message: referencedMessage, ReferencedBy: refs}
	}
	// On PostgreSQL the statement also inserts the count's delta row, one
	// per deleted row: its rows affected are the deleted rows still.
	res, err := s.execKeyed(ctx, db, s.textsOf(c).delete, teamID, id)
	if err != nil {
		return deleteError(c, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("store: delete %s: %w", c.Table(), err)
	}
	if n == 0 {
		return ErrNotFound
	}
	return s.countRows(ctx, db, c, teamID, -n)
}

// DeleteLogged is Delete on PostgreSQL as one statement outside any
// transaction (it commits by itself): the record's removal, its row count
// and, when ch is not nil, its change log row are written together or not
// at all (see the top of changes.go). Under a WriteGuard the statement
// deletes only when the guard holds, and returns ErrWriteGuardRefused
// otherwise. It returns ErrUnsupported on SQLite. rows, optional commit
// rows that JoinsRows accepts, are inserted in the same statement when the
// record is deleted (see joinedrows.go).
func (s *Store) DeleteLogged(ctx context.Context, g *WriteGuard, c *collections.Collection, teamID, id string, ch *Change, rows ...CommitRows) error {
	if !storableID(id) {
		return ErrNotFound
	}
	if !s.has(featConcurrentWrites) {
		return ErrUnsupported
	}
	refs, err := s.referrers(ctx, s.db, c, teamID, id)
	if err != nil {
		return err
	}
	if len(refs) > 0 {
		return &ConstraintError{Kind: collections.ConstraintReferenced, Message: referencedMessage, ReferencedBy: refs}
	}
	extra, err := s.joinedRowsParams(rows)
	if err != nil {
		return err
	}
	// Concurrent deletes of c may share a statement (see batch.go).
	g, _, _ = stmtGuard(g)
	r := &batchReq{ctx: ctx, ch: ch, team: teamID, id: id, guard: g, rows: rows}
	return s.share(keyOf("delete", c, nil, ch != nil, g), r, 9+extra,
		func(ctx context.Context, r *batchReq) error {
			return s.deleteOne(ctx, r.guard, c, r.team, r.id, r.ch, r.rows)
		},
		func(batch []*batchReq) error { return s.runDeleteBatch(c, batch) })
}

// deleteOne deletes record id of team teamID, its row count and, when ch
// is not nil, writes its change row, in one statement, under guard g
// (nil: none).
func (s *Store) deleteOne(ctx context.Context, g *WriteGuard, c *collections.Collection, teamID, id string, ch *Change, rows []CommitRows) error {
	del, args := "DELETE FROM "+quote(c.Table())+` WHERE "team_id" = ? AND "id" = ?`, []any{teamID, id}
	g, cond, garg := stmtGuard(g)
	if g != nil {
		del += " AND " + cond
		args = append(args, garg)
	}
	q, args, err := s.logged(c, "", del, `"team_id"`, -1, ch, rows, "SELECT * FROM kit_row", args)
	if err != nil {
		return err
	}
	res, err := s.queryKeyed(ctx, s.db, q, args...)
	if err != nil {
		return deleteError(c, err)
	}
	n := 0
	for res.Next() {
		n++
	}
	if err := res.Err(); err != nil {
		res.Close()
		return deleteError(c, err)
	}
	if err := res.Close(); err != nil {
		return deleteError(c, err)
	}
	if err := s.settleGuard(ctx, g, int64(n)); err != nil {
		return err
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

// deleteError classifies the error of a record's DELETE statement: a
// foreign key that refuses it is ConstraintReferenced.
func deleteError(c *collections.Collection, err error) error {
	err = classify(fmt.Errorf("store: delete %s: %w", c.Table(), err))
	var ce *ConstraintError
	if errors.As(err, &ce) && ce.Kind == collections.ConstraintReference {
		// A reference written between the count and the delete: the
		// foreign key still refuses it.
		ce.Kind = collections.ConstraintReferenced
		ce.Message = referencedMessage
	}
	return err
}

// Exists reports whether team teamID has a record id in c.
func (s *Store) Exists(ctx context.Context, db bun.IDB, c *collections.Collection, teamID, id string) (bool, error) {
	if !storableID(id) {
		return false, nil
	}
	var n int
	err := s.queryRowKeyed(ctx, db, existsSQL(c), teamID, id).Scan(&n)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return false, fmt.Errorf("store: look up %s: %w", c.Table(), err)
	}
	return n > 0, nil
}

// Taken reports whether another record of team teamID (not exceptID)
// holds value in attribute a, or, for a field with meta.uniqueIgnoreCase,
// a value with the same collections.UniqueKey.
func (s *Store) Taken(ctx context.Context, db bun.IDB, c *collections.Collection, a *collections.Attribute, teamID, exceptID string, value any) (bool, error) {
	ev, err := encode(s.dialect, a, value)
	if err != nil {
		return false, err
	}
	col := quote(a.Column)
	if hasUniqueKey(a) {
		// Values with one key collide, as the key's unique index has it.
		col, ev = quote(uniqueKeyColumn(a)), uniqueKeyValue(ev)
	}
	var n int
	q := "SELECT count(*) FROM " + quote(c.Table()) + ` WHERE "team_id" = ? AND ` + col + ` = ? AND "id" <> ?`
	if err := s.queryRowKeyed(ctx, db, q, teamID, ev, exceptID).Scan(&n); err != nil {
		return false, fmt.Errorf("store: look up %s.%s: %w", c.Table(), a.Column, err)
	}
	return n > 0, nil
}

// storableID reports whether id can be an id of a stored record: valid
// UTF-8 without NUL, which every engine's text holds (PostgreSQL refuses
// the rest with an error). An id that is not names no record: the
// reads and writes by id answer it as a missing one without asking the
// database.
func storableID(id string) bool {
	return utf8.ValidString(id) && !strings.ContainsRune(id, 0)
}

// Page is one page of a list.
type Page struct {
	Records []Record
	Total   int
}

// maxSortedMatches is the most search matches a page query sorts instead
// of walking the team's rows in order (see List).
const maxSortedMatches = 5000

// countStmt is a list's count: its select columns and their arguments,
// its FROM and WHERE and theirs, and the columns' destinations.
type countStmt struct {
	cols     string
	colArgs  []any
	from     string
	fromArgs []any
	into     []any
}

// countRemembered counts the matches of a filtered or searched list of
// team teamID (cs; total and teamSize among its destinations; probeCol
// and probeDst: the version probe's) together with the version of the
// team's rows, and remembers the total under key (see totals.go). A list
// that started at since and finds a count of the same key under way that
// started after it waits for that count instead of running its own, and
// one that finds a total remembered by such a count takes it: that
// count's snapshot is as new as one this list would take.
func (s *Store) countRemembered(ctx context.Context, db bun.IDB, c *collections.Collection, teamID, key string, since time.Time, cs countStmt,
	total, teamSize *int, probeCol string, probeDst sql.Scanner) error {
	fl, mine := s.totals.flight(key, since)
	for !mine {
		select {
		case <-fl.done:
		case <-ctx.Done():
			return ctx.Err()
		}
		if fl.err == nil {
			*total, *teamSize = fl.entry.total, fl.entry.teamSize
			return nil
		}
		// That count failed: this list counts by itself, or joins a
		// count that started since.
		fl, mine = s.totals.flight(key, time.Now())
	}
	err := errors.New("store: count panicked")
	defer func() { s.totals.land(key, fl, err) }()
	if err = s.countVersioned(ctx, db, c, teamID, cs, probeCol, probeDst, &fl.entry); err == nil {
		fl.entry.total, fl.entry.teamSize, fl.entry.counted = *total, *teamSize, fl.started
		s.totals.put(key, fl.entry, s.totalsLimit())
	}
	return err
}

// countVersioned runs count cs with the version of the team's rows, read
// into e.
func (s *Store) countVersioned(ctx context.Context, db bun.IDB, c *collections.Collection, teamID string, cs countStmt, probeCol string, probeDst sql.Scanner, e *totalEntry) error {
	vcol, vargs := s.countVersion(c.Table(), teamID)
	ver := s.dialect.versionDest(e)
	args := append(append(slices.Clip(cs.colArgs), vargs...), cs.fromArgs...)
	dst := append(append(slices.Clip(cs.into), ver), extraOf(probeDst)...)
	if err := s.queryRow(ctx, db, "SELECT "+cs.cols+vcol+probeCol+cs.from, args...).Scan(dst...); err != nil {
		return fmt.Errorf("store: count %s: %w", c.Table(), err)
	}
	return nil
}

// manyDeltaRows reports whether a version check (totals.go) found more
// than countCompactOver PostgreSQL delta rows of the team.
func (s *Store) manyDeltaRows(vr versionResult) bool {
	return s.has(featDeltaCounts) && vr.rows > countCompactOver
}

// compactChecked compacts the team's PostgreSQL delta rows after a version
// check found many (manyDeltaRows), as a read of the unfiltered total
// does.
func (s *Store) compactChecked(ctx context.Context, c *collections.Collection, teamID string) {
	if err := s.compactCounts(ctx, c, teamID); err != nil {
		s.logger().WarnContext(ctx, "store: compacting row counts failed; the next read retries", "table", c.Table(), "err", err.Error())
	}
}

// unfiltered reports whether q selects every record of the team: its
// total is the team's row count.
func unfiltered(q collections.ListQuery) bool {
	return q.IDs == nil && q.Search == "" && len(q.Filter) == 0
}

func (s *Store) orderBy(keys []collections.SortKey) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = orderTerm(k)
	}
	return strings.Join(parts, ", ")
}

// likeEscape makes % and _ (and the escape character) literal in a LIKE
// pattern.
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// textMatch returns the condition matching the quoted column col against
// term as a case-insensitive substring (or prefix), with every character
// of term literal, and its argument. LIKE (SQLite) and ILIKE on a
// COLLATE "C" column (PostgreSQL) fold only ASCII letters, so a term with
// other cased letters ("ärger") becomes a pattern of case classes instead:
// GLOB "*[äÄ][rR][gG][eE][rR]*" on SQLite, a regular expression on
// PostgreSQL. Either way the result does not depend on the server's locale.
func (s *Store) textMatch(col, term string, prefix bool) (string, any) {
	if needsUnicodeFold(term) {
		return s.dialect.foldedMatch(col, term, prefix, s.hiddenArg())
	}
	p := likeEscape(term) + "%"
	if !prefix {
		p = "%" + p
	}
	return col + " " + s.like() + " " + s.hiddenArg() + ` ESCAPE '\'`, p
}

// needsUnicodeFold reports whether term has a letter outside ASCII with
// another case form, which SQLite's LIKE would compare case-sensitively.
func needsUnicodeFold(term string) bool {
	for _, r := range term {
		if r >= utf8.RuneSelf && unicode.SimpleFold(r) != r {
			return true
		}
	}
	return false
}

// regexFold turns term into a PostgreSQL regular expression that matches
// it literally and without regard to case: cased letters become classes of
// their case forms, and every other ASCII punctuation character is escaped.
func regexFold(term string) string {
	return foldClasses(term, func(b *strings.Builder, r rune) {
		if r < utf8.RuneSelf && !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != ' ' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	})
}

// globFold turns term into a GLOB pattern that matches it literally and
// without regard to case: cased letters become classes of their case
// forms, and GLOB's special characters *, ? and [ become one-character
// classes.
func globFold(term string) string {
	return foldClasses(term, func(b *strings.Builder, r rune) {
		if r == '*' || r == '?' || r == '[' {
			b.WriteByte('[')
			b.WriteRune(r)
			b.WriteByte(']')
			return
		}
		b.WriteRune(r)
	})
}

// foldClasses writes each cased letter of term as the bracket class of its
// case forms ("[äÄ]") and every other character through literal.
func foldClasses(term string, literal func(*strings.Builder, rune)) string {
	var b strings.Builder
	for _, r := range term {
		if unicode.SimpleFold(r) == r {
			literal(&b, r)
			continue
		}
		b.WriteByte('[')
		b.WriteRune(r)
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			b.WriteRune(f)
		}
		b.WriteByte(']')
	}
	return b.String()
}

func (s *Store) like() string { return s.dialect.like() }

// where builds the WHERE clause: the team first, then ids, search and
// filters; with indexed, the search also narrows the rows to the search
// index's candidates (ftsCondition). Only column names from the collection
// and "?" placeholders are written; every value is an argument.
func (s *Store) where(c *collections.Collection, teamID string, q collections.ListQuery, indexed bool) (string, []any, error) {
	// The team test comes first: List turns it into +"team_id" for a
	// search that plans the index or a scan in table order (never with
	// ids, whose team test keeps the planner on the primary key itself).
	parts := []string{s.teamTest(q.IDs != nil)}
	args := []any{teamID}
	if q.IDs != nil {
		parts = append(parts, `"id" IN (?)`)
		args = append(args, inListOf(q.IDs))
	}
	if q.Search != "" {
		if indexed && s.usesFTS(c, q.Search) {
			cond, arg := ftsCondition(c, q.Search)
			parts = append(parts, cond)
			args = append(args, arg)
		}
		cond, condArgs := s.searchMatch(c, teamID, q.Search)
		parts = append(parts, cond)
		args = append(args, condArgs...)
	}
	for _, cond := range q.Filter {
		sqlPart, condArgs, err := s.condition(c, teamID, cond)
		if err != nil {
			return "", nil, err
		}
		parts = append(parts, sqlPart)
		args = append(args, condArgs...)
	}
	return strings.Join(parts, " AND "), args, nil
}

// searchMatch returns the condition a search for term puts on a row of
// team teamID: the term is a substring of one of the searched fields
// (textMatch), tested in the search table on PostgreSQL (see
// usesSearchTable).
func (s *Store) searchMatch(c *collections.Collection, teamID, term string) (string, []any) {
	if s.usesSearchTable(c, term) {
		return s.searchTableMatch(c, teamID, term)
	}
	var ors []string
	var args []any
	for _, a := range c.Attributes() {
		if a.System || !a.Type.IsTextual() {
			continue
		}
		cond, arg := s.textMatch(quote(a.Column), term, false)
		ors = append(ors, cond)
		args = append(args, arg)
	}
	if len(ors) == 0 {
		return "1 = 0", nil
	}
	return "(" + strings.Join(ors, " OR ") + ")", args
}

// condition returns the SQL of one filter condition on a row of team
// teamID of c, and its arguments.
func (s *Store) condition(c *collections.Collection, teamID string, cond collections.Condition) (string, []any, error) {
	col := quote(cond.Attr.Column)
	enc := func(v any) (any, error) { return encode(s.dialect, cond.Attr, v) }
	switch cond.Op {
	case collections.OpIsNull:
		if cond.Value.(bool) {
			return col + " IS NULL", nil, nil
		}
		return col + " IS NOT NULL", nil, nil
	case collections.OpContains, collections.OpStartsWith:
		term := cond.Value.(string)
		sqlPart, arg := s.textMatch(col, term, cond.Op == collections.OpStartsWith)
		if utf8.RuneCountInString(term) >= minIndexedSearch && s.usesSearchTable(c, term) && slices.Contains(searchColumns(c), cond.Attr.Column) {
			// The search table's trigram index can narrow the rows to
			// those whose text holds the term somewhere; the field's own
			// test decides.
			match, matchArgs := s.searchTableMatch(c, teamID, term)
			return "(" + sqlPart + " AND " + match + ")", append([]any{arg}, matchArgs...), nil
		}
		return sqlPart, []any{arg}, nil
	case collections.OpIn, collections.OpNin:
		vals := cond.Value.([]any)
		ev := make([]any, len(vals))
		for i, v := range vals {
			e, err := enc(v)
			if err != nil {
				return "", nil, err
			}
			ev[i] = e
		}
		if cond.Op == collections.OpIn {
			return col + " IN (" + s.hiddenArg() + ")", []any{inList(ev)}, nil
		}
		return "(" + col + " IS NULL OR " + col + " NOT IN (" + s.hiddenArg() + "))", []any{inList(ev)}, nil
	}
	v, err := enc(cond.Value)
	if err != nil {
		return "", nil, err
	}
	ops := map[collections.Op]string{
		collections.OpEq: "=", collections.OpGt: ">", collections.OpGte: ">=",
		collections.OpLt: "<", collections.OpLte: "<=",
	}
	if cond.Op == collections.OpNe {
		return "(" + col + " IS NULL OR " + col + " <> " + s.hiddenArg() + ")", []any{v}, nil
	}
	op, ok := ops[cond.Op]
	if !ok {
		return "", nil, fmt.Errorf("store: unsupported operator %q", cond.Op)
	}
	if sv, isText := v.(string); isText && op != "=" && hasSortKey(cond.Attr) {
		sqlPart, args := textRange(cond.Attr, op, sv, s.hiddenArg())
		return sqlPart, args, nil
	}
	return col + " " + op + " " + s.hiddenArg(), []any{v}, nil
}

// inListOf makes a list argument of strings.
func inListOf(ids []string) inList { return sqlexec.Strings(ids) }

// The fixed-shape statements of the record paths (see Warm).

func (s *Store) getSQL(c *collections.Collection) string { return s.getSQLWith(c, "") }

// getSQLWith is getSQL with probe, a version probe's column or "", after
// the attributes'.
func (s *Store) getSQLWith(c *collections.Collection, probe string) string {
	return "SELECT " + s.selectList(c) + probe + " FROM " + quote(c.Table()) + ` WHERE "team_id" = ? AND "id" = ?`
}

// insertSQL is the insert of every attribute, the shape Create uses.
func (s *Store) insertSQL(c *collections.Collection) string {
	var cols, marks []string
	for _, a := range c.Attributes() {
		cols, marks = append(cols, quote(a.Column)), append(marks, "?")
		if hasSortKey(a) {
			cols, marks = append(cols, quote(sortKeyColumn(a))), append(marks, "?")
		}
		if hasUniqueKey(a) {
			cols, marks = append(cols, quote(uniqueKeyColumn(a))), append(marks, "?")
		}
	}
	return s.counted(c, insertSQLFor(c.Table(), cols, marks), 1)
}

func insertSQLFor(table string, cols, marks []string) string {
	return "INSERT INTO " + quote(table) + " (" + strings.Join(cols, ", ") + ") VALUES (" + strings.Join(marks, ", ") + ")"
}

func (s *Store) deleteSQL(c *collections.Collection) string {
	return s.counted(c, "DELETE FROM "+quote(c.Table())+` WHERE "team_id" = ? AND "id" = ?`, -1)
}

func existsSQL(c *collections.Collection) string {
	return "SELECT count(*) FROM " + quote(c.Table()) + ` WHERE "team_id" = ? AND "id" = ?`
}

const referencedMessage = "the record is still referenced by other records; remove those references first"

// referrers counts, per reference field of the registry that points at c
// with a foreign key, the team's records that hold id. It returns only the
// non-zero counts, in registry order.
func (s *Store) referrers(ctx context.Context, db bun.IDB, c *collections.Collection, teamID, id string) ([]collections.Referrer, error) {
	if s.registry == nil {
		return nil, nil
	}
	var refs []collections.Referrer
	for _, rc := range s.registry().All() {
		if rc.External() {
			continue
		}
		for _, a := range rc.Attributes() {
			if a.Field == nil || a.Field.RefTarget != c.Key() {
				continue
			}
			if _, ok := s.refTable(rc, a); !ok {
				continue
			}
			var n int
			h := s.hiddenArg()
			q := "SELECT count(*) FROM " + quote(rc.Table()) + ` WHERE "team_id" = ` + h + ` AND ` + quote(a.Column) + " = " + h
			if err := s.queryRow(ctx, db, q, teamID, id).Scan(&n); err != nil {
				return nil, fmt.Errorf("store: count references to %s: %w", c.Table(), err)
			}
			if n > 0 {
				refs = append(refs, collections.Referrer{Collection: rc.Key(), Field: a.Name, Count: n})
			}
		}
	}
	return refs, nil
}
