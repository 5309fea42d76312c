package store

import (
	"context"
	"database/sql"
	"errors"
	"sync/atomic"

	"github.com/uptrace/bun"
)

// A WriteGuard makes the writes queued under a context conditional on a
// counter kept outside the Store (kit's authorization version): on
// SQLite, the write queue reads the counter in the write's own
// transaction, right before the first guarded write runs, and runs it only
// when the counter still has the value the guard wants. The transaction
// holds SQLite's write lock, so no other writer (of this process or
// another) can change the counter between the check and the commit.
//
// Once a guarded write has passed, the guard is confirmed and the later
// writes under it are not checked again: the caller was authorized when
// its first write ran, as a caller that read the counter at its start is
// for all of its writes. A refused write does not run (RunWrite returns
// ErrWriteGuardRefused), so nothing under the guard was written, and the
// caller can start over.
//
// On PostgreSQL, where writes run concurrently, a guard is tested in the
// write itself: InsertLogged, UpdateLogged and DeleteLogged, each one
// statement, write only when the counter, read in the statement's
// snapshot, has the wanted value (no round trip of its own), and RunWrite
// reads the counter in the write's transaction before fn. A write there
// whose snapshot predates a change of the counter may still commit after
// it, as a write authorized a moment earlier would.
type WriteGuard struct {
	query string // SELECT of one BIGINT (NULL or no row: refused)
	want  int64
	state atomic.Int32 // a GuardState
}

// GuardState is what became of a WriteGuard.
type GuardState int32

const (
	// GuardUnchecked: no write under the guard reached its turn.
	GuardUnchecked GuardState = iota
	// GuardConfirmed: a write found the counter at the wanted value.
	GuardConfirmed
	// GuardRefused: a write found another value (or none) and did not run.
	GuardRefused
)

// ErrWriteGuardRefused is the error of a write refused by its WriteGuard.
var ErrWriteGuardRefused = errors.New("store: write refused: the guarded counter changed")

// NewWriteGuard returns a guard that wants counter c to hold want.
func NewWriteGuard(c Counter, want int64) *WriteGuard {
	return &WriteGuard{query: "SELECT " + c.Subquery(), want: want}
}

// State reports what became of g so far. Read it after RunWrite returned.
func (g *WriteGuard) State() GuardState { return GuardState(g.state.Load()) }

// guardReads remembers, within one group commit, the counters read for
// guards, so that a group of guarded writes reads each counter once. A
// write that may have changed a counter (one that is not a single
// statement of a collection's rows) forgets them.
type guardReads map[string]sql.NullInt64

// check decides r's guard, if it has one still unchecked, in tx: it
// reports false, with r.err set, when the write must not run.
func (q *writeQueue) check(ctx context.Context, tx bun.Tx, r *writeReq, seen guardReads) bool {
	g := r.guard
	if g == nil || g.State() != GuardUnchecked {
		return true
	}
	v, ok := seen[g.query]
	if !ok {
		if err := q.s.queryRow(ctx, tx, g.query).Scan(&v); err != nil && !errors.Is(err, sql.ErrNoRows) {
			r.err = err
			return false
		}
		seen[g.query] = v
	}
	if r.err = g.decide(v); r.err != nil {
		return false
	}
	return true
}

// decide settles g by the counter's value v: confirmed when v is the
// wanted value, refused (ErrWriteGuardRefused) otherwise, NULL included.
func (g *WriteGuard) decide(v sql.NullInt64) error {
	return g.settle(v.Valid && v.Int64 == g.want)
}

// settle confirms g when held, and refuses it (ErrWriteGuardRefused)
// otherwise.
func (g *WriteGuard) settle(held bool) error {
	if !held {
		g.state.Store(int32(GuardRefused))
		return ErrWriteGuardRefused
	}
	g.state.Store(int32(GuardConfirmed))
	return nil
}

// checkGuard decides g (nil: none), if still unchecked, by reading its
// counter on db (PostgreSQL: in the write's transaction).
func (s *Store) checkGuard(ctx context.Context, db bun.IDB, g *WriteGuard) error {
	if g == nil || g.State() != GuardUnchecked {
		return nil
	}
	return s.readGuard(ctx, db, g)
}

// readGuard settles g by reading its counter on db.
func (s *Store) readGuard(ctx context.Context, db bun.IDB, g *WriteGuard) error {
	var v sql.NullInt64
	if err := s.queryRowKeyed(ctx, db, g.query).Scan(&v); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	return g.decide(v)
}

// stmtGuard is g, when not nil and still unchecked, as the condition a
// PostgreSQL write statement adds to its WHERE ("(query) = ?") and its
// argument; g is nil, cond empty, when there is none to test.
func stmtGuard(g *WriteGuard) (_ *WriteGuard, cond string, arg any) {
	if g == nil || g.State() != GuardUnchecked {
		return nil, "", nil
	}
	return g, "(" + g.query + ") = ?", g.want
}

// settleGuard settles g (nil: nothing to do) after a statement that
// tested it matched rows rows: some means the counter held the wanted
// value. None means that it did not, or that the statement found nothing
// to write, so the counter is read again: found at the wanted value, it
// had that value in the statement too (the wanted value was read before
// the statement, and the counter only grows), and nil is returned for the
// caller to report its own outcome; otherwise ErrWriteGuardRefused (the
// caller starts over, having written nothing).
func (s *Store) settleGuard(ctx context.Context, g *WriteGuard, rows int64) error {
	if g == nil {
		return nil
	}
	if rows > 0 {
		return g.settle(true)
	}
	return s.readGuard(ctx, s.db, g)
}
