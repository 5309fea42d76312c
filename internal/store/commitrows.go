package store

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/uptrace/bun"
)

// CommitRows are rows a write inserts in its own transaction after its
// change (an audit trail's events, for one), handed to InsertAtCommit.
type CommitRows struct {
	// Model is a pointer to a slice of a bun model; nil or an empty slice
	// inserts nothing.
	Model any
	// Optional makes a failed INSERT of the rows undo only itself: the
	// change commits without them. Otherwise the failure fails the write
	// (in the write queue, every write whose rows the INSERT held).
	Optional bool
	// Done, when not nil, is called once the rows' INSERT ran, with its
	// error (nil: inserted; they commit with the change unless the
	// transaction fails later).
	Done func(error)
}

// commitRowsChunk bounds the rows of one INSERT of a group's commit rows
// (SQLite binds at most 32,766 parameters in a statement).
const commitRowsChunk = 500

// InsertAtCommit inserts rows in the transaction of the write that runs
// with ctx. Inside the SQLite write queue they are kept with the write and
// inserted just before its group commits, with the rows of the group's
// other successful writes of the same model, one INSERT for them all: the
// write itself stays the one statement it was (Write.Single), so a group
// needs no savepoint per write for them, and the rows of a whole group
// cost one statement. Elsewhere (PostgreSQL, whose transactions are the
// writes' own) they are inserted at once through tx, optional ones in a
// savepoint.
func (s *Store) InsertAtCommit(ctx context.Context, tx bun.IDB, rows CommitRows) error {
	if rows.Model == nil || reflect.ValueOf(rows.Model).Elem().Len() == 0 {
		return nil
	}
	if r, ok := ctx.Value(writeReqKey{}).(*writeReq); ok {
		r.rows = append(r.rows, rows)
		return nil
	}
	err := s.insertRowsNow(ctx, tx, rows)
	if rows.Done != nil {
		rows.Done(err)
	}
	if rows.Optional {
		return nil
	}
	return err
}

// insertRowsNow inserts rows through tx, an optional set in a savepoint
// that its failure rolls back to. The error is the INSERT's, unless the
// failure took the transaction with it. On PostgreSQL the savepoint, the
// INSERT and the release go to the server as one statement string, one
// round trip instead of three; the string stops at its first failure.
func (s *Store) insertRowsNow(ctx context.Context, tx bun.IDB, rows CommitRows) error {
	if !rows.Optional {
		_, err := tx.NewInsert().Model(rows.Model).Exec(ctx)
		return err
	}
	if s.has(featConcurrentWrites) {
		q := []byte("SAVEPOINT kit_commit_rows; ")
		q, err := tx.NewInsert().Model(rows.Model).AppendQuery(s.db.QueryGen(), q)
		if err != nil {
			return err
		}
		q = append(q, "; RELEASE kit_commit_rows"...)
		// bun.Safe: the values are in the text already.
		_, err = tx.NewRaw("?", bun.Safe(q)).Exec(ctx)
		if err == nil {
			return nil
		}
		if _, rerr := tx.ExecContext(ctx, "ROLLBACK TO kit_commit_rows; RELEASE kit_commit_rows"); rerr != nil {
			return &AfterWriteError{Err: fmt.Errorf("store: write transaction lost: %w", errors.Join(err, rerr))}
		}
		return err
	}
	if _, err := tx.ExecContext(ctx, "SAVEPOINT kit_commit_rows"); err != nil {
		return err
	}
	if _, err := tx.NewInsert().Model(rows.Model).Exec(ctx); err != nil {
		if _, rerr := tx.ExecContext(ctx, "ROLLBACK TO kit_commit_rows; RELEASE kit_commit_rows"); rerr != nil {
			return &AfterWriteError{Err: fmt.Errorf("store: write transaction lost: %w", errors.Join(err, rerr))}
		}
		return err
	}
	_, err := tx.ExecContext(ctx, "RELEASE kit_commit_rows")
	return err
}

// AfterWriteError is the error of a write that failed after its one
// statement changed rows (a Write.Single write whose listener failed
// afterwards): with no savepoint to undo only it, the write queue rolls
// back the whole group, and its other writes fail with
// ErrGroupAborted.
type AfterWriteError struct{ Err error }

func (e *AfterWriteError) Error() string { return e.Err.Error() }
func (e *AfterWriteError) Unwrap() error { return e.Err }

// ErrGroupAborted is the error of the writes of a write queue group that a
// write of the group aborted after it had changed rows (a panic, an
// *AfterWriteError).
var ErrGroupAborted = errors.New("store: write transaction aborted by another write of its group")

