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

// lookupSavepoint is the savepoint buildRows looks the user up in.
const lookupSavepoint = "kit_events_lookup"

// rowsOf is the listener Install registers with OnMutationRows: it builds
// the mutation's event rows, which kit inserts with the change (on SQLite
// with the other events of its write group; on PostgreSQL in the change's
// own statement where kit writes it as one). The acting user's name comes
// from ctx or, when not there, from the Directory, read through db.
// In ModeThrow the rows are required: a failure to build or insert them
// fails the mutation. In the other modes a build failure is logged and
// the mutation goes on without its events; an INSERT that fails is rolled
// back alone (MutationRows.Optional) and reported the same way.
func (t *Tracker) rowsOf(ctx context.Context, db bun.IDB, m *kit.Mutation) (kit.MutationRows, error) {
	rows, err := t.buildRows(ctx, db, m)
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
func (t *Tracker) buildRows(ctx context.Context, db bun.IDB, m *kit.Mutation) (rows []eventRow, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("events: panic while tracking: %v", p)
		}
	}()
	if tx, ok := db.(bun.Tx); ok && t.k.DB().Dialect().Name() != dialect.SQLite && t.looksUpUser(ctx, m.UserID) {
		// A failed statement aborts a PostgreSQL transaction: the user
		// lookup runs in a savepoint that its failure rolls back to.
		if _, err := tx.ExecContext(ctx, "SAVEPOINT "+lookupSavepoint); err != nil {
			return nil, err
		}
		defer func() {
			end := "RELEASE SAVEPOINT " + lookupSavepoint
			if err != nil {
				end = "ROLLBACK TO SAVEPOINT " + lookupSavepoint + "; " + end
			}
			if _, rerr := tx.ExecContext(context.WithoutCancel(ctx), end); rerr != nil {
				err = errors.Join(err, rerr)
			}
		}()
	}
	evs, err := t.build(ctx, db, m, nil)
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
