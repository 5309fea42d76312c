package collections

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// productsSchema uses each of the eleven field types once, every meta key
// and a refTarget, in a deliberate (non-alphabetical) order.
const productsSchema = `{
  "title":       {"type": "string",   "meta": {"required": true, "label": "Title", "unique": true, "uniqueIgnoreCase": true, "index": true}},
  "description": {"type": "text",     "meta": {"label": "Description", "area": "main", "displayAs": "markdown"}},
  "stock":       {"type": "number",   "meta": {"default": 0, "index": true}},
  "price":       {"type": "decimal",  "meta": {"precision": 10, "scale": 2, "default": "9.9"}},
  "isActive":    {"type": "boolean",  "meta": {"default": true}},
  "publishedAt": {"type": "date"},
  "details":     {"type": "json"},
  "variants":    {"type": "repeater"},
  "tags":        {"type": "array"},
  "image":       {"type": "image"},
  "manual":      {"type": "file"},
  "categoryId":  {"type": "string",   "refTarget": "categories"}
}`

const categoriesSchema = `{"name": {"type": "string", "meta": {"required": true}}}`

// shopFS is a schemas folder with one layer ("shop") of two collections.
func shopFS() fstest.MapFS {
	return fstest.MapFS{
		"shop/products.json":   {Data: []byte(productsSchema)},
		"shop/categories.json": {Data: []byte(categoriesSchema)},
	}
}

// mapFS builds a schemas folder from path -> content.
func mapFS(files map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for p, data := range files {
		fsys[p] = &fstest.MapFile{Data: []byte(data)}
	}
	return fsys
}

// mustLoad loads fsys and fails the test on any error.
func mustLoad(t testing.TB, fsys fstest.MapFS, opts LoadOptions, extra ...Definition) (*Registry, []Finding) {
	t.Helper()
	reg, warnings, err := Load(fsys, opts, extra...)
	if err != nil {
		t.Fatalf("Load: got error %v, want nil", err)
	}
	return reg, warnings
}

// mustGet returns the collection registered under key.
func mustGet(t testing.TB, reg *Registry, key string) *Collection {
	t.Helper()
	c, ok := reg.Get(key)
	if !ok {
		keys := []string{}
		for _, c := range reg.All() {
			keys = append(keys, c.key)
		}
		t.Fatalf("Get(%q): got false, want the collection (registered: %v)", key, keys)
	}
	return c
}

// shopProducts loads shopFS and returns shopProducts.
func shopProducts(t testing.TB) *Collection {
	t.Helper()
	reg, _ := mustLoad(t, shopFS(), LoadOptions{})
	return mustGet(t, reg, "shopProducts")
}

// loadError loads fsys and returns the *LoadError it must fail with.
func loadError(t testing.TB, fsys fstest.MapFS, opts LoadOptions, extra ...Definition) (*LoadError, []Finding) {
	t.Helper()
	reg, warnings, err := Load(fsys, opts, extra...)
	return asLoadError(t, reg, err), warnings
}

func asLoadError(t testing.TB, reg *Registry, err error) *LoadError {
	t.Helper()
	if err == nil {
		t.Fatalf("Load: got no error, want a *LoadError")
	}
	if reg != nil {
		t.Errorf("Load: got a registry with an error, want nil")
	}
	if !errors.Is(err, ErrInvalidSchema) {
		t.Errorf("errors.Is(err, ErrInvalidSchema): got false, want true (%v)", err)
	}
	var le *LoadError
	if !errors.As(err, &le) {
		t.Fatalf("Load: got %T, want *LoadError", err)
	}
	for _, f := range le.Findings {
		if f.Severity != SeverityError {
			t.Errorf("LoadError holds %v, want only errors", f)
		}
		if !strings.Contains(le.Error(), f.Message) {
			t.Errorf("LoadError.Error(): got %q, want it to list %q", le.Error(), f.Message)
		}
	}
	return le
}

// want describes a finding: exact File, Collection and Field, the
// severity, and a part of the message.
type want struct {
	file, collection, field string
	severity                Severity
	contains                string
}

func (w want) String() string {
	return fmt.Sprintf("%s: %s.%s: %s: ...%s...", w.file, w.collection, w.field, w.severity, w.contains)
}

func (w want) matches(f Finding) bool {
	return f.File == w.file && f.Collection == w.collection && f.Field == w.field &&
		f.Severity == w.severity && strings.Contains(f.Message, w.contains)
}

// requireFinding fails unless a finding matches w.
func requireFinding(t testing.TB, got []Finding, w want) {
	t.Helper()
	for _, f := range got {
		if w.matches(f) {
			return
		}
	}
	t.Errorf("got findings\n  %s\nwant one matching %v", joinFindings(got), w)
}

func joinFindings(fs []Finding) string {
	s := make([]string, len(fs))
	for i, f := range fs {
		s[i] = fmt.Sprintf("%q %q %q %s: %s", f.File, f.Collection, f.Field, f.Severity, f.Message)
	}
	return strings.Join(s, "\n  ")
}

