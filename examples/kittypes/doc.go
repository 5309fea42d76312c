// Package kittypes holds the Go types of the example schemas
// (examples/schemas), written by kit gen types: Product, ProductInput,
// ProductQuery and ProductResponse for shopProducts, and the same for
// shopCategories (Category) and blogPosts (Post). The typegen tests keep
// kit_types.go equal to what the generator writes, and use it to
// round-trip records of a real kit server; the client package's examples
// read products into it with client.Typed.
package kittypes

//go:generate go run ../../cmd/kit gen types --lang go --schemas ../schemas --package kittypes --out kit_types.go
