package store_test

import (
	"testing"

	"github.com/collectionkit/kit/internal/testdb"
)

// TestWarmOpensThePoolsConnectionsOnPostgres checks that Warm opens, on
// PostgreSQL, the connections a burst of requests would, leaves them in
// the pool, and keeps one of the pool's connections free; and that on
// SQLite it opens none.
func TestWarmOpensThePoolsConnectionsOnPostgres(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		f := newFixture(t, e)
		before := f.db.Stats().OpenConnections
		f.s.Warm(t.Context(), f.reg)
		stats := f.db.Stats()
		if e == testdb.EngineSQLite {
			if stats.OpenConnections > max(before, 1) {
				t.Errorf("open connections after Warm: got %d, want at most %d", stats.OpenConnections, max(before, 1))
			}
			return
		}
		want := f.s.WarmConnCount()
		if want < 2 || want > stats.MaxOpenConnections-1 {
			t.Fatalf("connections to warm: got %d, want 2 to %d", want, stats.MaxOpenConnections-1)
		}
		if stats.OpenConnections < want {
			t.Errorf("open connections after Warm: got %d, want at least %d", stats.OpenConnections, want)
		}
		if stats.Idle < want {
			t.Errorf("idle connections after Warm: got %d, want at least %d (returned to the pool)", stats.Idle, want)
		}
	})
}
