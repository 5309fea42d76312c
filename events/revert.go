package events

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"

	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// RevertOptions are the options of [Tracker.Revert], the body of POST
// /teams/{team}/kit-events/{id}/revert.
type RevertOptions struct {
	// Force writes the old values back even when a field the event
	// changed holds another value now (a later change is overwritten).
	Force bool `json:"force"`
}

// ErrRevertConflict matches (errors.Is) the 409 of a revert refused
// because the record changed since the event, or is gone.
var ErrRevertConflict = errors.New("events: the record changed since the event")

// RevertConflictError is the 409 of a revert refused because a field the
// event changed holds another value now, or the record is gone; nothing
// was written. Fields maps each such field to what happened.
type RevertConflictError struct {
	Message string
	Fields  map[string]string
}

func (e *RevertConflictError) Error() string { return e.Message }

// HTTPStatus is 409.
func (e *RevertConflictError) HTTPStatus() int { return http.StatusConflict }

// ErrorData names the fields: {"fields": {name: reason}}.
func (e *RevertConflictError) ErrorData() any {
	if len(e.Fields) == 0 {
		return nil
	}
	return map[string]any{"fields": e.Fields}
}

// Is matches ErrRevertConflict.
func (e *RevertConflictError) Is(target error) bool { return target == ErrRevertConflict }

// errEventNotFound is the 404 of an event that is not the team's: one of
// another team answers exactly like one that does not exist.
var errEventNotFound = &kit.Error{Status: http.StatusNotFound, Message: "no such event in this team", Err: kit.ErrNotFound}

// revertKey carries the id of the event being reverted to the mutation
// listener, which records it in the new event's metadata ("revertOf").
type revertKey struct{}

// Revert undoes update event eventID of actor a's team: it writes the
// old values of the fields the event changed back to its record, as a new
// update through the record API (validation, rights, hooks, change log),
// whose own event carries metadata.revertOf = eventID. It returns the
// record as written.
//
// An event of another team, or of none, is a 404 matching kit.ErrNotFound
// (the same answer for both); an event that is no update is a 400. Unless
// opts.Force, a field the event changed that holds another value now is a
// *RevertConflictError (409) naming it, and so is a record deleted since
// (with or without Force). The check and the write are one: the update is
// conditional on the record as it was read (kit.WriteOptions.IfMatch), so
// a change that comes between them is a 409 too. A member may revert only
// changes of records they may update (403 otherwise). Nothing is written
// when Revert fails.
func (t *Tracker) Revert(ctx context.Context, a kit.Actor, eventID string, opts RevertOptions) (kit.Record, error) {
	if a.TeamID == "" {
		return nil, teamauth.ErrTeamMissing
	}
	ev, err := t.teamEvent(ctx, a.TeamID, eventID)
	if err != nil {
		return nil, err
	}
	if ev.Operation != kit.OpUpdate {
		return nil, &kit.Error{Status: http.StatusBadRequest,
			Message: fmt.Sprintf("only an update event can be reverted; this one is a %s", ev.Operation)}
	}
	c, ok := t.k.Collections().Get(ev.CollectionName)
	if !ok || c.External() {
		return nil, &RevertConflictError{Message: fmt.Sprintf("the collection %s is no longer registered", ev.CollectionName)}
	}
	records := t.k.Records(c.Key())
	current, err := records.Get(ctx, a, ev.ItemID)
	if errors.Is(err, kit.ErrNotFound) {
		return nil, &RevertConflictError{Message: "the record was deleted since the event"}
	}
	if err != nil {
		return nil, err
	}
	data := make(map[string]any, len(ev.Changes))
	conflicts := map[string]string{}
	for _, ch := range ev.Changes {
		if _, known := c.Attribute(ch.FieldName); !known {
			conflicts[ch.FieldName] = "is no longer a field of the collection"
			continue
		}
		now, err := encodeNullable(current[ch.FieldName])
		if err != nil {
			return nil, fmt.Errorf("events: encode %s: %w", ch.FieldName, err)
		}
		if !sameJSON(now, ch.NewValue) {
			conflicts[ch.FieldName] = "changed since the event"
		}
		old, err := decodeValue(ch.OldValue)
		if err != nil {
			return nil, fmt.Errorf("events: event %s: decode the old value of %s: %w", ev.ID, ch.FieldName, err)
		}
		data[ch.FieldName] = old
	}
	if len(conflicts) > 0 && !opts.Force {
		return nil, &RevertConflictError{
			Message: "a field the event changed holds another value now: " + strings.Join(sortedKeys(conflicts), ", ") + " (force overwrites it)",
			Fields:  conflicts,
		}
	}
	if len(data) == 0 {
		return nil, &RevertConflictError{Message: "none of the event's fields is left to revert", Fields: conflicts}
	}
	// The update goes ahead only on the record as read above.
	wo := kit.WriteOptions{IfMatch: []string{kit.ETag(current)}}
	rec, err := records.UpdateWith(context.WithValue(ctx, revertKey{}, ev.ID), a, ev.ItemID, data, wo)
	if errors.Is(err, kit.ErrPrecondition) {
		return nil, &RevertConflictError{Message: "the record changed while it was being reverted; try again"}
	}
	return rec, err
}

