// Package typegen writes the types of a registry's collections in Go and
// TypeScript: what `kit gen types` prints.
//
// For each collection kit stores it declares the types the specification's
// naming rules name ([collections.TypeNames]): the record (Product), the
// input (ProductInput: the writable fields, the required ones required),
// the list query (ProductQuery) and the list response (ProductResponse).
// The record's attributes, their order, nullability, read-only attributes,
// labels and references come from the collection's JSON Schema
// ([collections.Collection.JSONSchema]) and attribute list, the same ones
// kit validates bodies with, so the generated types say what the server
// does.
//
// # Go
//
// [LangGo] writes one file of structs with json tags: a Decimal string
// type for decimals (exact, as kit sends them), time.Time for dates,
// pointers for values that may be null (in the record) or left out (in the
// input), json.RawMessage for json fields, a Values method that encodes a
// query as the list endpoint's URL parameters, and constants with each
// collection's registry key and apiPath. It imports only the standard
// library and fits the Go client's typed access:
//
//	products := client.Typed[kittypes.Product](c.Team("acme").Collection(kittypes.ShopProductsKey))
//
// # TypeScript and Vue
//
// [LangTS] writes a module without imports: interfaces, Decimal and
// DateTime aliases, a typed filter and sort per collection, and a
// collections constant with each collection's key, apiPath, fetch strategy
// and references. [LangVue] adds, per collection, the composables the
// specification names "layer prefix + collection name" on top of
// @collectionkit/vue: useShopProducts (a typed useCollectionQuery),
// useShopProductsItem (useCollectionItem) and useShopProductsMutation
// (useCollectionMutation, create taking ProductInput).
package typegen
