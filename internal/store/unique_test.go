package store

import (
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
			var unique []string
			for _, ix := range indexesOf(c) {
				if ix.Unique {
					unique = append(unique, ix.Name)
				}
			}
			if (len(unique) == 1) != (tc.want != "") {
				t.Fatalf("unique indexes: got %v, want exactly one only when SoleUniqueField names a field (%q)", unique, tc.want)
			}
			if tc.want != "" && unique[0] != indexName("ux", c.Table(), collections.ColumnName(tc.want)) {
				t.Errorf("unique index: got %s, want the index of %s", unique[0], tc.want)
			}
		})
	}
}
