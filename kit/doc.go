// Package kit turns schema files into multi-tenant collections with
// team-scoped REST endpoints, and gives host code the same record API in Go.
//
// # Embedding
//
// A host app builds one Kit and mounts its handler on any router:
//
//	k, err := kit.Open(ctx, kit.Config{Schemas: os.DirFS("schemas")})
//	if err != nil {
//		log.Fatal(err)
//	}
//	defer k.Close()
//	mux := http.NewServeMux()
//	mux.Handle("/api/", k.Handler())
//
// The zero Config runs on an embedded SQLite file (kit.db). Hand kit a
// PostgreSQL *bun.DB in [Config.DB] to run on PostgreSQL. [Open] does its
// database work (kit's own tables, schema sync) under the context it is
// given; [New] is Open with context.Background().
//
// # Collections
//
// Collections come from a schemas folder (one JSON file per collection,
// sub-directories as layers, an optional kit.config.json) and from Go
// definitions ([Config.Definitions], [Kit.Register]); see package
// collections for the format and the naming rules. Open syncs every
// collection's table: it creates what is missing, renames what a
// renamedFrom names, converts retyped fields when every stored value
// converts, keeps the columns of removed fields, and refuses the rest
// ([ErrSchemaDrift]) changing nothing; [PlanSchema] shows what it would
// do and [ApplySchema] does it (docs/schema-changes.md).
//
// # Tenancy
//
// Every record belongs to a team; the team comes from the route (or the
// [Actor]), never from a body, query or header. A record of another team
// answers exactly like a missing one: [ErrNotFound], HTTP 404. Members
// update, delete and move their own records; team admins and owners any
// record of the team. A member who changes another member's record, which
// they can read in the team's list, gets a 403 matching [ErrForbidden].
// [Records.CanChange] asks the same question without changing anything.
//
// # Record API
//
// [Kit.Records] gives Go code the list, get, create, update and delete
// operations the HTTP API uses, with the same validation, tenancy and
// hooks. The [Actor] a Go caller passes is trusted for its role, but its
// team (by id) and user must exist in the [Config.Directory]: a write as
// an actor of a missing team or user is teamauth.ErrTeamNotFound or
// teamauth.ErrUserNotFound, and writes nothing.
//
// # Conditional writes
//
// Single-record answers carry an ETag ([ETag] of the record: a digest of
// its stored state). PATCH, DELETE and move honour If-Match, and
// [Records.UpdateWith], [Records.DeleteWith] and [Records.MoveWith] take
// the same condition in [WriteOptions]: checked inside the write's
// transaction, a record changed since is a [*PreconditionError]
// ([ErrPrecondition], 412) with its current ETag and state, and nothing is
// written.
//
// # Mutation hook
//
// Every create, update and delete emits the kit:mutation payload
// ([Mutation]) twice: inside its transaction to [Kit.OnMutationTx]
// listeners, whose error rolls the change back, and after commit to
// [Kit.OnMutation] listeners. The events add-on writes its audit records in
// the first phase, so a change and its record commit together.
//
// # Change stream
//
// Every committed mutation also gets a row in a change log written in its
// own transaction, and GET {prefix}/teams/{team}/kit-changes streams the
// team's changes to its members as Server-Sent Events ([ChangeEvent]):
// resumable with Last-Event-ID, across instances and restarts, with the
// cache keys each change makes stale. [ChangesConfig] (Config.Changes)
// sets its limits; register [Kit.CloseStreams] with
// http.Server.RegisterOnShutdown.
//
// # Presence
//
// GET {prefix}/teams/{team}/kit-presence?collection=<key>[&item=<id>] is
// a presence channel beside it: while a member keeps it open, the other
// members with the same collection open see them ([PresenceEvent]), with
// the record they have open. It is team-scoped like the change stream,
// held in memory per instance, and set by [PresenceConfig]
// (Config.Presence); register [Kit.ClosePresence] for shutdown too.
//
// # Errors
//
// Errors carry their HTTP status (an HTTPStatus() int method): sentinels
// such as [ErrNotFound], typed errors such as [*ValidationError] (per-field
// messages), [*QueryError] (the parameter at fault) and
// [*ConstraintError]. The handler answers every error in one JSON shape,
// {"status","statusText","message","data"}; 5xx answers carry no internal
// detail and are logged with log/slog.
//
// # Add-ons
//
// [Kit.HandleTeam] and [Kit.Handle] add routes behind the same middleware,
// error shape and (for team routes) membership check; [Kit.Auth] gives the
// team helpers and guards; [SetResponseHeader] lets a mutation listener
// tell the caller something; [Kit.Migrate] runs an add-on's bun/migrate
// migrations in kit's migration tables; [Kit.DescribeAPI] describes the
// added routes in the OpenAPI document. The events and external packages
// are built on these alone.
//
// # OpenAPI
//
// [Kit.OpenAPI] returns the OpenAPI 3.1 document of the API as it is now
// (package openapi builds it from the registry; add-ons add their routes),
// and the handler serves it at GET {prefix}/kit/openapi.json to
// authenticated callers.
package kit
