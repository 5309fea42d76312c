package collections

import "sort"

// Singular returns the singular of the collection's name as the
// specification's naming rules inflect it ("products" is "product",
// "categories" "category", "blogPosts" "blogPost").
func (c *Collection) Singular() string { return singularize(c.name) }

// ComposableName returns the name of the collection's generated composable:
// "use" followed by the PascalCase registry key, so ("shop", "products") is
// "useShopProducts".
func (c *Collection) ComposableName() string { return "use" + pascal(c.key) }

// TypeNames returns, for each collection's registry key, the base name of
// its generated types: the singular PascalCase of the collection's name
// ("shopProducts" is "Product"). When two collections would share a name
// (the same name in two layers, or "posts" and "post"), each of them is
// prefixed with its PascalCase layer ("ShopProduct", "BlogProduct"); a name
// that still collides after that gets the full PascalCase singular of the
// registry key. The result is the same for any order of cols. The type
// suffixes are the specification's: Name+"Input", Name+"Query",
// Name+"Response".
func TypeNames(cols []*Collection) map[string]string {
	sorted := append([]*Collection(nil), cols...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].key < sorted[j].key })
	base := make(map[string]string, len(sorted))
	count := map[string]int{}
	for _, c := range sorted {
		n := pascal(singularize(c.name))
		base[c.key] = n
		count[n]++
	}
	out := make(map[string]string, len(sorted))
	taken := map[string]int{}
	for _, c := range sorted {
		n := base[c.key]
		if count[n] > 1 {
			n = pascal(c.layer) + n
		}
		out[c.key] = n
		taken[n]++
	}
	for _, c := range sorted {
		if taken[out[c.key]] > 1 {
			out[c.key] = pascal(singularize(c.key))
		}
	}
	return out
}
