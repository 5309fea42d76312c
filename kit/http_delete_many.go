package kit

import (
	"net/http"

	"github.com/collectionkit/kit/collections"
)

// selectingParams are the list parameters that select, order or page
// records. A bulk delete names its records with ids alone, so each of
// them there is a 400 rather than a delete of something else than asked.
var selectingParams = []string{"page", "pageSize", "limit", "search", "sort", "sortBy", "sortDirection", "filter"}

// errBulkIfMatch answers a bulk delete sent with If-Match.
var errBulkIfMatch = &Error{Status: http.StatusBadRequest, Data: map[string]any{"header": "If-Match"},
	Message: "If-Match applies to one record: send DELETE .../{id} for a conditional delete"}

// serveDeleteMany answers DELETE /teams/{team}/{apiPath}?ids=a,b: the
// records named are deleted together or not at all (Records.DeleteMany),
// 204. Without ids, with an empty entry, with more than Limits.MaxInValues
// ids or with a list parameter, the answer is a 400 naming the parameter
// and nothing is deleted; so is an If-Match header (400 naming it).
func (k *Kit) serveDeleteMany(w http.ResponseWriter, r *http.Request, call collectionCall) {
	if r.Header.Get("If-Match") != "" {
		// A precondition is about one record's version; ignoring it would
		// make the client believe the delete was conditional.
		k.WriteError(w, r, errBulkIfMatch)
		return
	}
	q := r.URL.Query()
	for _, p := range selectingParams {
		if _, ok := q[p]; ok {
			k.WriteError(w, r, &QueryError{Param: p, Message: "does not apply to a delete: name the records with ids"})
			return
		}
	}
	vals, ok := q["ids"]
	switch {
	case !ok:
		k.WriteError(w, r, &QueryError{Param: "ids", Message: "is required: DELETE on a collection deletes the records ids names (DELETE .../{id} deletes one)"})
		return
	case len(vals) > 1:
		k.WriteError(w, r, &QueryError{Param: "ids", Message: "must be given once"})
		return
	}
	ids, err := collections.ParseIDs(vals[0], k.limits.MaxInValues)
	if err != nil {
		k.WriteError(w, r, err)
		return
	}
	if err := k.Records(call.c.Key()).DeleteMany(r.Context(), call.actor, ids); err != nil {
		k.WriteError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
