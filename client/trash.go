package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// TrashedRecord is a record in its team's trash (a collection with
// softDelete).
type TrashedRecord[T any] struct {
	// ID is the record's id, which a restore keeps.
	ID string `json:"id"`
	// DeletedAt is when the record was moved to the trash.
	DeletedAt time.Time `json:"deletedAt"`
	// DeletedBy is the user who deleted it.
	DeletedBy string `json:"deletedBy"`
	// Record is the record's last state.
	Record T `json:"record"`
}

// Trash returns one page of the team's trash of the collection, newest
// first: GET /teams/{team}/{apiPath}/trash (page from 1; 0 leaves page or
// pageSize to the server). A collection without softDelete is
// ErrNotFound. It is never cached.
func (t *TypedCollection[T]) Trash(ctx context.Context, page, pageSize int) (*Page[TrashedRecord[T]], error) {
	_, path, err := t.endpoint(ctx)
	if err != nil {
		return nil, err
	}
	q := url.Values{}
	if page > 0 {
		q.Set("page", strconv.Itoa(page))
	}
	if pageSize > 0 {
		q.Set("pageSize", strconv.Itoa(pageSize))
	}
	var out Page[TrashedRecord[T]]
	if _, err := t.c.do(ctx, http.MethodGet, path+"/trash", q, nil, nil, &out); err != nil {
		return nil, err
	}
	if out.Items == nil {
		out.Items = []TrashedRecord[T]{}
	}
	return &out, nil
}

// Restore puts record id back from the team's trash, with the same id, and
// returns it: POST /teams/{team}/{apiPath}/{id}/restore. A reference to a
// record that is gone is ErrBadRequest (the field in Data["fields"]); a
// unique value taken since is ErrConflict; a record not in the team's
// trash is ErrNotFound.
func (t *TypedCollection[T]) Restore(ctx context.Context, id string) (T, error) {
	var rec T
	err := t.mutate(ctx, http.MethodPost, "/"+url.PathEscape(id)+"/restore", nil, nil, nil, &rec)
	return rec, err
}

// Purge removes record id from the team's trash for good: DELETE
// /teams/{team}/{apiPath}/{id}/trash. A record not in the team's trash is
// ErrNotFound.
func (t *TypedCollection[T]) Purge(ctx context.Context, id string) error {
	return t.mutate(ctx, http.MethodDelete, "/"+url.PathEscape(id)+"/trash", nil, nil, nil, nil)
}

// Trash is [TypedCollection.Trash] with records as maps.
func (col *Collection) Trash(ctx context.Context, page, pageSize int) (*Page[TrashedRecord[Record]], error) {
	return col.typed.Trash(ctx, page, pageSize)
}

// Restore is [TypedCollection.Restore] with the record as a map.
func (col *Collection) Restore(ctx context.Context, id string) (Record, error) {
	return col.typed.Restore(ctx, id)
}

// Purge is [TypedCollection.Purge].
func (col *Collection) Purge(ctx context.Context, id string) error {
	return col.typed.Purge(ctx, id)
}
