// Package testdb gives each test its own real database: an isolated
// in-memory SQLite database, and (when KIT_TEST_POSTGRES holds a connection
// string) a fresh PostgreSQL schema that is dropped when the test ends.
package testdb
