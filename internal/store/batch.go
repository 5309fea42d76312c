package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/collectionkit/kit/collections"
)

// Shared statements (PostgreSQL).
//
// InsertLogged, UpdateLogged and DeleteLogged each write a record's
// change, its row count and its change row in one statement that commits
// by itself. Under concurrent writes most of such a statement's cost on
// the server is not the row: it is the statement (its executor, its
// triggers, its commit's WAL flush). So the creates of one collection
// share statements, and so do its deletes and its updates that set and
// compare the same columns, much as SQLite's write queue shares
// transactions: at most batchesInFlight statements of a shape run at once,
// and the writes that arrive meanwhile wait and then go together, up to
// maxBatch of them (a power of two: the rest wait for the next), in one
// statement run by the first of them. A write that finds a free slot runs
// at once, alone, as before, so an idle server adds no wait.
//
// A batch commits together or not at all. When PostgreSQL rejects it (a
// unique value taken, by another request or within the batch; a delete a
// foreign key refuses), each of its writes runs again alone and gets its
// own outcome; an error that is not the server's answer (a broken
// connection, after which the batch may have committed) is every member's,
// as it would be for a statement of its own. Two updates or deletes of the
// same record in one batch run alone, one after the other, so that each
// sees the other's outcome as it would on its own. A batch locks the rows
// it changes in (team, id) order, so two batches never wait for each other
// in a deadlock over the records they share. A write guard is shared only
// by writes that want the same counter value through the same query: the
// batch writes only when the guard holds, and settles every member's guard
// the same way.

const (
	// batchesInFlight is how many statements of one shape run at once.
	batchesInFlight = 2
	// maxBatch bounds the writes of one shared statement.
	maxBatch = 64
)

// errAlone is what a batch runner returns when its writes must run alone,
// one after the other (two of them name the same record).
var errAlone = errors.New("store: the batch's writes run alone")

// maxParams keeps a batch under PostgreSQL's 65,535 parameters per
// statement: a write's values (a create's columns; an update's record,
// owner, set and compared values), its change row's six and the guard's
// value. A collection of more than 8,500 columns (beyond PostgreSQL's
// 1,600 per table) would be the only way to a batch of none.
const maxParams = 60_000

// batcher queues the writes of every statement shape.
type batcher struct {
	mu     sync.Mutex
	shapes map[batchKey]*batchShape
}

// batchKey is a statement shape: the operation, the table (and, for a
// create, its columns), whether the writes log a change, and the guard's
// query and wanted value.
type batchKey struct {
	op, table, cols string
	logged          bool
	guard           string
	want            int64
}

type batchShape struct {
	running int
	queue   []*batchReq
}

// batchReq is one write waiting for, or running in, a statement.
type batchReq struct {
	ctx   context.Context
	ch    *Change
	args  []any  // a create's column values, an update's set values
	team  string // an update's or a delete's record
	id    string
	owner string // an update's owner ("": any)
	// differ holds an update's compared values.
	differ []any
	guard  *WriteGuard
	// rows are commit rows inserted with the write (see joinedrows.go).
	rows []CommitRows
	// version, when not "", is the row version (xmin) an update's record
	// must still have (see UpdateLoggedAt).
	version string
	// before and written are an update's outcome.
	before  Record
	written bool
	// lead receives the batch to run when this write is its first.
	lead chan []*batchReq
	done chan struct{} // closed when err is final
	err  error
}

