package kit

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"

	"github.com/collectionkit/kit/collections"
)

// The tree and order endpoints:
//
//	PATCH /teams/{team}/{apiPath}/{id}/move   {"parentId": id|null, "order": n}
//	PATCH /teams/{team}/{apiPath}/reorder     {"ids": [...]} or {"updates": [{"id", "order"}]}
//	GET   /teams/{team}/{apiPath}/tree[?root=id]
//
// "reorder" and "tree" sit where a record id would, so they are served by
// the /{id} routes (kit's ids are UUIDs and never take these names): a
// pattern of their own would conflict in http.ServeMux with the
// /teams/{team}/<apiPath>/{id} routes external collections add.

// serveGetOrTree serves GET .../tree, GET .../trash (trash.go), GET
// .../export (export.go), else GET .../{id}.
func (k *Kit) serveGetOrTree(w http.ResponseWriter, r *http.Request, call collectionCall) {
	switch r.PathValue("id") {
	case "tree":
		k.serveTree(w, r, call)
	case "trash":
		k.serveTrash(w, r, call)
	case "export":
		k.serveExport(w, r, call)
	default:
		k.serveGet(w, r, call)
	}
}

// serveUpdateOrReorder serves PATCH .../reorder, else PATCH .../{id}.
func (k *Kit) serveUpdateOrReorder(w http.ResponseWriter, r *http.Request, call collectionCall) {
	if r.PathValue("id") == "reorder" {
		k.serveReorder(w, r, call)
		return
	}
	k.serveUpdate(w, r, call)
}

// serveMove answers the moved record (200).
func (k *Kit) serveMove(w http.ResponseWriter, r *http.Request, call collectionCall) {
	if !call.c.IsTree() {
		k.WriteError(w, r, errNotTree)
		return
	}
	opts, err := ifMatchOf(r)
	if err != nil {
		k.WriteError(w, r, err)
		return
	}
	body, err := k.readBody(w, r)
	if err != nil {
		k.WriteError(w, r, err)
		return
	}
	pName, orderName := managedName(call.c, collections.ManagedParent), managedName(call.c, collections.ManagedOrder)
	bad := map[string]string{}
	for key := range body {
		if key != pName && key != orderName {
			bad[key] = fmt.Sprintf("unknown field: a move takes %q and %q", pName, orderName)
		}
	}
	var parent *string
	switch v, ok := body[pName]; {
	case !ok:
		bad[pName] = "is required: the new parent's id, or null for a root"
	case v == nil:
	default:
		s, isStr := v.(string)
		if !isStr || s == "" {
			bad[pName] = "must be the id of a record of this collection, or null for a root"
		}
		parent = &s
	}
	order := OrderEnd
	if v, ok := body[orderName]; ok && v != nil {
		n, err := wholeNumber(v)
		switch {
		case err != nil:
			bad[orderName] = "must be a whole number (0 is first; a number past the last sibling appends)"
		case n < 0:
			bad[orderName] = "must be 0 or more (0 is first; a number past the last sibling appends)"
		default:
			order = int(min(n, OrderEnd))
		}
	}
	if len(bad) > 0 {
		k.WriteError(w, r, &ValidationError{Fields: bad})
		return
	}
	rec, err := k.Records(call.c.Key()).MoveWith(r.Context(), call.actor, r.PathValue("id"), parent, order, opts)
	if err != nil {
		k.writeWriteError(w, r, err)
		return
	}
	writeRecord(w, http.StatusOK, rec)
}

// wholeNumber reads a JSON number that is a whole number (1, 1.0, 1e2).
func wholeNumber(v any) (float64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("not a number")
	}
	f, err := n.Float64()
	if err != nil || f != math.Trunc(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("not a whole number")
	}
	return f, nil
}

// errReorderIfMatch refuses a conditional reorder: a set of siblings has
// no entity tag of its own, and ignoring the header would let a caller
// believe the reorder was checked.
var errReorderIfMatch = &Error{Status: http.StatusBadRequest,
	Message: "If-Match is not supported on reorder (a set of siblings has no ETag); move one record with PATCH /{id}/move and If-Match instead",
	Data:    map[string]any{"header": "If-Match"}}

// serveReorder answers the siblings in their new order: {"items": [...]}.
func (k *Kit) serveReorder(w http.ResponseWriter, r *http.Request, call collectionCall) {
	if !call.c.IsOrdered() {
		k.WriteError(w, r, errNotOrdered)
		return
	}
	if _, conditional := r.Header["If-Match"]; conditional {
		k.WriteError(w, r, errReorderIfMatch)
		return
	}
	body, err := k.readBody(w, r)
	if err != nil {
		k.WriteError(w, r, err)
		return
	}
	bad := map[string]string{}
	for key := range body {
		if key != "ids" && key != "updates" {
			bad[key] = `unknown field: a reorder takes "ids" or "updates"`
		}
	}
	rawIDs, hasIDs := body["ids"]
	rawUpdates, hasUpdates := body["updates"]
	if hasIDs == hasUpdates {
		bad["ids"] = `give either "ids" (every sibling, in the new order) or "updates" ([{"id", "order"}]), not both or neither`
	}
	var ids []string
	var updates []OrderUpdate
	if hasIDs && !hasUpdates {
		list, ok := rawIDs.([]any)
		for _, v := range list {
			s, isStr := v.(string)
			ok = ok && isStr
			ids = append(ids, s)
		}
		if !ok {
			bad["ids"] = "must be an array of record ids"
		}
	}
	if hasUpdates && !hasIDs {
		list, ok := rawUpdates.([]any)
		updates = []OrderUpdate{}
		for _, v := range list {
			u, isObj := v.(map[string]any)
			id, isStr := u["id"].(string)
			n, err := wholeNumber(u["order"])
			if !isObj || !isStr || err != nil || len(u) != 2 {
				ok = false
				break
			}
			if n < 0 {
				n = -1 // refused by ReorderUpdates, naming the id
			}
			updates = append(updates, OrderUpdate{ID: id, Order: int(min(n, OrderEnd))})
		}
		if !ok {
			bad["updates"] = `must be an array of {"id": string, "order": whole number}`
		}
	}
	if len(bad) > 0 {
		k.WriteError(w, r, &ValidationError{Fields: bad})
		return
	}
	recs, err := k.Records(call.c.Key()).reorder(r.Context(), call.actor, ids, updates)
	if err != nil {
		k.WriteError(w, r, err)
		return
	}
	WriteJSON(w, http.StatusOK, map[string]any{"items": recs})
}

// serveTree answers the tree, or the subtree of ?root=, depth first:
// {"items": [...]}.
func (k *Kit) serveTree(w http.ResponseWriter, r *http.Request, call collectionCall) {
	if !call.c.IsTree() {
		k.WriteError(w, r, errNotTree)
		return
	}
	q := r.URL.Query()
	if len(q["root"]) > 1 {
		k.WriteError(w, r, &QueryError{Param: "root", Message: "must be given once"})
		return
	}
	root := q.Get("root")
	if _, given := q["root"]; given && (root == "" || len(root) > 128 || strings.IndexByte(root, 0) >= 0) {
		k.WriteError(w, r, &QueryError{Param: "root", Message: "must be a record id"})
		return
	}
	recs, err := k.Records(call.c.Key()).tree(r.Context(), call.actor, root, MaxTreeNodes)
	if err != nil {
		k.WriteError(w, r, err)
		return
	}
	WriteJSON(w, http.StatusOK, map[string]any{"items": recs})
}
