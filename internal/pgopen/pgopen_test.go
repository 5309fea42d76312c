package pgopen_test

import (
	"context"
	"sync"
	"testing"

	"github.com/collectionkit/kit/internal/pgopen"
	"github.com/collectionkit/kit/internal/testdb"
)

func TestAPoolKeepsTheConnectionsABurstOpened(t *testing.T) {
	dsn := testdb.PostgresDSN(t)
	tests := []struct {
		name     string
		opts     pgopen.Options
		wantOpen int
	}{
		{"the default pool keeps all 20", pgopen.Options{}, 20},
		{"a pool of 5 keeps its 5", pgopen.Options{MaxOpenConns: 5}, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, err := pgopen.Open(t.Context(), dsn, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			// A burst: every connection of the pool busy at once, held
			// until all of them are.
			var opened, release sync.WaitGroup
			opened.Add(tt.wantOpen)
			release.Add(1)
			errs := make(chan error, tt.wantOpen)
			for range tt.wantOpen {
				go func() {
					conn, err := db.Conn(context.Background())
					opened.Done()
					if err != nil {
						errs <- err
						return
					}
					release.Wait()
					_, err = conn.ExecContext(context.Background(), "SELECT 1")
					errs <- err
					errs <- conn.Close()
				}()
			}
			opened.Wait()
			release.Done()
			for range 2 * tt.wantOpen {
				if err := <-errs; err != nil {
					t.Fatal(err)
				}
			}
			st := db.Stats()
			if st.MaxOpenConnections != tt.wantOpen {
				t.Errorf("got a pool of %d, want %d", st.MaxOpenConnections, tt.wantOpen)
			}
			if st.Idle != tt.wantOpen || st.MaxIdleClosed != 0 {
				t.Errorf("got %d idle connections and %d closed for want of room after the burst, want %d and 0", st.Idle, st.MaxIdleClosed, tt.wantOpen)
			}
		})
	}
}