func TestLoadReadsSchemaFiles(t *testing.T) {
	reg, warnings := mustLoad(t, shopFS(), LoadOptions{})
	if len(warnings) != 0 {
		t.Errorf("got warnings %v, want none", warnings)
	}
	if got, wantLen := reg.Len(), 2; got != wantLen {
		t.Errorf("Len: got %d, want %d", got, wantLen)
	}
	c := mustGet(t, reg, "shopProducts")

	t.Run("the identity follows the file name and the folder", func(t *testing.T) {
		got := []string{c.key, c.name, c.layer, c.file, c.table, c.config.APIPath}
		wantIdentity := []string{"shopProducts", "products", "shop", "shop/products.json", "shop_products", "shop-products"}
		if !slices.Equal(got, wantIdentity) {
			t.Errorf("key, name, layer, file, table, apiPath: got %q, want %q", got, wantIdentity)
		}
		if byPath, ok := reg.ByAPIPath("shop-products"); !ok || byPath != c {
			t.Errorf("ByAPIPath(shop-products): got %v, %v, want the products collection", byPath, ok)
		}
	})

	t.Run("fields keep the file's order and types", func(t *testing.T) {
		var names []string
		var types []FieldType
		for _, f := range c.fields {
			names = append(names, f.Name)
			types = append(types, f.Type)
		}
		wantNames := []string{"title", "description", "stock", "price", "isActive", "publishedAt",
			"details", "variants", "tags", "image", "manual", "categoryId"}
		if !slices.Equal(names, wantNames) {
			t.Errorf("field names: got %q, want %q", names, wantNames)
		}
		if wantTypes := append(FieldTypes(), TypeString); !slices.Equal(types, wantTypes) {
			t.Errorf("field types: got %q, want %q", types, wantTypes)
		}
	})

	t.Run("meta keys are read", func(t *testing.T) {
		title, price, desc := c.fields[0].Meta, c.fields[3].Meta, c.fields[1].Meta
		if !title.Required || title.Label != "Title" || !title.Unique || !title.UniqueIgnoreCase || !title.Index {
			t.Errorf("title meta: got %+v, want required, label Title, unique, uniqueIgnoreCase, index", title)
		}
		if price.Precision != 10 || price.Scale != 2 {
			t.Errorf("price precision, scale: got %d, %d, want 10, 2", price.Precision, price.Scale)
		}
		if got := price.Default; got != "9.9" {
			t.Errorf("price default: got %#v, want \"9.9\"", got)
		}
		if got, ok := c.fields[2].Meta.Default.(json.Number); !ok || got != "0" {
			t.Errorf("stock default: got %#v, want json.Number(\"0\")", c.fields[2].Meta.Default)
		}
		if got := c.fields[4].Meta.Default; got != true {
			t.Errorf("isActive default: got %#v, want true", got)
		}
		if desc.Area != "main" || desc.DisplayAs != "markdown" {
			t.Errorf("description area, displayAs: got %q, %q, want main, markdown", desc.Area, desc.DisplayAs)
		}
	})

	t.Run("a refTarget resolves to the target's registry key", func(t *testing.T) {
		if got := c.fields[11].RefTarget; got != "shopCategories" {
			t.Errorf("categoryId refTarget: got %q, want shopCategories", got)
		}
	})

	t.Run("attributes are the auto-generated fields around the schema fields", func(t *testing.T) {
		var names []string
		for _, a := range c.Attributes() {
			names = append(names, a.Name)
			if got, ok := c.Attribute(a.Name); !ok || got != a {
				t.Errorf("Attribute(%q): got %p, want %p", a.Name, got, a)
			}
		}
		wantNames := []string{"id", "teamId", "owner", "title", "description", "stock", "price", "isActive",
			"publishedAt", "details", "variants", "tags", "image", "manual", "categoryId",
			"createdAt", "updatedAt", "createdBy", "updatedBy"}
		if !slices.Equal(names, wantNames) {
			t.Errorf("attributes: got %q, want %q", names, wantNames)
		}
		for _, tc := range []struct {
			name, column string
			typ          FieldType
			system       bool
		}{
			{"id", "id", TypeString, true},
			{"teamId", "team_id", TypeString, true},
			{"createdAt", "created_at", TypeDate, true},
			{"publishedAt", "published_at", TypeDate, false},
			{"categoryId", "category_id", TypeString, false},
		} {
			a, _ := c.Attribute(tc.name)
			if a.Column != tc.column || a.Type != tc.typ || a.System != tc.system || (a.Field == nil) != tc.system {
				t.Errorf("attribute %s: got column %q type %q system %v field %v, want %q %q %v", tc.name,
					a.Column, a.Type, a.System, a.Field, tc.column, tc.typ, tc.system)
			}
		}
	})
}

func TestLoadLayers(t *testing.T) {
	files := map[string]string{
		"products.json":       `{"title": {"type": "string"}}`,
		"blog/blogPosts.json": `{"title": {"type": "string"}}`,
		"README.md":           "not a schema",
		".hidden.json":        "not read",
		".git/config.json":    "not read",
		"blog/notes.txt":      "not a schema",
	}
	tests := []struct {
		name         string
		opts         LoadOptions
		wantKey      string
		wantAPIPath  string
		wantTable    string
		wantBlogPath string
	}{
		{"root files get the app layer by default", LoadOptions{}, "appProducts", "app-products", "app_products", "blog-blogPosts"},
		{"the default layer is configurable", LoadOptions{DefaultLayer: "core"}, "coreProducts", "core-products", "core_products", "blog-blogPosts"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reg, _ := mustLoad(t, mapFS(files), tc.opts)
			c := mustGet(t, reg, tc.wantKey)
			if c.config.APIPath != tc.wantAPIPath || c.table != tc.wantTable {
				t.Errorf("apiPath, table: got %q, %q, want %q, %q", c.config.APIPath, c.table, tc.wantAPIPath, tc.wantTable)
			}
			blog := mustGet(t, reg, "blogBlogPosts")
			if blog.layer != "blog" || blog.config.APIPath != tc.wantBlogPath || blog.table != "blog_blog_posts" {
				t.Errorf("blogPosts layer, apiPath, table: got %q, %q, %q, want blog, %q, blog_blog_posts",
					blog.layer, blog.config.APIPath, blog.table, tc.wantBlogPath)
			}
			if reg.Len() != 2 {
				t.Errorf("Len: got %d, want 2 (only .json files outside dot folders)", reg.Len())
			}
		})
	}
}

