package openapi

import (
	"net/http"

	"github.com/collectionkit/kit/collections"
)

// dataOps describes the export and import routes of a stored collection.
func dataOps(c *collections.Collection, record, base, op string, tags []string, listParams []*Parameter) []routeOp {
	params := []*Parameter{ParamRef(ParamTeam),
		{Name: "format", In: "query", Description: "csv (default), json or ndjson", Schema: Schema{"type": "string", "enum": []any{"csv", "json", "ndjson"}}}}
	for _, p := range listParams {
		switch p.Name {
		case "filter", "search", "sort", "sortBy", "sortDirection":
			params = append(params, p)
		}
	}
	text := Schema{"type": "string"}
	rejected := Schema{"type": "object", "required": []any{"line", "row", "reason"}, "properties": Schema{
		"line": Schema{"type": "integer"}, "row": Schema{"type": "integer", "description": "0 for the CSV header"},
		"field": text, "reason": text}}
	return []routeOp{
		{http.MethodGet, base + "/export", (&Operation{
			OperationID: "export" + op, Tags: tags,
			Summary: "Export the team's " + c.Name() + " that a list query selects",
			Description: "Every match of the filter, search and sort (page, pageSize, limit and ids are a 400), streamed: CSV with a header of the " +
				"attribute names (a text cell that would start a spreadsheet formula gets an apostrophe in front), a JSON array, or NDJSON.",
			Parameters: params,
			Responses: map[string]*Response{"200": {Description: "the export, as an attachment", Content: map[string]MediaType{
				"text/csv":             {Schema: text},
				"application/json":     {Schema: Schema{"type": "array", "items": Ref(record)}},
				"application/x-ndjson": {Schema: text},
			}}},
		}).AddErrors(400, 401, 403, 404, 500)},
		{http.MethodPost, base + "/import", (&Operation{
			OperationID: "import" + op, Tags: tags,
			Summary: "Import " + c.Name() + " from CSV, JSON or NDJSON, all rows or none",
			Description: "Creates a record for every row through the create's validation, in one transaction with one correlation id; " +
				"400 lists every rejected row (data.rejected: line, row, field, reason) and nothing is written; 413 over Config.MaxImportBytes.",
			Parameters: []*Parameter{ParamRef(ParamTeam)},
			RequestBody: &RequestBody{Required: true, Content: map[string]MediaType{
				"text/csv":             {Schema: text},
				"application/json":     {Schema: Schema{"type": "array", "items": Schema{"type": "object"}}},
				"application/x-ndjson": {Schema: text},
			}},
			Responses: map[string]*Response{"201": JSONResponse("what was imported", Schema{"type": "object", "required": []any{"imported", "correlationId"},
				"properties": Schema{"imported": Schema{"type": "integer"}, "correlationId": text,
					"rejected": Schema{"type": "array", "items": rejected, "description": "never on a 201; the 400's data.rejected has this shape"}}})},
		}).AddErrors(400, 401, 403, 404, 413, 415, 500)},
	}
}
