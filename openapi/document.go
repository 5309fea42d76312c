package openapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// Version is the OpenAPI version of the documents this package builds.
const Version = "3.1.1"

// Schema is a JSON Schema (draft 2020-12, OpenAPI 3.1's dialect) as a JSON
// object.
type Schema = map[string]any

// Document is an OpenAPI 3.1 document. It encodes to JSON with
// encoding/json; map keys come out sorted, so the encoding of one
// document is always the same.
type Document struct {
	OpenAPI string `json:"openapi"`
	Info    Info   `json:"info"`
	// Servers are where the API is served; [Build] gives one, "/": the
	// origin that serves the document (the paths carry the prefix).
	Servers    []Server             `json:"servers,omitempty"`
	Paths      map[string]*PathItem `json:"paths"`
	Components Components           `json:"components"`
	// Security is the default of every operation: any one of the listed
	// requirements suffices.
	Security []SecurityRequirement `json:"security,omitempty"`
	Tags     []Tag                 `json:"tags,omitempty"`

	typeNames map[string]string // registry key -> component schema name
}

// TypeName returns the name of the component schema of the collection
// registered under key ("shopProducts" is "Product"; see
// [collections.TypeNames]), empty when the document describes no such
// collection.
func (d *Document) TypeName(key string) string { return d.typeNames[key] }

// MarshalJSON encodes d. Of the component responses it writes only those
// an operation refers to: [Build] defines one per error status, so that
// every describer can refer to it, and a document lists only what it
// uses.
func (d Document) MarshalJSON() ([]byte, error) {
	type plain Document
	used := map[string]bool{}
	for _, item := range d.Paths {
		for _, op := range item.Operations() {
			for _, r := range op.Responses {
				if name, ok := strings.CutPrefix(r.Ref, "#/components/responses/"); ok {
					used[name] = true
				}
			}
		}
	}
	responses := map[string]*Response{}
	for name, r := range d.Components.Responses {
		if used[name] {
			responses[name] = r
		}
	}
	d.Components.Responses = responses
	return json.Marshal(plain(d))
}

// Info is the document's info object.
type Info struct {
	Title       string   `json:"title"`
	Version     string   `json:"version"`
	Description string   `json:"description,omitempty"`
	Contact     *Contact `json:"contact,omitempty"`
}

// Contact is whom the API's users reach about it. [Build] names kit's
// project; a host replaces it through kit.Kit.DescribeAPI.
type Contact struct {
	Name  string `json:"name,omitempty"`
	URL   string `json:"url,omitempty"`
	Email string `json:"email,omitempty"`
}

// Server is a base URL of the API.
type Server struct {
	URL         string `json:"url"`
	Description string `json:"description,omitempty"`
}

// Tag names a group of operations.
type Tag struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// PathItem holds the operations of one path.
type PathItem struct {
	Get    *Operation `json:"get,omitempty"`
	Post   *Operation `json:"post,omitempty"`
	Put    *Operation `json:"put,omitempty"`
	Patch  *Operation `json:"patch,omitempty"`
	Delete *Operation `json:"delete,omitempty"`
}

// slot returns the field of the method, nil for a method a PathItem does
// not hold.
func (p *PathItem) slot(method string) **Operation {
	switch method {
	case http.MethodGet:
		return &p.Get
	case http.MethodPost:
		return &p.Post
	case http.MethodPut:
		return &p.Put
	case http.MethodPatch:
		return &p.Patch
	case http.MethodDelete:
		return &p.Delete
	}
	return nil
}

// Operations returns the path's operations keyed by HTTP method
// ("GET", ...).
func (p *PathItem) Operations() map[string]*Operation {
	out := map[string]*Operation{}
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		if op := *p.slot(m); op != nil {
			out[m] = op
		}
	}
	return out
}

// Operation is one method of one path.
type Operation struct {
	OperationID string       `json:"operationId"`
	Summary     string       `json:"summary,omitempty"`
	Description string       `json:"description,omitempty"`
	Tags        []string     `json:"tags,omitempty"`
	Parameters  []*Parameter `json:"parameters,omitempty"`
	RequestBody *RequestBody `json:"requestBody,omitempty"`
	// Responses are keyed by status code ("200", "404").
	Responses map[string]*Response `json:"responses"`
	// Security overrides the document's requirements when not empty.
	Security []SecurityRequirement `json:"security,omitempty"`
	// Public marks an operation that needs no credentials: it encodes as
	// "security": [], overriding the document's requirements.
	Public bool `json:"-"`
}

// MarshalJSON encodes op, with "security": [] when op is Public.
func (op *Operation) MarshalJSON() ([]byte, error) {
	type plain Operation
	if op.Public {
		return json.Marshal(struct {
			*plain
			Security []SecurityRequirement `json:"security"`
		}{(*plain)(op), []SecurityRequirement{}})
	}
	return json.Marshal((*plain)(op))
}

