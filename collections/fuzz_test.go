package collections

import (
	"encoding/json"
	"errors"
	"net/url"
	"regexp"
	"sync"
	"testing"
	"testing/fstest"
)

// columnPattern is what every SQL column name must look like.
var columnPattern = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// FuzzLoadSchema feeds arbitrary bytes to Load as a schema file and as
// kit.config.json. Load must not panic, must answer the same way twice,
// and whatever it registers must be usable.
func FuzzLoadSchema(f *testing.F) {
	f.Add([]byte(productsSchema), []byte(`{}`))
	f.Add([]byte(`{"title": {"type": "string"}}`), []byte(`{"products": {"container": "modal", "color": "red"}}`))
	f.Add([]byte(`{"price": {"type": "decimal", "meta": {"precision": 39, "scale": 40, "default": "1e3"}}}`), []byte(`[]`))
	f.Add([]byte(`{"id": {"type": "string"}, "createdAt": {"type": "date"}}`), []byte(`{"shopProducts": {"useMetadata": false}}`))
	f.Add([]byte(`{"categoryId": {"type": "number", "refTarget": "categories"}, "x": {"type": "varchar"}}`), []byte(`{"ghosts": {}}`))
	f.Add([]byte(`{"details": {"type": "json", "meta": {"default": {"a": [1, "\u0000"]}}}}`), []byte(`{"products": {"display": {"title": "nope"}}}`))
	f.Add([]byte(`{"title": {"type": "string"}} trailing`), []byte(`{"products": {"hierarchy": {"enabled": true}, "sortable": {"enabled": true}}}`))
	f.Add([]byte(`{"a": {"type": "string"}, "A": {"type": "string"}, "a_": {"type": "string"}}`), []byte(`{"products": {"defaultPagination": {"sortBy": "a", "pageSize": -1}}}`))
	f.Add([]byte("\xff\xfe{"), []byte("\x00"))
	f.Add([]byte(`null`), []byte(`null`))
	f.Add([]byte(`{"publishedAt": {"type": "date", "meta": {"default": "2026-01-02T15:04:05+02:00", "required": true}}}`), []byte(`{"products": {"apiPath": "shop-categories"}}`))
	f.Add([]byte(`{"isActive": {"type": "boolean", "meta": {"default": true, "unique": true, "index": true, "label": "Active"}}}`), []byte(`{"products": {"APIPATH": "x", "proxy": {"enabled": true}}}`))

	f.Fuzz(func(t *testing.T, schema, config []byte) {
		fsys := fstest.MapFS{
			"shop/products.json":   {Data: schema},
			"shop/categories.json": {Data: []byte(categoriesSchema)},
			"kit.config.json":      {Data: config},
		}
		reg, warnings, err := Load(fsys, LoadOptions{})
		for _, w := range warnings {
			if w.Severity != SeverityWarning {
				t.Errorf("warnings hold %v, want only warnings", w)
			}
			_ = w.String()
		}

		reg2, _, err2 := Load(fsys, LoadOptions{})
		if (err == nil) != (err2 == nil) || err != nil && err.Error() != err2.Error() {
			t.Fatalf("two loads of the same folder differ:\n%v\n%v", err, err2)
		}
		if err != nil {
			if reg != nil {
				t.Fatalf("got a registry and an error, want only the error")
			}
			var le *LoadError
			if !errors.As(err, &le) || !errors.Is(err, ErrInvalidSchema) || len(le.Findings) == 0 {
				t.Fatalf("got %T %v, want a *LoadError with findings", err, err)
			}
			for _, f := range le.Findings {
				if f.Severity != SeverityError {
					t.Errorf("LoadError holds %v, want only errors", f)
				}
				if f.File == "" && f.Collection == "" {
					t.Errorf("finding %v names neither file nor collection", f)
				}
			}
			return
		}
		if reg == nil {
			t.Fatalf("got no registry and no error")
		}
		b1, err := json.Marshal(reg)
		if err != nil {
			t.Fatalf("marshal registry: %v", err)
		}
		b2, _ := json.Marshal(reg2)
		if string(b1) != string(b2) {
			t.Fatalf("two loads of the same folder give different registries:\n%s\n%s", b1, b2)
		}
		c := mustGet(t, reg, "shopProducts")
		for _, a := range c.Attributes() {
			if !columnPattern.MatchString(a.Column) {
				t.Errorf("attribute %q has column %q, want one matching %s", a.Name, a.Column, columnPattern)
			}
			if own, ok := c.Attribute(a.Name); !ok || own != a {
				t.Errorf("Attribute(%q) is not the listed attribute", a.Name)
			}
		}
		if !columnPattern.MatchString(c.table) || !validAPIPath(c.config.APIPath) {
			t.Errorf("table %q, apiPath %q: want valid names", c.table, c.config.APIPath)
		}
		if _, err := json.Marshal(c.JSONSchema()); err != nil {
			t.Errorf("marshal JSON Schema: %v", err)
		}
		if _, err := c.ValidateCreate(map[string]any{}); err != nil {
			// Defaults were checked at load, so only missing required
			// fields may be wrong in an empty body.
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("ValidateCreate({}): got %T %v, want nil or a *ValidationError", err, err)
			}
			for field, msg := range ve.Fields {
				if f, ok := c.Attribute(field); !ok || msg != "is required" || !f.Field.Meta.Required {
					t.Errorf("ValidateCreate({}): got %s: %s, want only required fields", field, msg)
				}
			}
		}
		if q, err := c.ParseListQuery(url.Values{}, QueryLimits{}); err != nil || len(q.Sort) == 0 {
			t.Errorf("ParseListQuery({}): got %v, %v, want the default sort", q.Sort, err)
		}
	})
}

