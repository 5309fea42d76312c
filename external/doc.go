// Package external turns any data source into a kit collection: items with
// an "id" and a "title" that reference fields can point at, served by a
// handler of yours or proxied from another endpoint of the same team.
//
// It is an add-on built only on kit's public API: a host could write it.
//
// # Defining an external collection
//
// [DefineExternalCollection] validates a [Config] (the spec's
// ExternalCollectionConfig) and returns a [*Collection]. Its
// CollectionConfig has layer "external", componentName null, defaultValues
// {} and columns [], and the name, apiPath (default: the name), fetchStrategy (default "query"),
// readonly (default true), schema (the JSON Schema items satisfy, which
// always requires "id" and "title" strings), meta and proxy.
//
//	users, err := external.DefineExternalCollection(external.Config{
//		Name:    "teamUsers",
//		Schema:  json.RawMessage(`{"properties": {"email": {"type": "string"}}}`),
//		Meta:    external.Meta{Label: "Team users"},
//		Handler: external.CreateExternalCollectionHandler(fetchUsers, userItem),
//	})
//
// # Registering it
//
// [Register] adds the collections to a *kit.Kit, so that they appear in
// GET /api/kit/collections like any other, and mounts their endpoints at
// /api/teams/{team}/<apiPath> behind team membership. A stored collection
// whose reference field targets an external one must be built with it:
// pass [Collection.Definition] in kit.Config.Definitions, then call
// Register to mount the routes.
//
//	k, err := kit.Open(ctx, kit.Config{Definitions: []collections.Definition{
//		tasks,              // has {Name: "assigneeId", RefTarget: "teamUsers"}
//		users.Definition(),
//	}})
//	err = external.Register(ctx, k, users)
//
// # Handlers
//
// [CreateExternalCollectionHandler] makes a GET handler from a fetch
// function, which sees the request (route wildcards, caller, headers), and
// a transform from the source type to an [Item]. It answers a JSON array,
// honours ?ids=a,b (those items, in that order, unknown ids left out) and
// a route's {id} wildcard, and answers fetch errors in kit's error shape
// with the status they carry. An item whose transform fails is answered
// unchanged and logged with a message starting "[useCollectionProxy]
// Transform failed for item", as a proxy's is. Mount it wherever the data
// belongs, with kit's guards:
//
//	k.Handle("GET", "/admin/users", k.Auth().RequireAdmin()(h))
//	k.Handle("GET", "/users/{user}/subscriptions", k.Auth().RequireSelf()(h))
//
// # Proxies
//
// With Proxy.Enabled, the collection's endpoint serves the team's
// /api/teams/{team}/<Proxy.SourceEndpoint> through kit itself: the same
// caller, the same authorization (the source refuses whom it refuses), with
// Proxy.Transform applied to each item. A transform that fails for an item
// is logged with a message starting "[useCollectionProxy] Transform failed
// for item" and leaves that item unchanged. [ProxiedEndpoint] and
// [ApplyTransform] are the pure helpers behind it (useCollectionProxy).
//
// # Single items
//
// fetchStrategy "restful" serves GET .../<apiPath>/{id} as one object;
// "query" serves GET .../<apiPath>?ids={id} as an array, and answers the
// other form with 404 in kit's error shape.
package external
