package kit

import (
	"context"

	"github.com/collectionkit/kit/collections"
)

// Query returns one page of the actor's team's records, as List does, for
// a query built in Go rather than HTTP list parameters. q is checked and
// completed by [collections.Collection.CheckListQuery]: zero Page,
// PageSize and Sort take the collection's defaults, attributes are looked
// up by name, filter values are made canonical (Go numbers, strings,
// booleans and times as Create takes them; any slice for OpIn and OpNin).
// A bad query is a *QueryError naming the part at fault ("pageSize",
// "sort", "filter", "search" or "ids"), and nothing is read.
func (r *Records) Query(ctx context.Context, a Actor, q collections.ListQuery) (*List, error) {
	c, err := r.open(a)
	if err != nil {
		return nil, err
	}
	q, err = c.CheckListQuery(q, r.k.limits)
	if err != nil {
		return nil, err
	}
	return r.listChecked(ctx, a, c, q)
}
