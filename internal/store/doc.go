// Package store is kit's storage layer: everything that touches the
// database, on embedded SQLite (modernc.org/sqlite) or PostgreSQL, behind
// one [Store]. It owns the per-dialect column types and codecs, schema
// sync, team-scoped record CRUD and list queries, trees and orders, the
// search indexes, the write path ([Store.RunWrite]: a transaction of its
// own on PostgreSQL, the group-commit queue on SQLite), once-per-period
// claims ([Store.ClaimPeriod]) and the classification of driver errors
// into collections.ConstraintError. The layer above (package kit) asks it
// to run a write and never branches on the dialect.
//
// # Running SQL
//
// Every statement the Store makes goes through one runner
// (internal/sqlexec): SQL text with "?" placeholders and driver arguments,
// a bounded cache of prepared statements on SQLite for the record paths,
// and one hook ([Store.SetQueryHook], a bun.QueryHook) that sees each
// statement. Only kit's own bookkeeping tables are created with bun's
// query builder (the migrations). Identifiers come from validated
// definitions only; every value is a bound argument.
//
// # Writes on SQLite
//
// SQLite has one writer at a time, so the Store queues its writes in
// process and commits them in groups: the writes that arrive while a
// transaction commits run together in the next one, each in a savepoint
// of its own, and commit once; a failed write is rolled back to its
// savepoint alone. Before a group commits, the search index of a changed
// collection is flushed once its backlog reaches [SearchBacklogLimit]
// rows. With [Store.CheckpointWAL] (kit's own database file, opened with
// wal_autocheckpoint(0)), passive WAL checkpoints run on a goroutine of
// their own after group commits: every 20 ms while the queue holds a
// checkpoint pin, a pool connection in a read transaction that limits each
// checkpoint to the pages no commit changed since the previous one (see
// walpin.go), and at most every 100 ms without one. [Store.Close] waits
// for the queued writes and a running checkpoint and releases the pin.
//
// # Tables
//
// Each stored collection is a table <layer>_<collection> (snake_case) with
// the columns id, team_id, owner, one per schema field and, with metadata,
// created_at, updated_at, created_by and updated_by. Every query filters by
// team first and every index starts with team_id.
//
// # Trees and sortable collections
//
// A tree (hierarchy) adds the columns parent, path, depth and order
// (named by the collection's config) and the indexes (team_id, parent,
// order) and (team_id, path); a sortable collection adds order and
// (team_id, order). The path is the materialized path "/root/.../self/",
// so a subtree is one index range (path >= p AND path < p with its last
// byte incremented; the column is COLLATE "C" on PostgreSQL) and
// [Store.MoveSubtree] rewrites a whole subtree with one UPDATE.
// [Store.Renumber] keeps sibling orders 0..n-1 with one UPDATE over a
// window function. Writers of one team's order take [Store.LockOrder] (a
// PostgreSQL advisory transaction lock per table and team). Sync fills
// these columns when a collection with rows becomes a tree or sortable.
//
// # Codecs
//
// Values are canonical Go values (see collections.NormalizeValue) and are
// encoded per dialect: decimals are NUMERIC(p,s) on PostgreSQL and an
// order-preserving text key on SQLite; dates are TIMESTAMPTZ, or fixed-width
// UTC text; JSON fields are JSONB, or TEXT checked with json_valid.
//
// # Schema sync
//
// [Store.Sync] creates missing tables, adds new fields as nullable columns
// and creates missing indexes, recording each collection's normalized
// definition in kit_collections. It plans every table before it changes
// one (evolve.go): renames (meta.renamedFrom, a collection's renamedFrom),
// type changes converted in place when every stored value converts
// (convert.go), and the columns of removed fields kept until
// [SyncOptions] Drop; a change the data cannot take is an
// [ErrSchemaDrift], and nothing is changed. The DDL it produces for the
// example schemas is kept, per engine, in testdata/golden (go test -run
// Golden -update rewrites it).
//
// # Safety
//
// Only identifiers from validated definitions are written into SQL (and
// checked again against a strict pattern); every value is a bound argument.
// The package never imports net/http.
package store