// share runs r: alone, by one, when a statement of key's shape may start,
// or else in a batch of waiting writes that many runs. many sets every
// member's outcome and returns nil, or returns the batch statement's error
// (then every member gets it) or errAlone; a PostgreSQL error or errAlone
// runs each member alone, by one. params is a write's share of a statement's parameters.
func (s *Store) share(key batchKey, r *batchReq, params int, one func(ctx context.Context, r *batchReq) error, many func(batch []*batchReq) error) error {
	b := &s.batches
	b.mu.Lock()
	if b.shapes == nil {
		b.shapes = map[batchKey]*batchShape{}
	}
	sh := b.shapes[key]
	if sh == nil {
		sh = &batchShape{}
		b.shapes[key] = sh
	}
	if sh.running < batchesInFlight {
		sh.running++
		b.mu.Unlock()
		defer s.shareNext(key, sh, params) // a panic in one frees the slot too
		return runAlone(r.ctx, r, one)
	}
	r.lead, r.done = make(chan []*batchReq, 1), make(chan struct{})
	sh.queue = append(sh.queue, r)
	b.mu.Unlock()
	// run runs batch on this goroutine and hands the slot on. Should it
	// panic, the other members get an error (their writes may or may not
	// have committed) and the panic goes on on this write's goroutine.
	run := func(batch []*batchReq) {
		defer s.shareNext(key, sh, params)
		defer func() {
			if p := recover(); p != nil {
				for _, m := range batch {
					if m != r {
						m.err = fmt.Errorf("store: the shared %s statement of %s panicked: %v", key.op, key.table, p)
					}
					close(m.done)
				}
				panic(p)
			}
			for _, m := range batch {
				close(m.done)
			}
		}()
		// The statement is shared: no member's cancellation may cut it
		// short.
		alone := func() {
			for _, m := range batch {
				m.before, m.written = nil, false
				m.err = runAlone(context.WithoutCancel(m.ctx), m, one)
			}
		}
		if len(batch) == 1 {
			alone()
			return
		}
		var ps sqlStater
		switch err := many(batch); {
		case err == nil:
			for _, m := range batch {
				if m.err == nil && m.wrote() {
					rowsDone(m.rows, nil)
				}
			}
		case errors.Is(err, errAlone), errors.As(err, &ps):
			// PostgreSQL rejected the batch, so nothing of it was
			// written: each write on its own.
			alone()
		default:
			failAll(batch, err)
		}
	}
	select {
	case batch := <-r.lead:
		run(batch)
	case <-r.done:
	case <-r.ctx.Done():
		b.mu.Lock()
		for i, q := range sh.queue {
			if q == r {
				sh.queue = append(sh.queue[:i], sh.queue[i+1:]...)
				b.mu.Unlock()
				return r.ctx.Err()
			}
		}
		b.mu.Unlock()
		// Already taken into a batch: its outcome is this write's.
		select {
		case batch := <-r.lead:
			run(batch)
		case <-r.done:
		}
	}
	<-r.done
	return r.err
}

// shareNext hands the shape's waiting writes, as one batch, to the first
// of them, or frees the finished statement's slot when none waits.
func (s *Store) shareNext(key batchKey, sh *batchShape, params int) {
	b := &s.batches
	b.mu.Lock()
	if len(sh.queue) == 0 {
		sh.running--
		if sh.running == 0 {
			delete(b.shapes, key)
		}
		b.mu.Unlock()
		return
	}
	// A power of two: each size is a statement of its own in the
	// prepared statement cache, so a few sizes serve every batch.
	n := 1
	for limit := min(len(sh.queue), maxBatch, maxParams/params); n*2 <= limit; {
		n *= 2
	}
	batch := sh.queue[:n:n]
	sh.queue = append([]*batchReq(nil), sh.queue[n:]...)
	b.mu.Unlock()
	batch[0].lead <- batch
}

// keyOf is the shape key of a write of op on c, logged or not, under g.
func keyOf(op string, c *collections.Collection, cols []string, logged bool, g *WriteGuard) batchKey {
	key := batchKey{op: op, table: c.Table(), cols: strings.Join(cols, ","), logged: logged}
	if g != nil {
		key.guard, key.want = g.query, g.want
	}
	return key
}

// insertBatched runs InsertLogged's create, alone or in a batch.
func (s *Store) insertBatched(ctx context.Context, c *collections.Collection, ch *Change, cols []string, args []any, g *WriteGuard, rows []CommitRows, extra int) error {
	r := &batchReq{ctx: ctx, ch: ch, args: args, guard: g, rows: rows}
	return s.share(keyOf("create", c, cols, ch != nil, g), r, len(args)+7+extra,
		func(ctx context.Context, r *batchReq) error {
			return s.insertOne(ctx, r.guard, c, cols, r.args, r.ch, r.rows)
		},
		func(batch []*batchReq) error { return s.runInsertBatch(c, cols, batch) })
}

