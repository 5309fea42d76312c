package kit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"time"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/internal/store"
)

// Operation is the kind of a mutation.
type Operation string

// The operations the mutation hook reports.
const (
	OpCreate  Operation = "create"
	OpUpdate  Operation = "update"
	OpDelete  Operation = "delete"
	OpMove    Operation = "move"
	OpReorder Operation = "reorder"
	// OpRestore puts a record back from its team's trash (see
	// Records.Restore); it carries ItemID, Data and Result as a create.
	OpRestore Operation = "restore"
	// OpPurge removes records from the trash for good (Records.Purge and
	// the retention purge); it carries ItemIDs and BeforeData as a delete.
	OpPurge Operation = "purge"
)

// Mutation is the kit:mutation payload. Create carries Data, Result and
// ItemID; update carries ItemID, Updates, BeforeData and Result; delete
// carries ItemIDs and BeforeData (the deleted record's last state). A
// bulk delete ([Records.DeleteMany]) of several records is one Mutation:
// ItemIDs names them all, ItemID is empty and BeforeData maps each id to
// its record's last state.
type Mutation struct {
	Operation     Operation      `json:"operation"`
	Collection    string         `json:"collection"`
	ItemID        string         `json:"itemId,omitempty"`
	ItemIDs       []string       `json:"itemIds,omitempty"`
	Data          map[string]any `json:"data,omitempty"`
	Updates       map[string]any `json:"updates,omitempty"`
	BeforeData    map[string]any `json:"beforeData,omitempty"`
	Result        any            `json:"result,omitempty"`
	CorrelationID string         `json:"correlationId,omitempty"`
	// Trashed says that a delete moved the records to the team's trash
	// (a softDelete collection) instead of removing them for good.
	Trashed bool `json:"trashed,omitempty"`
	// Timestamp is when the mutation started, in Unix milliseconds.
	Timestamp int64 `json:"timestamp"`
	// TeamID and UserID say who changed what where.
	TeamID string `json:"teamId"`
	UserID string `json:"userId"`
	// Request holds the facts of the HTTP request, when there was one.
	Request RequestInfo `json:"-"`
}

// RequestInfo is what kit knows of the request behind a mutation.
type RequestInfo struct {
	CorrelationID string
	UserAgent     string
	RemoteAddr    string
	Method        string
	Path          string
}

type requestInfoKey struct{}

// WithRequestInfo attaches request facts to ctx; mutations made with ctx
// carry them (and its correlation id). The HTTP handler does this for
// every request; Go callers may do it too.
func WithRequestInfo(ctx context.Context, info RequestInfo) context.Context {
	return context.WithValue(ctx, requestInfoKey{}, info)
}

// RequestInfoFrom returns the request facts attached to ctx.
func RequestInfoFrom(ctx context.Context) (RequestInfo, bool) {
	info, ok := ctx.Value(requestInfoKey{}).(RequestInfo)
	return info, ok
}

// MutationTxFunc runs inside the mutation's transaction, after the change
// is written. Writing through tx makes its work commit or roll back with
// the change; an error rolls the change back and fails the request.
type MutationTxFunc func(ctx context.Context, tx bun.Tx, m *Mutation) error

// MutationFunc runs after the mutation committed. It cannot fail the
// request; panics are recovered and logged. It runs before the response is
// written, so keep it fast or hand work to a goroutine.
type MutationFunc func(ctx context.Context, m Mutation)

// OnMutationTx registers a listener that runs inside every mutation's
// transaction (the events add-on uses it so a change and its audit record
// commit together). Listeners run in registration order. A listener writes
// through tx, never through the record API or another transaction: the
// mutation holds the database's write lock until it commits (on SQLite a
// second write would wait for it, and fail).
func (k *Kit) OnMutationTx(fn MutationTxFunc) {
	k.hooksMu.Lock()
	defer k.hooksMu.Unlock()
	k.txHooks = append(k.txHooks, fn)
}

