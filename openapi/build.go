package openapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/collectionkit/kit/collections"
)

// Options says what a document describes beyond the registry's
// collections. The zero value describes kit's defaults.
type Options struct {
	// Title is info.title. Default "kit API".
	Title string
	// Version is info.version, the version of the API described.
	// Default "1".
	Version string
	// Prefix is the path the API is served under. Default "/api".
	Prefix string
	// Limits are the list-query limits in force; zero fields take their
	// defaults ([collections.QueryLimits.WithDefaults]).
	Limits collections.QueryLimits
	// MaxBodyBytes is the largest record body (413 above it). Default
	// 1 MiB.
	MaxBodyBytes int64
	// CookieName is the sign-in session cookie. Default "kit_session".
	CookieName string
	// HostDirectory says the host keeps its own accounts
	// (kit.Config.Directory): the accounts routes that would change them
	// answer 501.
	HostDirectory bool
}

func (o Options) withDefaults() Options {
	if o.Title == "" {
		o.Title = "kit API"
	}
	if o.Version == "" {
		o.Version = "1"
	}
	if o.Prefix == "" {
		o.Prefix = "/api"
	}
	o.Prefix = strings.TrimSuffix(o.Prefix, "/")
	o.Limits = o.Limits.WithDefaults()
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 1 << 20
	}
	if o.CookieName == "" {
		o.CookieName = "kit_session"
	}
	return o
}

// Build returns the OpenAPI 3.1 document of kit's HTTP API for the
// collections of reg (nil describes none): for every stored collection its
// list, create, bulk delete, update and delete, the single fetch of
// fetchStrategy "restful" collections, the tree, move and reorder
// endpoints of tree and sortable collections, and the super-admin read;
// the item schema of every external collection (the routes that serve
// them are added by package external); kit's metadata endpoints; the
// accounts routes; the error shape with every status each operation
// answers; the security schemes (bearer token, session cookie).
//
// Component schemas are named after [collections.TypeNames]: for
// shopProducts, Product (a record as answered), ProductInput (a create
// body) and ProductResponse (a page of the list). The list's parameters
// are the list operation's, each spelled out (kit gen types names them as
// one type, ProductQuery). A collection type name that collides with one
// of kit's own components (KitError, KitPagination, KitMe, ...) is an
// error.
func Build(reg *collections.Registry, opts Options) (*Document, error) {
	o := opts.withDefaults()
	d := newDocument(o)
	cols := reg.All()
	d.typeNames = collections.TypeNames(cols)
	for _, c := range cols {
		name := d.typeNames[c.Key()]
		var err error
		if c.External() {
			err = d.AddSchema(name, externalItemSchema(c))
		} else {
			err = addCollection(d, c, name, o)
		}
		if err != nil {
			return nil, fmt.Errorf("openapi: collection %s (type %s): %w", c.Key(), name, err)
		}
	}
	if err := addMetaRoutes(d, o); err != nil {
		return nil, err
	}
	if err := addAccountRoutes(d, o); err != nil {
		return nil, err
	}
	if err := addBatchRoute(d, o); err != nil {
		return nil, err
	}
	if err := addBackupRoutes(d, o); err != nil {
		return nil, err
	}
	return d, nil
}

