package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Event is a tracked event of the events add-on (the spec's KitEvent plus
// its team).
type Event struct {
	ID             string         `json:"id"`
	TeamID         string         `json:"teamId"`
	Timestamp      time.Time      `json:"timestamp"`
	Operation      string         `json:"operation"`
	CollectionName string         `json:"collectionName"`
	ItemID         string         `json:"itemId"`
	UserID         string         `json:"userId"`
	UserName       string         `json:"userName"`
	Changes        []EventChange  `json:"changes"`
	Metadata       map[string]any `json:"metadata"`
	// User is the user's current id, name and image, present when the
	// list was asked with EnrichUserData.
	User *EventUser `json:"user,omitempty"`
}

// EventChange is one field's change; the values are JSON encodings
// ("\"Tools\"") or nil.
type EventChange struct {
	FieldName string  `json:"fieldName"`
	OldValue  *string `json:"oldValue"`
	NewValue  *string `json:"newValue"`
}

// EventUser is a user's current data in an enriched event list.
type EventUser struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Image string `json:"image"`
}

// EventQuery filters and pages a team's event list. Zero fields are left
// out (the server's defaults: page 1 of 50, newest first).
type EventQuery struct {
	CollectionName string
	Operation      string
	UserID         string
	ItemID         string
	// DateFrom and DateTo bound the timestamp, both inclusive: RFC 3339
	// or YYYY-MM-DD.
	DateFrom, DateTo string
	Page, PageSize   int
	// EnrichUserData adds each user's current name and image.
	EnrichUserData bool
}

func (q EventQuery) values() url.Values {
	v := url.Values{}
	set := func(k, s string) {
		if s != "" {
			v.Set(k, s)
		}
	}
	set("collectionName", q.CollectionName)
	set("operation", q.Operation)
	set("userId", q.UserID)
	set("itemId", q.ItemID)
	set("dateFrom", q.DateFrom)
	set("dateTo", q.DateTo)
	if q.Page > 0 {
		v.Set("page", strconv.Itoa(q.Page))
	}
	if q.PageSize > 0 {
		v.Set("pageSize", strconv.Itoa(q.PageSize))
	}
	if q.EnrichUserData {
		v.Set("enrichUserData", "true")
	}
	return v
}

// Events returns one page of the team's events, newest first: GET
// /teams/{team}/kit-events (the events add-on). It is never cached.
func (t *Team) Events(ctx context.Context, q EventQuery) (*Page[Event], error) {
	var page Page[Event]
	if err := t.c.Do(ctx, http.MethodGet, "/teams/"+url.PathEscape(t.id)+"/kit-events", q.values(), nil, &page); err != nil {
		return nil, err
	}
	if page.Items == nil {
		page.Items = []Event{}
	}
	return &page, nil
}

// TrackOptions describe a change made outside kit's record API, for
// [Team.Track]. The team and the user come from the route and the
// credentials, never from here.
type TrackOptions struct {
	// Operation is "create", "update" or "delete". Required.
	Operation string `json:"operation"`
	// Collection is a registry key or apiPath. Required.
	Collection string `json:"collection"`
	// ItemID is the record; a delete may name several in ItemIDs.
	ItemID  string   `json:"itemId,omitempty"`
	ItemIDs []string `json:"itemIds,omitempty"`
	// Data is a created record's data.
	Data map[string]any `json:"data,omitempty"`
	// Updates are the fields an update set.
	Updates map[string]any `json:"updates,omitempty"`
	// Result is the record after the operation.
	Result any `json:"result,omitempty"`
	// BeforeData is the record before an update or delete.
	BeforeData map[string]any `json:"beforeData,omitempty"`
}

// Track records events for a change made outside kit's record API (the
// spec's manual tracking) and returns the events written (none when the
// server's tracking is disabled): POST /teams/{team}/kit-collection-events.
// The server accepts an event about a record only when the caller could
// make that change: a record of another team or of none is ErrNotFound, a
// teammate's record the caller may not change ErrForbidden.
func (t *Team) Track(ctx context.Context, opts TrackOptions) ([]Event, error) {
	var out struct {
		Items []Event `json:"items"`
	}
	if err := t.c.Do(ctx, http.MethodPost, "/teams/"+url.PathEscape(t.id)+"/kit-collection-events", nil, opts, &out); err != nil {
		return nil, err
	}
	if out.Items == nil {
		out.Items = []Event{}
	}
	return out.Items, nil
}

// RevertEvent undoes update event id of the team: the old values of the
// fields the event changed are written back as a new update, and the
// record as written is returned: POST /teams/{team}/kit-events/{id}/revert.
// A field changed since the event is ErrConflict unless force (which
// overwrites the later change); a record deleted since is ErrConflict; an
// event of another team, or of none, is ErrNotFound; an event that is no
// update is ErrBadRequest.
func (t *Team) RevertEvent(ctx context.Context, id string, force bool) (Record, error) {
	var rec Record
	body := map[string]any{"force": force}
	path := "/teams/" + url.PathEscape(t.id) + "/kit-events/" + url.PathEscape(id) + "/revert"
	if err := t.c.Do(ctx, http.MethodPost, path, nil, body, &rec); err != nil {
		return nil, err
	}
	return rec, nil
}

// EventsHealth is the events add-on's health record: tracking attempts,
// failures and the last failure (nil when there was none).
type EventsHealth struct {
	Total         int64      `json:"total"`
	Failed        int64      `json:"failed"`
	LastError     *string    `json:"lastError"`
	LastErrorTime *time.Time `json:"lastErrorTime"`
}

// EventsHealth returns the server's event tracking health: GET
// /kit-events/health, for users whose global role is admin.
func (s *SuperAdmin) EventsHealth(ctx context.Context) (*EventsHealth, error) {
	var h EventsHealth
	if err := s.c.Do(ctx, http.MethodGet, "/kit-events/health", nil, nil, &h); err != nil {
		return nil, err
	}
	return &h, nil
}
