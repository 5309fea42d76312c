package events

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// trackingFailed is the public message of a tracking failure that fails
// the request (500); the cause is logged.
const trackingFailed = "event tracking failed"

// onMutation is the listener Install registers with OnMutationTx: it
// writes the mutation's events through tx, so they commit with the change.
func (t *Tracker) onMutation(ctx context.Context, tx bun.Tx, m *kit.Mutation) error {
	err := t.trackTx(ctx, tx, m)
	t.recordAttempt(err)
	if err == nil {
		return nil
	}
	t.logFailure(ctx, m, err)
	var fatal *txLostError
	if t.cfg.mode() == ModeThrow || errors.As(err, &fatal) {
		return &kit.Error{Status: 500, Message: trackingFailed, Err: err}
	}
	if t.cfg.mode() == ModeToast && t.k.Config().Dev {
		kit.SetResponseHeader(ctx, WarningHeader, warning(err))
	}
	return nil
}

// savepoint is the savepoint trackTx writes in. trackTx releases it
// before it returns, so the fixed name never nests.
const savepoint = "kit_events_track"

// trackTx builds the mutation's events and inserts them through tx. In
// ModeThrow a failure fails the transaction. In the other modes a failure
// must leave the transaction as it was, so that the change can still
// commit, or, when it cannot (the failure took the transaction with it),
// fail the mutation whatever the mode (a *txLostError).
//
// On PostgreSQL a failed statement aborts the whole transaction, so the
// work (the user lookup and the insert) runs in a savepoint that a failure
// rolls back to. Opening the savepoint, inserting and releasing it go to
// the database as one statement string, one round trip instead of three,
// unless the user lookup must read through tx: the savepoint is then
// opened first, on its own, so that the lookup runs inside it.
//
// On SQLite a failed statement undoes only itself, so no savepoint is
// needed, and one would cost: SQLite copies every page the insert touches
// into its sub-journal (docs/decisions/0003). See trackTxSQLite.
func (t *Tracker) trackTx(ctx context.Context, tx bun.Tx, m *kit.Mutation) error {
	if t.cfg.mode() == ModeThrow {
		return t.buildAndInsert(ctx, tx, m, nil)
	}
	if t.k.DB().Dialect().Name() == dialect.SQLite {
		return t.trackTxSQLite(ctx, tx, m)
	}
	opened := false
	if t.looksUpUser(ctx, m.UserID) {
		if _, err := tx.NewRaw("SAVEPOINT " + savepoint).Exec(ctx); err != nil {
			return &txLostError{"open a savepoint", err}
		}
		opened = true
	}
	sent, err := t.buildAndInsertInSavepoint(ctx, tx, m, opened)
	if err == nil {
		return nil
	}
	if !opened && !sent {
		return err // nothing reached the database
	}
	// The combined statement stops at its first failure: the savepoint is
	// there unless opening it failed, and then the transaction is lost.
	if _, rerr := tx.NewRaw("ROLLBACK TO SAVEPOINT " + savepoint + "; RELEASE SAVEPOINT " + savepoint).Exec(ctx); rerr != nil {
		return &txLostError{"roll back to the savepoint", errors.Join(err, rerr)}
	}
	return err
}

// trackTxSQLite is trackTx's ModeSilent and ModeToast on SQLite: it
// inserts without a savepoint, since a failed statement undoes only
// itself there. What a failure can still do is end the whole transaction
// (SQLite rolls it back on an I/O error, a full disk, an interrupted
// write, a trigger's RAISE(ROLLBACK)); the connection is then in
// autocommit mode, and what the mutation writes next would commit piece
// by piece. So after a failure a BEGIN tells which it was: it fails
// inside a transaction (SQLITE_ERROR, "cannot start a transaction within
// a transaction"); when it succeeds, the transaction was gone, the probe's
// own is rolled back at once and the mutation fails. Success costs
// nothing extra.
func (t *Tracker) trackTxSQLite(ctx context.Context, tx bun.Tx, m *kit.Mutation) error {
	err := t.buildAndInsert(ctx, tx, m, nil)
	if err == nil {
		return nil
	}
	ctx = context.WithoutCancel(ctx) // an interrupt is one way to lose it
	_, perr := tx.ExecContext(ctx, "BEGIN")
	var coded interface{ Code() int }
	switch {
	case perr == nil:
		_, rerr := tx.ExecContext(ctx, "ROLLBACK")
		return &txLostError{"rolled back by the failure", errors.Join(err, rerr)}
	case errors.As(perr, &coded) && coded.Code() == sqliteError,
		// Drivers other than modernc.org/sqlite carry the code elsewhere.
		strings.Contains(perr.Error(), "cannot start a transaction within a transaction"):
		return err // still in the transaction: only the statement failed
	default:
		return &txLostError{"probe the transaction", errors.Join(err, perr)}
	}
}

// sqliteError is SQLite's generic error code, SQLITE_ERROR.
const sqliteError = 1

