// Package openapi builds the OpenAPI 3.1 document of kit's HTTP API from a
// collection registry.
//
// [Build] describes, for every stored collection, its list (every query
// parameter with the limits in force), create, bulk delete, update,
// delete, the single fetch of fetchStrategy "restful" collections, the
// tree, move and reorder endpoints of tree and sortable collections and
// the super-admin read; kit's metadata routes; the accounts routes; the
// error shape ([SchemaError]) with every status each operation answers;
// and the two security schemes, a bearer API token and the sign-in
// session cookie. Each answer that carries a record also carries its
// ETag, and updates and deletes take If-Match (412 when stale).
//
// # Names
//
// Component schemas are named by the specification's rules for types
// ([collections.TypeNames]): shopProducts gives Product (a record as
// answered, every attribute present), ProductInput (a create body: the
// writable fields, the required ones without a default required) and
// ProductResponse (a page: items and pagination). The list parameters are
// spelled out on the list operation, each with its limits; kit gen types
// gathers them as ProductQuery. Decimals are strings with a pattern, dates
// strings of format date-time, references carry x-refTarget (the target's
// registry key). The record and input schemas are the collection's own
// ([collections.Collection.RecordSchema], [collections.Collection.InputSchema]),
// from the same field mapping that validates bodies, with three changes
// for the tools that read the document: defaults move into the
// description, a decimal input is a string (the server also takes a JSON
// number), and an array without an items schema gets an empty one.
//
// # Tools
//
// The document is written for the common tools to consume as served:
// every enum has a type, no schema lists two value types, each component
// is referred to (component responses no operation uses are left out of
// the encoding), and every operation has a tag and a description.
// @stoplight/spectral-cli's spectral:oas ruleset finds nothing to report,
// and oapi-codegen (types and client) and ogen (client) generate Go
// clients from it that compile; web/ and this package's tests run them.
//
// # Serving and extending
//
// kit serves the document at GET {prefix}/kit/openapi.json (to
// authenticated callers) and returns it from kit.Kit.OpenAPI; `kit openapi
// [--schemas DIR]` prints it. Routes added outside kit's core are
// described by whoever adds them, through kit.Kit.DescribeAPI: the events
// add-on and package external describe theirs with [Document.Add],
// [Document.AddSchema], [Operation.AddErrors] and the component names
// exported here.
//
// # Proof
//
// The tests validate the document against the official OpenAPI 3.1 JSON
// Schema (testdata/, with its source) using jsonschema/v6, compile every
// component schema, resolve every $ref, send every operation to a real
// server, and check real answers against their schemas; web/ runs
// @readme/openapi-parser and openapi-typescript plus tsc over it.
package openapi
