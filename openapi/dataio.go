package openapi

import (
	"net/http"

	"github.com/collectionkit/kit/collections"
)

// dataOps describes the export route of a stored collection.
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
	}
}
