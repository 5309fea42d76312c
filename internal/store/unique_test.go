package store

import (
	"slices"
	"testing"

	"github.com/collectionkit/kit/collections"
)

// TestSoleUniqueFieldAgreesWithTheIndexes checks that SoleUniqueField,
// which reads the fields, names the field of the only unique index sync
// makes, and nothing when there are none or several.
func TestSoleUniqueFieldAgreesWithTheIndexes(t *testing.T) {
	tests := []struct {
		name   string
		fields []collections.Field
		want   string
	}{
		{"no unique field gives none", []collections.Field{{Name: "title", Type: collections.TypeString}}, ""},
		{"one unique field is named", []collections.Field{
			{Name: "title", Type: collections.TypeString},
			{Name: "sku", Type: collections.TypeString, Meta: collections.FieldMeta{Unique: true}},
		}, "sku"},
		{"one unique field ignoring case is named, though it has two unique indexes", []collections.Field{
			{Name: "title", Type: collections.TypeString},
			{Name: "sku", Type: collections.TypeString, Meta: collections.FieldMeta{Unique: true, UniqueIgnoreCase: true}},
		}, "sku"},
		{"two unique fields give none", []collections.Field{
			{Name: "sku", Type: collections.TypeString, Meta: collections.FieldMeta{Unique: true}},
			{Name: "code", Type: collections.TypeString, Meta: collections.FieldMeta{Unique: true}},
		}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reg, _, err := collections.Build([]collections.Definition{{Name: "parts", Layer: "shop", Fields: tc.fields}}, collections.LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			c, _ := reg.Get("shopParts")
			if got := SoleUniqueField(c); got != tc.want {
				t.Errorf("SoleUniqueField: got %q, want %q", got, tc.want)
			}
			var fields []string
			for _, ix := range indexesOf(c) {
				if !ix.Unique {
					continue
				}
				f := uniqueIndexField(c, ix.Name)
				if f == "" {
					t.Fatalf("unique index %s: got no field, want the field it keeps unique", ix.Name)
				}
				if !slices.Contains(fields, f) {
					fields = append(fields, f)
				}
			}
			if (len(fields) == 1) != (tc.want != "") {
				t.Fatalf("fields with unique indexes: got %v, want exactly one only when SoleUniqueField names a field (%q)", fields, tc.want)
			}
			if tc.want != "" && fields[0] != tc.want {
				t.Errorf("field with unique indexes: got %s, want %s", fields[0], tc.want)
			}
		})
	}
}

// uniqueIndexField names the field whose value the unique index name keeps
// unique: its own index, or the index of its unique key.
func uniqueIndexField(c *collections.Collection, name string) string {
	for _, a := range c.Attributes() {
		if a.Field == nil || !a.Field.Meta.Unique {
			continue
		}
		if indexName("ux", c.Table(), a.Column) == name || hasUniqueKey(a) && uniqueKeyIndex(c, a) == name {
			return a.Name
		}
	}
	return ""
}
