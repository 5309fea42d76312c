// Package collections is kit's domain model: it reads collection schemas
// from a folder or from Go, checks them against the naming rules, resolves
// each collection's CollectionConfig, validates record bodies and parses
// list queries. It knows neither HTTP nor SQL; packages kit and
// internal/store build on it.
//
// # Schema files
//
// [Load] reads a schemas folder from any [io/fs.FS] (an embed.FS,
// os.DirFS, a testing/fstest.MapFS). Each collection is one JSON file
// named after it, keyed by field name:
//
//	schemas/
//	  kit.config.json        settings keyed by collection name or registry key
//	  tags.json              layer "app" (LoadOptions.DefaultLayer)
//	  shop/
//	    products.json        layer "shop"
//	    categories.json
//
// A field entry has a "type" (one of the eleven [FieldType] values:
// string, text, number, decimal, boolean, date, json, repeater, array,
// image, file), an optional "meta" object (required, label, default,
// precision, scale, unique, uniqueIgnoreCase, index, integer, area,
// displayAs, renamedFrom; maxSize, mimeTypes, multiple, maxFiles and thumbs on
// image and file fields) and, on string fields, an optional "refTarget" naming the
// collection it refers to:
//
//	{
//	  "title":      {"type": "string", "meta": {"required": true, "label": "Title"}},
//	  "price":      {"type": "decimal", "meta": {"precision": 10, "scale": 2}},
//	  "categoryId": {"type": "string", "refTarget": "categories"}
//	}
//
// Sub-directories are layers and nest one level. A collection "products"
// in layer "shop" has the registry key "shopProducts" ([RegistryKey]), the
// default apiPath "shop-products" and the table "shop_products". Every
// record also carries the auto-generated fields id, teamId and owner, and
// createdAt, updatedAt, createdBy and updatedBy unless useMetadata is
// false; a schema that defines one of them is a "duplicate key" error
// ([IsSystemField]).
//
// # Go definitions
//
// Hosts that prefer code describe collections as [Definition] values and
// pass them to [Build], or to [Load] next to the files so that references
// may cross between the two. A Definition without a layer takes the
// default layer; its Config overrides the defaults like kit.config.json
// does, and [LoadOptions.Overrides] applies over both.
//
// # Naming rules
//
// Collection names are plural camelCase identifiers ("products",
// "blogPosts", "categories", "people"), never generic ("items", "data",
// "records"); field and layer names are camelCase identifiers. Breaking
// those rules is an error. The conventions are warnings: dates end in
// "At", booleans start with "is", "has" or "can", references end in "Id",
// and names spell words out instead of abbreviating them. The plural check
// knows English ("people", "categories", "statuses"; uncountable words such
// as "news" count as plural); [Load] reports its findings and "kit lint"
// prints them.
//
// # Collection config
//
// Each collection's [Config] is its CollectionConfig, the shape clients
// read under kitCollections. It starts from defaults (kind "data",
// container "slideover", apiPath "<layer>-<name>", fetchStrategy "query",
// a component and a display name derived from the key), takes the
// settings of kit.config.json, then the Definition's Config, then the
// overrides, and finally derives what follows from the fields: references
// from refTarget fields, the runtime field metadata, and the default field
// names of an enabled hierarchy (parentId, path, depth, order) or sortable
// (order). Those names become attributes kit keeps ([Managed],
// [Collection.ManagedAttribute]); a schema that defines one is an error.
// Keys kit does not know are kept in [Config.Extra] and written
// back. A [Registry] holds the collections by registry key; its JSON is
// the kitCollections object.
//
// # Validation
//
// Load and Build report every problem of a folder in one pass: errors
// come back together in a [*LoadError] (matching [ErrInvalidSchema]),
// warnings as a separate list. Each [Finding] names the file, the
// collection and the field.
//
// For records, [Collection.ValidateCreate] applies defaults and enforces
// required fields, and [Collection.ValidateUpdate] checks only the fields
// present. Both refuse unknown fields, wrong types and NUL bytes with a
// [*ValidationError] naming each field (matching [ErrValidation]), ignore
// the auto-generated fields, and return canonical values
// ([NormalizeValue]): decimals as exact strings ([ParseDecimal]), dates as
// UTC times ([ParseDate]). [Collection.JSONSchema] is the same contract as
// a JSON Schema for clients.
//
// # List queries
//
// [Collection.ParseListQuery] turns the list parameters (page, pageSize or
// limit, search, sort or sortBy and sortDirection, filter, ids) into a
// [ListQuery] within [QueryLimits]. Every field it names is the
// collection's own [*Attribute], so no name from a request reaches SQL;
// every filter value has its field's canonical type. A bad parameter is a
// [*QueryError] naming it (matching [ErrBadQuery]).
package collections
