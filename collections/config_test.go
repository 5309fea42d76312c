package collections

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// configJSON returns a collection's config as a generic JSON object.
func configJSON(t testing.TB, c *Collection) map[string]any {
	t.Helper()
	b, err := json.Marshal(c.config)
	if err != nil {
		t.Fatalf("marshal config: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("unmarshal config %s: %v", b, err)
	}
	return m
}

// withConfig is shopFS plus a kit.config.json.
func withConfig(config string) map[string]string {
	return map[string]string{
		"shop/products.json":   productsSchema,
		"shop/categories.json": categoriesSchema,
		"kit.config.json":      config,
	}
}

func TestConfigDefaults(t *testing.T) {
	c := shopProducts(t)
	yes := true
	wantConfig := Config{
		Name:          "products",
		Layer:         "shop",
		ComponentName: "ShopProductsForm",
		Kind:          "data",
		Container:     "slideover",
		APIPath:       "shop-products",
		DisplayName:   "Products",
		References:    map[string]string{"categoryId": "shopCategories"},
		Fields: []FieldInfo{
			{Name: "title", Type: TypeString, Label: "Title"},
			{Name: "description", Type: TypeText, Label: "Description", Area: "main", DisplayAs: "markdown"},
			{Name: "stock", Type: TypeNumber},
			{Name: "price", Type: TypeDecimal},
			{Name: "isActive", Type: TypeBoolean},
			{Name: "publishedAt", Type: TypeDate},
			{Name: "details", Type: TypeJSON},
			{Name: "variants", Type: TypeRepeater},
			{Name: "tags", Type: TypeArray},
			{Name: "image", Type: TypeImage},
			{Name: "manual", Type: TypeFile},
			{Name: "categoryId", Type: TypeString},
		},
		FetchStrategy: "query",
		UseMetadata:   &yes,
	}
	if !reflect.DeepEqual(c.config, wantConfig) {
		t.Errorf("config:\ngot  %+v\nwant %+v", c.config, wantConfig)
	}
	if !c.UseMetadata() {
		t.Errorf("UseMetadata: got false, want true")
	}
	t.Run("a collection without references has none", func(t *testing.T) {
		reg, _ := mustLoad(t, shopFS(), LoadOptions{})
		if got := mustGet(t, reg, "shopCategories").config.References; got != nil {
			t.Errorf("references: got %v, want nil", got)
		}
	})
	t.Run("a camelCase name gives a spaced display name", func(t *testing.T) {
		reg, _, err := Build([]Definition{{Name: "blogPosts", Layer: "blog", Fields: []Field{{Name: "title", Type: TypeString}}}}, LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		c := mustGet(t, reg, "blogBlogPosts")
		if c.config.DisplayName != "Blog Posts" || c.config.ComponentName != "BlogBlogPostsForm" || c.config.APIPath != "blog-blogPosts" {
			t.Errorf("displayName, componentName, apiPath: got %q, %q, %q, want Blog Posts, BlogBlogPostsForm, blog-blogPosts",
				c.config.DisplayName, c.config.ComponentName, c.config.APIPath)
		}
	})
}

func TestConfigProperties(t *testing.T) {
	tests := []struct {
		name     string
		settings string // the kit.config.json entry of products
		want     string // a JSON object every key of which the config must hold with that value
	}{
		{"container defaults to slideover", `{}`, `{"container": "slideover"}`},
		{"container can be modal", `{"container": "modal"}`, `{"container": "modal"}`},
		{"container can be dialog", `{"container": "dialog"}`, `{"container": "dialog"}`},
		{"container can be inline", `{"container": "inline"}`, `{"container": "inline"}`},
		{"apiPath defaults to layer-name", `{}`, `{"apiPath": "shop-products"}`},
		{"apiPath can be set", `{"apiPath": "catalog"}`, `{"apiPath": "catalog"}`},
		{"kind defaults to data", `{}`, `{"kind": "data"}`},
		{"kind can be content", `{"kind": "content"}`, `{"kind": "content"}`},
		{"kind can be media", `{"kind": "media"}`, `{"kind": "media"}`},
		{"fetchStrategy defaults to query", `{}`, `{"fetchStrategy": "query"}`},
		{"fetchStrategy can be restful", `{"fetchStrategy": "restful"}`, `{"fetchStrategy": "restful"}`},
		{"componentName defaults to the key in PascalCase plus Form", `{}`, `{"componentName": "ShopProductsForm"}`},
		{"componentName can be set", `{"componentName": "ProductEditor"}`, `{"componentName": "ProductEditor"}`},
		{"displayName can be set", `{"displayName": "Catalogue"}`, `{"displayName": "Catalogue"}`},
		{"name and layer always come from the schema", `{"name": "goods", "layer": "store"}`, `{"name": "products", "layer": "shop"}`},
		{"references are derived from refTarget fields", `{}`, `{"references": {"categoryId": "shopCategories"}}`},
		{"references in the config are kept next to the derived ones", `{"references": {"brand": "brands"}}`,
			`{"references": {"brand": "brands", "categoryId": "shopCategories"}}`},
		{"a reference in the config wins over the derived one", `{"references": {"categoryId": "catalogCategories"}}`,
			`{"references": {"categoryId": "catalogCategories"}}`},
		{"dependentFieldComponents are kept", `{"dependentFieldComponents": {"categoryId": "CategoryPicker"}}`,
			`{"dependentFieldComponents": {"categoryId": "CategoryPicker"}}`},
		{"fields in the config replace the runtime metadata", `{"fields": [{"name": "title", "type": "string", "area": "sidebar"}]}`,
			`{"fields": [{"name": "title", "type": "string", "area": "sidebar"}]}`},
		{"hierarchy gets default field names when enabled", `{"hierarchy": {"enabled": true}}`,
			`{"hierarchy": {"enabled": true, "parentField": "parentId", "pathField": "path", "depthField": "depth", "orderField": "order"}}`},
		{"hierarchy keeps the field names it is given", `{"hierarchy": {"enabled": true, "parentField": "parentCategoryId", "orderField": "position"}}`,
			`{"hierarchy": {"enabled": true, "parentField": "parentCategoryId", "pathField": "path", "depthField": "depth", "orderField": "position"}}`},
		{"a disabled hierarchy gets no field names", `{"hierarchy": {"enabled": false}}`, `{"hierarchy": {"enabled": false}}`},
		{"sortable gets the order field by default when enabled", `{"sortable": {"enabled": true}}`, `{"sortable": {"enabled": true, "orderField": "order"}}`},
		{"sortable keeps the order field it is given", `{"sortable": {"enabled": true, "orderField": "position"}}`, `{"sortable": {"enabled": true, "orderField": "position"}}`},
		{"adminNav is kept", `{"adminNav": {"enabled": true, "icon": "i-box", "label": "Products", "order": 2}}`,
			`{"adminNav": {"enabled": true, "icon": "i-box", "label": "Products", "order": 2}}`},
		{"adminNav keeps a false enabled and a zero order", `{"adminNav": {"enabled": false, "order": 0}}`, `{"adminNav": {"enabled": false, "order": 0}}`},
		{"display maps every role to a field", `{"display": {"title": "title", "subtitle": "price", "image": "image", "badge": "isActive", "description": "description"}}`,
			`{"display": {"title": "title", "subtitle": "price", "image": "image", "badge": "isActive", "description": "description"}}`},
		{"display may name an auto-generated field", `{"display": {"subtitle": "createdAt"}}`, `{"display": {"subtitle": "createdAt"}}`},
		{"defaultPagination is kept", `{"defaultPagination": {"currentPage": 2, "pageSize": 50, "sortBy": "title", "sortDirection": "asc"}}`,
			`{"defaultPagination": {"currentPage": 2, "pageSize": 50, "sortBy": "title", "sortDirection": "asc"}}`},
		{"publishable is kept", `{"publishable": true}`, `{"publishable": true}`},
		{"proxy is kept", `{"proxy": {"enabled": true, "sourceEndpoint": "catalog/items"}}`, `{"proxy": {"enabled": true, "sourceEndpoint": "catalog/items"}}`},
		{"useMetadata defaults to true", `{}`, `{"useMetadata": true}`},
		{"useMetadata can be turned off", `{"useMetadata": false}`, `{"useMetadata": false}`},
		{"custom keys are kept and written back", `{"color": "red", "custom": {"nested": [1, "a", null]}}`,
			`{"color": "red", "custom": {"nested": [1, "a", null]}}`},
		{"keys match exactly: ApiPath is a custom key", `{"ApiPath": "elsewhere"}`, `{"ApiPath": "elsewhere", "apiPath": "shop-products"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, key := range []string{"products", "shopProducts"} {
				reg, _ := mustLoad(t, mapFS(withConfig(`{"`+key+`": `+tc.settings+`}`)), LoadOptions{})
				got := configJSON(t, mustGet(t, reg, "shopProducts"))
				var wantProps map[string]any
				if err := json.Unmarshal([]byte(tc.want), &wantProps); err != nil {
					t.Fatalf("bad test: %v", err)
				}
				for k, w := range wantProps {
					if !reflect.DeepEqual(got[k], w) {
						t.Errorf("kit.config.json keyed %q: %s: got %#v, want %#v", key, k, got[k], w)
					}
				}
			}
		})
	}
}

func TestConfigPartialProperties(t *testing.T) {
	t.Run("properties left out stay unset", func(t *testing.T) {
		got := configJSON(t, shopProducts(t))
		for _, k := range []string{"defaultPagination", "dependentFieldComponents", "hierarchy", "sortable", "adminNav", "display", "publishable", "proxy"} {
			if v, ok := got[k]; ok {
				t.Errorf("%s: got %#v, want it left out", k, v)
			}
		}
	})
}

func TestConfigPrecedence(t *testing.T) {
	files := map[string]string{
		"shop/categories.json": categoriesSchema,
		"kit.config.json": `{"products": {"container": "modal", "displayName": "From file", "kind": "media",
			"defaultPagination": {"pageSize": 50, "sortBy": "title"}, "color": "red", "size": "L"}}`,
	}
	products := Definition{Name: "products", Layer: "shop",
		Fields: []Field{{Name: "title", Type: TypeString}, {Name: "categoryId", Type: TypeString, RefTarget: "categories"}},
		Config: &Config{Container: "dialog", DisplayName: "From Go", Extra: map[string]any{"size": "M"}},
	}
	overrideRefs := map[string]string{}
	opts := LoadOptions{Overrides: map[string]Config{
		"shopProducts": {Container: "inline", References: overrideRefs, DefaultPagination: &Pagination{SortDirection: "asc"}},
	}}
	reg, _ := mustLoad(t, mapFS(files), opts, products)
	cfg := mustGet(t, reg, "shopProducts").config

	tests := []struct {
		name      string
		got, want any
	}{
		{"overrides win over the definition and the file", cfg.Container, "inline"},
		{"the definition's config wins over the file", cfg.DisplayName, "From Go"},
		{"the file fills what nothing else sets", cfg.Kind, "media"},
		{"a partial defaultPagination fills only what it names", *cfg.DefaultPagination, Pagination{PageSize: 50, SortBy: "title", SortDirection: "asc"}},
		{"custom keys merge key by key", cfg.Extra, map[string]any{"color": "red", "size": "M"}},
		{"derived references join an override's references", cfg.References, map[string]string{"categoryId": "shopCategories"}},
		{"the override's map is not changed", overrideRefs, map[string]string{}},
		{"the definition's config is not changed", products.Config.Container, "dialog"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !reflect.DeepEqual(tc.got, tc.want) {
				t.Errorf("got %#v, want %#v", tc.got, tc.want)
			}
		})
	}

	t.Run("a registry shares no settings with the overrides it was built from", func(t *testing.T) {
		opts.Overrides["shopProducts"].DefaultPagination.PageSize = 7
		if got := cfg.DefaultPagination.PageSize; got != 50 {
			t.Errorf("pageSize after changing the override: got %d, want 50", got)
		}
	})

	t.Run("a partial hierarchy or sortable fills only what it names", func(t *testing.T) {
		files := map[string]string{
			"shop/categories.json": categoriesSchema,
			"kit.config.json": `{"categories": {"hierarchy": {"enabled": true, "parentField": "parentCategoryId", "pathField": "trail"},
				"sortable": {"enabled": false, "orderField": "position"}}}`,
		}
		opts := LoadOptions{Overrides: map[string]Config{"categories": {
			Hierarchy: &Hierarchy{Enabled: true, PathField: "route"},
			Sortable:  &Sortable{Enabled: true},
		}}}
		reg, _ := mustLoad(t, mapFS(files), opts)
		cfg := mustGet(t, reg, "shopCategories").config
		wantHierarchy := Hierarchy{Enabled: true, ParentField: "parentCategoryId", PathField: "route", DepthField: "depth", OrderField: "order"}
		if *cfg.Hierarchy != wantHierarchy {
			t.Errorf("hierarchy: got %+v, want %+v", *cfg.Hierarchy, wantHierarchy)
		}
		if wantSortable := (Sortable{Enabled: true, OrderField: "position"}); *cfg.Sortable != wantSortable {
			t.Errorf("sortable: got %+v, want %+v", *cfg.Sortable, wantSortable)
		}
	})

	t.Run("an override naming no collection is an error", func(t *testing.T) {
		le, _ := loadError(t, shopFS(), LoadOptions{Overrides: map[string]Config{"orders": {}}})
		requireFinding(t, le.Findings, want{"", "orders", "", SeverityError, `override names no collection "orders"`})
	})

	t.Run("an override keyed by collection name applies", func(t *testing.T) {
		reg, _ := mustLoad(t, shopFS(), LoadOptions{Overrides: map[string]Config{"categories": {Container: "modal"}}})
		if got := mustGet(t, reg, "shopCategories").config.Container; got != "modal" {
			t.Errorf("container: got %q, want modal", got)
		}
	})
}

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		name, settings, contains string
	}{
		{"an unknown container is an error", `{"container": "drawer"}`, `container "drawer" must be one of slideover, modal, dialog, inline`},
		{"an unknown kind is an error", `{"kind": "page"}`, `kind "page" must be one of data, content, media`},
		{"an unknown fetchStrategy is an error", `{"fetchStrategy": "graphql"}`, `fetchStrategy "graphql" must be one of query, restful`},
		{"an unknown display role is an error", `{"display": {"heading": "title"}}`, `display role "heading" must be one of`},
		{"a display field that does not exist is an error", `{"display": {"title": "name"}}`, `display.title names unknown field "name"`},
		{"a defaultPagination sortBy that does not exist is an error", `{"defaultPagination": {"sortBy": "rank"}}`, `defaultPagination.sortBy "rank" is not a sortable field`},
		{"a defaultPagination sortBy on a json field is an error", `{"defaultPagination": {"sortBy": "details"}}`, `defaultPagination.sortBy "details" is not a sortable field`},
		{"a bad defaultPagination sortDirection is an error", `{"defaultPagination": {"sortDirection": "up"}}`, `defaultPagination.sortDirection "up" must be one of asc, desc`},
		{"a negative defaultPagination pageSize is an error", `{"defaultPagination": {"pageSize": -1}}`, "must be positive"},
		{"an apiPath with a slash is an error", `{"apiPath": "shop/products"}`, `apiPath "shop/products" must be one URL path segment`},
		{"an apiPath another collection has is an error", `{"apiPath": "shop-categories"}`, `apiPath "shop-categories" is also the apiPath of collection "shopCategories"`},
		{"an enabled proxy without a source endpoint is an error", `{"proxy": {"enabled": true}}`, "proxy.enabled needs proxy.sourceEndpoint"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			le, _ := loadError(t, mapFS(withConfig(`{"products": `+tc.settings+`}`)), LoadOptions{})
			requireFinding(t, le.Findings, want{"shop/products.json", "products", "", SeverityError, tc.contains})
		})
	}
}

func TestRegistry(t *testing.T) {
	reg, _ := mustLoad(t, mapFS(withConfig(`{"products": {"color": "red", "adminNav": {"order": 1}}}`)), LoadOptions{})

	t.Run("Get is false for an unregistered collection", func(t *testing.T) {
		for _, key := range []string{"orders", "products", "shopproducts", ""} {
			if c, ok := reg.Get(key); ok || c != nil {
				t.Errorf("Get(%q): got %v, %v, want nil, false", key, c, ok)
			}
		}
		if _, ok := reg.ByAPIPath("orders"); ok {
			t.Errorf("ByAPIPath(orders): got true, want false")
		}
	})

	t.Run("a nil registry is empty", func(t *testing.T) {
		var nilReg *Registry
		if _, ok := nilReg.Get("shopProducts"); ok {
			t.Errorf("Get on nil: got true, want false")
		}
		if _, ok := nilReg.ByAPIPath("shop-products"); ok {
			t.Errorf("ByAPIPath on nil: got true, want false")
		}
		b, err := json.Marshal(nilReg)
		if nilReg.Len() != 0 || nilReg.All() != nil || err != nil || string(b) != "null" {
			t.Errorf("nil registry: got Len %d, All %v, JSON %s %v, want 0, nil, null", nilReg.Len(), nilReg.All(), b, err)
		}
		b, _ = nilReg.MarshalJSON()
		if string(b) != "{}" {
			t.Errorf("nil MarshalJSON: got %s, want {}", b)
		}
	})

	t.Run("All lists the collections in registration order", func(t *testing.T) {
		var keys []string
		for _, c := range reg.All() {
			keys = append(keys, c.key)
		}
		if wantKeys := []string{"shopCategories", "shopProducts"}; !slices.Equal(keys, wantKeys) {
			t.Errorf("All: got %q, want %q", keys, wantKeys)
		}
		reg.All()[0] = nil
		if reg.All()[0] == nil {
			t.Errorf("All: changing the returned slice changed the registry")
		}
	})

	t.Run("the registry JSON is the kitCollections shape keyed by registry key", func(t *testing.T) {
		b, err := json.Marshal(reg)
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]map[string]any
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("unmarshal %s: %v", b, err)
		}
		if len(got) != 2 || got["shopProducts"] == nil || got["shopCategories"] == nil {
			t.Fatalf("registry JSON keys: got %s, want shopProducts and shopCategories", b)
		}
		p := got["shopProducts"]
		for k, w := range map[string]any{"name": "products", "layer": "shop", "apiPath": "shop-products", "color": "red",
			"adminNav": map[string]any{"order": 1.0}} {
			if !reflect.DeepEqual(p[k], w) {
				t.Errorf("shopProducts.%s: got %#v, want %#v", k, p[k], w)
			}
		}
		if !strings.HasPrefix(string(b), `{"shopCategories":`) {
			t.Errorf("registry JSON: got %.40s..., want registration order (shopCategories first)", b)
		}
	})

	t.Run("a config written and read back keeps its custom keys", func(t *testing.T) {
		c := mustGet(t, reg, "shopProducts")
		b, err := json.Marshal(c.config)
		if err != nil {
			t.Fatal(err)
		}
		var back Config
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, c.config) {
			t.Errorf("round trip:\ngot  %+v\nwant %+v", back, c.config)
		}
	})
}

func TestConfigJSON(t *testing.T) {
	t.Run("unknown keys go to Extra", func(t *testing.T) {
		var c Config
		if err := json.Unmarshal([]byte(`{"apiPath": "p", "color": "red", "Container": "modal", "n": 1}`), &c); err != nil {
			t.Fatal(err)
		}
		wantExtra := map[string]any{"color": "red", "Container": "modal", "n": 1.0}
		if c.APIPath != "p" || c.Container != "" || !reflect.DeepEqual(c.Extra, wantExtra) {
			t.Errorf("got apiPath %q, container %q, extra %v, want p, \"\", %v", c.APIPath, c.Container, c.Extra, wantExtra)
		}
	})
	t.Run("a config without custom keys has no Extra", func(t *testing.T) {
		var c Config
		if err := json.Unmarshal([]byte(`{"apiPath": "p"}`), &c); err != nil || c.Extra != nil {
			t.Errorf("got extra %v, err %v, want nil, nil", c.Extra, err)
		}
	})
	t.Run("a custom key never replaces a known property", func(t *testing.T) {
		b, err := json.Marshal(Config{Name: "products", APIPath: "p", Extra: map[string]any{"name": "x", "color": "red"}})
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		_ = json.Unmarshal(b, &got)
		if got["name"] != "products" || got["color"] != "red" {
			t.Errorf("got %s, want name products and color red", b)
		}
	})
	t.Run("a known property of the wrong type is an error", func(t *testing.T) {
		var c Config
		if err := json.Unmarshal([]byte(`{"publishable": "yes"}`), &c); err == nil {
			t.Errorf("got nil error, want one")
		}
	})
	t.Run("a config that is not an object is an error", func(t *testing.T) {
		var c Config
		if err := json.Unmarshal([]byte(`[]`), &c); err == nil {
			t.Errorf("got nil error, want one")
		}
	})
	t.Run("the proxy transform is not serialized", func(t *testing.T) {
		b, err := json.Marshal(Config{Proxy: &Proxy{Enabled: true, SourceEndpoint: "s", Transform: func(m map[string]any) (map[string]any, error) { return m, nil }}})
		if err != nil || !strings.Contains(string(b), `"proxy":{"enabled":true,"sourceEndpoint":"s"}`) {
			t.Errorf("got %s, %v, want the proxy without transform", b, err)
		}
	})
}

func TestUseMetadataFalse(t *testing.T) {
	reg, _ := mustLoad(t, mapFS(withConfig(`{"products": {"useMetadata": false}}`)), LoadOptions{})
	c := mustGet(t, reg, "shopProducts")
	metadata := []string{"createdAt", "updatedAt", "createdBy", "updatedBy"}

	if c.UseMetadata() {
		t.Errorf("UseMetadata: got true, want false")
	}
	t.Run("attributes leave out the metadata fields", func(t *testing.T) {
		for _, a := range c.Attributes() {
			if slices.Contains(metadata, a.Name) {
				t.Errorf("Attributes: got %s, want it left out", a.Name)
			}
		}
		for _, name := range metadata {
			if _, ok := c.Attribute(name); ok {
				t.Errorf("Attribute(%q): got true, want false", name)
			}
		}
		for _, name := range []string{"id", "teamId", "owner"} {
			if _, ok := c.Attribute(name); !ok {
				t.Errorf("Attribute(%q): got false, want true", name)
			}
		}
	})
	t.Run("the JSON Schema leaves out the metadata fields", func(t *testing.T) {
		props := c.JSONSchema()["properties"].(map[string]any)
		for _, name := range metadata {
			if _, ok := props[name]; ok {
				t.Errorf("JSON Schema property %s: got it, want it left out", name)
			}
		}
		if _, ok := props["id"]; !ok {
			t.Errorf("JSON Schema property id: got nothing, want it")
		}
	})
	t.Run("the metadata fields are still ignored in a body", func(t *testing.T) {
		if _, err := c.ValidateCreate(map[string]any{"title": "t", "createdAt": "x"}); err != nil {
			t.Errorf("ValidateCreate: got %v, want nil", err)
		}
	})
	t.Run("lists sort by id by default", func(t *testing.T) {
		if name, desc := c.DefaultSort(); name != "id" || !desc {
			t.Errorf("DefaultSort: got %q, %v, want id, true", name, desc)
		}
	})
	t.Run("a sort on a metadata field is refused", func(t *testing.T) {
		_, err := c.ParseListQuery(map[string][]string{"sort": {"createdAt"}}, QueryLimits{})
		if qe := asQueryError(t, err); qe.Param != "sort" {
			t.Errorf("Param: got %q, want sort", qe.Param)
		}
	})
}