var (
	fuzzCollectionOnce sync.Once
	fuzzCollection     *Collection
)

// queryOperators are the eleven filter operators.
var queryOperators = map[Op]bool{OpEq: true, OpNe: true, OpGt: true, OpGte: true, OpLt: true, OpLte: true,
	OpIn: true, OpNin: true, OpContains: true, OpStartsWith: true, OpIsNull: true}

// queryParams are the parameters a *QueryError may name.
var queryParams = map[string]bool{"page": true, "pageSize": true, "limit": true, "search": true,
	"sort": true, "sortBy": true, "sortDirection": true, "filter": true, "ids": true}

// FuzzParseListQuery feeds arbitrary raw query strings to ParseListQuery.
// It must not panic, must refuse with a *QueryError naming a parameter,
// and must accept only queries whose every name is the collection's own
// attribute and whose numbers are within the limits.
func FuzzParseListQuery(f *testing.F) {
	for _, seed := range []string{
		"",
		"page=2&pageSize=50&sort=-price,title",
		"limit=10&sortBy=title&sortDirection=asc",
		`filter={"title":{"contains":"lamp"},"stock":{"gte":1,"in":[1,2]}}`,
		`filter={"publishedAt":null,"createdAt":{"gte":"2026-01-02"},"owner":"u1"}`,
		`filter={"price":{"gt":"9.9"},"isActive":true,"details":{"isNull":false}}`,
		"ids=a,b,%20c&search=%25lamp_",
		"page=0&pageSize=1000",
		`filter={"stock":{"contains":"1"}}`,
		"sort=title,title,details&sortBy=x",
		"filter=%7B%22title%22%3A%22%00%22%7D",
		"page=1&page=2;ids=,",
	} {
		f.Add(seed)
	}
	fuzzCollectionOnce.Do(func() {
		reg, _, err := Load(fstest.MapFS{
			"shop/products.json":   {Data: []byte(productsSchema)},
			"shop/categories.json": {Data: []byte(categoriesSchema)},
		}, LoadOptions{})
		if err != nil {
			f.Fatalf("Load: %v", err)
		}
		fuzzCollection, _ = reg.Get("shopProducts")
	})
	c := fuzzCollection
	const maxPageSize = 100

	f.Fuzz(func(t *testing.T, raw string) {
		v, _ := url.ParseQuery(raw) // keep what parses, as a server does
		q, err := c.ParseListQuery(v, QueryLimits{})
		if err != nil {
			var qe *QueryError
			if !errors.As(err, &qe) || !errors.Is(err, ErrBadQuery) {
				t.Fatalf("got %T %v, want a *QueryError", err, err)
			}
			if !queryParams[qe.Param] || qe.Message == "" {
				t.Fatalf("got Param %q, Message %q, want a list parameter and a reason", qe.Param, qe.Message)
			}
			return
		}
		if q.Page < 1 || q.PageSize < 1 || q.PageSize > maxPageSize {
			t.Fatalf("got page %d, pageSize %d, want page >= 1 and 1 <= pageSize <= %d", q.Page, q.PageSize, maxPageSize)
		}
		if len(q.IDs) > 100 {
			t.Fatalf("got %d ids, want at most 100", len(q.IDs))
		}
		if len(q.Sort) == 0 || q.Sort[len(q.Sort)-1].Attr.Name != "id" && !sortHasID(q.Sort) {
			t.Fatalf("got sort %v, want it to end with id", q.Sort)
		}
		checkAttr := func(where string, a *Attribute) {
			if a == nil {
				t.Fatalf("%s: got a nil attribute", where)
			}
			own, ok := c.Attribute(a.Name)
			if !ok || own != a {
				t.Fatalf("%s: got attribute %q at %p, want the collection's own at %p", where, a.Name, a, own)
			}
			if !columnPattern.MatchString(a.Column) {
				t.Fatalf("%s: got column %q, want one matching %s", where, a.Column, columnPattern)
			}
		}
		for _, k := range q.Sort {
			checkAttr("sort", k.Attr)
			if !k.Attr.Sortable() {
				t.Fatalf("sort by %s, which is not sortable", k.Attr.Name)
			}
		}
		if len(q.Filter) > 50 {
			t.Fatalf("got %d conditions, want at most 50", len(q.Filter))
		}
		for _, cond := range q.Filter {
			checkAttr("filter", cond.Attr)
			if !queryOperators[cond.Op] {
				t.Fatalf("got operator %q, want one of the eleven", cond.Op)
			}
			if cond.Op == OpIn || cond.Op == OpNin {
				if vals, ok := cond.Value.([]any); !ok || len(vals) == 0 || len(vals) > 100 {
					t.Fatalf("%s value: got %#v, want 1 to 100 values", cond.Op, cond.Value)
				}
			}
			if _, ok := cond.Value.(bool); cond.Op == OpIsNull && !ok {
				t.Fatalf("isNull value: got %#v, want a bool", cond.Value)
			}
		}
	})
}

func sortHasID(keys []SortKey) bool {
	for _, k := range keys {
		if k.Attr.Name == "id" {
			return true
		}
	}
	return false
}
