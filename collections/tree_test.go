package collections

import (
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// treeFolder is a schemas folder with one collection, docs/folders, and
// the given kit.config.json settings for it.
func treeFolder(schema, settings string) fstest.MapFS {
	return fstest.MapFS{
		"docs/folders.json": {Data: []byte(schema)},
		"kit.config.json":   {Data: []byte(`{"folders": ` + settings + `}`)},
	}
}

const folderSchema = `{"title": {"type": "string", "meta": {"required": true}}}`

func loadFolders(t *testing.T, schema, settings string) *Collection {
	t.Helper()
	reg, _, err := Load(treeFolder(schema, settings), LoadOptions{})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	c, ok := reg.Get("docsFolders")
	if !ok {
		t.Fatal("docsFolders not registered")
	}
	return c
}

func attrNames(c *Collection) []string {
	var out []string
	for _, a := range c.Attributes() {
		out = append(out, a.Name)
	}
	return out
}

func TestManagedAttributes(t *testing.T) {
	cases := []struct {
		name, settings string
		want           []string
		managed        map[string]Managed
		columns        map[string]string
		tree, ordered  bool
	}{
		{name: "a tree has parentId, path, depth and order after the schema fields", settings: `{"hierarchy": {"enabled": true}}`,
			want:    []string{"id", "teamId", "owner", "title", "parentId", "path", "depth", "order", "createdAt", "updatedAt", "createdBy", "updatedBy"},
			managed: map[string]Managed{"parentId": ManagedParent, "path": ManagedPath, "depth": ManagedDepth, "order": ManagedOrder},
			columns: map[string]string{"parentId": "parent_id", "order": "order"}, tree: true, ordered: true},
		{name: "a tree uses the field names of its config", settings: `{"hierarchy": {"enabled": true, "parentField": "parentFolderId", "pathField": "trail", "depthField": "level", "orderField": "position"}}`,
			want:    []string{"id", "teamId", "owner", "title", "parentFolderId", "trail", "level", "position", "createdAt", "updatedAt", "createdBy", "updatedBy"},
			managed: map[string]Managed{"parentFolderId": ManagedParent, "trail": ManagedPath, "level": ManagedDepth, "position": ManagedOrder},
			columns: map[string]string{"parentFolderId": "parent_folder_id"}, tree: true, ordered: true},
		{name: "a sortable collection has an order only", settings: `{"sortable": {"enabled": true}}`,
			want:    []string{"id", "teamId", "owner", "title", "order", "createdAt", "updatedAt", "createdBy", "updatedBy"},
			managed: map[string]Managed{"order": ManagedOrder}, ordered: true},
		{name: "a sortable collection uses its orderField", settings: `{"sortable": {"enabled": true, "orderField": "rank"}, "useMetadata": false}`,
			want: []string{"id", "teamId", "owner", "title", "rank"}, managed: map[string]Managed{"rank": ManagedOrder}, ordered: true},
		{name: "a disabled hierarchy adds nothing", settings: `{"hierarchy": {"enabled": false}, "sortable": {"enabled": false}}`,
			want: []string{"id", "teamId", "owner", "title", "createdAt", "updatedAt", "createdBy", "updatedBy"}},
		{name: "with both enabled the hierarchy wins", settings: `{"hierarchy": {"enabled": true}, "sortable": {"enabled": true, "orderField": "rank"}}`,
			want:    []string{"id", "teamId", "owner", "title", "parentId", "path", "depth", "order", "createdAt", "updatedAt", "createdBy", "updatedBy"},
			managed: map[string]Managed{"order": ManagedOrder}, tree: true, ordered: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := loadFolders(t, folderSchema, tc.settings)
			if got := attrNames(c); !slices.Equal(got, tc.want) {
				t.Errorf("attributes: got %v, want %v", got, tc.want)
			}
			for name, role := range tc.managed {
				a, ok := c.Attribute(name)
				if !ok || a.Managed != role || !a.System || a.Field != nil {
					t.Errorf("%s: got %+v, want a system attribute managed as %s", name, a, role)
				}
				if got, ok := c.ManagedAttribute(role); !ok || got.Name != name {
					t.Errorf("ManagedAttribute(%s): got %v, want %s", role, got, name)
				}
			}
			for name, col := range tc.columns {
				if a, _ := c.Attribute(name); a == nil || a.Column != col {
					t.Errorf("column of %s: got %v, want %s", name, a, col)
				}
			}
			if c.IsTree() != tc.tree || c.IsOrdered() != tc.ordered {
				t.Errorf("IsTree, IsOrdered: got %v, %v, want %v, %v", c.IsTree(), c.IsOrdered(), tc.tree, tc.ordered)
			}
		})
	}
	t.Run("a tree and sortable together warn that sortable is ignored", func(t *testing.T) {
		_, warnings, err := Load(treeFolder(folderSchema, `{"hierarchy": {"enabled": true}, "sortable": {"enabled": true}}`), LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, w := range warnings {
			found = found || w.Severity == SeverityWarning && strings.Contains(w.Message, "sortable is ignored")
		}
		if !found {
			t.Errorf("warnings: got %v, want one saying sortable is ignored", warnings)
		}
	})
	t.Run("the depth and order are numbers, the parent and path strings", func(t *testing.T) {
		c := loadFolders(t, folderSchema, `{"hierarchy": {"enabled": true}}`)
		for name, typ := range map[string]FieldType{"parentId": TypeString, "path": TypeString, "depth": TypeNumber, "order": TypeNumber} {
			if a, _ := c.Attribute(name); a.Type != typ || !a.Sortable() {
				t.Errorf("%s: got type %s, want a sortable %s", name, a.Type, typ)
			}
		}
	})
	t.Run("an external collection never gets managed attributes", func(t *testing.T) {
		reg, _, err := Build([]Definition{{Name: "catalog", External: true, Config: &Config{Hierarchy: &Hierarchy{Enabled: true}}}}, LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		c, _ := reg.Get("catalog")
		if c.IsTree() || c.IsOrdered() || len(c.Attributes()) != 3 {
			t.Errorf("got tree %v, ordered %v, attributes %v, want none of it", c.IsTree(), c.IsOrdered(), attrNames(c))
		}
	})
}

func TestManagedFieldLoadErrors(t *testing.T) {
	cases := []struct {
		name, schema, settings string
		field, contains        string
	}{
		{name: "a schema that defines parentId in a tree is an error naming the field",
			schema: `{"title": {"type": "string"}, "parentId": {"type": "string"}}`, settings: `{"hierarchy": {"enabled": true}}`,
			field: "parentId", contains: `duplicate key "parentId": kit manages parentId as the hierarchy.parentField`},
		{name: "a schema that defines path in a tree is an error",
			schema: `{"path": {"type": "string"}}`, settings: `{"hierarchy": {"enabled": true}}`, field: "path", contains: "hierarchy.pathField"},
		{name: "a schema that defines depth in a tree is an error",
			schema: `{"depth": {"type": "number"}}`, settings: `{"hierarchy": {"enabled": true}}`, field: "depth", contains: "hierarchy.depthField"},
		{name: "a schema that defines order in a tree is an error",
			schema: `{"order": {"type": "number"}}`, settings: `{"hierarchy": {"enabled": true}}`, field: "order", contains: "hierarchy.orderField"},
		{name: "a schema that defines the order of a sortable collection is an error",
			schema: `{"order": {"type": "number"}}`, settings: `{"sortable": {"enabled": true}}`, field: "order", contains: "sortable.orderField"},
		{name: "a schema field named like a custom orderField is an error",
			schema: `{"position": {"type": "number"}}`, settings: `{"sortable": {"enabled": true, "orderField": "position"}}`, field: "position", contains: "sortable.orderField"},
		{name: "a schema field whose column is the parent's column is an error",
			schema: `{"parentID": {"type": "string"}}`, settings: `{"hierarchy": {"enabled": true}}`, field: "parentID", contains: `column name "parent_id"`},
		{name: "a field name that is not an identifier is an error",
			schema: folderSchema, settings: `{"hierarchy": {"enabled": true, "parentField": "parent_id"}}`, contains: `hierarchy.parentField "parent_id" must be a camelCase identifier`},
		{name: "an auto-generated field name is an error",
			schema: folderSchema, settings: `{"sortable": {"enabled": true, "orderField": "createdAt"}}`, contains: `sortable.orderField "createdAt" is an auto-generated field`},
		{name: "two managed fields with one name are an error",
			schema: folderSchema, settings: `{"hierarchy": {"enabled": true, "depthField": "level", "orderField": "level"}}`, contains: `hierarchy.orderField "level" is also hierarchy.depthField`},
		{name: "an unknown moveRole is an error",
			schema: folderSchema, settings: `{"hierarchy": {"enabled": true, "moveRole": "boss"}}`, contains: `hierarchy.moveRole "boss" must be one of member, admin, owner`},
		{name: "an unknown reorderRole is an error",
			schema: folderSchema, settings: `{"sortable": {"enabled": true, "reorderRole": "anyone"}}`, contains: `sortable.reorderRole "anyone" must be one of`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			reg, _, err := Load(treeFolder(tc.schema, tc.settings), LoadOptions{})
			var le *LoadError
			if reg != nil || !errors.As(err, &le) || !errors.Is(err, ErrInvalidSchema) {
				t.Fatalf("got %v, %v, want a *LoadError", reg, err)
			}
			for _, f := range le.Findings {
				if f.File == "docs/folders.json" && f.Collection == "folders" && f.Field == tc.field && f.Severity == SeverityError &&
					strings.Contains(f.Message, tc.contains) {
					return
				}
			}
			t.Errorf("got findings %v, want docs/folders.json: folders.%s: ...%s...", le.Findings, tc.field, tc.contains)
		})
	}
	t.Run("the same names are fine when the hierarchy is off", func(t *testing.T) {
		loadFolders(t, `{"parentId": {"type": "string"}, "order": {"type": "number"}}`, `{"hierarchy": {"enabled": false}}`)
	})
	t.Run("a Go definition that defines parentId names the collection and field", func(t *testing.T) {
		_, _, err := Build([]Definition{{Name: "folders", Layer: "docs", Config: &Config{Hierarchy: &Hierarchy{Enabled: true}},
			Fields: []Field{{Name: "parentId", Type: TypeString}}}}, LoadOptions{})
		var le *LoadError
		if !errors.As(err, &le) || !strings.Contains(err.Error(), "folders.parentId: duplicate key") {
			t.Errorf("got %v, want a finding on folders.parentId", err)
		}
	})
	t.Run("moveRole and reorderRole merge like the field names", func(t *testing.T) {
		reg, _, err := Load(treeFolder(folderSchema, `{"hierarchy": {"enabled": true, "moveRole": "admin"}}`),
			LoadOptions{Overrides: map[string]Config{"folders": {Hierarchy: &Hierarchy{Enabled: true, OrderField: "position"}}}})
		if err != nil {
			t.Fatal(err)
		}
		c, _ := reg.Get("docsFolders")
		if h := c.config.Hierarchy; h.MoveRole != "admin" || h.OrderField != "position" || c.ArrangeRole() != "admin" {
			t.Errorf("got %+v, want moveRole admin and orderField position", *h)
		}
	})
}

func TestManagedFieldsInBodies(t *testing.T) {
	tree := loadFolders(t, folderSchema, `{"hierarchy": {"enabled": true}}`)
	list := loadFolders(t, folderSchema, `{"sortable": {"enabled": true}}`)

	t.Run("a create keeps the parent and drops path, depth and order", func(t *testing.T) {
		got, err := tree.ValidateCreate(map[string]any{"title": "a", "parentId": "p1", "path": "/x/", "depth": 3, "order": 0})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got["parentId"] != "p1" || got["title"] != "a" {
			t.Errorf("got %v, want title and parentId only", got)
		}
	})
	t.Run("a create keeps a null parent", func(t *testing.T) {
		got, err := tree.ValidateCreate(map[string]any{"title": "a", "parentId": nil})
		if v, ok := got["parentId"]; err != nil || !ok || v != nil {
			t.Errorf("got %v, %v, want parentId null", got, err)
		}
	})
	for _, bad := range []any{"", 5, true, map[string]any{}, "a\x00b", strings.Repeat("x", 129)} {
		t.Run("a create refuses a parent that is not an id", func(t *testing.T) {
			_, err := tree.ValidateCreate(map[string]any{"title": "a", "parentId": bad})
			var ve *ValidationError
			if !errors.As(err, &ve) || !strings.Contains(ve.Fields["parentId"], "must be the id of a record") {
				t.Errorf("parent %#v: got %v, want a ValidationError on parentId", bad, err)
			}
		})
	}
	updates := []struct {
		name  string
		c     *Collection
		field string
		want  string
	}{
		{"an update refuses parentId and points at move", tree, "parentId", `PATCH /teams/{team}/docs-folders/{id}/move {"parentId", "order"}`},
		{"an update refuses path and points at move", tree, "path", "/{id}/move"},
		{"an update refuses depth and points at move", tree, "depth", "/{id}/move"},
		{"an update refuses a tree's order and points at move and reorder", tree, "order", "PATCH /teams/{team}/docs-folders/reorder"},
		{"an update refuses a sortable order and points at reorder", list, "order", "PATCH /teams/{team}/docs-folders/reorder"},
	}
	for _, tc := range updates {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.c.ValidateUpdate(map[string]any{"title": "b", tc.field: nil})
			var ve *ValidationError
			if !errors.As(err, &ve) || !strings.Contains(ve.Fields[tc.field], tc.want) || ve.HTTPStatus() != 400 {
				t.Errorf("got %v, want a 400 on %s containing %q", err, tc.field, tc.want)
			}
		})
	}
	t.Run("the record schema describes the managed fields", func(t *testing.T) {
		props := tree.JSONSchema()["properties"].(map[string]any)
		for name, want := range map[string]string{"parentId": `x-refTarget:docsFolders`, "path": "readOnly:true", "depth": "type:integer", "order": "readOnly:true"} {
			p, ok := props[name].(map[string]any)
			if !ok {
				t.Errorf("%s: missing from the schema", name)
				continue
			}
			k, v, _ := strings.Cut(want, ":")
			if got := p[k]; got == nil || !strings.EqualFold(fmtAny(got), v) && fmtAny(got) != v {
				t.Errorf("%s.%s: got %v, want %s", name, k, got, v)
			}
		}
	})
}

