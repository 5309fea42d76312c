package kit_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
)

// busy reports whether err looks like SQLite lock contention, which the
// DSN's busy_timeout and _txlock=immediate exist to prevent.
func busy(err error) bool {
	s := err.Error()
	return strings.Contains(s, "SQLITE_BUSY") || strings.Contains(s, "database is locked") || strings.Contains(s, "SQLITE_LOCKED")
}

// TestConcurrentCreates runs 16 goroutines of 50 creates each and expects
// every one of the 800 to succeed: on a SQLite WAL file (with no
// SQLITE_BUSY, the point of the DSN's busy_timeout and _txlock=immediate),
// on an in-memory SQLite database, and on PostgreSQL.
func TestConcurrentCreates(t *testing.T) {
	const workers, perWorker = 16, 50
	databases := []struct {
		name string
		cfg  func(t *testing.T) kit.Config
	}{
		{"800 creates on a WAL file database all succeed", func(t *testing.T) kit.Config { return kit.Config{SQLitePath: tempDBPath(t)} }},
		{"800 creates on an in-memory database all succeed", func(t *testing.T) kit.Config { return kit.Config{SQLitePath: memPath(t)} }},
		// Skipped, saying how to enable it, without KIT_TEST_POSTGRES.
		{"800 creates on PostgreSQL all succeed", func(t *testing.T) kit.Config {
			return kit.Config{DB: testdb.Open(t, testdb.EnginePostgres)}
		}},
	}
	for _, db := range databases {
		t.Run(db.name, func(t *testing.T) {
			cfg := db.cfg(t)
			cfg.Definitions = shopDefs()
			k := newKitConfig(t, cfg)
			if strings.Contains(db.name, "WAL") {
				var mode string
				if err := k.DB().QueryRowContext(t.Context(), "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
					t.Fatalf("journal_mode: got %q (%v), want wal", mode, err)
				}
			}
			var txHooks, hooks atomic.Int64
			k.OnMutationTx(func(context.Context, bun.Tx, *kit.Mutation) error { txHooks.Add(1); return nil })
			k.OnMutation(func(context.Context, kit.Mutation) { hooks.Add(1) })

			for w := range workers {
				seedActors(t, k, kit.Actor{UserID: fmt.Sprint("user-", w), TeamID: teamA})
			}
			var wg sync.WaitGroup
			var ok atomic.Int64
			errs := make(chan error, workers*perWorker)
			for w := range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					a := kit.Actor{UserID: fmt.Sprint("user-", w), TeamID: teamA}
					for i := range perWorker {
						_, err := k.Records(productsKey).Create(context.Background(), a, map[string]any{
							"title": fmt.Sprintf("w%d-%d", w, i), "sku": fmt.Sprintf("SKU-%d-%d", w, i), "price": fmt.Sprintf("%d.%02d", i, w),
						})
						if err != nil {
							errs <- fmt.Errorf("worker %d create %d: %w", w, i, err)
							continue
						}
						ok.Add(1)
					}
				}()
			}
			wg.Wait()
			close(errs)
			var nBusy, nOther int
			for err := range errs {
				if busy(err) {
					nBusy++
				} else {
					nOther++
				}
				if nBusy+nOther <= 5 {
					t.Error(err)
				}
			}
			if nBusy > 0 {
				t.Errorf("SQLITE_BUSY/locked errors: got %d, want 0", nBusy)
			}
			if got := ok.Load(); got != workers*perWorker {
				t.Errorf("successful creates: got %d/%d (%d busy, %d other errors)", got, workers*perWorker, nBusy, nOther)
			}
			l := mustList(t, k, productsKey, aliceA, query("pageSize", "1"))
			if l.Pagination.TotalItems != workers*perWorker {
				t.Errorf("List totalItems: got %d, want %d", l.Pagination.TotalItems, workers*perWorker)
			}
			if got := countRows(t, k, productsTable); got != workers*perWorker {
				t.Errorf("rows: got %d, want %d", got, workers*perWorker)
			}
			if txHooks.Load() != workers*perWorker || hooks.Load() != workers*perWorker {
				t.Errorf("hooks: got tx %d after %d, want %d each", txHooks.Load(), hooks.Load(), workers*perWorker)
			}
		})
	}
}