func TestGoDefinitions(t *testing.T) {
	categories := Definition{Name: "categories", Layer: "shop", Fields: []Field{
		{Name: "name", Type: TypeString, Meta: FieldMeta{Required: true}},
	}}
	t.Run("Go definitions build on their own", func(t *testing.T) {
		reg, warnings, err := Build([]Definition{
			categories,
			{Name: "tags", Fields: []Field{{Name: "label", Type: TypeString}}},
		}, LoadOptions{})
		if err != nil || len(warnings) != 0 {
			t.Fatalf("Build: got %v, %v, want no error and no warnings", err, warnings)
		}
		c := mustGet(t, reg, "shopCategories")
		if c.file != "" || c.table != "shop_categories" || c.config.APIPath != "shop-categories" {
			t.Errorf("file, table, apiPath: got %q, %q, %q, want \"\", shop_categories, shop-categories", c.file, c.table, c.config.APIPath)
		}
		mustGet(t, reg, "appTags")
	})

	t.Run("a Go definition without a layer takes the configured default layer", func(t *testing.T) {
		reg, _, err := Build([]Definition{{Name: "tags", Fields: []Field{{Name: "label", Type: TypeString}}}}, LoadOptions{DefaultLayer: "blog"})
		if err != nil {
			t.Fatalf("Build: got %v, want nil", err)
		}
		mustGet(t, reg, "blogTags")
	})

	t.Run("a schema file may refTarget a Go definition", func(t *testing.T) {
		fsys := mapFS(map[string]string{"shop/products.json": productsSchema})
		reg, _ := mustLoad(t, fsys, LoadOptions{}, categories)
		c := mustGet(t, reg, "shopProducts")
		if got := c.config.References["categoryId"]; got != "shopCategories" {
			t.Errorf("references.categoryId: got %q, want shopCategories", got)
		}
	})

	t.Run("a Go definition may refTarget a schema file", func(t *testing.T) {
		fsys := mapFS(map[string]string{"shop/categories.json": categoriesSchema})
		reviews := Definition{Name: "reviews", Layer: "shop", Fields: []Field{
			{Name: "categoryId", Type: TypeString, RefTarget: "categories"},
		}}
		reg, _ := mustLoad(t, fsys, LoadOptions{}, reviews)
		if got := mustGet(t, reg, "shopReviews").fields[0].RefTarget; got != "shopCategories" {
			t.Errorf("refTarget: got %q, want shopCategories", got)
		}
	})

	t.Run("a Go definition that repeats a file collection is an error", func(t *testing.T) {
		le, _ := loadError(t, shopFS(), LoadOptions{}, categories)
		requireFinding(t, le.Findings, want{"", "categories", "", SeverityError, `"shopCategories" is defined twice (also in shop/categories.json)`})
	})

	t.Run("Build does not change the definitions it is given", func(t *testing.T) {
		defs := []Definition{categories, {Name: "reviews", Layer: "shop", Fields: []Field{
			{Name: "categoryId", Type: TypeString, RefTarget: "categories"},
		}}}
		if _, _, err := Build(defs, LoadOptions{}); err != nil {
			t.Fatalf("Build: got %v, want nil", err)
		}
		if got := defs[1].Fields[0].RefTarget; got != "categories" {
			t.Errorf("definition refTarget after Build: got %q, want categories", got)
		}
	})
}

func TestRefTargetResolution(t *testing.T) {
	files := map[string]string{
		"shop/categories.json": categoriesSchema,
		"blog/categories.json": categoriesSchema,
		"shop/products.json":   `{"categoryId": {"type": "string", "refTarget": "categories"}}`,
		"blog/blogPosts.json":  `{"categoryId": {"type": "string", "refTarget": "shopCategories"}}`,
	}
	reg, _ := mustLoad(t, mapFS(files), LoadOptions{})
	tests := []struct {
		name, key, want string
	}{
		{"a plural name resolves to the collection of the same layer", "shopProducts", "shopCategories"},
		{"a registry key resolves to that collection across layers", "blogBlogPosts", "shopCategories"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := mustGet(t, reg, tc.key).fields[0].RefTarget; got != tc.want {
				t.Errorf("refTarget: got %q, want %q", got, tc.want)
			}
		})
	}

	t.Run("a name that several other layers hold is ambiguous", func(t *testing.T) {
		files := map[string]string{
			"shop/categories.json": categoriesSchema,
			"blog/categories.json": categoriesSchema,
			"app/notes.json":       `{"categoryId": {"type": "string", "refTarget": "categories"}}`,
		}
		le, _ := loadError(t, mapFS(files), LoadOptions{})
		requireFinding(t, le.Findings, want{"app/notes.json", "notes", "categoryId", SeverityError, "ambiguous"})
	})
}

// schemaCase is one schema file that must fail to load with a finding
// on field (empty for the whole collection).
type schemaCase struct {
	name     string
	file     string
	schema   string
	field    string
	contains string
}

