// Package sqlexec runs SQL through database/sql with real driver arguments
// instead of bun's inlined values, with a bounded cache of prepared
// statements. The SQL text of a query shape is then the same for every
// call, so SQLite compiles it once per connection instead of once per
// call, and PostgreSQL gets values from the driver, never from text kit
// formatted. Queries are written with "?" placeholders; List arguments
// expand to one placeholder per value.
//
// On PostgreSQL only keyed statements are prepared (QueryKeyed, ExecKeyed,
// QueryRowKeyed: reads and writes by key, whose plan is the same whatever
// the values), so that the server reuses their plan instead of planning
// each call; the others (lists, filters, searches, ranges) are planned for
// their values on every call, as a generic plan could suit some values
// and not others.
//
// Statements run this way bypass the query hooks of the *bun.DB, so a
// Runner calls its own Hook (a bun.QueryHook, such as bunotel's or
// bundebug's) around each one. Exec, Query and QueryRow (and their Keyed
// forms) use the statement cache; ExecOnce, QueryOnce and QueryRowOnce are
// for DDL and one-off shapes, which would only fill it.
//
// A statement stops when its context ends, except on SQLite one whose
// context is marked Bounded (work bounded by design: a few lookups by
// key, a count with a limit): it runs to its end and costs no goroutine
// watching its context.
package sqlexec