// MutationRows are rows a MutationRowsFunc inserts with its mutation.
type MutationRows struct {
	// Model is a pointer to a slice of a bun model (its table's rows);
	// nil or an empty slice inserts nothing.
	Model any
	// Optional makes a failed INSERT of the rows undo only itself: the
	// change commits without them. Otherwise the failure fails the
	// mutation.
	Optional bool
	// Done, when not nil, is called once the rows' INSERT ran, with its
	// error (nil: inserted; they commit with the change unless its
	// transaction fails later). It runs on the goroutine that writes and
	// must be quick.
	Done func(error)
}

// MutationRowsFunc turns a mutation into rows to insert with the
// mutation's change, committed together. Where the change runs in a
// transaction, fn runs inside it, after the change, and db is that
// transaction (a bun.Tx). Where the change is one statement that commits
// by itself (PostgreSQL, see OnMutationRows), fn runs just before that
// statement, with m as complete as after it, and db is the database. db
// is for reads only: fn must not write through it (nor anywhere else in
// the database).
type MutationRowsFunc func(ctx context.Context, db bun.IDB, m *Mutation) (MutationRows, error)

// OnMutationRows registers a listener that adds rows to every mutation's
// transaction: an audit trail's events, for one (the events add-on uses it
// on SQLite). The rows commit with the change or not at all, as an
// OnMutationTx listener's writes do, but cost less: on SQLite, where kit
// commits concurrent writes in groups, the rows of a group's mutations are
// inserted together, one INSERT per model just before the group commits,
// and the mutation stays the single statement it was, which a group
// commits without a savepoint of its own. On PostgreSQL, a create, update
// or delete that kit writes as one statement outside any transaction
// (no OnMutationTx listener, no siblings to move, nothing to look up
// first) stays one: Optional rows of a plain model (strings, numbers,
// bools, times) join that statement, inserted only when the record is
// written, and concurrent writes share it as they do without listeners.
// A statement the server rejects wrote nothing; the write is then tried
// again without the rows, whose Done gets the first error. An update
// reads the record first, to give fn its state before, and writes it only
// if it is still that state (else it runs in a transaction). Other rows,
// and other mutations, are inserted at once in the mutation's
// transaction.
//
// An error from fn fails the mutation. So does a failed INSERT of rows
// that are not Optional, and on SQLite it fails every mutation of the
// group whose rows it held; so, too, when fn fails after a single-statement
// change, do the other mutations of its group (with no savepoint, the
// group cannot keep them and undo it alone). fn should fail only for a
// bug.
func (k *Kit) OnMutationRows(fn MutationRowsFunc) {
	k.OnMutationRowsWith(fn, MutationRowsOptions{})
}

// MutationRowsOptions says what an OnMutationRows listener reads of its
// mutations, so that kit prepares no more.
type MutationRowsOptions struct {
	// NoDeleteState says that the listener does not read a delete's
	// BeforeData (the deleted record's last state). When no other listener
	// needs it, an admin's delete of a record of a collection that is
	// neither ordered nor soft-deleting, with no If-Match, is then one
	// statement, as with no listener at all: the record is not read
	// first, and the listener's Mutation carries ItemID and ItemIDs but no
	// BeforeData.
	NoDeleteState bool
}

// OnMutationRowsWith is OnMutationRows with options.
func (k *Kit) OnMutationRowsWith(fn MutationRowsFunc, o MutationRowsOptions) {
	k.hooksMu.Lock()
	defer k.hooksMu.Unlock()
	k.rowsHooks = append(k.rowsHooks, fn)
	if !o.NoDeleteState {
		k.deleteStateHooks++
	}
}

// OnMutation registers a listener that runs after every committed mutation.
func (k *Kit) OnMutation(fn MutationFunc) {
	k.hooksMu.Lock()
	defer k.hooksMu.Unlock()
	k.hooks = append(k.hooks, fn)
}

