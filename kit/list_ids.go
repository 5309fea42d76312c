package kit

import (
	"context"
	"net/url"
	"slices"
)

// ListIDs answers a list request's ?ids= form, the "query" fetch
// strategy's request: the records of the actor's team among params' ids
// (at most Limits.MaxInValues) that also match its filter and search,
// ordered by its sort (or sortBy and sortDirection) when one is given and
// in the order of ids otherwise. Ids of other teams or of no record are
// left out. The answer holds every selected record, so page, pageSize and
// limit do not apply: each is a *QueryError naming it, as is a missing
// ids or any bad parameter [Records.List] would refuse.
func (r *Records) ListIDs(ctx context.Context, a Actor, params url.Values) ([]Record, error) {
	c, err := r.open(a)
	if err != nil {
		return nil, err
	}
	for _, p := range []string{"page", "pageSize", "limit"} {
		if _, ok := params[p]; ok {
			return nil, &QueryError{Param: p, Message: "does not apply with ids: the answer holds every selected record"}
		}
	}
	if _, ok := params["ids"]; !ok {
		return nil, &QueryError{Param: "ids", Message: "is required: name the records to read"}
	}
	q, err := c.ParseListQuery(params, r.k.limits)
	if err != nil {
		return nil, err
	}
	sorted := params.Get("sort") != "" || params.Get("sortBy") != "" || params.Has("sortDirection")
	if len(q.Filter) == 0 && q.Search == "" && !sorted {
		return r.k.store.GetMany(ctx, a.read(), c, a.TeamID, q.IDs)
	}
	q.Page, q.PageSize = 1, len(q.IDs)
	page, err := r.k.store.List(ctx, a.read(), c, a.TeamID, q)
	if err != nil {
		return nil, err
	}
	if !sorted {
		inAskedOrder(q.IDs, page.Records)
	}
	return page.Records, nil
}

// inAskedOrder sorts recs (each one of ids) in the order of ids.
func inAskedOrder(ids []string, recs []Record) {
	pos := make(map[string]int, len(ids))
	for i, id := range ids {
		pos[id] = i
	}
	slices.SortFunc(recs, func(x, y Record) int {
		return pos[x["id"].(string)] - pos[y["id"].(string)]
	})
}
