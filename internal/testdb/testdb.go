// Package testdb gives each test its own real database: an isolated
// in-memory SQLite database, and (when KIT_TEST_POSTGRES holds a connection
// string) a fresh PostgreSQL schema that is dropped when the test ends.
package testdb

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/internal/store"
)

var seq atomic.Int64

// SQLite opens an in-memory SQLite database private to t and closes it when
// t ends.
func SQLite(t testing.TB) *bun.DB {
	t.Helper()
	name := fmt.Sprintf("%s-%d", strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()), seq.Add(1))
	db, err := store.OpenSQLite(":memory:" + name)
	if err != nil {
		t.Fatalf("open sqlite: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
