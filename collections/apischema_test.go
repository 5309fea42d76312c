package collections_test

import (
	"slices"
	"testing"

	"github.com/collectionkit/kit/collections"
)

func TestRecordAndInputSchemas(t *testing.T) {
	reg, _, err := collections.Build([]collections.Definition{{
		Name: "categories", Layer: "shop",
		Config: &collections.Config{Hierarchy: &collections.Hierarchy{Enabled: true}},
		Fields: []collections.Field{
			{Name: "title", Type: collections.TypeString, Meta: collections.FieldMeta{Required: true}},
			{Name: "rate", Type: collections.TypeDecimal, Meta: collections.FieldMeta{Required: true, Precision: 5, Scale: 2, Default: "1.00"}},
			{Name: "openedAt", Type: collections.TypeDate},
			{Name: "shelfCount", Type: collections.TypeNumber, Meta: collections.FieldMeta{Integer: true}},
		},
	}}, collections.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := reg.Get("shopCategories")
	record, create, update := c.RecordSchema(), c.InputSchema(false), c.InputSchema(true)
	props := func(s map[string]any) map[string]any { return s["properties"].(map[string]any) }
	prop := func(s map[string]any, name string) map[string]any {
		p, _ := props(s)[name].(map[string]any)
		return p
	}

	tests := []struct {
		name      string
		got, want any
	}{
		{"a record requires every attribute, auto-generated and managed ones included", len(record["required"].([]any)), len(c.Attributes())},
		{"a record's decimal is a string", prop(record, "rate")["type"], "string"},
		{"a record's date is date-time", prop(record, "openedAt")["format"], "date-time"},
		{"a record's optional date may be null", slices.Contains(prop(record, "openedAt")["type"].([]any), "null"), true},
		{"a create body requires the required fields without a default", create["required"], []any{"title"}},
		{"a create body's decimal may be a string or a number", prop(create, "rate")["type"], []any{"string", "number"}},
		{"a record's integer number is an integer", slices.Contains(prop(record, "shelfCount")["type"].([]any), "integer"), true},
		{"a create body's integer number is an integer", prop(create, "shelfCount")["type"], []any{"integer", "null"}},
		{"a create body's integer number is at least -2^53", prop(create, "shelfCount")["minimum"], -9007199254740992},
		{"a create body's integer number is at most 2^53", prop(create, "shelfCount")["maximum"], 9007199254740992},
		{"a create body may name the tree parent", prop(create, "parentId")["x-refTarget"], "shopCategories"},
		{"a create body holds no auto-generated field", prop(create, "id") == nil && prop(create, "createdAt") == nil, true},
		{"a create body holds no computed tree field", prop(create, "path") == nil && prop(create, "depth") == nil && prop(create, "order") == nil, true},
		{"an update body requires nothing", update["required"], nil},
		{"an update body cannot change the parent (the move endpoint does)", prop(update, "parentId") == nil, true},
		{"no $schema or $id, so the schemas embed", record["$schema"] == nil && create["$id"] == nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !equal(tt.got, tt.want) {
				t.Errorf("got %v, want %v", tt.got, tt.want)
			}
		})
	}
}

func equal(a, b any) bool {
	as, aok := a.([]any)
	bs, bok := b.([]any)
	if aok || bok {
		return aok && bok && slices.Equal(as, bs)
	}
	return a == b
}
