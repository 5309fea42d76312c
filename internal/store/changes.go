package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
)

// The change log: kit_changes holds one row per committed mutation of a
// record, written in the mutation's own transaction (so a rolled-back
// change leaves no row), with a monotonic id that is the change stream's
// position. kit_changes_pruned holds one row, id 1, whose through column
// is the largest id retention has deleted: a resume from a position below
// it cannot be answered with every missing change.
//
// Positions and commit order. On SQLite one writer at a time commits, and
// an id is taken under the write lock, so ids become visible in order. On
// PostgreSQL ids come from a sequence when the row is inserted, and
// concurrent transactions may commit in another order: a reader can see id
// 12 before id 11 commits, or id 11 may never commit (a rollback leaves a
// hole in the sequence). A reader (ChangeCursor) therefore never moves past
// a hole until it is resolved: when it meets the hole it takes a fresh
// transaction id (xidHorizon) and waits until a later snapshot's xmin is at
// least that value, when every transaction that could hold the missing id
// has ended. The inserting transaction takes its transaction id before it
// takes the sequence value (the record write precedes it), so that
// holder's id is below the horizon. (The snapshot's own xmax is not a safe
// horizon, see xidHorizon: with it, about one change in a thousand was
// skipped between two instances under load.)

// Change is one row of the change log.
type Change struct {
	ID            int64
	TeamID        string
	Collection    string
	Operation     string
	ItemIDs       []string
	CorrelationID string
	// Timestamp is the mutation's time in Unix milliseconds.
	Timestamp int64
}

