package collections

import "testing"

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
