package collections

import (
	"testing"
	"testing/fstest"
)

func TestTypeNames(t *testing.T) {
	col := func(layer, name string) *Collection {
		return &Collection{key: RegistryKey(layer, name), layer: layer, name: name}
	}
	tests := []struct {
		name string
		cols []*Collection
		want map[string]string
	}{
		{"a unique collection is named by its singular alone",
			[]*Collection{col("shop", "products"), col("shop", "categories")},
			map[string]string{"shopProducts": "Product", "shopCategories": "Category"}},
		{"two layers with the same collection name are prefixed with their layer",
			[]*Collection{col("shop", "products"), col("legacy", "products"), col("blog", "posts")},
			map[string]string{"shopProducts": "ShopProduct", "legacyProducts": "LegacyProduct", "blogPosts": "Post"}},
		{"a camelCase name keeps its words",
			[]*Collection{col("blog", "blogPosts")},
			map[string]string{"blogBlogPosts": "BlogPost"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := TypeNames(tt.cols)
			for k, want := range tt.want {
				if got[k] != want {
					t.Errorf("TypeNames()[%q] = %q, want %q", k, got[k], want)
				}
			}
		})
	}
}

func TestComposableNameIsUsePlusTheRegistryKey(t *testing.T) {
	c := &Collection{key: "shopProducts", layer: "shop", name: "products"}
	if got, want := c.ComposableName(), "useShopProducts"; got != want {
		t.Errorf("ComposableName() = %q, want %q", got, want)
	}
	if got, want := c.Singular(), "product"; got != want {
		t.Errorf("Singular() = %q, want %q", got, want)
	}
}

// TestTypeNamesOfIrregularPlurals loads one collection per plural through
// the real loader and checks the generated type name is its English
// singular in PascalCase.
func TestTypeNamesOfIrregularPlurals(t *testing.T) {
	tests := []struct{ collection, want string }{
		{"shelves", "Shelf"},
		{"leaves", "Leaf"},
		{"people", "Person"},
		{"news", "News"},
		{"children", "Child"},
		{"women", "Woman"},
		{"mice", "Mouse"},
		{"geese", "Goose"},
		{"teeth", "Tooth"},
		{"wolves", "Wolf"},
		{"knives", "Knife"},
		{"halves", "Half"},
		{"thieves", "Thief"},
		{"criteria", "Criterion"},
		{"phenomena", "Phenomenon"},
		{"analyses", "Analysis"},
		{"crises", "Crisis"},
		{"cacti", "Cactus"},
		{"matrices", "Matrix"},
		{"vertices", "Vertex"},
		{"indexes", "Index"},
		{"axes", "Axis"},
		{"statuses", "Status"},
		{"addresses", "Address"},
		{"quizzes", "Quiz"},
		{"heroes", "Hero"},
		{"caches", "Cache"},
		{"movies", "Movie"},
		{"archives", "Archive"},
		{"drives", "Drive"},
		{"series", "Series"},
		{"species", "Species"},
		{"sheep", "Sheep"},
		{"equipment", "Equipment"},
		{"metadata", "Metadata"},
		{"salesPeople", "SalesPerson"},
		{"bookShelves", "BookShelf"},
		{"pageURLs", "PageURL"},
	}
	for _, tt := range tests {
		t.Run(tt.collection+" are each a "+tt.want, func(t *testing.T) {
			reg, findings, err := Load(fstest.MapFS{tt.collection + ".json": {Data: []byte(`{"title": {"type": "string"}}`)}}, LoadOptions{})
			if err != nil {
				t.Fatalf("Load: got error %v (findings %v), want none", err, findings)
			}
			for _, f := range findings {
				if f.Severity == SeverityError {
					t.Errorf("got finding %v, want the name accepted as plural", f)
				}
			}
			if reg.Len() != 1 {
				t.Fatalf("got %d collections, want 1", reg.Len())
			}
			c := reg.All()[0]
			if got := TypeNames(reg.All())[c.Key()]; got != tt.want {
				t.Errorf("TypeNames()[%q]: got %q, want %q", c.Key(), got, tt.want)
			}
		})
	}
}
