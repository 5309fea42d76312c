package openapi

import (
	"fmt"
	"net/http"
)

// The batch's component schemas; no name may be one a generator derives
// from the operation id kitBatch (oapi-codegen's KitBatchResponse).
const (
	schemaBatch         = "KitBatchBody"
	schemaBatchRequest  = "KitBatchCall"
	schemaBatchResults  = "KitBatchAnswers"
	schemaBatchResponse = "KitBatchAnswer"
)

// maxBatchRequests is kit.MaxBatchOperations (openapi imports no kit).
const maxBatchRequests = 100

// addBatchRoute describes POST {prefix}/teams/{team}/kit-batch.
func addBatchRoute(d *Document, o Options) error {
	schemas := map[string]Schema{
		schemaBatchRequest: object(Schema{
			"method": Schema{"type": "string", "enum": []any{"POST", "PATCH", "DELETE"}},
			"url": Schema{"type": "string", "description": "a record route of the team, relative to the prefix: /teams/{team}/{apiPath} " +
				"(POST creates, DELETE ?ids= deletes several), /teams/{team}/{apiPath}/{id} (PATCH updates, DELETE deletes; " +
				"PATCH .../reorder reorders), /teams/{team}/{apiPath}/{id}/move (PATCH moves); {{N.field}} is a field of request N's answer"},
			"body":    Schema{"type": "object", "description": "the request's JSON body; a string {{N.field}} becomes that field of request N's answer"},
			"headers": Schema{"type": "object", "description": "If-Match (and Content-Type, which must be JSON)", "additionalProperties": str()},
		}, "method", "url"),
		schemaBatch: object(Schema{"requests": Schema{"type": "array", "minItems": 1, "maxItems": maxBatchRequests,
			"items": Ref(schemaBatchRequest)}}, "requests"),
		schemaBatchResponse: object(Schema{
			"status":  Schema{"type": "integer"},
			"headers": Schema{"type": "object", "description": "ETag and Location, when the request answered them", "additionalProperties": str()},
			"body":    Schema{"description": "the request's answer, as it would have answered alone"},
		}, "status"),
		schemaBatchResults: object(Schema{"responses": arrayOf(Ref(schemaBatchResponse))}, "responses"),
	}
	for name, s := range schemas {
		if err := d.AddSchema(name, s); err != nil {
			return err
		}
	}
	op := &Operation{OperationID: "kitBatch", Tags: []string{"kit"},
		Summary: "Run record writes of the team in one transaction",
		Description: fmt.Sprintf("Runs up to %d record requests of the team (create, update, delete, bulk delete, move, reorder) in order, "+
			"in one transaction: all or none. Each is served as it would be alone; when one fails, the batch answers its status "+
			"and error with its index in data.index, and nothing is written. The body may be up to %d bytes.",
			maxBatchRequests, batchBodyLimit(o.MaxBodyBytes)),
		Parameters:  []*Parameter{ParamRef(ParamTeam)},
		RequestBody: JSONBody(Ref(schemaBatch)),
		Responses:   map[string]*Response{"200": JSONResponse("what each request answered", Ref(schemaBatchResults))},
	}
	op.AddErrors(400, 401, 403, 404, 409, 412, 413, 415, 500)
	return d.Add(http.MethodPost, o.Prefix+"/teams/{team}/kit-batch", op)
}

// batchBodyLimit is kit's limit of a batch's body for a record body limit
// of maxBody (kit.Kit's batchBodyLimit).
func batchBodyLimit(maxBody int64) int64 {
	return min(maxBody*maxBatchRequests/10+maxBody, 32<<20)
}