// newDocument returns a document with kit's shared components.
func newDocument(o Options) *Document {
	d := &Document{
		OpenAPI: Version,
		Info: Info{Title: o.Title, Version: o.Version, Description: "The HTTP API of a kit server: team-scoped " +
			"collections, kit's metadata and accounts routes, and the routes add-ons add. Every error answers " +
			"the KitError shape.",
			Contact: &Contact{Name: "kit", URL: "https://github.com/collectionkit/kit"}},
		Servers: []Server{{URL: "/", Description: "the server that serves this document"}},
		Paths:   map[string]*PathItem{},
		Components: Components{
			Schemas: map[string]Schema{},
			Parameters: map[string]*Parameter{
				ParamTeam: {Name: "team", In: "path", Required: true, Description: "the team's id or slug",
					Schema: Schema{"type": "string", "minLength": 1}},
				ParamID: {Name: "id", In: "path", Required: true, Description: "the record's id",
					Schema: Schema{"type": "string", "minLength": 1, "maxLength": 128}},
			},
			Responses: map[string]*Response{},
			SecuritySchemes: map[string]*SecurityScheme{
				SecurityBearer: {Type: "http", Scheme: "bearer",
					Description: "an API token (kit_...) from POST /me/tokens or `kit token create`"},
				SecuritySession: {Type: "apiKey", In: "cookie", Name: o.CookieName,
					Description: "the sign-in session cookie set by POST /auth/login; requests that change state must come from the same origin"},
			},
		},
		Security: []SecurityRequirement{{SecurityBearer: {}}, {SecuritySession: {}}},
	}
	d.Components.Schemas[SchemaError] = Schema{
		"type":        "object",
		"description": "kit's one error shape",
		"properties": Schema{
			"status":     Schema{"type": "integer", "minimum": 400, "maximum": 599},
			"statusText": Schema{"type": "string"},
			"message":    Schema{"type": "string", "description": "public text; a 5xx says only its status text"},
			"data": Schema{"type": "object", "description": "details: fields (field -> message) for validation " +
				"and unique errors, param for a bad list parameter, referencedBy for a referenced delete"},
		},
		"required": []any{"status", "statusText", "message"},
	}
	d.Components.Schemas[SchemaPagination] = Schema{
		"type": "object",
		"properties": Schema{
			"currentPage":   Schema{"type": "integer", "minimum": 1},
			"pageSize":      Schema{"type": "integer", "minimum": 1},
			"totalItems":    Schema{"type": "integer", "minimum": 0},
			"totalPages":    Schema{"type": "integer", "minimum": 0},
			"sortBy":        Schema{"type": "string"},
			"sortDirection": Schema{"type": "string", "enum": []any{"asc", "desc"}},
		},
		"required": []any{"currentPage", "pageSize", "totalItems", "totalPages"},
	}
	errText := map[int]string{
		400: "bad input: a list parameter (data.param names it), a body that does not fit (data.fields maps each field to its message), malformed JSON",
		401: "no credentials, or a malformed, unknown or revoked token or session",
		403: "not a member of the route's team, a banned user, a role too low or a record the caller may not change, another user's data, admin required, or a cross-site request made with the session cookie",
		404: "unknown team, collection, route or record; a record of another team answers exactly like a missing one",
		409: "a conflict with the stored data: a unique value taken (data.fields), a record still referenced (data.referencedBy), a tree node with children, a slug taken, the last owner",
		412: "If-Match names a version that is no longer current: the record changed since it was read; the ETag header carries the current version",
		413: fmt.Sprintf("the body is larger than the limit (%d bytes for records)", o.MaxBodyBytes),
		415: "the body is not application/json",
		429: "too many attempts; Retry-After says when to try again",
		500: "an unexpected error: logged, answered without detail",
		501: "the host keeps its own accounts: this route would change them",
	}
	for status, name := range errorResponseNames {
		r := JSONResponse(errText[status], Ref(SchemaError))
		if status == http.StatusPreconditionFailed {
			r.Headers = map[string]*Header{"ETag": etagHeader()}
		}
		if status == http.StatusTooManyRequests {
			r.Headers = map[string]*Header{"Retry-After": {Description: "seconds to wait", Schema: Schema{"type": "integer"}}}
		}
		d.Components.Responses[name] = r
	}
	return d
}

func etagHeader() *Header {
	return &Header{Description: "the record's current version; send it as If-Match to change or delete exactly this version",
		Schema: Schema{"type": "string"}}
}

// ifMatch is the If-Match header of conditional writes.
func ifMatch() *Parameter {
	return &Parameter{Name: "If-Match", In: "header", Schema: Schema{"type": "string"},
		Description: "the ETag of the version read; a stale one is refused with 412 and the current ETag. Without it the write is unconditional."}
}

// OperationSuffix returns the PascalCase form of a registry key
// that operation ids end with ("shopProducts" is "ShopProducts", so its
// list is "listShopProducts"), for add-ons that describe a collection's
// routes.
func OperationSuffix(key string) string {
	if key == "" {
		return key
	}
	return strings.ToUpper(key[:1]) + key[1:]
}