// buildAndInsertInSavepoint builds the mutation's events and inserts them
// through tx in the savepoint: opening it first unless opened, and
// releasing it, in the insert's own statement string (with no event to
// insert, it only releases an opened savepoint). sent reports whether that
// statement reached the database. A panic becomes an error.
func (t *Tracker) buildAndInsertInSavepoint(ctx context.Context, tx bun.Tx, m *kit.Mutation, opened bool) (sent bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("events: panic while tracking: %v", p)
		}
	}()
	evs, err := t.build(ctx, tx, m, nil)
	if err != nil {
		return false, err
	}
	rows, err := rowsOf(evs)
	if err != nil {
		return false, err
	}
	var query []byte
	if !opened {
		if len(rows) == 0 {
			return false, nil
		}
		query = append(query, "SAVEPOINT "+savepoint+"; "...)
	}
	if len(rows) > 0 {
		if query, err = tx.NewInsert().Model(&rows).AppendQuery(t.k.DB().QueryGen(), query); err != nil {
			return false, fmt.Errorf("events: insert: %w", err)
		}
		query = append(query, "; "...)
	}
	query = append(query, "RELEASE SAVEPOINT "+savepoint...)
	// bun.Safe: the values are already in the text; nothing is to be
	// formatted again.
	if _, err := tx.NewRaw("?", bun.Safe(query)).Exec(ctx); err != nil {
		return true, fmt.Errorf("events: insert: %w", err)
	}
	return true, nil
}

// looksUpUser reports whether build looks the acting user's name up in
// the Directory (which, for kit's own store, reads through the
// transaction): when the snapshot is on and the name is not in ctx.
func (t *Tracker) looksUpUser(ctx context.Context, userID string) bool {
	if t.cfg.NoUserNameSnapshot || userID == "" {
		return false
	}
	u, ok := teamauth.UserFrom(ctx)
	return !ok || u.ID != userID
}

// buildAndInsert builds the mutation's events and inserts them through db.
// A panic becomes an error.
func (t *Tracker) buildAndInsert(ctx context.Context, db bun.IDB, m *kit.Mutation, extra map[string]any) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("events: panic while tracking: %v", p)
		}
	}()
	evs, err := t.build(ctx, db, m, extra)
	if err != nil {
		return err
	}
	_, err = t.insertDirect(ctx, db, evs)
	return err
}

// build turns a mutation into its events.
func (t *Tracker) build(ctx context.Context, tx bun.IDB, m *kit.Mutation, extra map[string]any) ([]Event, error) {
	c, _ := t.k.Collections().Get(m.Collection)
	sets, err := changesOf(m, c)
	if err != nil {
		return nil, fmt.Errorf("events: encode changes of %s %s: %w", m.Operation, m.Collection, err)
	}
	if len(sets) == 0 {
		return nil, nil
	}
	name, err := t.userName(ctx, tx, m.UserID)
	if err != nil {
		return nil, err
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	evs := make([]Event, len(sets))
	for i, s := range sets {
		id, err := uuid.NewV7()
		if err != nil {
			return nil, fmt.Errorf("events: new id: %w", err)
		}
		changes := s.changes
		if changes == nil {
			changes = []Change{}
		}
		md := metadata(m, extra)
		if of, ok := ctx.Value(revertKey{}).(string); ok && m.Operation == kit.OpUpdate {
			md["revertOf"] = of // see Tracker.Revert
		}
		if m.Trashed {
			md["trashed"] = true
		}
		evs[i] = Event{ID: id.String(), TeamID: m.TeamID, Timestamp: now, Operation: m.Operation,
			CollectionName: m.Collection, ItemID: s.itemID, UserID: m.UserID, UserName: name,
			Changes: changes, Metadata: md}
	}
	return evs, nil
}

// metadata is the event's context: the correlation id and what kit knows
// of the request. The method and path are left out: the operation,
// collection and item say the same in fewer bytes.
func metadata(m *kit.Mutation, extra map[string]any) map[string]any {
	md := make(map[string]any, 3+len(extra))
	if m.CorrelationID != "" {
		md["correlationId"] = m.CorrelationID
	}
	if m.Request.UserAgent != "" {
		md["userAgent"] = m.Request.UserAgent
	}
	if addr := m.Request.RemoteAddr; addr != "" {
		// The client's port says nothing an audit needs.
		if host, _, err := net.SplitHostPort(addr); err == nil {
			addr = host
		}
		md["remoteAddr"] = addr
	}
	for k, v := range extra {
		md[k] = v
	}
	return md
}

// userName returns the name to snapshot for userID: the authenticated
// user's from ctx when it is that user (every HTTP request: no query at
// all), else the Directory's. When the Directory is kit's own store, the
// name is read through tx: a lookup on another connection could wait for
// the lock tx holds (SQLite) or for a free connection of the pool. An
// unknown user is an empty name, not a failure.
func (t *Tracker) userName(ctx context.Context, tx bun.IDB, userID string) (string, error) {
	if t.cfg.NoUserNameSnapshot || userID == "" {
		return "", nil
	}
	if u, ok := teamauth.UserFrom(ctx); ok && u.ID == userID {
		return u.Name, nil
	}
	dir := t.k.Auth().Directory
	if own, ok := dir.(*teamauth.Store); ok && own == t.k.Accounts() {
		var names []string
		err := tx.NewSelect().Table("kit_users").Column("name").Where("? = ?", bun.Ident("id"), userID).
			Limit(1).Scan(ctx, &names)
		if err != nil {
			return "", fmt.Errorf("events: look up user %s: %w", userID, err)
		}
		if len(names) == 0 {
			return "", nil
		}
		return names[0], nil
	}
	u, err := dir.User(ctx, userID)
	switch {
	case errors.Is(err, teamauth.ErrUserNotFound):
		return "", nil
	case err != nil:
		return "", fmt.Errorf("events: look up user %s: %w", userID, err)
	case u == nil:
		return "", nil
	}
	return u.Name, nil
}

// txLostError means a tracking failure took the transaction with it (or
// may have): the mutation fails whatever the mode.
type txLostError struct {
	how string
	err error
}

func (e *txLostError) Error() string {
	return "events: transaction lost (" + e.how + "): " + e.err.Error()
}
func (e *txLostError) Unwrap() error { return e.err }

// rowsOf encodes events as rows.
func rowsOf(evs []Event) ([]eventRow, error) {
	rows := make([]eventRow, len(evs))
	for i := range evs {
		r, err := evs[i].row()
		if err != nil {
			return nil, err
		}
		rows[i] = r
	}
	return rows, nil
}

// logFailure logs a tracking failure unless ErrorHandling.NoConsoleLog.
func (t *Tracker) logFailure(ctx context.Context, m *kit.Mutation, err error) {
	if t.cfg.ErrorHandling.NoConsoleLog {
		return
	}
	t.logger.ErrorContext(ctx, "events: tracking failed",
		slog.String("mode", string(t.cfg.mode())), slog.String("operation", string(m.Operation)),
		slog.String("collection", m.Collection), slog.String("itemId", m.ItemID),
		slog.String("correlationId", m.CorrelationID), slog.String("err", err.Error()))
}

// warning is the X-Kit-Event-Warning value: one printable line.
func warning(err error) string {
	msg := strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e {
			return ' '
		}
		return r
	}, err.Error())
	if len(msg) > 200 {
		msg = msg[:200]
	}
	return "change saved without its audit event: " + msg
}