// Parameter is a path, query or header parameter, or a reference to one in
// the components (Ref set, the rest empty).
type Parameter struct {
	Ref         string `json:"$ref,omitempty"`
	Name        string `json:"name,omitempty"`
	In          string `json:"in,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
	Schema      Schema `json:"schema,omitempty"`
}

// RequestBody is an operation's body.
type RequestBody struct {
	Description string               `json:"description,omitempty"`
	Required    bool                 `json:"required,omitempty"`
	Content     map[string]MediaType `json:"content"`
}

// MediaType is the schema of a body of one media type.
type MediaType struct {
	Schema Schema `json:"schema"`
}

// Response is one status's answer, or a reference to one in the
// components (Ref set, the rest empty).
type Response struct {
	Ref         string               `json:"$ref,omitempty"`
	Description string               `json:"description,omitempty"`
	Headers     map[string]*Header   `json:"headers,omitempty"`
	Content     map[string]MediaType `json:"content,omitempty"`
}

// Header is a response header.
type Header struct {
	Description string `json:"description,omitempty"`
	Schema      Schema `json:"schema"`
}

// Components holds what operations refer to by name.
type Components struct {
	Schemas         map[string]Schema          `json:"schemas"`
	Responses       map[string]*Response       `json:"responses,omitempty"`
	Parameters      map[string]*Parameter      `json:"parameters,omitempty"`
	SecuritySchemes map[string]*SecurityScheme `json:"securitySchemes,omitempty"`
}

// SecurityScheme is a way to present credentials.
type SecurityScheme struct {
	Type        string `json:"type"`
	Scheme      string `json:"scheme,omitempty"`
	In          string `json:"in,omitempty"`
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
}

// SecurityRequirement names security schemes that together authenticate
// a request.
type SecurityRequirement map[string][]string

// The names of the components every document has.
const (
	// SchemaError is the error shape: {status, statusText, message, data}.
	SchemaError = "KitError"
	// SchemaPagination is a list's pagination data.
	SchemaPagination = "KitPagination"
	// ParamTeam is the {team} path parameter: a team id or slug.
	ParamTeam = "team"
	// ParamID is the {id} path parameter: a record id.
	ParamID = "id"
	// SecurityBearer is the API token scheme (Authorization: Bearer).
	SecurityBearer = "bearerAuth"
	// SecuritySession is the sign-in session cookie scheme.
	SecuritySession = "sessionCookie"
)

// Ref returns a schema that refers to the component schema name.
func Ref(name string) Schema { return Schema{"$ref": "#/components/schemas/" + name} }

// ParamRef returns a reference to the component parameter name
// ([ParamTeam], [ParamID]).
func ParamRef(name string) *Parameter {
	return &Parameter{Ref: "#/components/parameters/" + name}
}

// JSONBody returns a required application/json request body of schema s.
func JSONBody(s Schema) *RequestBody {
	return &RequestBody{Required: true, Content: map[string]MediaType{"application/json": {Schema: s}}}
}

// JSONResponse returns a response with an application/json body of schema
// s.
func JSONResponse(description string, s Schema) *Response {
	return &Response{Description: description, Content: map[string]MediaType{"application/json": {Schema: s}}}
}

// errorResponseNames names the component response of each error status.
var errorResponseNames = map[int]string{
	400: "BadRequest",
	401: "Unauthorized",
	403: "Forbidden",
	404: "NotFound",
	409: "Conflict",
	412: "PreconditionFailed",
	413: "PayloadTooLarge",
	415: "UnsupportedMediaType",
	429: "TooManyRequests",
	500: "InternalServerError",
	501: "NotImplemented",
}

// AddErrors adds a response to op for each status, referring to the
// document's component response of that status (its body is the error
// shape, [SchemaError]). A status without a component response in
// [Build]'s documents (400, 401, 403, 404, 409, 412, 413, 415, 429, 500,
// 501) gets the error shape inline. It returns op.
func (op *Operation) AddErrors(statuses ...int) *Operation {
	if op.Responses == nil {
		op.Responses = map[string]*Response{}
	}
	for _, s := range statuses {
		code := strconv.Itoa(s)
		if name, ok := errorResponseNames[s]; ok {
			op.Responses[code] = &Response{Ref: "#/components/responses/" + name}
			continue
		}
		op.Responses[code] = JSONResponse(http.StatusText(s), Ref(SchemaError))
	}
	return op
}

// Statuses returns the statuses op answers, as numbers, ascending.
func (op *Operation) Statuses() []int {
	var out []int
	for code := range op.Responses {
		if n, err := strconv.Atoi(code); err == nil {
			out = append(out, n)
		}
	}
	sort.Ints(out)
	return out
}

// Add puts op at method and path (the full path, prefix included:
// "/api/teams/{team}/kit-events"). A method the path already has, or one
// OpenAPI's path items do not hold, is an error.
func (d *Document) Add(method, path string, op *Operation) error {
	if d.Paths == nil {
		d.Paths = map[string]*PathItem{}
	}
	item := d.Paths[path]
	if item == nil {
		item = &PathItem{}
	}
	slot := item.slot(strings.ToUpper(method))
	if slot == nil {
		return fmt.Errorf("openapi: %s %s: unsupported method", method, path)
	}
	if *slot != nil {
		return fmt.Errorf("openapi: %s %s: described twice", method, path)
	}
	if op.OperationID == "" {
		return fmt.Errorf("openapi: %s %s: no operationId", method, path)
	}
	*slot = op
	d.Paths[path] = item
	return nil
}

// AddSchema adds a component schema; a name already taken is an error.
func (d *Document) AddSchema(name string, s Schema) error {
	if d.Components.Schemas == nil {
		d.Components.Schemas = map[string]Schema{}
	}
	if _, taken := d.Components.Schemas[name]; taken {
		return fmt.Errorf("openapi: component schema %q defined twice", name)
	}
	d.Components.Schemas[name] = s
	return nil
}