// addCollection describes a stored collection: its three schemas and its
// routes.
func addCollection(d *Document, c *collections.Collection, name string, o Options) error {
	key, op := c.Key(), OperationSuffix(c.Key())
	record, input, response := name, name+"Input", name+"Response"
	qs := querySchema(c, o.Limits)
	schemas := []struct {
		name string
		s    Schema
	}{
		{record, arraysWithItems(c.RecordSchema())},
		{input, inputForDocument(c.InputSchema(false))},
		{response, Schema{"type": "object", "properties": Schema{
			"items":      Schema{"type": "array", "items": Ref(record)},
			"pagination": Ref(SchemaPagination),
		}, "required": []any{"items", "pagination"}}},
	}
	for _, s := range schemas {
		withRefs, err := withFileRefs(d, s.s)
		if err != nil {
			return err
		}
		if err := d.AddSchema(s.name, withRefs); err != nil {
			return err
		}
	}
	tags := []string{key}
	d.Tags = append(d.Tags, Tag{Name: key, Description: fmt.Sprintf("the %s collection (layer %s)", c.Name(), c.Layer())})
	base := o.Prefix + "/teams/{team}/" + c.APIPath()
	item := base + "/{id}"
	team := ParamRef(ParamTeam)
	id := ParamRef(ParamID)
	recordAnswer := func(desc string) *Response {
		r := JSONResponse(desc, Ref(record))
		r.Headers = map[string]*Header{"ETag": etagHeader()}
		return r
	}

	listParams := []*Parameter{team}
	for _, p := range sortedKeys(qs["properties"].(Schema)) {
		ps := qs["properties"].(Schema)[p].(Schema)
		desc, _ := ps["description"].(string)
		listParams = append(listParams, &Parameter{Name: p, In: "query", Description: desc, Schema: ps})
	}
	var ops []routeOp
	ops = append(ops, routeOp{http.MethodGet, base, (&Operation{
		OperationID: "list" + op, Tags: tags,
		Summary: "List the team's " + c.Name(),
		Description: "A page of the team's records: {items, pagination}. With `ids`, an array (the query fetch strategy): " +
			"the team's records among the ids that also match filter and search, ordered by sort when given, else in the " +
			"order asked (ids of other teams or of no record are left out); page, pageSize and limit are then a 400. " +
			"A `?ids=` of one id that finds its record carries the record's ETag.",
		Parameters: listParams,
		Responses: map[string]*Response{"200": JSONResponse("a page of records, or with ids the records asked for",
			Schema{"oneOf": []any{Ref(response), Schema{"type": "array", "items": Ref(record)}}})},
	}).AddErrors(400, 401, 403, 404, 500)})
	created := recordAnswer("the stored record")
	created.Headers["Location"] = &Header{Description: "the record's path", Schema: Schema{"type": "string"}}
	ops = append(ops, routeOp{http.MethodPost, base, withMultipart((&Operation{
		OperationID: "create" + op, Tags: tags,
		Summary:     "Create a record of " + c.Name(),
		Description: "Validates the body (unknown fields are a 400; the auto-generated fields are ignored), stores it in the route's team, and answers the stored record.",
		Parameters:  []*Parameter{team},
		RequestBody: JSONBody(Ref(input)),
		Responses:   map[string]*Response{"201": created},
	}).AddErrors(400, 401, 403, 404, 409, 413, 415, 500), c)})
	ops = append(ops, routeOp{http.MethodDelete, base, (&Operation{
		OperationID: "bulkDelete" + op, Tags: tags,
		Summary: "Delete several records of " + c.Name(),
		Description: fmt.Sprintf("Deletes the records `ids` names (at most %d) in one transaction, all or nothing: an id that is "+
			"missing, of another team or not deletable by the caller deletes nothing and answers as the single delete would "+
			"(404, 403, 409). Any list parameter besides ids, or an If-Match header, is a 400 (a precondition is per record).",
			o.Limits.MaxInValues),
		Parameters: []*Parameter{team, {Name: "ids", In: "query", Required: true,
			Description: "comma-separated record ids", Schema: idsSchema(o.Limits.MaxInValues)}},
		Responses: map[string]*Response{"204": {Description: "deleted, no body"}},
	}).AddErrors(400, 401, 403, 404, 409, 500)})
	if c.FetchStrategy() == "restful" {
		ops = append(ops, routeOp{http.MethodGet, item, (&Operation{
			OperationID: "get" + op, Tags: tags,
			Summary:     "Read one record of " + c.Name(),
			Description: "Served for fetchStrategy restful only; a query-strategy collection answers 404 here (read it with ?ids=).",
			Parameters:  []*Parameter{team, id},
			Responses:   map[string]*Response{"200": recordAnswer("the record")},
		}).AddErrors(401, 403, 404, 500)})
	}
	ops = append(ops, routeOp{http.MethodPatch, item, withMultipart((&Operation{
		OperationID: "update" + op, Tags: tags,
		Summary:     "Update a record of " + c.Name(),
		Description: "A partial update: only the fields in the body change; {} changes nothing. Members change their own records, team admins and owners any.",
		Parameters:  []*Parameter{team, id, ifMatch()},
		RequestBody: JSONBody(inputForDocument(c.InputSchema(true))),
		Responses:   map[string]*Response{"200": recordAnswer("the stored record")},
	}).AddErrors(400, 401, 403, 404, 409, 412, 413, 415, 500), c)})
	if hasFileFields(c) {
		ops = append(ops, fileDownloadOp(c, item, op, tags, team, id))
	}
	ops = append(ops, routeOp{http.MethodDelete, item, (&Operation{
		OperationID: "delete" + op, Tags: tags,
		Summary:     "Delete a record of " + c.Name(),
		Description: "409 while the team's records still reference it (data.referencedBy) or, in a tree, while it has children.",
		Parameters:  []*Parameter{team, id, ifMatch()},
		Responses:   map[string]*Response{"204": {Description: "deleted, no body"}},
	}).AddErrors(401, 403, 404, 409, 412, 500)})
	items := Schema{"type": "object", "properties": Schema{"items": Schema{"type": "array", "items": Ref(record)}},
		"required": []any{"items"}}
	if c.IsTree() {
		parent, _ := c.ManagedAttribute(collections.ManagedParent)
		order, _ := c.ManagedAttribute(collections.ManagedOrder)
		ops = append(ops, routeOp{http.MethodPatch, item + "/move", (&Operation{
			OperationID: "move" + op, Tags: tags,
			Summary:     "Move a record of " + c.Name() + " and its subtree",
			Description: "Moves the node under a new parent (null for a root) at a position; no order, or one past the end, appends.",
			Parameters:  []*Parameter{team, id, ifMatch()},
			RequestBody: JSONBody(Schema{"type": "object", "additionalProperties": false,
				"properties": Schema{
					parent.Name: Schema{"type": []any{"string", "null"}, "x-refTarget": key},
					order.Name:  Schema{"type": []any{"integer", "null"}, "minimum": 0},
				}, "required": []any{parent.Name}}),
			Responses: map[string]*Response{"200": recordAnswer("the moved record")},
		}).AddErrors(400, 401, 403, 404, 412, 413, 415, 500)})
		ops = append(ops, routeOp{http.MethodGet, base + "/tree", (&Operation{
			OperationID: "tree" + op, Tags: tags,
			Summary:     "Read the tree of " + c.Name(),
			Description: "The whole tree, or the subtree under root, depth first with siblings in order.",
			Parameters: []*Parameter{team, {Name: "root", In: "query", Description: "the id of the subtree's root",
				Schema: Schema{"type": "string", "minLength": 1, "maxLength": 128}}},
			Responses: map[string]*Response{"200": JSONResponse("the records, depth first", items)},
		}).AddErrors(400, 401, 403, 404, 500)})
	}
	if c.IsOrdered() {
		update := Schema{"type": "object", "additionalProperties": false, "properties": Schema{
			"id": Schema{"type": "string"}, "order": Schema{"type": "integer", "minimum": 0}}, "required": []any{"id", "order"}}
		ops = append(ops, routeOp{http.MethodPatch, base + "/reorder", (&Operation{
			OperationID: "reorder" + op, Tags: tags,
			Summary:     "Reorder siblings of " + c.Name(),
			Description: "ids lists every sibling in its new order; updates places some and keeps the others in order. Any id that is not a sibling in this team fails the whole request.",
			Parameters:  []*Parameter{team},
			RequestBody: JSONBody(Schema{"oneOf": []any{
				Schema{"type": "object", "additionalProperties": false, "properties": Schema{
					"ids": Schema{"type": "array", "items": Schema{"type": "string"}}}, "required": []any{"ids"}},
				Schema{"type": "object", "additionalProperties": false, "properties": Schema{
					"updates": Schema{"type": "array", "items": update}}, "required": []any{"updates"}},
			}}),
			Responses: map[string]*Response{"200": JSONResponse("the siblings in their new order", items)},
		}).AddErrors(400, 401, 403, 404, 413, 415, 500)})
	}
	if c.SoftDelete() {
		ops = append(ops, trashOps(c, record, base, op, tags)...)
	}
	ops = append(ops, dataOps(c, record, base, op, tags, listParams)...)
	ops = append(ops, routeOp{http.MethodGet, o.Prefix + "/super-admin/" + key + "/{id}", (&Operation{
		OperationID: "superAdminGet" + op, Tags: tags,
		Summary:     "Read one record of " + c.Name() + " of any team",
		Description: "For users whose global role is admin. The apiPath (" + c.APIPath() + ") may stand for the key.",
		Parameters:  []*Parameter{id},
		Responses:   map[string]*Response{"200": recordAnswer("the record")},
	}).AddErrors(401, 403, 404, 500)})
	return addAll(d, ops)
}

