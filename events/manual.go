package events

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// TrackOptions are the spec's tracking options, the body of POST
// /teams/{team}/kit-collection-events. The team and the user never come
// from them: the route and the credentials say who and where.
type TrackOptions struct {
	// Operation is create, update or delete. Required.
	Operation kit.Operation `json:"operation"`
	// Collection is a registered collection's key ("shopProducts") or API
	// path ("shop-products"). Required.
	Collection string `json:"collection"`
	// ItemID is the record; for a delete, ItemIDs may name several.
	ItemID  string   `json:"itemId,omitempty"`
	ItemIDs []string `json:"itemIds,omitempty"`
	// Data is the new record's data (create).
	Data map[string]any `json:"data,omitempty"`
	// Updates are the fields an update set.
	Updates map[string]any `json:"updates,omitempty"`
	// Result is the record after the operation.
	Result any `json:"result,omitempty"`
	// BeforeData is the record before an update or delete.
	BeforeData map[string]any `json:"beforeData,omitempty"`
}

// Track records events the way the mutation listener does, for a change
// made outside kit's record API (the spec's manual tracking), in team
// teamID by user userID. It applies the same change rules, writes in its
// own transaction and returns the events written (none when tracking is
// Disabled). Bad options are a *kit.ValidationError (400); a failed write
// is an error whatever the error mode: writing the events is all Track
// does. Each call that gets as far as writing counts as one attempt in
// the health record.
//
// Track checks the options' shape only: it is for host code that vouches
// for the change itself (an import job, a migration), and may name ids
// that are no record of the team. To record a change on behalf of a
// caller who must be able to make it, as POST
// /teams/{team}/kit-collection-events does, use [Tracker.TrackAs].
func (t *Tracker) Track(ctx context.Context, teamID, userID string, opts TrackOptions) ([]Event, error) {
	if teamID == "" {
		return nil, teamauth.ErrTeamMissing
	}
	if t.cfg.Disabled {
		return []Event{}, nil
	}
	m, err := t.mutationOf(ctx, teamID, userID, opts)
	if err != nil {
		return nil, err
	}
	return t.track(ctx, m)
}

// TrackAs records events as Track does, in actor a's team by a's user,
// only when a could make the change now, by the record API's own rules
// ([kit.Records.CanChange]), so that a caller cannot put into the team's
// trail a change they could not have made. Every record the events name
// must be a record of the team that a may change:
//
//   - update and delete: the record (each of ItemIDs for a delete of
//     several) exists in the team and a may update or delete it; record a
//     delete before the record is removed;
//   - create: the record exists in the team (record the creation after
//     it) and is a's own, or a is a team admin or owner.
//
// Otherwise nothing is written and the answer is the one the change
// itself would get: kit.ErrNotFound (404) for an id of another team or of
// no record, alike; a 403 error matching kit.ErrForbidden for a teammate's
// record a may not change. The events stay marked as manual
// (metadata.source "manual"), and their beforeData, data, updates and
// result are the caller's account of the change, not kit's. With tracking
// Disabled nothing is checked or written.
func (t *Tracker) TrackAs(ctx context.Context, a kit.Actor, opts TrackOptions) ([]Event, error) {
	if a.TeamID == "" {
		return nil, teamauth.ErrTeamMissing
	}
	if t.cfg.Disabled {
		return []Event{}, nil
	}
	m, err := t.mutationOf(ctx, a.TeamID, a.UserID, opts)
	if err != nil {
		return nil, err
	}
	ids := m.ItemIDs // the ids the events are written for (see changesOf)
	if m.Operation != kit.OpDelete || len(ids) == 0 {
		ids = []string{m.ItemID}
	}
	if err := t.k.Records(m.Collection).CanChange(ctx, a, m.Operation, ids...); err != nil {
		return nil, err
	}
	return t.track(ctx, m)
}

// track writes m's events in a transaction of their own.
func (t *Tracker) track(ctx context.Context, m *kit.Mutation) ([]Event, error) {
	var evs []Event
	err := t.k.DB().RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		built, err := t.build(ctx, tx, m, map[string]any{"source": "manual"})
		if err != nil {
			return err
		}
		evs, err = t.insertDirect(ctx, tx, built)
		return err
	})
	t.recordAttempt(err)
	if err != nil {
		t.logFailure(ctx, m, err)
		return nil, &kit.Error{Status: http.StatusInternalServerError, Message: trackingFailed, Err: err}
	}
	if evs == nil {
		evs = []Event{}
	}
	return evs, nil
}