func TestLoadReportsSchemaErrors(t *testing.T) {
	tests := []schemaCase{
		{"an unknown type is an error", "products.json", `{"title": {"type": "varchar"}}`, "title", `unknown type "varchar"`},
		{"a missing type is an error", "products.json", `{"title": {"meta": {}}}`, "title", `missing "type"`},
		{"a type that is not a string is an error", "products.json", `{"title": {"type": 5}}`, "title", `unknown type "5"`},
		{"a field entry that is not an object is an error", "products.json", `{"title": "string"}`, "title", "must be an object"},
		{"an unknown key in a field entry is an error", "products.json", `{"title": {"type": "string", "nullable": true}}`, "title", `unknown key "nullable"`},
		{"an unknown key in meta is an error", "products.json", `{"title": {"type": "string", "meta": {"maxLength": 5}}}`, "title", `unknown key "meta.maxLength"`},
		{"a meta that is not an object is an error", "products.json", `{"title": {"type": "string", "meta": true}}`, "title", `"meta" must be an object`},
		{"a meta.required that is not a boolean is an error", "products.json", `{"title": {"type": "string", "meta": {"required": "yes"}}}`, "title", "meta.required has the wrong type"},
		{"a meta.label that is not a string is an error", "products.json", `{"title": {"type": "string", "meta": {"label": 1}}}`, "title", "meta.label has the wrong type"},
		{"a refTarget that is not a string is an error", "products.json", `{"categoryId": {"type": "string", "refTarget": 1}}`, "categoryId", `"refTarget" must be a string`},
		{"a refTarget on a number field is an error", "products.json", `{"categoryId": {"type": "number", "refTarget": "categories"}}`, "categoryId", `refTarget needs type "string"`},
		{"a refTarget on a json field is an error", "products.json", `{"categoryId": {"type": "json", "refTarget": "categories"}}`, "categoryId", `refTarget needs type "string"`},
		{"a refTarget to a collection that does not exist is an error", "products.json", `{"brandId": {"type": "string", "refTarget": "brands"}}`, "brandId", `"brands" names no collection`},
		{"a decimal without precision is an error", "products.json", `{"price": {"type": "decimal"}}`, "price", "meta.precision between 1 and 38 (got 0)"},
		{"a decimal with precision 0 is an error", "products.json", `{"price": {"type": "decimal", "meta": {"precision": 0, "scale": 0}}}`, "price", "meta.precision between 1 and 38 (got 0)"},
		{"a decimal with precision 39 is an error", "products.json", `{"price": {"type": "decimal", "meta": {"precision": 39, "scale": 2}}}`, "price", "meta.precision between 1 and 38 (got 39)"},
		{"a decimal with scale above precision is an error", "products.json", `{"price": {"type": "decimal", "meta": {"precision": 4, "scale": 5}}}`, "price", "meta.scale between 0 and precision 4 (got 5)"},
		{"a decimal with a negative scale is an error", "products.json", `{"price": {"type": "decimal", "meta": {"precision": 4, "scale": -1}}}`, "price", "meta.scale between 0 and precision 4 (got -1)"},
		{"a fractional precision is an error", "products.json", `{"price": {"type": "decimal", "meta": {"precision": 4.5, "scale": 1}}}`, "price", "meta.precision must be a whole number"},
		{"a precision that is a string is an error", "products.json", `{"price": {"type": "decimal", "meta": {"precision": "10", "scale": 1}}}`, "price", "meta.precision must be a whole number"},
		{"precision on a number field is an error", "products.json", `{"stock": {"type": "number", "meta": {"precision": 10}}}`, "stock", "apply only to decimal fields"},
		{"integer on a decimal field is an error", "products.json", `{"price": {"type": "decimal", "meta": {"precision": 10, "scale": 0, "integer": true}}}`, "price", "meta.integer applies only to number fields"},
		{"a meta.integer that is not a boolean is an error", "products.json", `{"stock": {"type": "number", "meta": {"integer": 1}}}`, "stock", "meta.integer has the wrong type"},
		{"a fractional default on an integer field is an error", "products.json", `{"stock": {"type": "number", "meta": {"integer": true, "default": 0.5}}}`, "stock", "meta.default must be a whole number"},
		{"unique on a json field is an error", "products.json", `{"details": {"type": "json", "meta": {"unique": true}}}`, "details", "do not apply to json fields"},
		{"uniqueIgnoreCase without unique is an error", "products.json", `{"sku": {"type": "string", "meta": {"uniqueIgnoreCase": true}}}`, "sku", "meta.uniqueIgnoreCase needs meta.unique: true"},
		{"uniqueIgnoreCase on a number field is an error", "products.json", `{"stock": {"type": "number", "meta": {"unique": true, "uniqueIgnoreCase": true}}}`, "stock", "meta.uniqueIgnoreCase applies only to string and text fields"},
		{"uniqueIgnoreCase on a file field is an error", "products.json", `{"manual": {"type": "file", "meta": {"unique": true, "uniqueIgnoreCase": true}}}`, "manual", "meta.uniqueIgnoreCase applies only to string and text fields"},
		{"maxSize on a text field is an error", "products.json", `{"title": {"type": "string", "meta": {"maxSize": 10}}}`, "title", "apply only to image and file fields"},
		{"a negative maxSize is an error", "products.json", `{"manual": {"type": "file", "meta": {"maxSize": -1}}}`, "manual", "meta.maxSize must be a positive number of bytes"},
		{"maxFiles without multiple is an error", "products.json", `{"manual": {"type": "file", "meta": {"maxFiles": 3}}}`, "manual", "needs meta.multiple: true"},
		{"a mimeTypes entry that is not a type is an error", "products.json", `{"manual": {"type": "file", "meta": {"mimeTypes": ["pdf"]}}}`, "manual", `"pdf" is not a content type`},
		{"a mimeTypes that is not a list is an error", "products.json", `{"manual": {"type": "file", "meta": {"mimeTypes": "application/pdf"}}}`, "manual", "meta.mimeTypes has the wrong type"},
		{"thumbs on a file field is an error", "products.json", `{"manual": {"type": "file", "meta": {"thumbs": ["10x10"]}}}`, "manual", "meta.thumbs applies only to image fields"},
		{"a thumb size that is not WxH is an error", "products.json", `{"image": {"type": "image", "meta": {"thumbs": ["big"]}}}`, "image", `"big" is not a size`},
		{"a thumb size of 0x0 is an error", "products.json", `{"image": {"type": "image", "meta": {"thumbs": ["0x0"]}}}`, "image", `"0x0" is not a size`},
		{"a thumb size above 4096 is an error", "products.json", `{"image": {"type": "image", "meta": {"thumbs": ["5000x10"]}}}`, "image", `"5000x10" is not a size`},
		{"a meta.uniqueIgnoreCase that is not a boolean is an error", "products.json", `{"sku": {"type": "string", "meta": {"unique": true, "uniqueIgnoreCase": "yes"}}}`, "sku", "meta.uniqueIgnoreCase has the wrong type"},
		{"a string default on a number field is an error", "products.json", `{"stock": {"type": "number", "meta": {"default": "ten"}}}`, "stock", "meta.default must be a number"},
		{"a number default on a string field is an error", "products.json", `{"title": {"type": "string", "meta": {"default": 5}}}`, "title", "meta.default must be a string"},
		{"a bad date default is an error", "products.json", `{"publishedAt": {"type": "date", "meta": {"default": "tomorrow"}}}`, "publishedAt", "meta.default must be a date"},
		{"a bad date default is an error even when the name draws a warning", "products.json", `{"published": {"type": "date", "meta": {"default": "tomorrow"}}}`, "published", "meta.default must be a date"},
		{"a decimal default with too many digits is an error", "products.json", `{"price": {"type": "decimal", "meta": {"precision": 4, "scale": 2, "default": "123.45"}}}`, "price", "meta.default must have at most 2 digit(s) before the point"},
		{"a decimal default with too many fraction digits is an error", "products.json", `{"price": {"type": "decimal", "meta": {"precision": 4, "scale": 2, "default": 1.234}}}`, "price", "meta.default must have at most 2 digit(s) after the point"},
		{"a boolean default that is a string is an error", "products.json", `{"isActive": {"type": "boolean", "meta": {"default": "true"}}}`, "isActive", "meta.default must be true or false"},
		{"an object default on an array field is an error", "products.json", `{"tags": {"type": "array", "meta": {"default": {}}}}`, "tags", "meta.default must be an array"},
		{"a field defined twice is an error", "products.json", `{"title": {"type": "string"}, "title": {"type": "text"}}`, "title", `duplicate key "title"`},
		{"two fields with one column name are an error", "products.json", `{"userId": {"type": "string"}, "userID": {"type": "string"}}`, "userID", `column name "user_id" collides with field "userId"`},
		{"a field whose column is an auto-generated column is an error", "products.json", `{"teamID": {"type": "string"}}`, "teamID", `column name "team_id" collides with field "teamId"`},
		{"a field name with a space is an error", "products.json", `{"first name": {"type": "string"}}`, "first name", `must be camelCase (use "firstName")`},
		{"a snake_case field name is an error", "products.json", `{"first_name": {"type": "string"}}`, "first_name", `must be camelCase (use "firstName")`},
		{"a PascalCase field name is an error", "products.json", `{"Title": {"type": "string"}}`, "Title", `must be camelCase (use "title")`},
		{"a field name starting with a digit is an error", "products.json", `{"1st": {"type": "string"}}`, "1st", "must start with a letter"},
		{"an empty field name is an error", "products.json", `{"": {"type": "string"}}`, "", "field name must not be empty"},
		{"invalid JSON in a field entry is an error", "products.json", `{"title": {"type": "string"`, "title", "invalid JSON"},
		{"an unclosed schema object is an error", "products.json", `{"title": {"type": "string"}`, "", "invalid JSON"},
		{"a key that is not a string is an error", "products.json", `{1: {"type": "string"}}`, "", "invalid JSON"},
		{"an empty file is an error", "products.json", ``, "", "invalid JSON"},
		{"a schema that is an array is an error", "products.json", `[{"type": "string"}]`, "", "must be a JSON object keyed by field name"},
		{"data after the schema object is an error", "products.json", `{"title": {"type": "string"}} {}`, "", "data after the schema object"},
		{"a collection name with a hyphen is an error", "blog-posts.json", `{"title": {"type": "string"}}`, "", `must be camelCase (use "blogPosts")`},
		{"a snake_case collection name is an error", "blog_posts.json", `{"title": {"type": "string"}}`, "", `must be camelCase (use "blogPosts")`},
		{"a PascalCase collection name is an error", "BlogPosts.json", `{"title": {"type": "string"}}`, "", `must be camelCase (use "blogPosts")`},
		{"a collection name starting with a digit is an error", "2products.json", `{"title": {"type": "string"}}`, "", "must start with a letter"},
		{"the generic name items is an error", "items.json", `{"title": {"type": "string"}}`, "", "too generic"},
		{"the generic name data is an error", "data.json", `{"title": {"type": "string"}}`, "", "too generic"},
		{"the generic name records is an error", "records.json", `{"title": {"type": "string"}}`, "", "too generic"},
		{"a singular collection name is an error", "product.json", `{"title": {"type": "string"}}`, "", `must be plural (use "products")`},
		{"a singular camelCase collection name is an error", "blogPost.json", `{"title": {"type": "string"}}`, "", `must be plural (use "blogPosts")`},
		{"status is singular", "status.json", `{"title": {"type": "string"}}`, "", `must be plural (use "statuses")`},
	}
	for _, name := range []string{"id", "teamId", "owner", "createdAt", "updatedAt", "createdBy", "updatedBy"} {
		tests = append(tests, schemaCase{
			"the auto-generated field " + name + " in a schema is a duplicate key", "products.json",
			fmt.Sprintf(`{"title": {"type": "string"}, %q: {"type": "string"}}`, name), name, fmt.Sprintf("duplicate key %q", name),
		})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, layer := range []string{"", "shop"} {
				file := tc.file
				if layer != "" {
					file = layer + "/" + tc.file
				}
				le, _ := loadError(t, mapFS(map[string]string{file: tc.schema}), LoadOptions{})
				collection := strings.TrimSuffix(tc.file, ".json")
				requireFinding(t, le.Findings, want{file, collection, tc.field, SeverityError, tc.contains})
			}
		})
	}
}