// CreateChangesTable creates kit_changes and kit_changes_pruned if they do
// not exist (kit's migration).
//
// The log is lean because every write pays for it: no secondary index (a
// resume reads the positions after its own by primary key, bounded by the
// retention window, and skips other teams' rows) and, on SQLite, no
// AUTOINCREMENT (which writes sqlite_sequence in every transaction).
// Without AUTOINCREMENT SQLite gives a new row the largest id plus one, so
// positions stay monotonic only while the newest row is kept:
// PruneChanges never deletes it.
func CreateChangesTable(ctx context.Context, db bun.IDB) error {
	stmts := append([]string{dialectOf(db.Dialect().Name()).changesDDL()},
		`CREATE TABLE IF NOT EXISTS kit_changes_pruned (id INTEGER PRIMARY KEY, through BIGINT NOT NULL)`,
		`INSERT INTO kit_changes_pruned (id, through) VALUES (1, 0) ON CONFLICT (id) DO NOTHING`,
	)
	for _, q := range stmts {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// LeanChangesTable brings a change log made by the first version of
// CreateChangesTable to the current one, keeping its rows: it drops the
// (team_id, id) index and, on SQLite, rebuilds the table without
// AUTOINCREMENT (kit's migration; a table that is already lean is left
// alone).
func LeanChangesTable(ctx context.Context, db bun.IDB) error {
	if _, err := db.ExecContext(ctx, `DROP INDEX IF EXISTS kit_changes_team_id`); err != nil {
		return err
	}
	return dialectOf(db.Dialect().Name()).leanChanges(ctx, db)
}

// DropChangesTable drops the change log's tables (the migration's down
// step).
func DropChangesTable(ctx context.Context, db bun.IDB) error {
	for _, q := range []string{`DROP TABLE IF EXISTS kit_changes`, `DROP TABLE IF EXISTS kit_changes_pruned`} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// insertChangeSQL adds one row to the change log (SQLite).
const insertChangeSQL = `INSERT INTO kit_changes (team_id, collection, operation, item_ids, correlation_id, ts) VALUES (?, ?, ?, ?, ?, ?)`

// RecordChange adds ch (its ID is assigned on insert) to the change log in
// the write transaction tx of RunWrite; call it last in the write's fn.
// On PostgreSQL it inserts the row at once, as the transaction's last
// write, so that positions follow commit order as closely as the engine
// allows. In SQLite's write queue it only notes the row: the group writes
// the rows of its successful writes in one statement just before it
// commits (no savepoint needed for them, and one statement per group
// instead of one per write), and a write that fails leaves none.
func (s *Store) RecordChange(ctx context.Context, tx bun.Tx, ch Change) error {
	if r, ok := ctx.Value(writeReqKey{}).(*writeReq); ok {
		r.changes = append(r.changes, ch)
		return nil
	}
	ids, err := json.Marshal(ch.ItemIDs)
	if err != nil {
		return err
	}
	_, err = s.execKeyed(ctx, tx, s.dialect.insertChangeSQL(), ch.TeamID, ch.Collection, ch.Operation, string(ids), ch.CorrelationID, ch.Timestamp)
	return err
}

// logged makes q, an INSERT, UPDATE or DELETE of c's table that writes at
// most one row and has no RETURNING clause, one PostgreSQL statement (a
// data-modifying WITH) that writes with that row: a row count delta of n
// (see counted; 0 for an update, which still marks the team's rows as
// changed, see totals.go), and ch's change log row when ch is not nil. In
// the statement, pre (when not empty) is a WITH query before q, which q
// may read; kit_row is q's row with the RETURNING list ret (it must
// return "team_id"); main is the statement's own
// query, which may read both and takes no arguments. args are those of
// pre and q in that order; ch's and rows' follow. Outside a transaction the statement commits by
// itself: the record, its count and its change row are written together
// or not at all, in one round trip instead of four (BEGIN, the record,
// the change, COMMIT).
//
// The change row takes its transaction id (pg_current_xact_id; the
// record's write has already assigned it) before its position (nextval),
// as RecordChange's INSERT does, so that the cursor's horizon argument
// holds (see the top of this file).
func (s *Store) logged(c *collections.Collection, pre, q, ret string, n int, ch *Change, rows []CommitRows, main string, args []any) (string, []any, error) {
	var b strings.Builder
	b.WriteString("WITH ")
	if pre != "" {
		b.WriteString(pre + ", ")
	}
	b.WriteString("kit_row AS (" + q + " RETURNING " + ret + ")")
	b.WriteString(", kit_count AS (" + deltaRows(c, `"team_id"`, fmt.Sprint(n), false) + ")")
	if ch != nil {
		ids, err := json.Marshal(ch.ItemIDs)
		if err != nil {
			return "", nil, err
		}
		b.WriteString(`, kit_change AS (INSERT INTO kit_changes (xid, id, team_id, collection, operation, item_ids, correlation_id, ts)
			SELECT pg_current_xact_id(), nextval('kit_changes_id_seq'), ?, ?, ?, ?, ?, ? FROM kit_row)`)
		args = append(args, ch.TeamID, ch.Collection, ch.Operation, string(ids), ch.CorrelationID, ch.Timestamp)
	}
	if len(rows) > 0 {
		var err error
		args, err = s.joinedRowsSQL(&b, args, []*batchReq{{rows: rows}}, "EXISTS (SELECT 1 FROM kit_row)")
		if err != nil {
			return "", nil, err
		}
	}
	b.WriteString(" " + main)
	return b.String(), args, nil
}

// insertChanges writes the change rows the successful writes of a group
// recorded, in their order, one prepared single-row INSERT each. One
// multi-row INSERT would be fewer statements but costs more: SQLite gives
// a statement that writes several rows inside a transaction a statement
// journal (so that a failing row undoes the earlier ones), a copy of every
// page it changes. Each row's ID is set to its position.
func (s *Store) insertChanges(ctx context.Context, tx bun.Tx, ok []*writeReq) error {
	for _, r := range ok {
		for i := range r.changes {
			ch := &r.changes[i]
			ids, err := json.Marshal(ch.ItemIDs)
			if err != nil {
				return err
			}
			res, err := s.execKeyed(ctx, tx, insertChangeSQL, ch.TeamID, ch.Collection, ch.Operation, string(ids), ch.CorrelationID, ch.Timestamp)
			if err != nil {
				return err
			}
			if ch.ID, err = res.LastInsertId(); err != nil {
				return err
			}
		}
	}
	return nil
}

// ChangeCursor is a reader's position in the change log: every change up
// to Pos has been read or will never exist. The zero value is the start of
// the log; ChangeHead returns the current end.
type ChangeCursor struct {
	// Pos is the largest position read.
	Pos int64
	// A hole above Pos waits for the transactions that were running when
	// it was met (PostgreSQL): once the snapshot's xmin reaches horizon,
	// every id up to mark is resolved.
	mark, horizon int64
}

// ErrChangeHeadTimeout is returned by ChangeHead when transactions keep
// the end of the change log unresolved for longer than its wait.
var ErrChangeHeadTimeout = errors.New("store: the change log's end stayed unresolved")

// ChangeHead returns a cursor at the end of the change log: every change
// up to it has committed or never will. On PostgreSQL it waits, polling
// every poll, until the transactions running at the first read have ended
// (at most 30 s, then ErrChangeHeadTimeout).
func (s *Store) ChangeHead(ctx context.Context, poll time.Duration) (ChangeCursor, error) {
	var max int64
	if !s.has(featConcurrentWrites) {
		// Positions follow commit order: the log's end is its last row.
		err := s.queryRow(ctx, s.db, `SELECT COALESCE(MAX(id), 0) FROM kit_changes`).Scan(&max)
		return ChangeCursor{Pos: max}, err
	}
	if err := s.queryRow(ctx, s.db, `SELECT COALESCE(MAX(id), 0) FROM kit_changes`).Scan(&max); err != nil {
		return ChangeCursor{}, err
	}
	horizon, err := s.xidHorizon(ctx)
	if err != nil {
		return ChangeCursor{}, err
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		var now int64
		if err := s.queryRow(ctx, s.db, `SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint`).Scan(&now); err != nil {
			return ChangeCursor{}, err
		}
		if now >= horizon {
			break
		}
		if time.Now().After(deadline) {
			return ChangeCursor{}, ErrChangeHeadTimeout
		}
		select {
		case <-ctx.Done():
			return ChangeCursor{}, ctx.Err()
		case <-time.After(poll):
		}
	}
	return ChangeCursor{Pos: max}, nil
}

// NextChanges returns up to limit changes after cur, in position order,
// and moves cur past them. On PostgreSQL it stops below a position that
// may still commit (see the top of this file); a later call returns it.
func (s *Store) NextChanges(ctx context.Context, cur *ChangeCursor, limit int) ([]Change, error) {
	// With concurrent writers a position may be taken by a transaction
	// that commits later: the log may have holes.
	holes := s.has(featConcurrentWrites)
	rows, err := s.query(ctx, s.db, s.dialect.readChangesSQL(s.hiddenArg()), cur.Pos, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var all []Change
	var xmin, xmax int64
	for rows.Next() {
		ch, err := scanChange(rows, &xmin, &xmax)
		if err != nil {
			return nil, err
		}
		all = append(all, ch)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if !holes {
		if len(all) > 0 {
			cur.Pos = all[len(all)-1].ID
		}
		return all, nil
	}
	if len(all) == 0 {
		return nil, nil
	}
	n := 0
	safe := cur.Pos
	if cur.horizon != 0 && xmin >= cur.horizon {
		safe, cur.mark, cur.horizon = cur.mark, 0, 0
	}
	for _, ch := range all {
		if ch.ID != cur.Pos+1 && ch.ID > safe {
			break // a hole: ids below ch.ID may still commit
		}
		cur.Pos = ch.ID
		n++
	}
	if n == len(all) && len(all) < limit && safe > cur.Pos {
		cur.Pos = safe // the holes up to safe never commit
	}
	if n < len(all) && cur.horizon == 0 {
		// A new hole: it is resolved once every transaction that may
		// hold a position below the last one read has ended, which a
		// later read sees (see xidHorizon).
		h, err := s.xidHorizon(ctx)
		if err != nil {
			return nil, err
		}
		cur.mark, cur.horizon = all[len(all)-1].ID, h
	}
	return all[:n], nil
}

// xidHorizon returns a transaction id above that of every transaction
// that had one when it was called: once a snapshot's xmin reaches it,
// all of those have ended. A snapshot's own xmax is not such a bound: it
// is one past the newest transaction that had ended, and a transaction
// that took its id later and still runs is above it and not listed as
// running. So the horizon is an id of its own, taken by a statement that
// commits at once (one transaction id per hole met, and per ChangeHead).
func (s *Store) xidHorizon(ctx context.Context) (int64, error) {
	var h int64
	err := s.queryRow(ctx, s.db, `SELECT pg_current_xact_id()::text::bigint`).Scan(&h)
	return h, err
}

// ChangesAfter returns the team's changes with positions in (after,
// through], in order, at most limit.
func (s *Store) ChangesAfter(ctx context.Context, teamID string, after, through int64, limit int) ([]Change, error) {
	rows, err := s.query(ctx, s.db, `SELECT id, team_id, collection, operation, item_ids, correlation_id, ts, 0, 0
		FROM kit_changes WHERE team_id = ? AND id > ? AND id <= ? ORDER BY id LIMIT `+s.hiddenArg(), teamID, after, through, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Change
	var ignored int64
	for rows.Next() {
		ch, err := scanChange(rows, &ignored, &ignored)
		if err != nil {
			return nil, err
		}
		out = append(out, ch)
	}
	return out, rows.Err()
}

func scanChange(rows *sql.Rows, xmin, xmax *int64) (Change, error) {
	var ch Change
	var ids string
	if err := rows.Scan(&ch.ID, &ch.TeamID, &ch.Collection, &ch.Operation, &ids, &ch.CorrelationID, &ch.Timestamp, xmin, xmax); err != nil {
		return ch, err
	}
	if err := json.Unmarshal([]byte(ids), &ch.ItemIDs); err != nil {
		return ch, fmt.Errorf("store: kit_changes %d: item ids: %w", ch.ID, err)
	}
	return ch, nil
}

// ChangeBounds returns the largest position retention deleted (a resume
// from below it misses changes) and the largest position written.
func (s *Store) ChangeBounds(ctx context.Context) (prunedThrough, last int64, err error) {
	err = s.queryRow(ctx, s.db, `SELECT (SELECT through FROM kit_changes_pruned WHERE id = 1),
		(SELECT COALESCE(MAX(id), 0) FROM kit_changes)`).Scan(&prunedThrough, &last)
	return prunedThrough, last, err
}

// PruneChanges deletes the changes older than olderThan and all but the
// newest keep, except the newest change of all, and records the largest position deleted. It returns how
// many rows it deleted.
func (s *Store) PruneChanges(ctx context.Context, olderThan time.Time, keep int64) (int64, error) {
	var deleted int64
	err := s.RunWrite(ctx, Write{}, func(ctx context.Context, tx bun.Tx) error {
		var byAge, last int64
		err := s.queryRowOnce(ctx, tx, `SELECT COALESCE((SELECT MAX(id) FROM kit_changes WHERE ts < ?), 0),
			COALESCE((SELECT MAX(id) FROM kit_changes), 0)`, olderThan.UnixMilli()).Scan(&byAge, &last)
		if err != nil {
			return err
		}
		// The newest row stays: on SQLite it is what keeps the next
		// position above every earlier one (see CreateChangesTable).
		through := min(max(byAge, last-keep), last-1)
		if through <= 0 {
			return nil
		}
		res, err := s.execOnce(ctx, tx, `DELETE FROM kit_changes WHERE id <= ?`, through)
		if err != nil {
			return err
		}
		deleted, _ = res.RowsAffected()
		_, err = s.execOnce(ctx, tx, `UPDATE kit_changes_pruned SET through = ? WHERE id = 1 AND through < ?`, through, through)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: prune changes: %w", err)
	}
	return deleted, nil
}