// withoutDefaults moves each property's default of a body schema into its
// description: the server applies a default when the field is absent, so
// the field is optional, but generators such as openapi-typescript make a
// property with a default required.
// inputForDocument is a collection's input schema as the document
// describes it: without defaults (withoutDefaults), every decimal field a
// string (decimalsAsStrings) and every array with its items
// (arraysWithItems).
func inputForDocument(s Schema) Schema {
	return arraysWithItems(decimalsAsStrings(withoutDefaults(s)))
}

// arraysWithItems gives every array property of an object schema that
// names no items schema an empty one (any value): OpenAPI tools ask every
// array for its items.
func arraysWithItems(s Schema) Schema {
	props, _ := s["properties"].(map[string]any)
	for _, p := range props {
		ps, ok := p.(map[string]any)
		if !ok || ps["items"] != nil {
			continue
		}
		switch t := ps["type"].(type) {
		case string:
			if t == "array" {
				ps["items"] = Schema{}
			}
		case []any:
			if slices.Contains(t, "array") {
				ps["items"] = Schema{}
			}
		}
	}
	return s
}

// decimalDescription is what the document says of a decimal input.
const decimalDescription = "a decimal as a string (a JSON number is accepted too)"

// decimalsAsStrings describes the decimal fields of an input schema (the
// properties with x-precision) as strings, null when the field is
// optional, where the schema that validates bodies allows a string or a
// number: a type list of two value types is what code generators cannot
// map (oapi-codegen and ogen refuse it), and a decimal's exact value is
// its string. The description says that numbers are accepted too.
func decimalsAsStrings(s Schema) Schema {
	props, _ := s["properties"].(map[string]any)
	for name, p := range props {
		ps, ok := p.(map[string]any)
		if !ok || ps["x-precision"] == nil {
			continue
		}
		types, _ := ps["type"].([]any)
		if !slices.Contains(types, "number") {
			continue
		}
		ps["type"] = "string"
		if slices.Contains(types, "null") {
			ps["type"] = []any{"string", "null"}
		}
		if d, _ := ps["description"].(string); d != "" {
			ps["description"] = decimalDescription + "; " + d
		} else {
			ps["description"] = decimalDescription
		}
		props[name] = ps
	}
	return s
}