// runInsertBatch runs a batch of creates as one statement and sets every
// member's err, or returns the statement's error (see share).
func (s *Store) runInsertBatch(c *collections.Collection, cols []string, batch []*batchReq) error {
	// The statement is shared: no member's cancellation may cut it short.
	ctx := context.WithoutCancel(batch[0].ctx)
	q, args, err := s.batchInsertSQL(c, cols, batch)
	if err != nil {
		return err
	}
	var n int64
	if err := s.queryRowKeyed(ctx, s.db, q, args...).Scan(&n); err != nil {
		return fmt.Errorf("store: insert %s: %w", c.Table(), err)
	}
	for _, r := range batch {
		if r.guard != nil {
			r.err = r.guard.settle(n > 0) // only the guard keeps the rows out
		}
	}
	return nil
}

// batchInsertSQL is the statement of a batch: its records (the first row's
// values cast to the columns' types, which then type the other rows, as
// the columns type an INSERT's own VALUES), their row counts per team and,
// when logged, their change rows, written only when the records are (a
// guard that does not hold writes none of them).
func (s *Store) batchInsertSQL(c *collections.Collection, cols []string, batch []*batchReq) (string, []any, error) {
	types := s.columnTypes(c)
	var b strings.Builder
	args := make([]any, 0, len(batch)*(len(cols)+6)+1)
	b.WriteString("WITH kit_row AS (INSERT INTO " + quote(c.Table()) + " (" + strings.Join(cols, ", ") + ") SELECT * FROM (VALUES ")
	for i, r := range batch {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for j := range cols {
			if j > 0 {
				b.WriteString(", ")
			}
			if i == 0 {
				b.WriteString("CAST(? AS " + types[cols[j]] + ")")
			} else {
				b.WriteByte('?')
			}
		}
		b.WriteByte(')')
		args = append(args, r.args...)
	}
	b.WriteString(") AS kit_v")
	if g := batch[0].guard; g != nil {
		b.WriteString(" WHERE (" + g.query + ") = ?")
		args = append(args, g.want)
	}
	b.WriteString(` RETURNING "team_id"), kit_count AS (` + deltaRows(c, `"team_id"`, "count(*)", true) + ")")
	if batch[0].ch != nil {
		// The records' insert takes the transaction id first (the
		// EXISTS runs before any row's nextval), as changes.go requires.
		b.WriteString(`, kit_change AS (INSERT INTO kit_changes (xid, id, team_id, collection, operation, item_ids, correlation_id, ts)
			SELECT pg_current_xact_id(), nextval('kit_changes_id_seq'), kit_c.* FROM (VALUES `)
		for i, r := range batch {
			ids, err := json.Marshal(r.ch.ItemIDs)
			if err != nil {
				return "", nil, err
			}
			if i == 0 {
				b.WriteString("(CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS BIGINT))")
			} else {
				b.WriteString(", (?, ?, ?, ?, ?, ?)")
			}
			args = append(args, r.ch.TeamID, r.ch.Collection, r.ch.Operation, string(ids), r.ch.CorrelationID, r.ch.Timestamp)
		}
		b.WriteString(") AS kit_c WHERE EXISTS (SELECT 1 FROM kit_row))")
	}
	args, err := s.joinedRowsSQL(&b, args, batch, "EXISTS (SELECT 1 FROM kit_row)")
	if err != nil {
		return "", nil, err
	}
	b.WriteString(" SELECT count(*) FROM kit_row")
	return b.String(), args, nil
}

// columnTypes maps the quoted name of each column of c's table that
// insertParts may write to its SQL type, without collation (a sort key and
// a unique key are text).
func (s *Store) columnTypes(c *collections.Collection) map[string]string {
	types := map[string]string{}
	for _, a := range c.Attributes() {
		types[quote(a.Column)] = strings.TrimSuffix(columnType(s.dialect, a), ` COLLATE "C"`)
		if hasSortKey(a) {
			types[quote(sortKeyColumn(a))] = "TEXT"
		}
		if hasUniqueKey(a) {
			types[quote(uniqueKeyColumn(a))] = "TEXT"
		}
	}
	return types
}

