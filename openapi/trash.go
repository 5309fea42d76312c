package openapi

import (
	"net/http"

	"github.com/collectionkit/kit/collections"
)

// trashOps describes the trash routes of a softDelete collection: the
// list of the team's trashed records, restore and purge.
func trashOps(c *collections.Collection, record, base, op string, tags []string) []routeOp {
	team, id := ParamRef(ParamTeam), ParamRef(ParamID)
	entry := Schema{"type": "object", "required": []any{"id", "deletedAt", "deletedBy", "record"}, "properties": Schema{
		"id":        Schema{"type": "string"},
		"deletedAt": Schema{"type": "string", "format": "date-time"},
		"deletedBy": Schema{"type": "string", "description": "the user who deleted it"},
		"record":    Ref(record),
	}}
	page := Schema{"type": "object", "required": []any{"items", "pagination"}, "properties": Schema{
		"items": Schema{"type": "array", "items": entry}, "pagination": Ref(SchemaPagination)}}
	restored := JSONResponse("the restored record", Ref(record))
	restored.Headers = map[string]*Header{"ETag": etagHeader()}
	return []routeOp{
		{http.MethodGet, base + "/trash", (&Operation{
			OperationID: "listTrash" + op, Tags: tags,
			Summary:     "List the team's trashed " + c.Name(),
			Description: "The records deletes moved to the team's trash (softDelete), newest first; each stays restorable until the trash retention purges it.",
			Parameters: []*Parameter{team,
				{Name: "page", In: "query", Description: "1-based (default 1)", Schema: Schema{"type": "integer", "minimum": 1}},
				{Name: "pageSize", In: "query", Description: "default 20", Schema: Schema{"type": "integer", "minimum": 1}}},
			Responses: map[string]*Response{"200": JSONResponse("a page of trashed records", page)},
		}).AddErrors(400, 401, 403, 404, 500)},
		{http.MethodPost, base + "/{id}/restore", (&Operation{
			OperationID: "restore" + op, Tags: tags,
			Summary:     "Restore a trashed record of " + c.Name(),
			Description: "Puts the record back with the same id, through the create's validation: 400 when a reference names a record that is gone (data.fields), 409 when a unique value was taken since; 404 when the team's trash has no such record.",
			Parameters:  []*Parameter{team, id},
			Responses:   map[string]*Response{"200": restored},
		}).AddErrors(400, 401, 403, 404, 409, 500)},
		{http.MethodDelete, base + "/{id}/trash", (&Operation{
			OperationID: "purge" + op, Tags: tags,
			Summary:     "Purge a trashed record of " + c.Name() + " for good",
			Description: "Removes the record from the team's trash; it can no longer be restored. 404 when the team's trash has no such record.",
			Parameters:  []*Parameter{team, id},
			Responses:   map[string]*Response{"204": {Description: "purged, no body"}},
		}).AddErrors(401, 403, 404, 500)},
	}
}
