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

// Batched creates (PostgreSQL).
//
// InsertLogged writes a record, its row count and its change row in one
// statement that commits by itself. Under concurrent creates most of a
// statement's cost on the server is not the row: it is the statement (its
// executor, its trigger, its commit's WAL flush). So the creates of one
// collection share statements, much as SQLite's write queue shares
// transactions: at most insertsInFlight statements of a shape run at once,
// and the creates that arrive meanwhile wait and then go together, up to
// maxInsertBatch rows, in one multi-row statement run by the first of
// them (a power of two of them: the rest wait for the next). A create
// that finds a free slot runs at once, alone, as before, so an idle
// server adds no wait.
//
// A batch commits together or not at all. When PostgreSQL rejects it (a
// unique value taken, by another request or within the batch), each of its
// creates runs again alone and gets its own outcome; an error that is not
// the server's answer (a broken connection, after which the batch may have
// committed) is every member's, as it would be for a statement of its own.
// A write guard is shared only by creates that want the same counter value
// through the same query: the batch writes only when the guard holds, and
// settles every member's guard the same way.

const (
	// insertsInFlight is how many statements of one shape run at once.
	insertsInFlight = 2
	// maxInsertBatch bounds the rows of one batched statement.
	maxInsertBatch = 64
)

// insertBatcher queues the creates of every statement shape.
type insertBatcher struct {
	mu     sync.Mutex
	shapes map[insertKey]*insertShape
}

// insertKey is a statement shape: the table and its columns, whether the
// creates log a change, and the guard's query and wanted value.
type insertKey struct {
	table, cols string
	logged      bool
	guard       string
	want        int64
}

type insertShape struct {
	running int
	queue   []*insertReq
}

// insertReq is one create waiting for, or running in, a statement.
type insertReq struct {
	ctx   context.Context
	ch    *Change
	args  []any // the record's column values, in column order
	guard *WriteGuard
	// lead receives the batch to run when this create is its first.
	lead chan []*insertReq
	done chan struct{} // closed when err is final
	err  error
}

// insertBatched runs InsertLogged's create through the shape's queue.
func (s *Store) insertBatched(ctx context.Context, c *collections.Collection, ch *Change, cols []string, args []any, g *WriteGuard) error {
	key := insertKey{table: c.Table(), cols: strings.Join(cols, ","), logged: ch != nil}
	if g != nil {
		key.guard, key.want = g.query, g.want
	}
	b := &s.inserts
	b.mu.Lock()
	if b.shapes == nil {
		b.shapes = map[insertKey]*insertShape{}
	}
	sh := b.shapes[key]
	if sh == nil {
		sh = &insertShape{}
		b.shapes[key] = sh
	}
	if sh.running < insertsInFlight {
		sh.running++
		b.mu.Unlock()
		err := s.insertOne(ctx, c, cols, args, ch)
		s.insertNext(key, sh)
		return err
	}
	r := &insertReq{ctx: ctx, ch: ch, args: args, guard: g, lead: make(chan []*insertReq, 1), done: make(chan struct{})}
	sh.queue = append(sh.queue, r)
	b.mu.Unlock()
	select {
	case batch := <-r.lead:
		s.runInsertBatch(c, cols, batch)
		s.insertNext(key, sh)
	case <-r.done:
	case <-ctx.Done():
		b.mu.Lock()
		for i, q := range sh.queue {
			if q == r {
				sh.queue = append(sh.queue[:i], sh.queue[i+1:]...)
				b.mu.Unlock()
				return ctx.Err()
			}
		}
		b.mu.Unlock()
		// Already taken into a batch: its outcome is this create's.
		select {
		case batch := <-r.lead:
			s.runInsertBatch(c, cols, batch)
			s.insertNext(key, sh)
		case <-r.done:
		}
	}
	<-r.done
	return r.err
}

// insertNext hands the shape's waiting creates, as one batch, to the first
// of them, or frees the finished statement's slot when none waits.
func (s *Store) insertNext(key insertKey, sh *insertShape) {
	b := &s.inserts
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
	for limit := min(len(sh.queue), maxInsertBatch, maxParams/(len(sh.queue[0].args)+7)); n*2 <= limit; {
		n *= 2
	}
	batch := sh.queue[:n:n]
	sh.queue = append([]*insertReq(nil), sh.queue[n:]...)
	b.mu.Unlock()
	batch[0].lead <- batch
}

// maxParams keeps a batch under PostgreSQL's 65,535 parameters per
// statement: a row's columns, its change row's six and the guard's value.
// A collection of more than 8,500 columns (beyond PostgreSQL's 1,600 per
// table) would be the only way to a batch of none.
const maxParams = 60_000

// runInsertBatch runs batch as one statement (a batch of one as
// InsertLogged's own) and closes every member's done.
func (s *Store) runInsertBatch(c *collections.Collection, cols []string, batch []*insertReq) {
	defer func() {
		for _, r := range batch {
			close(r.done)
		}
	}()
	// The statement is shared: no member's cancellation may cut it short.
	ctx := context.WithoutCancel(batch[0].ctx)
	if len(batch) == 1 {
		r := batch[0]
		r.err = s.insertOne(ctx, c, cols, r.args, r.ch)
		return
	}
	q, args, err := s.batchInsertSQL(c, cols, batch)
	if err != nil {
		for _, r := range batch {
			r.err = err
		}
		return
	}
	var n int64
	err = s.queryRowKeyed(ctx, s.db, q, args...).Scan(&n)
	var ps sqlStater
	switch {
	case err == nil:
		for _, r := range batch {
			if r.guard != nil {
				r.err = r.guard.settle(n > 0) // only the guard keeps the rows out
			}
		}
	case errors.As(err, &ps):
		// PostgreSQL rejected the batch, so nothing of it was written:
		// each create on its own.
		for _, r := range batch {
			r.err = s.insertOne(context.WithoutCancel(r.ctx), c, cols, r.args, r.ch)
		}
	default:
		err = classifyFor(c, fmt.Errorf("store: insert %s: %w", c.Table(), err))
		for _, r := range batch {
			r.err = err
		}
	}
}

// batchInsertSQL is the statement of a batch: its records (the first row's
// values cast to the columns' types, which then type the other rows, as
// the columns type an INSERT's own VALUES), their row counts per team and,
// when logged, their change rows, written only when the records are (a
// guard that does not hold writes none of them).
func (s *Store) batchInsertSQL(c *collections.Collection, cols []string, batch []*insertReq) (string, []any, error) {
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
	// The table name passed validIdent (quote): a safe literal.
	fmt.Fprintf(&b, ` RETURNING "team_id"), kit_count AS (INSERT INTO kit_row_counts (table_name, team_id, n) SELECT '%s', "team_id", count(*) FROM kit_row GROUP BY "team_id")`, c.Table())
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
	b.WriteString(" SELECT count(*) FROM kit_row")
	return b.String(), args, nil
}

// columnTypes maps the quoted name of each column of c's table that
// insertParts may write to its SQL type, without collation (a sort key is
// text).
func (s *Store) columnTypes(c *collections.Collection) map[string]string {
	types := map[string]string{}
	for _, a := range c.Attributes() {
		types[quote(a.Column)] = strings.TrimSuffix(columnType(s.dialect, a), ` COLLATE "C"`)
		if hasSortKey(a) {
			types[quote(sortKeyColumn(a))] = "TEXT"
		}
	}
	return types
}