func fmtAny(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		if x {
			return "true"
		}
		return "false"
	}
	return ""
}

func TestManagedFieldsInLists(t *testing.T) {
	tree := loadFolders(t, folderSchema, `{"hierarchy": {"enabled": true}}`)
	list := loadFolders(t, folderSchema, `{"sortable": {"enabled": true, "orderField": "rank"}}`)
	paged := loadFolders(t, folderSchema, `{"sortable": {"enabled": true}, "defaultPagination": {"sortBy": "title", "sortDirection": "asc"}}`)
	cases := []struct {
		name   string
		c      *Collection
		params string
		sort   string
	}{
		{"a sortable list sorts by its order ascending by default", list, "", "rank,id"},
		{"a tree list sorts by order ascending by default", tree, "", "order,id"},
		{"defaultPagination wins over the order", paged, "", "title,id"},
		{"a tree sorts by depth and path on request", tree, "sort=depth,-path", "depth,-path,-id"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v, _ := url.ParseQuery(tc.params)
			q, err := tc.c.ParseListQuery(v, QueryLimits{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, k := range q.Sort {
				s := k.Attr.Name
				if k.Desc {
					s = "-" + s
				}
				got = append(got, s)
			}
			if strings.Join(got, ",") != tc.sort {
				t.Errorf("sort: got %v, want %s", got, tc.sort)
			}
		})
	}
	t.Run("a null parent filter selects the roots", func(t *testing.T) {
		q, err := tree.ParseListQuery(url.Values{"filter": {`{"parentId": null, "depth": {"lte": 2}}`}}, QueryLimits{})
		if err != nil {
			t.Fatal(err)
		}
		if len(q.Filter) != 2 || q.Filter[1].Attr.Name != "parentId" || q.Filter[1].Op != OpIsNull {
			t.Errorf("filter: got %+v, want depth lte and parentId is null", q.Filter)
		}
	})
	t.Run("search leaves the managed fields out", func(t *testing.T) {
		for _, a := range tree.Attributes() {
			if a.Managed != "" && !a.System {
				t.Errorf("%s: managed but not System, so search would look in it", a.Name)
			}
		}
	})
}