// mutationOf validates opts and turns them into the mutation payload the
// change rules read.
func (t *Tracker) mutationOf(ctx context.Context, teamID, userID string, o TrackOptions) (*kit.Mutation, error) {
	bad := map[string]string{}
	switch o.Operation {
	case kit.OpCreate, kit.OpUpdate, kit.OpDelete:
	case "":
		bad["operation"] = "is required"
	default:
		bad["operation"] = "must be create, update or delete"
	}
	key := o.Collection
	if o.Collection == "" {
		bad["collection"] = "is required"
	} else if c, ok := t.k.Collections().Get(o.Collection); ok && !c.External() {
		key = c.Key()
	} else if c, ok := t.k.Collections().ByAPIPath(o.Collection); ok && !c.External() {
		key = c.Key()
	} else {
		bad["collection"] = "names no registered collection"
	}
	if len(o.ItemIDs) > 100 {
		bad["itemIds"] = "must name at most 100 ids"
	}
	for _, id := range append([]string{o.ItemID}, o.ItemIDs...) {
		if len(id) > 256 || strings.IndexByte(id, 0) >= 0 {
			bad["itemId"] = "must be at most 256 bytes of text"
		}
	}
	for _, id := range o.ItemIDs {
		if id == "" {
			bad["itemIds"] = "must not hold empty ids"
		}
	}
	itemID := o.ItemID
	if itemID == "" && len(o.ItemIDs) == 1 {
		itemID = o.ItemIDs[0]
	}
	switch {
	case o.Operation == kit.OpDelete && itemID == "" && len(o.ItemIDs) == 0:
		bad["itemId"] = "itemId or itemIds is required"
	case o.Operation != kit.OpDelete && len(o.ItemIDs) > 1:
		bad["itemIds"] = "may name several ids only for a delete"
	case o.Operation != kit.OpDelete && itemID == "":
		bad["itemId"] = "is required"
	}
	if len(bad) > 0 {
		return nil, &kit.ValidationError{Fields: bad}
	}
	info, _ := kit.RequestInfoFrom(ctx)
	if info.CorrelationID == "" {
		info.CorrelationID = kit.NewCorrelationID()
	}
	m := &kit.Mutation{
		Operation: o.Operation, Collection: key, ItemID: itemID, ItemIDs: o.ItemIDs,
		Data: o.Data, Updates: o.Updates, BeforeData: o.BeforeData, Result: o.Result,
		CorrelationID: info.CorrelationID, Timestamp: time.Now().UnixMilli(),
		TeamID: teamID, UserID: userID, Request: info,
	}
	return m, nil
}

// insertDirect inserts evs through db without a savepoint.
func (t *Tracker) insertDirect(ctx context.Context, db bun.IDB, evs []Event) ([]Event, error) {
	rows, err := rowsOf(evs)
	if err != nil || len(rows) == 0 {
		return evs, err
	}
	if _, err := db.NewInsert().Model(&rows).Exec(ctx); err != nil {
		return nil, fmt.Errorf("events: insert: %w", err)
	}
	return evs, nil
}

// serveTrack answers POST /teams/{team}/kit-collection-events for the
// caller, as TrackAs: 201 with {"items": [the events written]}, 200 with no
// items when tracking is disabled, 404 or 403 for a change the caller
// could not have made.
func (t *Tracker) serveTrack(w http.ResponseWriter, r *http.Request, acc *teamauth.Access) {
	opts, err := readTrackOptions(w, r, t.k.MaxBodyBytes())
	if err != nil {
		t.k.WriteError(w, r, err)
		return
	}
	actor := kit.Actor{UserID: acc.User.ID, TeamID: acc.Team.ID, Role: acc.Membership.Role}
	evs, err := t.TrackAs(r.Context(), actor, opts)
	if err != nil {
		t.k.WriteError(w, r, err)
		return
	}
	status := http.StatusCreated
	if t.cfg.Disabled {
		status = http.StatusOK
	}
	kit.WriteJSON(w, status, map[string]any{"items": evs})
}

// readTrackOptions reads a JSON body of tracking options (kit.ReadJSONBody:
// JSON (415), at most limit bytes (413; kit's Config.MaxBodyBytes), UTF-8
// text (400)), one object with known keys of the right types (400).
func readTrackOptions(w http.ResponseWriter, r *http.Request, limit int64) (TrackOptions, error) {
	var o TrackOptions
	raw, err := kit.ReadJSONBody(w, r, limit)
	if err != nil {
		return o, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &te) && te.Field != "":
			return o, &kit.ValidationError{Fields: map[string]string{te.Field: "has the wrong type"}}
		case errors.As(err, &te):
			return o, &kit.Error{Status: http.StatusBadRequest, Message: "the body must be a JSON object"}
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
			return o, &kit.ValidationError{Fields: map[string]string{name: "unknown field"}}
		}
		return o, &kit.Error{Status: http.StatusBadRequest, Message: "malformed JSON body"}
	}
	if _, err := dec.Token(); err != io.EOF {
		return o, &kit.Error{Status: http.StatusBadRequest, Message: "malformed JSON body"}
	}
	return o, nil
}
