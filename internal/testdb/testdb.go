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
