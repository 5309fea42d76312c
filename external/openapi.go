package external

import (
	"net/http"

	"github.com/collectionkit/kit/openapi"
)

// describe adds the routes mountRoutes serves for the collection registered
// under key to kit's OpenAPI document (see kit.Kit.DescribeAPI). The item
// schema itself is in the document already: openapi.Build adds one per
// external collection, from the schema in its config.
func describe(prefix, key, apiPath string, restful, proxied bool) func(*openapi.Document) error {
	return func(doc *openapi.Document) error {
		item := doc.TypeName(key)
		if item == "" {
			return nil // no longer registered
		}
		op := openapi.OperationSuffix(key)
		tags := []string{key}
		doc.Tags = append(doc.Tags, openapi.Tag{Name: key, Description: "the external collection " + key})
		errs := []int{401, 403, 404, 500}
		list := openapi.Schema{"type": "array", "items": openapi.Ref(item)}
		if proxied {
			// A proxy relays a source's refusals and answers its list as
			// the source shaped it.
			errs = append(errs, 400, 502, 508)
			list = openapi.Schema{"oneOf": []any{list, openapi.Schema{"type": "object", "required": []any{"items"},
				"properties": openapi.Schema{"items": list, "pagination": openapi.Ref(openapi.SchemaPagination)}}}}
		}
		base := prefix + "/teams/{team}/" + apiPath
		if err := doc.Add(http.MethodGet, base, (&openapi.Operation{
			OperationID: "list" + op, Tags: tags,
			Summary:     "The external collection's items",
			Description: "With ids, the items among the ids in the order asked, as an array; unknown ids are left out.",
			Parameters: []*openapi.Parameter{openapi.ParamRef(openapi.ParamTeam),
				{Name: "ids", In: "query", Description: "comma-separated item ids", Schema: openapi.Schema{"type": "string"}}},
			Responses: map[string]*openapi.Response{"200": openapi.JSONResponse("the items", list)},
		}).AddErrors(errs...)); err != nil {
			return err
		}
		if !restful {
			return nil
		}
		return doc.Add(http.MethodGet, base+"/{id}", (&openapi.Operation{
			OperationID: "get" + op, Tags: tags,
			Summary:     "One item of the external collection",
			Description: "The item with this id, as the collection's source answers it; an id the source does not know is a 404.",
			Parameters:  []*openapi.Parameter{openapi.ParamRef(openapi.ParamTeam), openapi.ParamRef(openapi.ParamID)},
			Responses:   map[string]*openapi.Response{"200": openapi.JSONResponse("the item", openapi.Ref(item))},
		}).AddErrors(errs...))
	}
}
