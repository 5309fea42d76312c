package events

import (
	"net/http"

	"github.com/collectionkit/kit/openapi"
)

// The component schemas the add-on adds to kit's OpenAPI document.
const (
	schemaEvent     = "KitEvent"
	schemaEventPage = "KitEventPage"
	schemaTrack     = "KitTrackOptions"
	schemaHealth    = "KitEventHealth"
	// schemaOperation is the operations an event records: a component of
	// its own, so that generators name one type for the event's field
	// and the list's parameter (ogen names an inline enum parameter
	// "operation" of listEvents ListEventsOperation, its operation's
	// own name).
	schemaOperation = "KitEventOperation"
)

// describe adds the event endpoints and their schemas to kit's OpenAPI
// document (see kit.Kit.DescribeAPI).
func (t *Tracker) describe(doc *openapi.Document) error {
	str := openapi.Schema{"type": "string"}
	nullableStr := openapi.Schema{"type": []any{"string", "null"}}
	operation := openapi.Ref(schemaOperation)
	obj := func(props openapi.Schema, required ...any) openapi.Schema {
		return openapi.Schema{"type": "object", "properties": props, "required": required}
	}
	schemas := map[string]openapi.Schema{
		schemaOperation: {"type": "string", "enum": []any{"create", "update", "delete", "move", "reorder", "restore", "purge"}},
		schemaEvent: obj(openapi.Schema{
			"id": str, "teamId": str, "timestamp": openapi.Schema{"type": "string", "format": "date-time"},
			"operation": operation, "collectionName": str, "itemId": str, "userId": str, "userName": str,
			"changes": openapi.Schema{"type": "array", "items": obj(openapi.Schema{"fieldName": str, "oldValue": nullableStr, "newValue": nullableStr},
				"fieldName", "oldValue", "newValue")},
			"metadata": openapi.Schema{"type": []any{"object", "null"}},
			"user":     obj(openapi.Schema{"id": str, "name": str, "image": str}, "id", "name", "image"),
		}, "id", "teamId", "timestamp", "operation", "collectionName", "itemId", "userId", "userName", "changes", "metadata"),
		schemaEventPage: obj(openapi.Schema{"items": openapi.Schema{"type": "array", "items": openapi.Ref(schemaEvent)},
			"pagination": openapi.Ref(openapi.SchemaPagination)}, "items", "pagination"),
		schemaTrack: openapi.Schema{"type": "object", "additionalProperties": false, "required": []any{"operation", "collection"},
			"properties": openapi.Schema{
				"operation":  openapi.Schema{"type": "string", "enum": []any{"create", "update", "delete"}},
				"collection": openapi.Schema{"type": "string", "description": "a collection's registry key or apiPath"},
				"itemId":     str, "itemIds": openapi.Schema{"type": "array", "items": str},
				"data": openapi.Schema{"type": "object"}, "updates": openapi.Schema{"type": "object"}, "result": openapi.Schema{}, "beforeData": openapi.Schema{"type": "object"},
			}},
		schemaHealth: obj(openapi.Schema{"total": openapi.Schema{"type": "integer"}, "failed": openapi.Schema{"type": "integer"},
			"lastError": nullableStr, "lastErrorTime": openapi.Schema{"type": []any{"string", "null"}, "format": "date-time"}},
			"total", "failed", "lastError", "lastErrorTime"),
	}
	for name, s := range schemas {
		if err := doc.AddSchema(name, s); err != nil {
			return err
		}
	}
	doc.Tags = append(doc.Tags, openapi.Tag{Name: "events", Description: "the audit events add-on (v0.1.0, beta)"})
	tags := []string{"events"}
	q := func(name, desc string, s openapi.Schema) *openapi.Parameter {
		return &openapi.Parameter{Name: name, In: "query", Description: desc, Schema: s}
	}
	day := openapi.Schema{"type": "string", "description": "RFC 3339 or YYYY-MM-DD"}
	p := t.k.Config().Prefix
	list := (&openapi.Operation{OperationID: "listEvents", Tags: tags,
		Summary:     "The team's audit events, newest first",
		Description: "A page of the team's audit events, filtered by collection, operation, user, record and date range; enrichUserData=true adds each user's current name and image.",
		Parameters: []*openapi.Parameter{openapi.ParamRef(openapi.ParamTeam),
			q("collectionName", "a registry key, an apiPath, or a collection name no other collection has", str), q("operation", "", operation), q("userId", "", str), q("itemId", "", str),
			q("dateFrom", "inclusive", day), q("dateTo", "inclusive", day),
			q("page", "1-based (default 1)", openapi.Schema{"type": "integer", "minimum": 1}),
			q("pageSize", "default 50", openapi.Schema{"type": "integer", "minimum": 1, "maximum": 100}),
			q("enrichUserData", "true adds user: {id, name, image}, the user's current data", openapi.Schema{"type": "string", "enum": []any{"true", "false"}}),
		},
		Responses: map[string]*openapi.Response{"200": openapi.JSONResponse("a page of events", openapi.Ref(schemaEventPage))},
	}).AddErrors(400, 401, 403, 404, 500)
	itemsOf := openapi.Schema{"type": "object", "properties": openapi.Schema{
		"items": openapi.Schema{"type": "array", "items": openapi.Ref(schemaEvent)}}, "required": []any{"items"}}
	track := (&openapi.Operation{OperationID: "trackEvent", Tags: tags,
		Summary:     "Record events for a change made outside kit's record API (manual tracking)",
		Description: "Writes the audit events of a change the client made elsewhere and answers them; with tracking turned off it writes nothing and answers 200 with no items.",
		Parameters:  []*openapi.Parameter{openapi.ParamRef(openapi.ParamTeam)},
		RequestBody: openapi.JSONBody(openapi.Ref(schemaTrack)),
		Responses: map[string]*openapi.Response{
			"201": openapi.JSONResponse("the events written", itemsOf),
			"200": openapi.JSONResponse("tracking is disabled: no events", itemsOf),
		},
	}).AddErrors(400, 401, 403, 404, 413, 415, 500)
	revert := (&openapi.Operation{OperationID: "revertEvent", Tags: tags,
		Summary:     "Undo an update event: write the fields' old values back",
		Description: "Writes the old values of the fields an update event changed back to its record, as a new update (whose event carries metadata.revertOf). 409 naming the fields when one holds another value now (force: true overwrites it), or when the record is gone; 404 for an event of another team or of none; 400 for an event that is no update.",
		Parameters: []*openapi.Parameter{openapi.ParamRef(openapi.ParamTeam),
			{Name: "id", In: "path", Required: true, Description: "the event's id", Schema: str}},
		RequestBody: &openapi.RequestBody{Content: map[string]openapi.MediaType{"application/json": {Schema: openapi.Schema{
			"type": "object", "additionalProperties": false,
			"properties": openapi.Schema{"force": openapi.Schema{"type": "boolean", "description": "overwrite fields changed since the event"}}}}}},
		Responses: map[string]*openapi.Response{"200": openapi.JSONResponse("the record as written", openapi.Schema{"type": "object"})},
	}).AddErrors(400, 401, 403, 404, 409, 413, 415, 500)
	health := (&openapi.Operation{OperationID: "eventsHealth", Tags: tags,
		Summary:     "Event tracking health (super-admins)",
		Description: "How many tracking attempts this server made since it started and how many failed, with the last failure's message and time (kept in memory, per server); super-admins only.",
		Responses:   map[string]*openapi.Response{"200": openapi.JSONResponse("the health record", openapi.Ref(schemaHealth))},
	}).AddErrors(401, 403, 500)
	for _, r := range []struct {
		method, path string
		op           *openapi.Operation
	}{
		{http.MethodGet, p + "/teams/{team}/kit-events", list},
		{http.MethodPost, p + "/teams/{team}/kit-collection-events", track},
		{http.MethodPost, p + "/teams/{team}/kit-events/{id}/revert", revert},
		{http.MethodGet, p + "/kit-events/health", health},
	} {
		if err := doc.Add(r.method, r.path, r.op); err != nil {
			return err
		}
	}
	return nil
}