func withoutDefaults(s Schema) Schema {
	props, _ := s["properties"].(map[string]any)
	for name, p := range props {
		ps, ok := p.(map[string]any)
		if !ok {
			continue
		}
		if d, has := ps["default"]; has {
			delete(ps, "default")
			b, _ := json.Marshal(d)
			ps["description"] = "default " + string(b) + ", applied when the field is absent"
			props[name] = ps
		}
	}
	return s
}

// routeOp is one operation to add.
type routeOp struct {
	method, path string
	op           *Operation
}

func addAll(d *Document, ops []routeOp) error {
	for _, r := range ops {
		if err := d.Add(r.method, r.path, r.op); err != nil {
			return err
		}
	}
	return nil
}

// querySchema is the collection's list parameters as an object schema,
// with the limits the parser applies.
func querySchema(c *collections.Collection, lim collections.QueryLimits) Schema {
	var sortable []any
	var names []string
	for _, a := range c.Attributes() {
		if a.Sortable() {
			sortable = append(sortable, a.Name)
			names = append(names, regexp.QuoteMeta(a.Name))
		}
	}
	one := "-?(?:" + strings.Join(names, "|") + ")"
	pageSize := func(desc string) Schema {
		return Schema{"type": "integer", "minimum": 1, "maximum": lim.MaxPageSize, "description": desc}
	}
	field, desc := c.DefaultSort()
	dir := "ascending"
	if desc {
		dir = "descending"
	}
	props := Schema{
		"page": Schema{"type": "integer", "minimum": 1, "maximum": 1_000_000, "description": "the page, 1-based (default 1)"},
		"pageSize": pageSize(fmt.Sprintf("records per page, 1..%d (default: the collection's defaultPagination, else 20); a larger value is a 400",
			lim.MaxPageSize)),
		"limit":  pageSize("an alias of pageSize; giving both with different values is a 400"),
		"search": Schema{"type": "string", "maxLength": lim.MaxSearchBytes, "description": "a case-insensitive substring of any string or text field; every character is literal"},
		"sort": Schema{"type": "string", "pattern": fmt.Sprintf("^%s(?:,%s){0,%d}$", one, one, lim.MaxSortKeys-1),
			"description": fmt.Sprintf("up to %d sortable fields, comma-separated, - for descending (default %s %s); id is always the last tie-breaker",
				lim.MaxSortKeys, field, dir)},
		"sortBy":        Schema{"type": "string", "enum": sortable, "description": "one sort field (with sortDirection), instead of sort"},
		"sortDirection": Schema{"type": "string", "enum": []any{"asc", "desc"}, "description": "the direction of sortBy"},
		"filter": Schema{"type": "string", "maxLength": lim.MaxFilterBytes,
			"description": fmt.Sprintf(`a JSON object of conditions: {"field": value} is equality, null isNull, {"field": {"op": value}} with op one of eq ne gt gte lt lte in nin contains startsWith isNull; at most %d conditions and %d values per in`,
				lim.MaxConditions, lim.MaxInValues)},
		"ids": idsSchema(lim.MaxInValues),
	}
	props["ids"].(Schema)["description"] = "comma-separated record ids: the answer is then an array of the team's records among them, in the order asked"
	return Schema{"type": "object", "properties": props, "additionalProperties": false,
		"description": "the list parameters of " + c.Key()}
}

func idsSchema(max int) Schema {
	return Schema{"type": "string", "pattern": "^[^,]+(?:,[^,]+){0," + strconv.Itoa(max-1) + "}$"}
}

// externalItemSchema is an external collection's item schema as its config
// holds it, without $schema and $id; id and title are always required.
func externalItemSchema(c *collections.Collection) Schema {
	s := Schema{}
	if raw, ok := c.Config().Extra["schema"].(map[string]any); ok {
		for k, v := range raw {
			if k != "$schema" && k != "$id" {
				s[k] = v
			}
		}
	}
	s["type"] = "object"
	props, _ := s["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
	}
	for _, k := range []string{"id", "title"} {
		if _, ok := props[k]; !ok {
			props[k] = Schema{"type": "string"}
		}
	}
	s["properties"] = props
	req := []any{"id", "title"}
	if have, ok := s["required"].([]any); ok {
		for _, r := range have {
			if r != "id" && r != "title" {
				req = append(req, r)
			}
		}
	}
	s["required"] = req
	return s
}

func sortedKeys(m Schema) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