func TestLoadAcceptsRealPlurals(t *testing.T) {
	for _, name := range []string{"categories", "people", "statuses", "boxes", "blogPosts", "news", "addresses"} {
		t.Run(name+" is a plural collection name", func(t *testing.T) {
			fsys := mapFS(map[string]string{name + ".json": `{"title": {"type": "string"}}`})
			reg, warnings := mustLoad(t, fsys, LoadOptions{})
			mustGet(t, reg, RegistryKey("app", name))
			if len(warnings) != 0 {
				t.Errorf("got warnings %v, want none", warnings)
			}
		})
	}
}

func TestLoadWarnsAboutConventions(t *testing.T) {
	tests := []struct {
		name, file, schema, field, contains string
	}{
		{"a date field not ending in At is a warning", "products.json", `{"published": {"type": "date"}}`, "published", `should end in "At" (e.g. "publishedAt")`},
		{"a date field ending in Date is a warning", "products.json", `{"dueDate": {"type": "date"}}`, "dueDate", `(e.g. "dueAt")`},
		{"a boolean without is, has or can is a warning", "products.json", `{"active": {"type": "boolean"}}`, "active", `should start with "is", "has" or "can" (e.g. "isActive")`},
		{"a reference not ending in Id is a warning", "products.json", `{"category": {"type": "string", "refTarget": "categories"}}`, "category", `should end in "Id" (e.g. "categoryId")`},
		{"an abbreviated field name is a warning", "products.json", `{"qty": {"type": "number"}}`, "qty", `abbreviation "qty"`},
		{"an abbreviated collection name is a warning", "prods.json", `{"title": {"type": "string"}}`, "", `abbreviation "prods"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{"shop/" + tc.file: tc.schema, "shop/categories.json": categoriesSchema}
			reg, warnings := mustLoad(t, mapFS(files), LoadOptions{})
			collection := strings.TrimSuffix(tc.file, ".json")
			mustGet(t, reg, RegistryKey("shop", collection))
			requireFinding(t, warnings, want{"shop/" + tc.file, collection, tc.field, SeverityWarning, tc.contains})
		})
	}

	t.Run("warnings come back with the errors when the load fails", func(t *testing.T) {
		files := map[string]string{"products.json": `{"published": {"type": "date"}, "title": {"type": "varchar"}}`}
		le, warnings := loadError(t, mapFS(files), LoadOptions{})
		requireFinding(t, le.Findings, want{"products.json", "products", "title", SeverityError, "unknown type"})
		requireFinding(t, warnings, want{"products.json", "products", "published", SeverityWarning, `should end in "At"`})
	})
}

func TestLoadReportsEveryErrorInOnePass(t *testing.T) {
	files := map[string]string{
		"shop/products.json": `{
			"title":    {"type": "varchar"},
			"price":    {"type": "decimal"},
			"stock":    {"type": "number", "meta": {"default": "many"}},
			"id":       {"type": "string"},
			"brandId":  {"type": "string", "refTarget": "brands"}
		}`,
		"shop/categories.json": `{"name": {"type": "string", "nullable": true}, "parentId": {"type": "number", "refTarget": "categories"}}`,
		"shop/item.json":       `{"name": {"type": "string"}}`,
		"blog/records.json":    `{"name": {"type": "string", "meta": {"size": 3}}}`,
		"blog/blogPosts.json":  `{"title": {"type": "string"}`,
		"Bad_Layer/notes.json": `{"body": {"type": "text"}}`,
		"kit.config.json":      `{"shopProducts": {"container": "drawer"}, "ghosts": {}}`,
	}
	le, _ := loadError(t, mapFS(files), LoadOptions{})
	wantAll := []want{
		{"shop/products.json", "products", "title", SeverityError, `unknown type "varchar"`},
		{"shop/products.json", "products", "price", SeverityError, "meta.precision between 1 and 38"},
		{"shop/products.json", "products", "stock", SeverityError, "meta.default must be a number"},
		{"shop/products.json", "products", "id", SeverityError, `duplicate key "id"`},
		{"shop/products.json", "products", "brandId", SeverityError, `"brands" names no collection`},
		{"shop/products.json", "products", "", SeverityError, `container "drawer" must be one of`},
		{"shop/categories.json", "categories", "name", SeverityError, `unknown key "nullable"`},
		{"shop/categories.json", "categories", "parentId", SeverityError, `refTarget needs type "string"`},
		{"shop/item.json", "item", "", SeverityError, "must be plural"},
		{"blog/records.json", "records", "", SeverityError, "too generic"},
		{"blog/records.json", "records", "name", SeverityError, `unknown key "meta.size"`},
		{"blog/blogPosts.json", "blogPosts", "", SeverityError, "invalid JSON"},
		{"Bad_Layer", "", "", SeverityError, "layer name"},
		{"kit.config.json", "ghosts", "", SeverityError, `names no collection "ghosts"`},
	}
	for _, w := range wantAll {
		requireFinding(t, le.Findings, w)
	}
	if len(le.Findings) != len(wantAll) {
		t.Errorf("got %d findings, want %d:\n  %s", len(le.Findings), len(wantAll), joinFindings(le.Findings))
	}
}

func TestLoadFolderErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		opts  LoadOptions
		want  want
	}{
		{"a default layer that is not camelCase is an error for root files",
			map[string]string{"products.json": `{"title": {"type": "string"}}`}, LoadOptions{DefaultLayer: "my-app"},
			want{"products.json", "products", "", SeverityError, `layer name "my-app" must be camelCase (use "myApp")`}},
		{"folders nested two levels deep are an error",
			map[string]string{"shop/old/products.json": productsSchema}, LoadOptions{},
			want{"shop/old", "", "", SeverityError, "nest one level"}},
		{"a layer folder that is not camelCase is an error",
			map[string]string{"shop-front/products.json": `{"title": {"type": "string"}}`}, LoadOptions{},
			want{"shop-front", "", "", SeverityError, `layer name "shop-front" must be camelCase (use "shopFront")`}},
		{"the kit layer is reserved",
			map[string]string{"kit/products.json": `{"title": {"type": "string"}}`}, LoadOptions{},
			want{"kit/products.json", "products", "", SeverityError, `layer "kit" is reserved`}},
		{"a kit.config.json that is not an object is an error",
			map[string]string{"products.json": `{"title": {"type": "string"}}`, "kit.config.json": `[1]`}, LoadOptions{},
			want{"kit.config.json", "", "", SeverityError, "must be a JSON object keyed by collection name"}},
		{"a kit.config.json entry naming no collection is an error",
			map[string]string{"products.json": `{"title": {"type": "string"}}`, "kit.config.json": `{"orders": {}}`}, LoadOptions{},
			want{"kit.config.json", "orders", "", SeverityError, `names no collection "orders"`}},
		{"a kit.config.json entry of the wrong shape is an error",
			map[string]string{"products.json": `{"title": {"type": "string"}}`, "kit.config.json": `{"products": {"container": 3}}`}, LoadOptions{},
			want{"kit.config.json", "products", "", SeverityError, "invalid settings"}},
		{"a kit.config.json entry with an ambiguous name is an error",
			map[string]string{"shop/products.json": `{"title": {"type": "string"}}`, "blog/products.json": `{"title": {"type": "string"}}`,
				"kit.config.json": `{"products": {"container": "modal"}}`}, LoadOptions{},
			want{"kit.config.json", "products", "", SeverityError, "ambiguous: use the registry key (blogProducts, shopProducts)"}},
		{"two collections with one table are an error",
			map[string]string{"shopURL/products.json": `{"title": {"type": "string"}}`, "shopUrl/products.json": `{"title": {"type": "string"}}`}, LoadOptions{},
			want{"shopUrl/products.json", "products", "", SeverityError, `table name "shop_url_products" collides with collection "shopURLProducts"`}},
		{"two collections with one registry key are an error",
			map[string]string{"shop/blogPosts.json": `{"title": {"type": "string"}}`, "shopBlog/posts.json": `{"title": {"type": "string"}}`}, LoadOptions{},
			want{"shopBlog/posts.json", "posts", "", SeverityError, `collection "shopBlogPosts" is defined twice (also in shop/blogPosts.json)`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			le, _ := loadError(t, mapFS(tc.files), tc.opts)
			requireFinding(t, le.Findings, tc.want)
		})
	}
}

func TestBuildReportsDefinitionErrors(t *testing.T) {
	tests := []struct {
		name string
		def  Definition
		want want
	}{
		{"an auto-generated field in a Go definition is a duplicate key",
			Definition{Name: "products", Fields: []Field{{Name: "createdAt", Type: TypeDate}}},
			want{"", "products", "createdAt", SeverityError, `duplicate key "createdAt"`}},
		{"a field defined twice in a Go definition is an error",
			Definition{Name: "products", Fields: []Field{{Name: "title", Type: TypeString}, {Name: "title", Type: TypeText}}},
			want{"", "products", "title", SeverityError, `duplicate key "title"`}},
		{"a field without a type in a Go definition is an error",
			Definition{Name: "products", Fields: []Field{{Name: "title"}}},
			want{"", "products", "title", SeverityError, `missing "type"`}},
		{"a Go definition with a singular name is an error",
			Definition{Name: "product", Fields: []Field{{Name: "title", Type: TypeString}}},
			want{"", "product", "", SeverityError, "must be plural"}},
		{"a Go definition with an invalid layer is an error",
			Definition{Name: "products", Layer: "my shop", Fields: []Field{{Name: "title", Type: TypeString}}},
			want{"", "products", "", SeverityError, `layer name "my shop"`}},
		{"a Go decimal default that does not fit is an error",
			Definition{Name: "products", Fields: []Field{{Name: "price", Type: TypeDecimal, Meta: FieldMeta{Precision: 3, Scale: 1, Default: 123.5}}}},
			want{"", "products", "price", SeverityError, "meta.default must have at most 2 digit(s) before the point"}},
		{"a Go uniqueIgnoreCase without unique is an error",
			Definition{Name: "products", Fields: []Field{{Name: "sku", Type: TypeString, Meta: FieldMeta{UniqueIgnoreCase: true}}}},
			want{"", "products", "sku", SeverityError, "meta.uniqueIgnoreCase needs meta.unique: true"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reg, _, err := Build([]Definition{tc.def}, LoadOptions{})
			le := asLoadError(t, reg, err)
			requireFinding(t, le.Findings, tc.want)
		})
	}
}

func TestLoadReportsEachProblemOnce(t *testing.T) {
	for _, schema := range []string{`{"title": {"meta": {}}}`, `{"title": {"type": null}}`, `{"title": {"type": ["string"]}}`} {
		t.Run(schema+" gives one finding", func(t *testing.T) {
			le, _ := loadError(t, mapFS(map[string]string{"products.json": schema}), LoadOptions{})
			if len(le.Findings) != 1 {
				t.Errorf("got %d findings, want 1:\n  %s", len(le.Findings), joinFindings(le.Findings))
			}
		})
	}
}

func TestFindingString(t *testing.T) {
	tests := []struct {
		name string
		f    Finding
		want string
	}{
		{"a field error names file, collection and field", Finding{File: "shop/products.json", Collection: "products", Field: "price", Severity: SeverityError, Message: "bad"}, "shop/products.json: products.price: bad"},
		{"a warning says so", Finding{File: "products.json", Collection: "products", Severity: SeverityWarning, Message: "hm"}, "products.json: products: warning: hm"},
		{"a finding without a file starts with the collection", Finding{Collection: "products", Field: "price", Severity: SeverityError, Message: "bad"}, "products.price: bad"},
		{"a finding with only a field names it", Finding{Field: "price", Severity: SeverityError, Message: "bad"}, "price: bad"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.f.String(); got != tc.want {
				t.Errorf("String: got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestParseSchemaKeepsWhatItCanRead(t *testing.T) {
	def, findings := ParseSchema("shop/products.json", []byte(`{"title": {"type": "string", "bogus": 1}, "stock": {"type": "number"}}`))
	if def.Name != "products" || def.File != "shop/products.json" {
		t.Errorf("name, file: got %q, %q, want products, shop/products.json", def.Name, def.File)
	}
	got := make([]string, len(def.Fields))
	for i, f := range def.Fields {
		got[i] = f.Name + ":" + string(f.Type)
	}
	if wantFields := []string{"title:string", "stock:number"}; !reflect.DeepEqual(got, wantFields) {
		t.Errorf("fields: got %q, want %q", got, wantFields)
	}
	requireFinding(t, findings, want{"shop/products.json", "products", "title", SeverityError, `unknown key "bogus"`})
}

func TestExternalCollections(t *testing.T) {
	users := Definition{Name: "users", External: true}

	t.Run("an external collection is keyed by its name in the external layer", func(t *testing.T) {
		reg, _, err := Build([]Definition{users}, LoadOptions{})
		if err != nil {
			t.Fatalf("Build: got %v, want nil", err)
		}
		c := mustGet(t, reg, "users")
		if !c.external || c.layer != ExternalLayer || c.table != "" || c.config.APIPath != "users" || c.config.Layer != ExternalLayer || c.UseMetadata() {
			t.Errorf("got external %v, layer %q, table %q, apiPath %q, config layer %q, useMetadata %v, want true, external, \"\", users, external, false",
				c.external, c.layer, c.table, c.config.APIPath, c.config.Layer, c.UseMetadata())
		}
	})

	t.Run("a schema file may refTarget an external collection", func(t *testing.T) {
		fsys := mapFS(map[string]string{"blog/blogPosts.json": `{"authorId": {"type": "string", "refTarget": "users"}}`})
		reg, _ := mustLoad(t, fsys, LoadOptions{}, users)
		if got := mustGet(t, reg, "blogBlogPosts").config.References["authorId"]; got != "users" {
			t.Errorf("references.authorId: got %q, want users", got)
		}
	})

	tests := []struct {
		name string
		def  Definition
		want want
	}{
		{"an external collection with fields is an error",
			Definition{Name: "users", External: true, Fields: []Field{{Name: "title", Type: TypeString}}},
			want{"", "users", "", SeverityError, "an external collection has no fields of its own"}},
		{"an external collection with an invalid name is an error",
			Definition{Name: "my users", External: true},
			want{"", "my users", "", SeverityError, "must be a camelCase identifier"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reg, _, err := Build([]Definition{tc.def}, LoadOptions{})
			requireFinding(t, asLoadError(t, reg, err).Findings, tc.want)
		})
	}
}

func TestFileFieldMetaIsRead(t *testing.T) {
	reg, _ := mustLoad(t, fstest.MapFS{"products.json": {Data: []byte(`{
		"image": {"type": "image", "meta": {"maxSize": 2048, "mimeTypes": ["image/png", "image/*"], "thumbs": ["100x100", "200x0"]}},
		"gallery": {"type": "image", "meta": {"multiple": true, "maxFiles": 4}},
		"manual": {"type": "file"}}`)}}, LoadOptions{})
	c := mustGet(t, reg, "appProducts")
	for _, tc := range []struct {
		field            string
		maxSize          int64
		maxFiles         int
		mimeTypes, thumb string
	}{
		{"image", 2048, 1, "image/png,image/*", "100x100,200x0"},
		{"gallery", DefaultMaxFileSize, 4, "", ""},
		{"manual", DefaultMaxFileSize, 1, "", ""},
	} {
		t.Run("the limits of "+tc.field+" are read with their defaults", func(t *testing.T) {
			a, _ := c.Attribute(tc.field)
			size, n := a.Field.FileLimits()
			if size != tc.maxSize || n != tc.maxFiles {
				t.Errorf("limits: got %d bytes, %d files, want %d, %d", size, n, tc.maxSize, tc.maxFiles)
			}
			if got := strings.Join(a.Field.Meta.MimeTypes, ","); got != tc.mimeTypes {
				t.Errorf("mimeTypes: got %q, want %q", got, tc.mimeTypes)
			}
			if got := strings.Join(a.Field.Meta.Thumbs, ","); got != tc.thumb {
				t.Errorf("thumbs: got %q, want %q", got, tc.thumb)
			}
		})
		t.Run("the JSON Schema of "+tc.field+" states its limits for forms", func(t *testing.T) {
			p := c.JSONSchema()["properties"].(map[string]any)[tc.field].(map[string]any)
			if got := p["x-maxSize"]; got != float64(tc.maxSize) {
				t.Errorf("x-maxSize: got %v, want %d", got, tc.maxSize)
			}
			files, multiple := p["x-maxFiles"]
			if multiple != (tc.field == "gallery") || (multiple && files != float64(tc.maxFiles)) {
				t.Errorf("x-maxFiles: got %v, want %d only for a multiple field", files, tc.maxFiles)
			}
			join := func(v any) string {
				l, _ := v.([]any)
				out := make([]string, len(l))
				for i, e := range l {
					out[i], _ = e.(string)
				}
				return strings.Join(out, ",")
			}
			if got := join(p["x-mimeTypes"]); got != tc.mimeTypes {
				t.Errorf("x-mimeTypes: got %q, want %q", got, tc.mimeTypes)
			}
			if got := join(p["x-thumbs"]); got != tc.thumb {
				t.Errorf("x-thumbs: got %q, want %q", got, tc.thumb)
			}
		})
	}
}
