// Package pgopen opens a PostgreSQL *bun.DB the way kit recommends: pgx's
// database/sql driver in simple-protocol mode (bun inlines values, so
// server-side prepared statements would only cost memory, and simple
// protocol is PgBouncer-safe) with a bounded pool that keeps the
// connections it opened until they idle for minutes. The kit package
// itself imports no PostgreSQL driver; the command and the tests use this.
package pgopen
