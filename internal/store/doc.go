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