// TestConcurrentUniqueCreates races 16 creates of one unique value: one
// wins, the rest are 409 conflicts, none is an internal error.
func TestConcurrentUniqueCreates(t *testing.T) {
	testdb.Each(t, testConcurrentUniqueCreates)
}

func testConcurrentUniqueCreates(t *testing.T, e testdb.Engine) {
	// testdb.Shared: a SQLite file (WAL, as in production) or a fresh
	// PostgreSQL schema.
	k := newKitConfig(t, kit.Config{DB: testdb.Shared(t, e)(), Definitions: shopDefs()})
	const n = 16
	for i := range n {
		seedActors(t, k, kit.Actor{UserID: fmt.Sprint("user-", i), TeamID: teamA})
	}
	var wg sync.WaitGroup
	var won, conflicts atomic.Int64
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := kit.Actor{UserID: fmt.Sprint("user-", i), TeamID: teamA}
			_, err := k.Records(productsKey).Create(context.Background(), a, map[string]any{"title": "race", "sku": "ONLY-ONE"})
			var ce *kit.ConstraintError
			switch {
			case err == nil:
				won.Add(1)
			case errors.As(err, &ce) && kit.StatusOf(err) == 409:
				conflicts.Add(1)
			default:
				t.Errorf("create %d: got %v (status %d), want success or 409", i, err, kit.StatusOf(err))
			}
		}()
	}
	wg.Wait()
	if won.Load() != 1 || conflicts.Load() != n-1 {
		t.Errorf("got %d created and %d conflicts, want 1 and %d", won.Load(), conflicts.Load(), n-1)
	}
	if got := countRows(t, k, productsTable); got != 1 {
		t.Errorf("rows: got %d, want 1", got)
	}
}

// TestConcurrentMixedTenantTraffic runs two teams' creates, updates,
// deletes and lists side by side and checks that each team ends with
// exactly its own records.
func TestConcurrentMixedTenantTraffic(t *testing.T) {
	testdb.Each(t, testConcurrentMixedTenantTraffic)
}

func testConcurrentMixedTenantTraffic(t *testing.T, e testdb.Engine) {
	k := newKitConfig(t, kit.Config{DB: testdb.Shared(t, e)(), Definitions: shopDefs()})
	const perTeam, rounds = 4, 25
	for _, team := range []string{teamA, teamB} {
		for w := range perTeam {
			seedActors(t, k, kit.Actor{UserID: fmt.Sprintf("%s-user-%d", team, w), TeamID: team})
		}
	}
	var wg sync.WaitGroup
	for _, team := range []string{teamA, teamB} {
		for w := range perTeam {
			wg.Add(1)
			go func() {
				defer wg.Done()
				a := kit.Actor{UserID: fmt.Sprintf("%s-user-%d", team, w), TeamID: team}
				r := k.Records(productsKey)
				ctx := context.Background()
				for i := range rounds {
					rec, err := r.Create(ctx, a, map[string]any{"title": fmt.Sprintf("%s %d %d", team, w, i)})
					if err != nil {
						t.Errorf("create: %v", err)
						return
					}
					id := rec["id"].(string)
					if _, err := r.Update(ctx, a, id, map[string]any{"description": "touched"}); err != nil {
						t.Errorf("update: %v", err)
					}
					l, err := r.List(ctx, a, query("pageSize", "5"))
					if err != nil {
						t.Errorf("list: %v", err)
						continue
					}
					for _, it := range l.Items {
						if it["teamId"] != team {
							t.Errorf("team %s listed a record of %v", team, it["teamId"])
						}
					}
					if i%5 == 0 {
						if err := r.Delete(ctx, a, id); err != nil {
							t.Errorf("delete: %v", err)
						}
					}
				}
			}()
		}
	}
	wg.Wait()
	want := perTeam * (rounds - rounds/5)
	for _, a := range []kit.Actor{aliceA, carolB} {
		l := mustList(t, k, productsKey, a, query("filter", `{"description":"touched"}`))
		if l.Pagination.TotalItems != want {
			t.Errorf("team %s: got %d records, want %d", a.TeamID, l.Pagination.TotalItems, want)
		}
	}
}
