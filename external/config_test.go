package external_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/external"
	"github.com/collectionkit/kit/internal/testkit"
	"github.com/collectionkit/kit/kit"
)

// jsonOf encodes v and decodes it again, for comparing shapes.
func jsonOf(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func parseJSON(t *testing.T, s string) any {
	t.Helper()
	var out any
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		t.Fatalf("parse %s: %v", s, err)
	}
	return out
}

const baseSchema = `{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
	"properties": {"id": {"type": "string"}, "title": {"type": "string"}}, "required": ["id", "title"]}`

func TestDefineExternalCollection(t *testing.T) {
	no := false
	cases := []struct {
		name string
		cfg  external.Config
		// want maps config keys to their JSON; absent lists keys that
		// must not be there.
		want   map[string]string
		absent []string
	}{
		{name: "the defaults give apiPath the name, fetchStrategy query and readonly true",
			cfg: external.Config{Name: "teamUsers"},
			want: map[string]string{
				"name": `"teamUsers"`, "layer": `"external"`, "componentName": `null`, "defaultValues": `{}`, "columns": `[]`,
				"apiPath": `"teamUsers"`, "fetchStrategy": `"query"`, "readonly": `true`, "meta": `{}`, "schema": baseSchema,
			},
			absent: []string{"proxy", "displayName", "kind", "container", "fields"}},
		{name: "given values are kept and the label is the display name",
			cfg: external.Config{Name: "catalog", APIPath: "product-catalog", FetchStrategy: "restful", Readonly: &no,
				Meta:  external.Meta{Label: "Catalog", Description: "Products as options"},
				Proxy: &collections.Proxy{Enabled: true, SourceEndpoint: "shop-products", Transform: productOption}},
			want: map[string]string{
				"apiPath": `"product-catalog"`, "fetchStrategy": `"restful"`, "readonly": `false`, "displayName": `"Catalog"`,
				"meta":  `{"label": "Catalog", "description": "Products as options"}`,
				"proxy": `{"enabled": true, "sourceEndpoint": "shop-products"}`,
			}},
		{name: "the schema keeps its own properties and requirements and gains id and title",
			cfg: external.Config{Name: "teamUsers", Schema: json.RawMessage(`{"properties": {"email": {"type": "string"}}, "required": ["email", "id"]}`)},
			want: map[string]string{"schema": `{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
				"properties": {"id": {"type": "string"}, "title": {"type": "string"}, "email": {"type": "string"}},
				"required": ["id", "title", "email"]}`}},
		{name: "a schema given as a Go map and declaring id itself is kept",
			cfg: external.Config{Name: "teamUsers", Schema: map[string]any{
				"$schema": "https://json-schema.org/draft/2019-09/schema", "type": "object",
				"properties": map[string]any{"id": map[string]any{"type": "string", "minLength": 3}}}},
			want: map[string]string{"schema": `{"$schema": "https://json-schema.org/draft/2019-09/schema", "type": "object",
				"properties": {"id": {"type": "string", "minLength": 3}, "title": {"type": "string"}},
				"required": ["id", "title"]}`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			col, err := external.DefineExternalCollection(c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			got := jsonOf(t, col.Config()).(map[string]any)
			for key, want := range c.want {
				v, ok := got[key]
				if !ok {
					t.Errorf("%s: got no key, want %s", key, want)
					continue
				}
				if !reflect.DeepEqual(v, parseJSON(t, want)) {
					t.Errorf("%s: got %s, want %s", key, mustJSON(v), want)
				}
			}
			for _, key := range c.absent {
				if v, ok := got[key]; ok {
					t.Errorf("%s: got %s, want no key", key, mustJSON(v))
				}
			}
			def := col.Definition()
			if !def.External || def.Name != c.cfg.Name || len(def.Fields) != 0 || def.Config == nil {
				t.Errorf("got definition %+v, want an external one named %q without fields", def, c.cfg.Name)
			}
		})
	}
	t.Run("each Config call returns a fresh copy", func(t *testing.T) {
		col, _ := external.DefineExternalCollection(external.Config{Name: "teamUsers"})
		a := col.Config()
		a.Extra["schema"].(map[string]any)["required"] = []any{}
		if got := jsonOf(t, col.Config().Extra["schema"]).(map[string]any)["required"]; !reflect.DeepEqual(got, []any{"id", "title"}) {
			t.Errorf("got required %v after changing a copy, want [id title]", got)
		}
	})
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestDefineExternalCollectionRejects(t *testing.T) {
	on := func(source string) *collections.Proxy {
		return &collections.Proxy{Enabled: true, SourceEndpoint: source}
	}
	cases := []struct {
		name string
		cfg  external.Config
		want string
	}{
		{"a config without a name", external.Config{}, "needs a Name"},
		{"an unknown fetch strategy", external.Config{Name: "teamUsers", FetchStrategy: "graphql"}, `fetchStrategy "graphql" must be query or restful`},
		{"an enabled proxy without a source endpoint", external.Config{Name: "catalog", Proxy: on("")}, "proxy.enabled needs proxy.sourceEndpoint"},
		{"a proxy of the collection's own path", external.Config{Name: "catalog", Proxy: on("catalog")}, "would proxy itself"},
		{"a source endpoint that leaves the team", external.Config{Name: "catalog", Proxy: on("../admin/people")}, "must be path segments"},
		{"a proxy with a handler", external.Config{Name: "catalog", Proxy: on("shop-products"), Handler: http.NotFoundHandler()}, "leave Handler nil"},
		{"a schema that is no object", external.Config{Name: "teamUsers", Schema: json.RawMessage(`[1, 2]`)}, "must be a JSON object"},
		{"a schema for something other than objects", external.Config{Name: "teamUsers", Schema: map[string]any{"type": "array"}}, `type must be "object"`},
		{"a schema whose id is no string", external.Config{Name: "teamUsers", Schema: json.RawMessage(`{"properties": {"id": {"type": "integer"}}}`)}, `properties.id must have type "string"`},
		{"a schema whose title is no object", external.Config{Name: "teamUsers", Schema: json.RawMessage(`{"properties": {"title": true}}`)}, "properties.title must be an object"},
		{"a schema whose properties are no object", external.Config{Name: "teamUsers", Schema: json.RawMessage(`{"properties": []}`)}, "properties must be an object"},
		{"a schema whose required is no array", external.Config{Name: "teamUsers", Schema: json.RawMessage(`{"required": "email"}`)}, "required must be an array"},
		{"a schema that does not compile", external.Config{Name: "teamUsers", Schema: json.RawMessage(`{"properties": {"email": {"type": "strin"}}}`)}, `collection "teamUsers": schema:`},
		{"a schema that cannot be encoded", external.Config{Name: "teamUsers", Schema: make(chan int)}, `collection "teamUsers": schema:`},
	}
	for _, c := range cases {
		t.Run(c.name+" is refused", func(t *testing.T) {
			col, err := external.DefineExternalCollection(c.cfg)
			if err == nil {
				t.Fatalf("got collection %v, want an error with %q", col.Name(), c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("got error %q, want it to contain %q", err, c.want)
			}
		})
	}
}

func TestValidateItem(t *testing.T) {
	col, err := external.DefineExternalCollection(external.Config{Name: "teamUsers", Schema: json.RawMessage(peopleSchema)})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		item external.Item
		want string // "" for a valid item
	}{
		{"a full item is valid", external.Item{"id": "p-1", "title": "Ada", "email": "ada@example.com", "role": "admin"}, ""},
		{"an empty title is still a title", external.Item{"id": "p-1", "title": "", "email": "ada@example.com"}, ""},
		{"a named string type counts as a string", external.Item{"id": userID("p-1"), "title": "Ada", "email": "a@example.com"}, ""},
		{"an item without an id", external.Item{"title": "Ada", "email": "a@example.com"}, `"id" must be a non-empty string`},
		{"an item with a numeric id", external.Item{"id": 1, "title": "Ada", "email": "a@example.com"}, `"id" must be a non-empty string`},
		{"an item without a title", external.Item{"id": "p-1", "email": "a@example.com"}, `"title" must be a string`},
		{"an item missing a required property", external.Item{"id": "p-1", "title": "Ada"}, "missing property 'email'"},
		{"an item with a value outside an enum", external.Item{"id": "p-1", "title": "Ada", "email": "a@example.com", "role": "owner"}, "does not satisfy the schema"},
		{"a nil item", nil, "the item is null"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := col.ValidateItem(c.item)
			switch {
			case c.want == "" && err != nil:
				t.Errorf("got %v, want a valid item", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("got %v, want an error with %q", err, c.want)
			}
		})
	}
}

func tasksDefinition() collections.Definition {
	return collections.Definition{Name: "tasks", Fields: []collections.Field{
		{Name: "title", Type: collections.TypeString, Meta: collections.FieldMeta{Required: true}},
		{Name: "assigneeId", Type: collections.TypeString, RefTarget: "teamUsers"},
	}}
}

func TestRegisterListsTheCollection(t *testing.T) {
	users, err := external.DefineExternalCollection(external.Config{
		Name:    "teamUsers",
		Schema:  json.RawMessage(peopleSchema),
		Meta:    external.Meta{Label: "Team users", Description: "From the directory"},
		Handler: external.CreateExternalCollectionHandler(fetchTeamPeople, personItem),
	})
	if err != nil {
		t.Fatal(err)
	}
	catalog, err := external.DefineExternalCollection(external.Config{Name: "catalog", FetchStrategy: "restful",
		Proxy: &collections.Proxy{Enabled: true, SourceEndpoint: "shop-products", Transform: productOption}})
	if err != nil {
		t.Fatal(err)
	}
	bare, err := external.DefineExternalCollection(external.Config{Name: "bareUsers"})
	if err != nil {
		t.Fatal(err)
	}
	// tasks refers to teamUsers, so both are built together by kit.New;
	// catalog and bareUsers come later, through Register alone.
	f := newFixture(t, []collections.Definition{tasksDefinition(), users.Definition()}, func(t *testing.T, f *fixture) {
		if err := external.Register(t.Context(), f.k, users, catalog, bare); err != nil {
			t.Fatal(err)
		}
	})
	res := f.get(t, "/api/kit/collections", "mia")
	if res.status != 200 {
		t.Fatalf("got status %d, want 200 (body %s)", res.status, res.body)
	}
	var all map[string]map[string]any
	testkit.DecodeJSON(t, res.body, &all)
	cases := []struct {
		name, key, prop, want string
	}{
		{"an external collection is listed under its name with layer external", "teamUsers", "layer", `"external"`},
		{"its componentName is null", "teamUsers", "componentName", `null`},
		{"its defaultValues are empty", "teamUsers", "defaultValues", `{}`},
		{"its columns are empty", "teamUsers", "columns", `[]`},
		{"it is readonly by default", "teamUsers", "readonly", `true`},
		{"its apiPath defaults to its name", "teamUsers", "apiPath", `"teamUsers"`},
		{"its fetchStrategy defaults to query", "teamUsers", "fetchStrategy", `"query"`},
		{"its meta is kept", "teamUsers", "meta", `{"label": "Team users", "description": "From the directory"}`},
		{"its label is the display name", "teamUsers", "displayName", `"Team users"`},
		{"its items carry no kit metadata", "teamUsers", "useMetadata", `false`},
		{"a stored collection's references point at the external collection", "appTasks", "references", `{"assigneeId": "teamUsers"}`},
		{"a collection registered after New is listed too", "catalog", "layer", `"external"`},
		{"its proxy is listed without the transform", "catalog", "proxy", `{"enabled": true, "sourceEndpoint": "shop-products"}`},
		{"its fetch strategy is kept", "catalog", "fetchStrategy", `"restful"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, ok := all[c.key]
			if !ok {
				t.Fatalf("got keys %v, want %q", keysOf(all), c.key)
			}
			got, ok := cfg[c.prop]
			if !ok {
				t.Fatalf("%s: got no %s, want %s", c.key, c.prop, c.want)
			}
			if !reflect.DeepEqual(got, parseJSON(t, c.want)) {
				t.Errorf("%s.%s: got %s, want %s", c.key, c.prop, mustJSON(got), c.want)
			}
		})
	}
	t.Run("the schema requires id and title", func(t *testing.T) {
		schema, _ := all["teamUsers"]["schema"].(map[string]any)
		if got := schema["required"]; !reflect.DeepEqual(got, []any{"id", "title", "email"}) {
			t.Errorf("got required %v, want [id title email]", got)
		}
	})
	t.Run("a record may refer to an external item, which kit does not check", func(t *testing.T) {
		rec, err := f.k.Records("appTasks").Create(t.Context(), kit.Actor{UserID: f.ids["mia"], TeamID: f.ids["acme"], Role: "member"},
			map[string]any{"title": "Call Ada", "assigneeId": "p-ada"})
		if err != nil {
			t.Fatal(err)
		}
		if rec["assigneeId"] != "p-ada" {
			t.Errorf("got assigneeId %v, want p-ada", rec["assigneeId"])
		}
	})
	t.Run("the referenced external collection resolves the id", func(t *testing.T) {
		res := f.get(t, "/api/teams/acme/teamUsers?ids=p-ada", "mia")
		if got := arrayIDs(t, res.body); !reflect.DeepEqual(got, []string{"p-ada"}) {
			t.Errorf("got ids %v, want [p-ada]", got)
		}
	})
	t.Run("a collection with neither proxy nor handler gets no route", func(t *testing.T) {
		res := f.get(t, "/api/teams/acme/bareUsers", "mia")
		if res.status != 404 || !strings.Contains(res.body, "collection not found") {
			t.Errorf("got %d %s, want 404 collection not found", res.status, res.body)
		}
	})
}

func keysOf[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestRegisterRejects(t *testing.T) {
	define := func(cfg external.Config) *external.Collection {
		c, err := external.DefineExternalCollection(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	cases := []struct {
		name string
		cols []*external.Collection
		want string
	}{
		{"a nil collection", []*external.Collection{nil}, "nil *Collection"},
		{"a name that is a stored collection's registry key", []*external.Collection{define(external.Config{Name: "shopProducts"})}, "registry key of a stored collection"},
		{"an apiPath kit refuses", []*external.Collection{define(external.Config{Name: "teamUsers", APIPath: "team users"})}, "apiPath"},
		{"an apiPath another collection serves", []*external.Collection{define(external.Config{Name: "teamUsers", APIPath: "shop-products"})}, "also the apiPath"},
		{"a name that is no identifier", []*external.Collection{define(external.Config{Name: "team-users"})}, "camelCase identifier"},
	}
	f := newFixture(t, nil, nil)
	for _, c := range cases {
		t.Run(c.name+" is refused", func(t *testing.T) {
			err := external.Register(t.Context(), f.k, c.cols...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error with %q", err, c.want)
			}
		})
	}
	t.Run("a refused collection is not listed", func(t *testing.T) {
		if _, ok := f.k.Collections().Get("teamUsers"); ok {
			t.Error("got teamUsers registered, want it absent")
		}
	})
	t.Run("a reference to an external collection kit does not know fails at New", func(t *testing.T) {
		_, err := kit.New(kit.Config{SQLitePath: ":memory:external-unknown-ref", Definitions: []collections.Definition{tasksDefinition()}})
		if err == nil || !strings.Contains(err.Error(), "teamUsers") {
			t.Errorf("got %v, want an error naming teamUsers", err)
		}
	})
}
