// Package events is kit's audit add-on: it records every create, update
// and delete of a [kit.Kit]'s records as an [Event] with field-level
// changes, serves the events to the members of each team, and cleans up old
// ones.
//
// Unlike a tracker in the browser, it writes each event on the server,
// committed with the mutation ([kit.Kit.OnMutationRows]): in its
// transaction, or, where kit writes a change as one statement (PostgreSQL),
// in that statement. No change commits without its event, and no event
// without its change, even when the process is killed half way.
//
// It is built only on kit's public extension points, as a host's own
// add-on would be.
//
// # Install
//
//	k, _ := kit.Open(ctx, kit.Config{Schemas: os.DirFS("schemas")})
//	tracker, err := events.Install(ctx, k, events.Config{})
//	if err != nil { ... }
//	tracker.StartRetention(ctx, time.Hour) // optional: cleanup every hour until ctx ends
//	mux.Handle("/api/", k.Handler())
//
// Install creates the kit_events table (a bun/migrate migration recorded
// in kit_migrations), registers the mutation listener and adds the routes.
//
// # Configuration
//
// [Config] mirrors the spec's public.kitEvents, and its zero value is that
// config's defaults: tracking enabled, user names snapshotted, error mode
// toast with console logging, retention on with 90 days and 100000 events.
// Because Go bools default to false, the switches are named for turning
// things off (Config.Disabled, Config.NoUserNameSnapshot,
// ErrorHandling.NoConsoleLog, Retention.Disabled), so that a Config
// literal setting one field leaves every other at the spec's default. A
// Config unmarshals from, and marshals to, the spec's JSON shape
// ({"enabled": true, "errorHandling": {"mode": "toast"}, ...}).
//
// # What is tracked
//
// One event per create, update and delete (one per record for a delete of
// several), with the acting user, the user's name at event time (unless
// Config.NoUserNameSnapshot), and metadata holding the correlation id and
// the request's user agent and remote address. The changes follow these
// rules:
//
//   - create: a new-value entry for each field set, in schema order;
//     null fields and the auto-generated id, teamId, owner, createdAt,
//     updatedAt, createdBy and updatedBy are left out;
//   - update: an entry for each field whose value changed (compared as
//     JSON, so {"a":1,"b":2} equals {"b":2,"a":1.0}), with old and new
//     value (kit fires no hook for an update that sets the stored values,
//     so it has no event);
//   - delete: no entries and no copy of the deleted record;
//   - move and reorder, when kit has them: the position fields that
//     changed, and the new order of itemIds.
//
// Values are JSON-encoded strings ("Hammer" is stored as "\"Hammer\""), or
// null for none, as the spec's EventChange says.
//
// # Error modes
//
// A tracking failure (the insert fails, the user lookup fails) is handled
// by ErrorHandling.Mode:
//
//   - [ModeThrow]: the mutation fails with a 500 and rolls back; nothing is
//     written.
//   - [ModeSilent]: the change commits without its event; the failure is
//     logged unless ErrorHandling.NoConsoleLog.
//   - [ModeToast] (default): as silent; with kit.Config.Dev on the response
//     also carries an X-Kit-Event-Warning header ([WarningHeader]).
//
// In silent and toast modes a failure must leave the change able to
// commit. On PostgreSQL, where a failed statement aborts the whole
// transaction, the insert runs in a savepoint (opened, used and released
// in one round trip) that a failure rolls back to; a one-statement write
// whose statement the server refuses runs again without its event. On
// SQLite a failed statement undoes only itself, so there is no savepoint
// (it would copy every page the insert touches); after a failure a probe
// tells whether the failure took the whole transaction with it (an I/O
// error, a full disk, an interrupt). When the transaction is lost, or the
// rollback to the savepoint fails, the mutation fails whatever the mode.
// Every attempt and failure is counted in the [Health] record
// ([Tracker.Health], and GET /api/kit-events/health for super-admins).
//
// # Endpoints
//
// Under kit's prefix (default /api):
//
//	GET  /teams/{team}/kit-events             a team's events, newest first
//	POST /teams/{team}/kit-collection-events  manual tracking (201, the events written)
//	GET  /kit-events/health                   the health record (super-admins)
//
// The team routes admit members of the route's team only (401, 403, 404
// as kit's collection routes), and read and write that team's events
// only. The list takes collectionName, operation, userId, itemId,
// dateFrom and dateTo (RFC 3339, or YYYY-MM-DD meaning the whole day),
// page (default 1), pageSize (default 50, at most 100) and enrichUserData,
// and answers kit's list shape {"items": [...], "pagination": {...}}; a
// bad parameter is a 400 naming it ("data": {"param": "..."}). Manual
// tracking takes the spec's tracking options ([TrackOptions]); the team and
// user come from the route and the credentials, never from the body. It
// records an event about a record only when the caller could make that
// change now ([Tracker.TrackAs], through [kit.Records.CanChange]): a
// record of another team or of none is a 404, a teammate's record the
// caller may not change a 403, as the change itself would answer.
//
// # Cleanup and retention
//
// [Tracker.CleanupOldEvents] deletes, over all teams, the events older
// than the retention days, then the oldest ones beyond the maximum count,
// in short batched statements; DryRun reports the same numbers and deletes
// nothing. [Tracker.StartRetention] runs it periodically: instances
// sharing a database claim each period through kit's periodic record
// ([kit.Kit.ClaimPeriod]), so they clean up once per interval between
// them; Retention.Lock replaces that claim with your own. The kit command
// runs a cleanup from the shell: "kit events cleanup [--dry-run]".
//
// # Storage
//
// Table kit_events: id (UUIDv7), team_id, timestamp, operation,
// collection_name, item_id, user_id, user_name, changes and metadata (JSON
// as TEXT, the same on SQLite and PostgreSQL). changes holds
// [fieldName, oldValue, newValue] triples, a third smaller than the spec's
// objects; the API answers the objects. Indexes: (team_id, timestamp, id),
// (team_id, collection_name, timestamp), (team_id, item_id, timestamp),
// (team_id, user_id, timestamp) for the list, and (timestamp, id) for
// cleanup.
//
// # Stability
//
// Version 0.1.0, Beta: feature-complete, minor changes possible. The
// tracking of create, update and delete and the stored event structure are
// stable; the query API and the user enrichment may change between beta
// versions. The add-on requires kit's collection layer.
package events