// insertCommitRows inserts the commit rows of the group's successful
// writes ok, each model's in INSERTs of up to commitRowsChunk rows. When
// any set is optional, they all run in a savepoint: a failure then rolls
// back to it, and the group commits without them unless a failed INSERT
// held a set that is not optional. The error fails the group.
func (q *writeQueue) insertCommitRows(ctx context.Context, tx bun.Tx, ok []*writeReq) error {
	var sets []CommitRows
	for _, r := range ok {
		sets = append(sets, r.rows...)
	}
	sets, err := q.insertSingles(ctx, tx, sets)
	if err != nil || len(sets) == 0 {
		return err
	}
	n := optionalSets(sets)
	optional := n > 0
	if optional {
		if _, err := q.s.execOnce(ctx, tx, "SAVEPOINT kit_commit_rows"); err != nil {
			return err
		}
	}
	err = insertMerged(ctx, tx, sets)
	fail := err // what fails the group; err is what Done gets
	switch {
	case !optional:
	case err == nil:
		if _, rerr := q.s.execOnce(ctx, tx, "RELEASE kit_commit_rows"); rerr != nil {
			err, fail = rerr, rerr
		}
	case n == len(sets):
		if rerr := q.rollbackToName(ctx, tx, "kit_commit_rows"); rerr != nil {
			err = fmt.Errorf("store: write transaction lost: %w", errors.Join(err, rerr))
			fail = err
		} else {
			fail = nil
		}
	}
	for _, rows := range sets {
		if rows.Done != nil {
			rows.Done(err)
		}
	}
	return fail
}

// insertSingles inserts, one prepared single-row INSERT a row (see
// rowInsert), the sets that need no savepoint that way: a set of one row,
// whose failed INSERT undoes only itself, and a set that is not optional,
// whose failure fails the group anyway. It returns the sets left for
// insertMerged (optional sets of several rows, and models whose fields
// the plain path does not bind). A failed optional row costs only its
// set, unless it took the transaction with it; a failed required one
// fails the group, and the sets not yet inserted get its error too.
func (q *writeQueue) insertSingles(ctx context.Context, tx bun.Tx, sets []CommitRows) (rest []CommitRows, err error) {
	for i, rows := range sets {
		if rows.Optional && reflect.ValueOf(rows.Model).Elem().Len() > 1 {
			rest = append(rest, rows)
			continue
		}
		handled, err := q.insertOneByOne(ctx, tx, rows)
		if !handled {
			rest = append(rest, rows)
			continue
		}
		if err != nil && rows.Optional {
			if lost := q.transactionLost(ctx, tx); lost != nil {
				err = fmt.Errorf("store: write transaction lost: %w", errors.Join(err, lost))
				rows.Optional = false
			}
		}
		if rows.Done != nil {
			rows.Done(err)
		}
		if err != nil && !rows.Optional {
			for _, left := range append(rest, sets[i+1:]...) {
				if left.Done != nil {
					left.Done(err)
				}
			}
			return nil, err
		}
	}
	return rest, nil
}

// transactionLost reports, after a statement failed, whether the failure
// ended the whole transaction (SQLite rolls it back on an I/O error, a
// full disk, an interrupt, a trigger's RAISE(ROLLBACK)): a BEGIN then
// succeeds, and its own transaction is rolled back at once. Inside the
// transaction it fails ("cannot start a transaction within a
// transaction"), and transactionLost returns nil.
func (q *writeQueue) transactionLost(ctx context.Context, tx bun.Tx) error {
	ctx = context.WithoutCancel(ctx)
	_, err := q.s.execOnce(ctx, tx, "BEGIN")
	if err == nil {
		_, rerr := q.s.execOnce(ctx, tx, "ROLLBACK")
		return errors.Join(errors.New("store: the failed statement rolled the transaction back"), rerr)
	}
	if strings.Contains(err.Error(), "within a transaction") {
		return nil
	}
	return fmt.Errorf("store: probe the transaction: %w", err)
}

// optionalSets counts the optional sets of sets.
func optionalSets(sets []CommitRows) int {
	n := 0
	for _, rows := range sets {
		if rows.Optional {
			n++
		}
	}
	return n
}

// insertMerged inserts sets, merging the slices of each model type.
func insertMerged(ctx context.Context, tx bun.Tx, sets []CommitRows) error {
	var order []reflect.Type
	merged := map[reflect.Type]reflect.Value{}
	for _, rows := range sets {
		v := reflect.ValueOf(rows.Model).Elem()
		t := v.Type()
		m, seen := merged[t]
		if !seen {
			order = append(order, t)
			m = reflect.MakeSlice(t, 0, v.Len())
		}
		merged[t] = reflect.AppendSlice(m, v)
	}
	for _, t := range order {
		all := merged[t]
		for lo := 0; lo < all.Len(); lo += commitRowsChunk {
			chunk := reflect.New(t)
			chunk.Elem().Set(all.Slice(lo, min(lo+commitRowsChunk, all.Len())))
			if _, err := tx.NewInsert().Model(chunk.Interface()).Exec(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}
