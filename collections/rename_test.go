package collections

import (
	"strings"
	"testing"
)

func TestLoadChecksFieldRenames(t *testing.T) {
	tests := []schemaCase{
		{"a renamedFrom naming a field the collection has is an error", "products.json",
			`{"code": {"type": "string", "meta": {"renamedFrom": "title"}}, "title": {"type": "string"}}`,
			"code", `meta.renamedFrom "title" names field "title", which the collection has now`},
		{"a renamedFrom naming an auto-generated field is an error", "products.json",
			`{"code": {"type": "string", "meta": {"renamedFrom": "createdAt"}}}`,
			"code", `meta.renamedFrom "createdAt" names field "createdAt", which the collection has now`},
		{"a renamedFrom whose column is a current field's is an error", "products.json",
			`{"code": {"type": "string", "meta": {"renamedFrom": "userID"}}, "userId": {"type": "string"}}`,
			"code", `names field "userId", which the collection has now (column "user_id")`},
		{"two fields renamed from one name is an error", "products.json",
			`{"code": {"type": "string", "meta": {"renamedFrom": "sku"}}, "label": {"type": "string", "meta": {"renamedFrom": "sku"}}}`,
			"label", `meta.renamedFrom "sku" is also the former name of field "code"; two fields cannot be renamed from one`},
		{"a renamedFrom naming the field itself is an error", "products.json",
			`{"code": {"type": "string", "meta": {"renamedFrom": "code"}}}`,
			"code", "meta.renamedFrom names the field itself"},
		{"a renamedFrom that is not a camelCase name is an error", "products.json",
			`{"code": {"type": "string", "meta": {"renamedFrom": "old_code"}}}`,
			"code", `meta.renamedFrom "old_code" must be a camelCase field name`},
		{"a renamedFrom that is not a string is an error", "products.json",
			`{"code": {"type": "string", "meta": {"renamedFrom": 5}}}`,
			"code", "meta.renamedFrom has the wrong type"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			le, _ := loadError(t, mapFS(map[string]string{tc.file: tc.schema}), LoadOptions{})
			requireFinding(t, le.Findings, want{tc.file, "products", tc.field, SeverityError, tc.contains})
		})
	}
}

func TestLoadAcceptsFieldRenames(t *testing.T) {
	reg, _ := mustLoad(t, mapFS(map[string]string{"products.json": `{"code": {"type": "string", "meta": {"renamedFrom": "sku"}}}`}), LoadOptions{})
	a, ok := mustGet(t, reg, "appProducts").Attribute("code")
	if !ok || a.Field.Meta.RenamedFrom != "sku" {
		t.Fatalf("code's meta.renamedFrom: got %+v, want sku", a)
	}
}

func TestLoadChecksCollectionRenames(t *testing.T) {
	tests := []struct {
		name     string
		config   string
		contains string
	}{
		{"a renamedFrom naming a collection that exists is an error",
			`{"products": {"renamedFrom": "appCategories"}}`, `renamedFrom "appCategories" names collection "appCategories", which exists now`},
		{"two collections renamed from one key is an error",
			`{"products": {"renamedFrom": "appItems"}, "categories": {"renamedFrom": "appItems"}}`, `renamedFrom "appItems" is also the former key of collection`},
		{"a renamedFrom naming the collection itself is an error",
			`{"products": {"renamedFrom": "appProducts"}}`, "renamedFrom names the collection itself"},
		{"a renamedFrom that is not a registry key is an error",
			`{"products": {"renamedFrom": "app-items"}}`, `renamedFrom "app-items" must be a registry key`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			le, _ := loadError(t, mapFS(map[string]string{
				"products.json":   `{"title": {"type": "string"}}`,
				"categories.json": `{"name": {"type": "string"}}`,
				"kit.config.json": tc.config,
			}), LoadOptions{})
			for _, f := range le.Findings {
				if f.Severity == SeverityError && strings.Contains(f.Message, tc.contains) {
					return
				}
			}
			t.Errorf("got findings\n  %s\nwant one containing %q", joinFindings(le.Findings), tc.contains)
		})
	}
}

func TestLoadAcceptsCollectionRenames(t *testing.T) {
	reg, _ := mustLoad(t, mapFS(map[string]string{
		"products.json":   `{"title": {"type": "string"}}`,
		"kit.config.json": `{"products": {"renamedFrom": "appItems"}}`,
	}), LoadOptions{})
	if got := mustGet(t, reg, "appProducts").RenamedFrom(); got != "appItems" {
		t.Errorf("RenamedFrom: got %q, want appItems", got)
	}
}
