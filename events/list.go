package events

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// Page sizes of the list endpoint.
const (
	DefaultPageSize = 50
	MaxPageSize     = 100
)

// Query selects a team's events, newest first. Empty fields do not filter.
type Query struct {
	// CollectionName is a collection's registry key ("shopProducts"), its
	// apiPath ("shop-products"), or its name ("products") when no other
	// collection has that name; a key of a collection since removed still
	// finds its events. Anything else is a *kit.QueryError naming
	// collectionName.
	CollectionName string
	// Operation is create, update, delete, move, reorder, restore or
	// purge.
	Operation kit.Operation
	UserID    string
	ItemID    string
	// DateFrom and DateTo bound the timestamp, both inclusive.
	DateFrom, DateTo time.Time
	// Page is 1-based; 0 means 1.
	Page int
	// PageSize is at most MaxPageSize; 0 means DefaultPageSize.
	PageSize int
	// EnrichUserData adds each event's user's current id, name and image
	// (Event.User).
	EnrichUserData bool
}

// EventPage is one page of events, in kit's list response shape.
type EventPage struct {
	Items      []Event        `json:"items"`
	Pagination kit.Pagination `json:"pagination"`
}

// ParseQuery reads the list endpoint's parameters: collectionName,
// operation, userId, itemId, dateFrom and dateTo (RFC 3339, or YYYY-MM-DD:
// from the start of that UTC day, to its end), page, pageSize and
// enrichUserData (true or false). A bad one is a *kit.QueryError naming
// it (400). Unknown parameters are ignored, as kit's list does.
func ParseQuery(v url.Values) (Query, error) {
	q := Query{Page: 1, PageSize: DefaultPageSize}
	for _, p := range []string{"collectionName", "operation", "userId", "itemId", "dateFrom", "dateTo", "page", "pageSize", "enrichUserData"} {
		if len(v[p]) > 1 {
			return q, qerr(p, "must be given once")
		}
	}
	for _, f := range []struct {
		param string
		dst   *string
	}{{"collectionName", &q.CollectionName}, {"userId", &q.UserID}, {"itemId", &q.ItemID}} {
		s := v.Get(f.param)
		if len(s) > 256 || strings.IndexByte(s, 0) >= 0 {
			return q, qerr(f.param, "must be at most 256 bytes of text")
		}
		*f.dst = s
	}
	if s := v.Get("operation"); s != "" {
		switch op := kit.Operation(s); op {
		case kit.OpCreate, kit.OpUpdate, kit.OpDelete, kit.OpMove, kit.OpReorder, kit.OpRestore, kit.OpPurge:
			q.Operation = op
		default:
			return q, qerr("operation", "must be create, update, delete, move, reorder, restore or purge")
		}
	}
	var err error
	if s := v.Get("dateFrom"); s != "" {
		if q.DateFrom, err = parseDate(s, false); err != nil {
			return q, qerr("dateFrom", "must be an RFC 3339 time or a YYYY-MM-DD date")
		}
	}
	if s := v.Get("dateTo"); s != "" {
		if q.DateTo, err = parseDate(s, true); err != nil {
			return q, qerr("dateTo", "must be an RFC 3339 time or a YYYY-MM-DD date")
		}
		if !q.DateFrom.IsZero() && q.DateTo.Before(q.DateFrom) {
			return q, qerr("dateTo", "must not be before dateFrom")
		}
	}
	if s, ok := v["page"]; ok {
		n, err := strconv.Atoi(s[0])
		if err != nil || n < 1 || n > 1_000_000 {
			return q, qerr("page", "must be a whole number from 1 to 1000000")
		}
		q.Page = n
	}
	if s, ok := v["pageSize"]; ok {
		n, err := strconv.Atoi(s[0])
		if err != nil || n < 1 || n > MaxPageSize {
			return q, qerr("pageSize", fmt.Sprintf("must be a whole number from 1 to %d", MaxPageSize))
		}
		q.PageSize = n
	}
	if s, ok := v["enrichUserData"]; ok {
		b, err := strconv.ParseBool(s[0])
		if err != nil {
			return q, qerr("enrichUserData", "must be true or false")
		}
		q.EnrichUserData = b
	}
	return q, nil
}