// teamEvent reads event id of team teamID, or errEventNotFound.
func (t *Tracker) teamEvent(ctx context.Context, teamID, id string) (Event, error) {
	var rows []eventRow
	err := t.k.DB().NewSelect().Model(&rows).Where("e.id = ?", id).Where("e.team_id = ?", teamID).Limit(1).Scan(ctx)
	if err != nil {
		return Event{}, fmt.Errorf("events: read event %s: %w", id, err)
	}
	if len(rows) == 0 {
		return Event{}, errEventNotFound
	}
	return rows[0].event()
}

// decodeValue decodes an event's JSON value (nil for none), numbers as
// json.Number, as the HTTP API reads a body.
func decodeValue(s *string) (any, error) {
	if s == nil {
		return nil, nil
	}
	dec := json.NewDecoder(strings.NewReader(*s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// serveRevert answers POST /teams/{team}/kit-events/{id}/revert as
// Revert: 200 with the record written.
func (t *Tracker) serveRevert(w http.ResponseWriter, r *http.Request, acc *teamauth.Access) {
	opts, err := readRevertOptions(w, r, t.k.MaxBodyBytes())
	if err != nil {
		t.k.WriteError(w, r, err)
		return
	}
	actor := kit.Actor{UserID: acc.User.ID, TeamID: acc.Team.ID, Role: acc.Membership.Role}
	rec, err := t.Revert(r.Context(), actor, r.PathValue("id"), opts)
	if err != nil {
		t.k.WriteError(w, r, err)
		return
	}
	w.Header().Set("ETag", kit.ETag(rec))
	kit.WriteJSON(w, http.StatusOK, rec)
}

// readRevertOptions reads the optional body of a revert: none, or a JSON
// object {"force": bool} (kit.ReadJSONBody's limits and checks).
func readRevertOptions(w http.ResponseWriter, r *http.Request, limit int64) (RevertOptions, error) {
	var o RevertOptions
	if r.ContentLength == 0 && r.Header.Get("Content-Type") == "" {
		return o, nil
	}
	raw, err := kit.ReadJSONBody(w, r, limit)
	if err != nil {
		return o, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &te) && te.Field != "":
			return o, &kit.ValidationError{Fields: map[string]string{te.Field: "has the wrong type"}}
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
			return o, &kit.ValidationError{Fields: map[string]string{name: "unknown field"}}
		}
		return o, &kit.Error{Status: http.StatusBadRequest, Message: "the body must be a JSON object such as {\"force\": true}"}
	}
	if _, err := dec.Token(); err != io.EOF {
		return o, &kit.Error{Status: http.StatusBadRequest, Message: "malformed JSON body"}
	}
	return o, nil
}