// rowsOf is the listener Install registers with OnMutationRows on
// SQLite: it builds the mutation's event rows, which kit inserts in the
// mutation's transaction (with the other events of its write group, in
// one INSERT). The acting user's name comes from ctx or, when not there,
// from the Directory, read through tx.
// In ModeThrow the rows are required: a failure to build or insert them
// fails the mutation. In the other modes a build failure is logged and
// the mutation goes on without its events; an INSERT that fails is rolled
// back alone (MutationRows.Optional) and reported the same way.
func (t *Tracker) rowsOf(ctx context.Context, tx bun.Tx, m *kit.Mutation) (kit.MutationRows, error) {
	rows, err := t.buildRows(ctx, tx, m)
	if err != nil {
		return kit.MutationRows{}, t.failed(ctx, m, err)
	}
	if len(rows) == 0 {
		return kit.MutationRows{}, nil
	}
	throw := t.cfg.mode() == ModeThrow
	return kit.MutationRows{Model: &rows, Optional: !throw, Done: func(err error) {
		if err != nil {
			err = fmt.Errorf("events: insert: %w", err)
			if !throw {
				_ = t.failed(ctx, m, err)
				return
			}
			t.logFailure(ctx, m, err)
		}
		t.recordAttempt(err)
	}}, nil
}

// buildRows builds the mutation's event rows, a panic becoming an error.
func (t *Tracker) buildRows(ctx context.Context, tx bun.Tx, m *kit.Mutation) (rows []eventRow, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("events: panic while tracking: %v", p)
		}
	}()
	evs, err := t.build(ctx, tx, m, nil)
	if err != nil {
		return nil, err
	}
	return rowsOf(evs)
}

// failed reports a tracking failure of m as onMutation does: it is
// counted and logged, and in ModeThrow returned as a 500 that fails the
// mutation; in ModeToast (development only) the response says the change
// was saved without its event.
func (t *Tracker) failed(ctx context.Context, m *kit.Mutation, err error) error {
	t.recordAttempt(err)
	t.logFailure(ctx, m, err)
	if t.cfg.mode() == ModeThrow {
		return &kit.Error{Status: 500, Message: trackingFailed, Err: err}
	}
	if t.cfg.mode() == ModeToast && t.k.Config().Dev {
		kit.SetResponseHeader(ctx, WarningHeader, warning(err))
	}
	return nil
}
