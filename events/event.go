package events

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/kit"
)

// Event is one tracked event: the spec's KitEvent plus the team it belongs
// to. It is what the list endpoint answers and what the kit_events table
// stores.
type Event struct {
	// ID is a UUIDv7 (time-ordered).
	ID string `json:"id"`
	// TeamID is the team whose record changed.
	TeamID string `json:"teamId"`
	// Timestamp is when the event was tracked, in UTC with microsecond
	// precision.
	Timestamp time.Time `json:"timestamp"`
	// Operation is create, update or delete (move and reorder once kit
	// has them).
	Operation kit.Operation `json:"operation"`
	// CollectionName is the collection's registry key ("shopProducts").
	CollectionName string `json:"collectionName"`
	// ItemID is the record created, updated or deleted.
	ItemID string `json:"itemId"`
	// UserID is the acting user.
	UserID string `json:"userId"`
	// UserName is the acting user's name at event time (empty with
	// Config.NoUserNameSnapshot, or when the user was unknown).
	UserName string `json:"userName"`
	// Changes are the field-level changes; never nil.
	Changes []Change `json:"changes"`
	// Metadata is extra context: correlationId, and the request's
	// userAgent and remoteAddr when there was one; source "manual" for
	// events tracked through the manual endpoint.
	Metadata map[string]any `json:"metadata"`
	// User is the user's current id, name and image, set by the list
	// endpoint with enrichUserData=true (name and image empty when the
	// user no longer exists) and left out otherwise.
	User *UserInfo `json:"user,omitempty"`
}

// Change is the spec's EventChange. OldValue and NewValue are the
// JSON encodings of the values (a string "Tools" is stored as "\"Tools\"")
// or nil for none.
type Change struct {
	FieldName string  `json:"fieldName"`
	OldValue  *string `json:"oldValue"`
	NewValue  *string `json:"newValue"`
}

// UserInfo is a user's current data, added by enrichUserData.
type UserInfo struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Image string `json:"image"`
}

// eventRow is the kit_events row. JSON is stored as TEXT so the table is
// the same on SQLite and PostgreSQL.
type eventRow struct {
	bun.BaseModel `bun:"table:kit_events,alias:e"`

	ID             string    `bun:"id,pk,type:varchar(36)"`
	TeamID         string    `bun:"team_id,notnull,type:text"`
	Timestamp      time.Time `bun:"timestamp,notnull"`
	Operation      string    `bun:"operation,notnull,type:varchar(16)"`
	CollectionName string    `bun:"collection_name,notnull,type:text"`
	ItemID         string    `bun:"item_id,notnull,type:text"`
	UserID         string    `bun:"user_id,notnull,type:text"`
	UserName       string    `bun:"user_name,notnull,type:text"`
	Changes        string    `bun:"changes,notnull,type:text"`
	Metadata       string    `bun:"metadata,notnull,type:text"`
}

func (e *Event) row() (eventRow, error) {
	c, err := encodeChanges(e.Changes)
	if err != nil {
		return eventRow{}, fmt.Errorf("events: encode changes: %w", err)
	}
	meta := e.Metadata
	if meta == nil {
		meta = map[string]any{}
	}
	m, err := marshal(meta)
	if err != nil {
		return eventRow{}, fmt.Errorf("events: encode metadata: %w", err)
	}
	return eventRow{ID: e.ID, TeamID: e.TeamID, Timestamp: e.Timestamp, Operation: string(e.Operation),
		CollectionName: e.CollectionName, ItemID: e.ItemID, UserID: e.UserID, UserName: e.UserName,
		Changes: c, Metadata: m}, nil
}

func (r *eventRow) event() (Event, error) {
	e := Event{ID: r.ID, TeamID: r.TeamID, Timestamp: r.Timestamp.UTC(), Operation: kit.Operation(r.Operation),
		CollectionName: r.CollectionName, ItemID: r.ItemID, UserID: r.UserID, UserName: r.UserName}
	var err error
	if e.Changes, err = decodeChanges(r.Changes); err != nil {
		return e, fmt.Errorf("events: event %s: decode changes: %w", r.ID, err)
	}
	if err := json.Unmarshal([]byte(r.Metadata), &e.Metadata); err != nil {
		return e, fmt.Errorf("events: event %s: decode metadata: %w", r.ID, err)
	}
	if e.Metadata == nil {
		e.Metadata = map[string]any{}
	}
	return e, nil
}

// encodeChanges stores changes compactly, as a JSON array of
// [fieldName, oldValue, newValue] triples (null for no value): the spec's
// objects repeat three key names per change, which on a create is about a
// third of the event. The API answers the spec's shape.
func encodeChanges(cs []Change) (string, error) {
	triples := make([][3]*string, len(cs))
	for i, c := range cs {
		name := c.FieldName
		triples[i] = [3]*string{&name, c.OldValue, c.NewValue}
	}
	return marshal(triples)
}

// decodeChanges reads what encodeChanges wrote; it also reads the spec's
// objects, so rows written either way decode.
func decodeChanges(s string) ([]Change, error) {
	var items []json.RawMessage
	if err := json.Unmarshal([]byte(s), &items); err != nil {
		return nil, err
	}
	out := make([]Change, len(items))
	for i, raw := range items {
		if len(raw) > 0 && raw[0] == '{' {
			if err := json.Unmarshal(raw, &out[i]); err != nil {
				return nil, err
			}
			continue
		}
		var t [3]*string
		if err := json.Unmarshal(raw, &t); err != nil {
			return nil, err
		}
		if t[0] == nil {
			return nil, fmt.Errorf("change %d has no field name", i)
		}
		out[i] = Change{FieldName: *t[0], OldValue: t[1], NewValue: t[2]}
	}
	return out, nil
}
