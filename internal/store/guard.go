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
// On PostgreSQL RunWrite does not check guards: a guard there stays
// unchecked.
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

// NewWriteGuard returns a guard that wants query, a SELECT of one BIGINT
// value taking no arguments, to return want. The caller vouches for the
// query's text: it runs as it is.
func NewWriteGuard(query string, want int64) *WriteGuard {
	return &WriteGuard{query: query, want: want}
}

// State reports what became of g so far. Read it after RunWrite returned.
func (g *WriteGuard) State() GuardState { return GuardState(g.state.Load()) }

type writeGuardKey struct{}

// WithWriteGuard returns ctx carrying g: the writes RunWrite queues under
// ctx are checked by it (SQLite).
func WithWriteGuard(ctx context.Context, g *WriteGuard) context.Context {
	return context.WithValue(ctx, writeGuardKey{}, g)
}

// guardOf returns the guard ctx carries, or nil.
func guardOf(ctx context.Context) *WriteGuard {
	g, _ := ctx.Value(writeGuardKey{}).(*WriteGuard)
	return g
}

// guardReads remembers, within one group commit, the counters read for
// guards, so that a group of guarded writes reads each counter once. A
// write that may have changed a counter (one that is not a single
// statement of a collection's rows) forgets them.
type guardReads map[string]sql.NullInt64

// check decides r's guard, if it has one still unchecked, in tx: it
// reports false, with r.err set, when the write must not run.
func (q *writeQueue) check(ctx context.Context, tx bun.Tx, r *writeReq, seen guardReads) bool {
	g := guardOf(r.ctx)
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
	if !v.Valid || v.Int64 != g.want {
		g.state.Store(int32(GuardRefused))
		r.err = ErrWriteGuardRefused
		return false
	}
	g.state.Store(int32(GuardConfirmed))
	return true
}
