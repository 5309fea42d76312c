package store_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/store"
	"github.com/collectionkit/kit/internal/testdb"
)

// batchRun is one run of concurrent creates on PostgreSQL: two that take
// the statements' slots while a lock holds them back, then the queued
// ones, which share the next statement once the lock is released.
type batchRun struct {
	f          *fixture
	statements atomic.Int64
	errs       map[string]error
}

// batchRecord returns the record and change of product id of team t1.
func batchRecord(id, sku string) (store.Record, *store.Change) {
	now := time.Now().UTC().Truncate(time.Microsecond)
	rec := store.Record{"id": id, "teamId": "t1", "owner": "u1", "title": "title " + id, "price": "12.50", "weight": 1.5, "isActive": true,
		"publishedAt": now, "specs": map[string]any{"a": 1.0}, "tags": []any{"x"}, "createdAt": now, "updatedAt": now, "createdBy": "u1", "updatedBy": "u1"}
	rec["sku"] = nil // every create names the same columns, as kit's do
	if sku != "" {
		rec["sku"] = sku
	}
	return rec, &store.Change{TeamID: "t1", Collection: "shopProducts", Operation: "create", ItemIDs: []string{id}, CorrelationID: "corr-" + id, Timestamp: now.UnixMilli()}
}

// run creates first (the slot holders) and then queued, each with its
// sku (none when empty), under ctxOf's context (ctx when nil), runs
// whileQueued (when not nil) once all of queued wait, and returns once
// every create has returned.
func (b *batchRun) run(t *testing.T, first, queued []string, skus map[string]string, ctxOf func(id string) context.Context, whileQueued func()) {
	t.Helper()
	f, ctx := b.f, t.Context()
	lock, err := f.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Rollback()
	if _, err := lock.ExecContext(ctx, "LOCK TABLE shop_products IN SHARE MODE"); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	b.errs = map[string]error{}
	start := func(id string) {
		wg.Go(func() {
			c := ctx
			if ctxOf != nil {
				c = ctxOf(id)
			}
			rec, ch := batchRecord(id, skus[id])
			err := f.s.InsertLogged(c, f.products, rec, ch)
			mu.Lock()
			b.errs[id] = err
			mu.Unlock()
		})
	}
	for _, id := range first {
		start(id)
	}
	waitFor(t, func() bool { return blockedOnLock(t, f) == len(first) })
	for _, id := range queued {
		start(id)
	}
	waitFor(t, func() bool { return f.s.QueuedInserts() == len(queued) })
	if whileQueued != nil {
		whileQueued()
	}
	b.statements.Store(0)
	if err := lock.Commit(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
}

// blockedOnLock counts the connections of this test's database waiting
// for a lock.
func blockedOnLock(t *testing.T, f *fixture) int {
	t.Helper()
	var n int
	if err := f.db.QueryRowContext(t.Context(), `SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// waitFor polls cond for up to ten seconds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting")
		}
	}
}

// changeRows returns the change log's item ids and correlation ids, in
// position order.
func changeRows(t *testing.T, f *fixture) (ids, corrs []string) {
	t.Helper()
	rows, err := f.db.QueryContext(t.Context(), `SELECT item_ids, correlation_id FROM kit_changes WHERE collection = 'shopProducts' AND operation = 'create' ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var item, corr string
		if err := rows.Scan(&item, &corr); err != nil {
			t.Fatal(err)
		}
		ids, corrs = append(ids, item), append(corrs, corr)
	}
	return ids, corrs
}

// TestConcurrentCreatesOnPostgreSQLShareAStatement: creates of a
// collection that arrive while its statements' slots are taken wait and
// then go together in one statement, each record with its own row count
// and change row; a batch PostgreSQL rejects (a unique value taken twice)
// writes each create on its own, so only the one that breaks the rule
// fails; a create whose context ends while it waits writes nothing; a
// batch under a guard writes all its creates when the guard holds and none
// when it does not.
func TestConcurrentCreatesOnPostgreSQLShareAStatement(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		if e != testdb.EnginePostgres {
			t.Skip("SQLite writes through its queue")
		}
		cases := []struct {
			name       string
			queued     int
			skus       map[string]string // by the queued creates' index
			cancel     int               // index of a queued create cancelled while it waits, or -1
			guardWant  int64             // 0: no guard; the counter holds 7
			failed     []int             // queued creates that must fail
			oneOf      bool              // only one of failed fails, either
			statements int64             // issued after the slot holders' (the batch's, and any retries)
		}{
			{name: "creates that arrive while both slots are taken share one statement", queued: 4, cancel: -1, statements: 1},
			{name: "a statement takes a power of two of the waiting creates", queued: 7, cancel: -1, statements: 3},
			{name: "a batch with a unique value taken twice writes each create on its own", queued: 4, skus: map[string]string{"1": "dup", "2": "dup"}, cancel: -1, failed: []int{1, 2}, oneOf: true, statements: 1 + 4},
			{name: "a create whose context ends while it waits writes nothing", queued: 3, cancel: 1, failed: []int{1}, statements: 1},
			{name: "a batch under a guard that holds writes every create", queued: 4, cancel: -1, guardWant: 7, statements: 1},
			{name: "a batch under a stale guard writes none of its creates", queued: 4, cancel: -1, guardWant: 6, failed: []int{0, 1, 2, 3}, statements: 1},
		}
		for n, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				f := newFixture(t, e)
				ctx := t.Context()
				if err := store.CreateChangesTable(ctx, f.db); err != nil {
					t.Fatal(err)
				}
				query := newCounter(t, f.db, 7)
				b := &batchRun{f: f}
				f.s.ObserveQueries(func(string, []any) { b.statements.Add(1) })
				first := []string{fmt.Sprintf("c%d-first-a", n), fmt.Sprintf("c%d-first-b", n)}
				var queued []string
				skus := map[string]string{}
				for i := range c.queued {
					id := fmt.Sprintf("c%d-queued-%d", n, i)
					queued = append(queued, id)
					if s, ok := c.skus[fmt.Sprint(i)]; ok {
						skus[id] = s
					}
				}
				cancelCtx, cancel := context.WithCancel(ctx)
				guards := map[string]*store.WriteGuard{}
				var gmu sync.Mutex
				ctxOf := func(id string) context.Context {
					cx := ctx
					if c.cancel >= 0 && id == queued[c.cancel] {
						cx = cancelCtx
					}
					if c.guardWant != 0 {
						g := store.NewWriteGuard(query, c.guardWant)
						gmu.Lock()
						guards[id] = g
						gmu.Unlock()
						cx = store.WithWriteGuard(cx, g)
					}
					return cx
				}
				defer cancel()
				b.run(t, first, queued, skus, ctxOf, func() {
					if c.cancel >= 0 {
						cancel()
						waitFor(t, func() bool { return f.s.QueuedInserts() == c.queued-1 })
					}
				})
				if got := b.statements.Load(); got != c.statements {
					t.Errorf("statements after the release: got %d, want %d", got, c.statements)
				}
				var want []string
				stale := c.guardWant != 0 && c.guardWant != 7
				failures := 0
				for _, id := range append(slices.Clone(first), queued...) {
					i := slices.Index(queued, id)
					err := b.errs[id]
					if err != nil {
						failures++
					}
					switch {
					case stale || i >= 0 && slices.Contains(c.failed, i) && !c.oneOf:
						if err == nil {
							t.Errorf("create %s: got no error, want one", id)
						}
					case i >= 0 && slices.Contains(c.failed, i):
						if err == nil {
							want = append(want, id)
						}
					case err != nil:
						t.Errorf("create %s: got %v, want no error", id, err)
					default:
						want = append(want, id)
					}
				}
				if c.oneOf && failures != 1 {
					t.Errorf("failed creates: got %d, want 1", failures)
				}
				if got := countOf(t, f.db, "shop_products"); got != len(want) {
					t.Errorf("records: got %d, want %d", got, len(want))
				}
				if got := keptCount(t, f.db); got != len(want) {
					t.Errorf("kept row count: got %d, want %d", got, len(want))
				}
				ids, corrs := changeRows(t, f)
				var gotIDs []string
				for i, item := range ids {
					var id string
					if _, err := fmt.Sscanf(item, `["%s`, &id); err != nil {
						t.Fatalf("item ids %q: %v", item, err)
					}
					id = id[:len(id)-2] // the closing "]
					gotIDs = append(gotIDs, id)
					if corrs[i] != "corr-"+id {
						t.Errorf("change of %s: got correlation id %q, want %q", id, corrs[i], "corr-"+id)
					}
				}
				slices.Sort(gotIDs)
				slices.Sort(want)
				if !slices.Equal(gotIDs, want) {
					t.Errorf("change rows for: got %v, want %v", gotIDs, want)
				}
				for i, id := range queued {
					switch err := b.errs[id]; {
					case c.cancel == i:
						if !errors.Is(err, context.Canceled) {
							t.Errorf("cancelled create: got %v, want context.Canceled", err)
						}
					case c.oneOf && err == nil:
					case c.skus[fmt.Sprint(i)] != "" && slices.Contains(c.failed, i):
						var ce *store.ConstraintError
						if !errors.As(err, &ce) || ce.Kind != collections.ConstraintUnique || ce.Field != "sku" {
							t.Errorf("create with a taken sku: got %v, want a unique ConstraintError on sku", err)
						}
					case c.guardWant != 0:
						wantState := store.GuardConfirmed
						if c.guardWant != 7 {
							wantState = store.GuardRefused
							if !errors.Is(err, store.ErrWriteGuardRefused) {
								t.Errorf("create %s under a stale guard: got %v, want ErrWriteGuardRefused", id, err)
							}
						}
						if got := guards[id].State(); got != wantState {
							t.Errorf("guard of %s: got %v, want %v", id, got, wantState)
						}
					}
				}
			})
		}
	})
}