// runDeleteBatch runs a batch of deletes as one statement and sets every
// member's err: nil for a record the statement deleted, ErrNotFound for
// one the team did not have (or ErrWriteGuardRefused when the guard did
// not hold); or it returns the statement's error (see share). Two deletes
// of the same record run alone, one after the other, so that only one of
// them is told it deleted it.
func (s *Store) runDeleteBatch(c *collections.Collection, batch []*batchReq) error {
	if sameRecordTwice(batch) {
		return errAlone
	}
	q, args, err := s.deleteBatchSQL(c, batch)
	if err != nil {
		return err
	}
	ctx := context.WithoutCancel(batch[0].ctx)
	deleted, err := s.deletedKeys(ctx, q, args)
	if err != nil {
		return fmt.Errorf("store: delete %s: %w", c.Table(), err)
	}
	return s.settleBatch(ctx, batch, len(deleted), func(r *batchReq) bool { return !deleted[[2]string{r.team, r.id}] })
}

// deletedKeys runs a batch's delete and returns the (team, id) of the
// records it deleted.
func (s *Store) deletedKeys(ctx context.Context, q string, args []any) (map[[2]string]bool, error) {
	rows, err := s.queryKeyed(ctx, s.db, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	deleted := map[[2]string]bool{}
	for rows.Next() {
		var team, id string
		if err := rows.Scan(&team, &id); err != nil {
			return nil, err
		}
		deleted[[2]string{team, id}] = true
	}
	return deleted, rows.Err()
}

// deleteBatchSQL is the statement of a batch of deletes: it locks the
// records (of their own teams) in (team, id) order and deletes them, with
// the row counts per team and, when logged, a change row for each record
// deleted. It returns the deleted records' team and id.
func (s *Store) deleteBatchSQL(c *collections.Collection, batch []*batchReq) (string, []any, error) {
	logged := batch[0].ch != nil
	var b strings.Builder
	args := make([]any, 0, len(batch)*8+1)
	b.WriteString("WITH kit_v AS (SELECT * FROM (VALUES ")
	for i, r := range batch {
		if i > 0 {
			b.WriteString(", ")
		}
		switch {
		case i == 0 && logged:
			b.WriteString("(CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS BIGINT))")
		case i == 0:
			b.WriteString("(CAST(? AS TEXT), CAST(? AS TEXT))")
		case logged:
			b.WriteString("(?, ?, ?, ?, ?, ?, ?, ?)")
		default:
			b.WriteString("(?, ?)")
		}
		args = append(args, r.team, r.id)
		if logged {
			ids, err := json.Marshal(r.ch.ItemIDs)
			if err != nil {
				return "", nil, err
			}
			args = append(args, r.ch.TeamID, r.ch.Collection, r.ch.Operation, string(ids), r.ch.CorrelationID, r.ch.Timestamp)
		}
	}
	b.WriteString(") AS kit_x (team, id")
	if logged {
		b.WriteString(", c_team, c_collection, c_operation, c_ids, c_correlation, c_ts")
	}
	// The rows are locked first, in (team, id) order, whatever order the
	// plan deletes them in.
	table := quote(c.Table())
	b.WriteString(`)), kit_lock AS (SELECT kit_t."team_id", kit_t."id" FROM ` + table + ` AS kit_t JOIN kit_v ON kit_t."team_id" = kit_v.team AND kit_t."id" = kit_v.id`)
	if g := batch[0].guard; g != nil {
		b.WriteString(" WHERE (" + g.query + ") = ?")
		args = append(args, g.want)
	}
	b.WriteString(` ORDER BY kit_t."team_id", kit_t."id" FOR UPDATE OF kit_t), kit_row AS (DELETE FROM ` + table + ` USING kit_lock WHERE ` +
		table + `."team_id" = kit_lock."team_id" AND ` + table + `."id" = kit_lock."id"`)
	fmt.Fprintf(&b, ` RETURNING %s."team_id", %s."id"), kit_count AS (%s)`, table, table, deltaRows(c, `"team_id"`, "-count(*)", true))
	if logged {
		// Joined to the deleted rows, which take the transaction id
		// before any change row's nextval, as changes.go requires.
		b.WriteString(`, kit_change AS (INSERT INTO kit_changes (xid, id, team_id, collection, operation, item_ids, correlation_id, ts)
			SELECT pg_current_xact_id(), nextval('kit_changes_id_seq'), v.c_team, v.c_collection, v.c_operation, v.c_ids, v.c_correlation, v.c_ts
			FROM kit_v AS v JOIN kit_row AS r ON r."team_id" = v.team AND r."id" = v.id)`)
	}
	args, err := s.joinedRowsSQL(&b, args, batch, `(kit_r.kit_team, kit_r.kit_id) IN (SELECT "team_id", "id" FROM kit_row)`)
	if err != nil {
		return "", nil, err
	}
	b.WriteString(` SELECT "team_id", "id" FROM kit_row`)
	return b.String(), args, nil
}

// runUpdateBatch runs a batch of updates (of shape u) as one statement and
// sets every member's outcome: the record as it was before and whether it
// was written, or ErrNotFound for a record the statement did not find (or
// ErrWriteGuardRefused when the guard did not hold); or it returns the
// statement's error (see share). Two updates of the same record run
// alone, one after the other.
func (s *Store) runUpdateBatch(c *collections.Collection, u *update, batch []*batchReq) error {
	if sameRecordTwice(batch) {
		return errAlone
	}
	q, args, err := s.updateBatchSQL(c, u, batch)
	if err != nil {
		return err
	}
	ctx := context.WithoutCancel(batch[0].ctx)
	found := 0
	var k int64
	var written bool
	rows, err := s.queryKeyed(ctx, s.db, q, args...)
	if _, err := s.scanRowsEach(c, []any{&k, &written}, rows, err, func(rec Record) {
		if k >= 0 && int(k) < len(batch) {
			batch[k].before, batch[k].written = rec, written
			found++
		}
	}); err != nil {
		return fmt.Errorf("store: update %s: %w", c.Table(), err)
	}
	return s.settleBatch(ctx, batch, found, func(r *batchReq) bool { return r.before == nil })
}

// sameRecordTwice reports whether two writes of batch name the same
// record.
func sameRecordTwice(batch []*batchReq) bool {
	seen := map[[2]string]bool{}
	for _, r := range batch {
		k := [2]string{r.team, r.id}
		if seen[k] {
			return true
		}
		seen[k] = true
	}
	return false
}

// settleBatch sets the outcome of a batch of updates or deletes whose
// statement found found records: under a guard, finding some means it
// held, and finding none means it did not or no record was there, which
// one read of the guard decides (its error is returned); when it held (or
// there is none), each member that missing reports is ErrNotFound.
func (s *Store) settleBatch(ctx context.Context, batch []*batchReq, found int, missing func(*batchReq) bool) error {
	if g := batch[0].guard; g != nil {
		held := found > 0
		if !held {
			if err := s.readGuard(ctx, s.db, g); err != nil && !errors.Is(err, ErrWriteGuardRefused) {
				return err
			}
			held = g.State() == GuardConfirmed
		}
		for _, r := range batch {
			if err := r.guard.settle(held); err != nil {
				r.err = err
			}
		}
		if !held {
			return nil
		}
	}
	for _, r := range batch {
		if missing(r) {
			r.err = ErrNotFound
		}
	}
	return nil
}

// failAll gives every member of batch err.
func failAll(batch []*batchReq, err error) {
	for _, r := range batch {
		r.err = err
	}
}

// updateBatchSQL is the statement of a batch of updates: it locks the
// records (of their teams and, for an update by owner, of that owner) in
// (team, id) order, writes each that one compared value differs from, and,
// when logged, a change row for each written. Its rows are the records as
// they were, each with its position in the batch and whether it was
// written.
func (s *Store) updateBatchSQL(c *collections.Collection, u *update, batch []*batchReq) (string, []any, error) {
	types := s.columnTypes(c)
	logged, byOwner := batch[0].ch != nil, batch[0].owner != ""
	setCols := make([]string, len(u.sets))
	for i, set := range u.sets {
		setCols[i] = strings.TrimSuffix(set, " = ?")
	}
	var first, names []string
	cast := func(name, typ string) {
		names = append(names, name)
		first = append(first, "CAST(? AS "+typ+")")
	}
	cast("k", "INTEGER")
	cast("team", "TEXT")
	cast("id", "TEXT")
	if byOwner {
		cast("owner", "TEXT")
	}
	for i, col := range setCols {
		cast(fmt.Sprintf("s%d", i), types[col])
	}
	for i, col := range u.compared {
		cast(fmt.Sprintf("d%d", i), types[col])
	}
	if u.versioned {
		cast("ver", "TEXT")
	}
	if logged {
		for _, n := range []string{"c_team", "c_collection", "c_operation", "c_ids", "c_correlation"} {
			cast(n, "TEXT")
		}
		cast("c_ts", "BIGINT")
	}
	var b strings.Builder
	var args []any
	b.WriteString("WITH kit_v AS (SELECT * FROM (VALUES ")
	for i, r := range batch {
		if i > 0 {
			b.WriteString(", (" + strings.Repeat("?, ", len(names)-1) + "?)")
		} else {
			b.WriteString("(" + strings.Join(first, ", ") + ")")
		}
		args = append(args, i, r.team, r.id)
		if byOwner {
			args = append(args, r.owner)
		}
		args = append(args, r.args...)
		args = append(args, r.differ...)
		if u.versioned {
			args = append(args, r.version)
		}
		if logged {
			ids, err := json.Marshal(r.ch.ItemIDs)
			if err != nil {
				return "", nil, err
			}
			args = append(args, r.ch.TeamID, r.ch.Collection, r.ch.Operation, string(ids), r.ch.CorrelationID, r.ch.Timestamp)
		}
	}
	table := quote(c.Table())
	b.WriteString(") AS kit_x (" + strings.Join(names, ", ") + ")), kit_before AS (SELECT ")
	for _, a := range c.Attributes() {
		b.WriteString("kit_t." + quote(a.Column) + ", ")
	}
	b.WriteString("kit_v.k AS kit_k FROM " + table + ` AS kit_t JOIN kit_v ON kit_t."team_id" = kit_v.team AND kit_t."id" = kit_v.id`)
	if byOwner {
		owner, ok := c.Attribute("owner")
		if !ok {
			return "", nil, fmt.Errorf("store: update %s: no owner attribute", c.Table())
		}
		b.WriteString(" AND kit_t." + quote(owner.Column) + " = kit_v.owner")
	}
	if u.versioned {
		b.WriteString(" AND CAST(kit_t.xmin AS TEXT) = kit_v.ver")
	}
	if g := batch[0].guard; g != nil {
		b.WriteString(" WHERE (" + g.query + ") = ?")
		args = append(args, g.want)
	}
	b.WriteString(` ORDER BY kit_t."team_id", kit_t."id" FOR UPDATE OF kit_t), kit_row AS (UPDATE ` + table + " SET ")
	for i, col := range setCols {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s = kit_v.s%d", col, i)
	}
	b.WriteString(" FROM kit_before JOIN kit_v ON kit_v.k = kit_before.kit_k WHERE " + table + `."team_id" = kit_before."team_id" AND ` + table + `."id" = kit_before."id"`)
	if len(u.compared) > 0 {
		differs := make([]string, len(u.compared))
		for i, col := range u.compared {
			differs[i] = fmt.Sprintf("kit_before.%s IS DISTINCT FROM kit_v.d%d", col, i)
		}
		b.WriteString(" AND (" + strings.Join(differs, " OR ") + ")")
	}
	b.WriteString("  RETURNING kit_v.k AS kit_w, " + table + `."team_id" AS kit_team)`)
	// One delta row of 0 per team written: the team's rows changed (see
	// totals.go).
	b.WriteString(", kit_count AS (" + deltaRows(c, "kit_team", "0", true) + ")")
	if logged {
		// Joined to the written rows, which take the transaction id
		// before any change row's nextval, as changes.go requires.
		b.WriteString(`, kit_change AS (INSERT INTO kit_changes (xid, id, team_id, collection, operation, item_ids, correlation_id, ts)
			SELECT pg_current_xact_id(), nextval('kit_changes_id_seq'), kit_v.c_team, kit_v.c_collection, kit_v.c_operation, kit_v.c_ids, kit_v.c_correlation, kit_v.c_ts
			FROM kit_v JOIN kit_row ON kit_row.kit_w = kit_v.k)`)
	}
	args, err := s.joinedRowsSQL(&b, args, batch, "kit_r.kit_k IN (SELECT kit_w FROM kit_row)")
	if err != nil {
		return "", nil, err
	}
	b.WriteString(" SELECT " + s.selectList(c) + ", kit_k, kit_w IS NOT NULL FROM kit_before LEFT JOIN kit_row ON kit_w = kit_k")
	return b.String(), args, nil
}
