// Package store keeps collection records in SQL through bun, on embedded
// SQLite (modernc.org/sqlite) or PostgreSQL.
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
// definition in kit_collections. A removed field or a changed type is an
// [ErrSchemaDrift] unless destructive changes are allowed.
//
// # Safety
//
// Only identifiers from validated definitions are written into SQL (and
// checked again against a strict pattern); every value is a bound argument.
// The package never imports net/http.
package store