func qerr(param, msg string) *kit.QueryError { return &kit.QueryError{Param: param, Message: msg} }

// parseDate reads RFC 3339 or YYYY-MM-DD (UTC); a date ends at the last
// microsecond of its day when end is set.
func parseDate(s string, end bool) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return time.Time{}, err
	}
	if end {
		d = d.AddDate(0, 0, 1).Add(-time.Microsecond)
	}
	return d, nil
}

// Events returns one page of team teamID's events matching q, newest
// first (by timestamp, then id). Other teams' events are never read.
func (t *Tracker) Events(ctx context.Context, teamID string, q Query) (*EventPage, error) {
	if teamID == "" {
		return nil, teamauth.ErrTeamMissing
	}
	if q.Page < 1 {
		q.Page = 1
	}
	if q.PageSize < 1 {
		q.PageSize = DefaultPageSize
	}
	if q.PageSize > MaxPageSize {
		return nil, qerr("pageSize", fmt.Sprintf("must be a whole number from 1 to %d", MaxPageSize))
	}
	key, err := t.collectionKey(ctx, teamID, q.CollectionName)
	if err != nil {
		return nil, err
	}
	var rows []eventRow
	sel := t.k.DB().NewSelect().Model(&rows).Where("e.team_id = ?", teamID)
	if key != "" {
		sel = sel.Where("e.collection_name = ?", key)
	}
	if q.Operation != "" {
		sel = sel.Where("e.operation = ?", string(q.Operation))
	}
	if q.UserID != "" {
		sel = sel.Where("e.user_id = ?", q.UserID)
	}
	if q.ItemID != "" {
		sel = sel.Where("e.item_id = ?", q.ItemID)
	}
	if !q.DateFrom.IsZero() {
		sel = sel.Where("e.? >= ?", bun.Ident("timestamp"), q.DateFrom.UTC())
	}
	if !q.DateTo.IsZero() {
		sel = sel.Where("e.? <= ?", bun.Ident("timestamp"), q.DateTo.UTC())
	}
	sel = sel.OrderExpr("e.? DESC, e.id DESC", bun.Ident("timestamp")).
		Limit(int64(q.PageSize)).Offset(int64(q.Page-1) * int64(q.PageSize))
	total64, err := sel.ScanAndCount(ctx)
	total := int(total64)
	if err != nil {
		return nil, fmt.Errorf("events: list: %w", err)
	}
	page := &EventPage{Items: make([]Event, len(rows)), Pagination: kit.Pagination{
		CurrentPage: q.Page, PageSize: q.PageSize, TotalItems: total,
		TotalPages: (total + q.PageSize - 1) / q.PageSize, SortBy: "timestamp", SortDirection: "desc",
	}}
	for i := range rows {
		if page.Items[i], err = rows[i].event(); err != nil {
			return nil, err
		}
	}
	if q.EnrichUserData {
		if err := t.enrich(ctx, page.Items); err != nil {
			return nil, err
		}
	}
	return page, nil
}

// enrich sets each event's User to its user's current data, looking each
// user up once.
func (t *Tracker) enrich(ctx context.Context, evs []Event) error {
	users := map[string]*UserInfo{}
	for i := range evs {
		id := evs[i].UserID
		info, seen := users[id]
		if !seen {
			u, err := t.k.Auth().Directory.User(ctx, id)
			switch {
			case errors.Is(err, teamauth.ErrUserNotFound) || (err == nil && u == nil):
				info = &UserInfo{ID: id}
			case err != nil:
				return fmt.Errorf("events: enrich user %s: %w", id, err)
			default:
				info = &UserInfo{ID: u.ID, Name: u.Name, Image: u.Image}
			}
			users[id] = info
		}
		evs[i].User = info
	}
	return nil
}

// serveList answers GET /teams/{team}/kit-events for members of the team.
func (t *Tracker) serveList(w http.ResponseWriter, r *http.Request, acc *teamauth.Access) {
	q, err := ParseQuery(r.URL.Query())
	if err != nil {
		t.k.WriteError(w, r, err)
		return
	}
	page, err := t.Events(r.Context(), acc.Team.ID, q)
	if err != nil {
		t.k.WriteError(w, r, err)
		return
	}
	kit.WriteJSON(w, http.StatusOK, page)
}