func (k *Kit) newMutation(ctx context.Context, op Operation, key string, a Actor, started time.Time) *Mutation {
	info, _ := RequestInfoFrom(ctx)
	if info.CorrelationID == "" {
		info.CorrelationID = NewCorrelationID()
	}
	return &Mutation{
		Operation:     op,
		Collection:    key,
		CorrelationID: info.CorrelationID,
		Timestamp:     started.UnixMilli(),
		TeamID:        a.TeamID,
		UserID:        a.UserID,
		Request:       info,
	}
}

// needsDeleteState reports whether a listener reads a delete's
// BeforeData: every OnMutationTx and OnMutation listener, and the
// OnMutationRows listeners registered without NoDeleteState.
func (k *Kit) needsDeleteState() bool {
	k.hooksMu.RLock()
	defer k.hooksMu.RUnlock()
	return len(k.txHooks) > 0 || len(k.hooks) > 0 || k.deleteStateHooks > 0
}

// hasRowsHooks reports whether an OnMutationRows listener is registered.
func (k *Kit) hasRowsHooks() bool {
	k.hooksMu.RLock()
	defer k.hooksMu.RUnlock()
	return len(k.rowsHooks) > 0
}

// hasAfterHooks reports whether an OnMutation listener is registered.
func (k *Kit) hasAfterHooks() bool {
	k.hooksMu.RLock()
	defer k.hooksMu.RUnlock()
	return len(k.hooks) > 0
}

// joinedRows runs the OnMutationRows listeners for m, a mutation about to
// be written as one statement, and returns their rows; ok is false when
// the rows cannot join the statement (store.Store.JoinsRows), and the
// write must run in a transaction, whose listeners run again. An error
// from a listener fails the mutation before anything is written.
func (k *Kit) joinedRows(ctx context.Context, m *Mutation) (rows []store.CommitRows, ok bool, err error) {
	k.hooksMu.RLock()
	hooks := k.rowsHooks
	k.hooksMu.RUnlock()
	for _, h := range hooks {
		r, err := h(ctx, k.db, m)
		if err != nil {
			return nil, false, err
		}
		if r.Model != nil {
			rows = append(rows, store.CommitRows{Model: r.Model, Optional: r.Optional, Done: r.Done})
		}
	}
	return rows, k.store.JoinsRows(rows), nil
}

// runTxHooks runs the OnMutationTx listeners, then the OnMutationRows
// listeners, and records the change, in the mutation's transaction.
func (k *Kit) runTxHooks(ctx context.Context, tx bun.Tx, m *Mutation) error {
	k.hooksMu.RLock()
	hooks, rowsHooks := k.txHooks, k.rowsHooks
	k.hooksMu.RUnlock()
	for _, h := range hooks {
		if err := h(ctx, tx, m); err != nil {
			return err
		}
	}
	for _, h := range rowsHooks {
		rows, err := h(ctx, tx, m)
		if err == nil {
			err = k.store.InsertAtCommit(ctx, tx, store.CommitRows{Model: rows.Model, Optional: rows.Optional, Done: rows.Done})
		}
		if err != nil {
			// The change may be written already (see OnMutationRows).
			return &store.AfterWriteError{Err: err}
		}
	}
	if k.changesOn() {
		return k.recordChange(ctx, tx, m) // last: positions follow commit order
	}
	return nil
}

func (k *Kit) runHooks(ctx context.Context, m *Mutation) {
	k.changed()
	k.hooksMu.RLock()
	hooks := k.hooks
	k.hooksMu.RUnlock()
	for _, h := range hooks {
		func() {
			defer func() {
				if p := recover(); p != nil {
					k.logger.ErrorContext(ctx, "kit: mutation listener panicked",
						slog.String("operation", string(m.Operation)), slog.String("collection", m.Collection),
						slog.String("panic", fmt.Sprint(p)))
				}
			}()
			h(ctx, *m)
		}()
	}
}

// NewCorrelationID returns a random 16-byte hex id.
func NewCorrelationID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
