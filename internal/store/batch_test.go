package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/store"
	"github.com/collectionkit/kit/internal/testdb"
)

// batchRun is one run of concurrent writes on PostgreSQL: two that take
// the statements' slots while a lock holds them back, then the queued
// ones, which share the next statements once the lock is released.
type batchRun struct {
	f *fixture
	// lockMode is the table lock that holds the first writes back
	// ("SHARE" when empty; reads need "ACCESS EXCLUSIVE").
	lockMode   string
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

// run writes first (the slot holders) and then queued, under ctxOf's
// context (the test's when nil), runs whileQueued (when not nil) once all
// of queued wait, and returns once every write has returned.
func (b *batchRun) run(t *testing.T, first, queued []string, write func(ctx context.Context, id string) error, ctxOf func(id string) context.Context, whileQueued func()) {
	t.Helper()
	f, ctx := b.f, t.Context()
	lock, err := f.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Rollback()
	mode := b.lockMode
	if mode == "" {
		mode = "SHARE"
	}
	if _, err := lock.ExecContext(ctx, "LOCK TABLE shop_products IN "+mode+" MODE"); err != nil {
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
			err := write(c, id)
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
	waitFor(t, func() bool { return f.s.QueuedWritesToShare() == len(queued) })
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

// changeRows returns the item ids and correlation ids of the change log's
// rows of operation op, in position order.
func changeRows(t *testing.T, f *fixture, op string) (ids, corrs []string) {
	t.Helper()
	rows, err := f.db.QueryContext(t.Context(), `SELECT item_ids, correlation_id FROM kit_changes WHERE collection = 'shopProducts' AND operation = ? ORDER BY id`, op)
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

// newBatchFixture returns a fixture with the change log and a guard
// counter holding 7, and the counter's guard query.
func newBatchFixture(t *testing.T, e testdb.Engine) (*fixture, string) {
	t.Helper()
	f := newFixture(t, e)
	if err := store.CreateChangesTable(t.Context(), f.db); err != nil {
		t.Fatal(err)
	}
	return f, newCounter(t, f.db, 7)
}

// wantChangeRows checks that the change log's rows of operation op are
// one for each write named in want (a write's name is its correlation id
// after "corr-"), each for the record recordOf names.
func wantChangeRows(t *testing.T, f *fixture, op string, recordOf func(name string) string, want []string) {
	t.Helper()
	items, corrs := changeRows(t, f, op)
	var got []string
	for i, item := range items {
		name := strings.TrimPrefix(corrs[i], "corr-")
		if id := itemID(t, item); id != recordOf(name) {
			t.Errorf("change row of %s: got item %q, want %q", name, id, recordOf(name))
		}
		got = append(got, name)
	}
	slices.Sort(got)
	want = slices.Sorted(slices.Values(want))
	if !slices.Equal(got, want) {
		t.Errorf("change rows for: got %v, want %v", got, want)
	}
}

// guardedContexts returns ctxOf, which gives each write (by name) ctx
// under a guard of its own wanting want from query (ctx itself when want
// is 0), and guards, which returns the guard a write was given.
func guardedContexts(ctx context.Context, query string, want int64) (ctxOf func(name string) context.Context, guards func(name string) *store.WriteGuard) {
	var mu sync.Mutex
	made := map[string]*store.WriteGuard{}
	ctxOf = func(name string) context.Context {
		if want == 0 {
			return ctx
		}
		g := store.NewWriteGuard(store.QueryCounter(query), want)
		mu.Lock()
		made[name] = g
		mu.Unlock()
		return store.WithWriteGuard(ctx, g)
	}
	guards = func(name string) *store.WriteGuard {
		mu.Lock()
		defer mu.Unlock()
		return made[name]
	}
	return ctxOf, guards
}

// itemID returns the one id of a change row's item_ids.
func itemID(t *testing.T, item string) string {
	t.Helper()
	var ids []string
	if err := json.Unmarshal([]byte(item), &ids); err != nil || len(ids) != 1 {
		t.Fatalf("item ids %q: got %v (%v), want one id", item, ids, err)
	}
	return ids[0]
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
				f, query := newBatchFixture(t, e)
				ctx := t.Context()
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
						g := store.NewWriteGuard(store.QueryCounter(query), c.guardWant)
						gmu.Lock()
						guards[id] = g
						gmu.Unlock()
						cx = store.WithWriteGuard(cx, g)
					}
					return cx
				}
				defer cancel()
				create := func(ctx context.Context, id string) error {
					rec, ch := batchRecord(id, skus[id])
					return f.s.InsertLogged(ctx, store.GuardOf(ctx), f.products, rec, ch)
				}
				b.run(t, first, queued, create, ctxOf, func() {
					if c.cancel >= 0 {
						cancel()
						waitFor(t, func() bool { return f.s.QueuedWritesToShare() == c.queued-1 })
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
				ids, corrs := changeRows(t, f, "create")
				var gotIDs []string
				for i, item := range ids {
					id := itemID(t, item)
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

// TestConcurrentDeletesOnPostgreSQLShareAStatement: deletes of a
// collection that arrive while its statements' slots are taken wait and
// then go together in one statement, each deleted record with its own row
// count and change row; in a batch, a record the team does not have is
// ErrNotFound while the others are deleted; two deletes of one record
// run alone, so only one is told it deleted it; a batch under a guard
// deletes when the guard holds and nothing when it does not.
func TestConcurrentDeletesOnPostgreSQLShareAStatement(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		if e != testdb.EnginePostgres {
			t.Skip("SQLite writes through its queue")
		}
		cases := []struct {
			name       string
			queued     []string // record keys: "r<n>" exists in t1, "other" in t2, "none" nowhere
			guardWant  int64    // 0: no guard; the counter holds 7
			notFound   []int    // queued deletes that must be ErrNotFound
			oneOf      []int    // of these queued deletes exactly one deletes, the others are not found
			statements int64    // issued after the slot holders'
		}{
			{name: "deletes that arrive while both slots are taken share one statement", queued: []string{"r0", "r1", "r2", "r3"}, statements: 1},
			{name: "a record the team does not have is not found while the batch deletes the others", queued: []string{"r0", "none", "other", "r1"}, notFound: []int{1, 2}, statements: 1},
			{name: "two deletes of one record in a batch run alone and only one deletes it", queued: []string{"r0", "r1", "r1", "r2"}, oneOf: []int{1, 2}, statements: 4},
			{name: "a batch under a guard that holds deletes every record", queued: []string{"r0", "r1", "r2", "r3"}, guardWant: 7, statements: 1},
			// The batch and one read of its guard, and the slot holders'
			// reads of theirs (their deletes found nothing).
			{name: "a batch under a stale guard deletes nothing", queued: []string{"r0", "r1", "r2", "r3"}, guardWant: 6, statements: 2 + 2},
		}
		for n, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				f, query := newBatchFixture(t, e)
				ctx := t.Context()
				ids := map[string]string{"none": fmt.Sprintf("d%d-none", n)}
				for i := range 4 {
					ids[fmt.Sprintf("r%d", i)] = f.insert(t, f.products, "t1", map[string]any{"title": "kept"})
				}
				ids["other"] = f.insert(t, f.products, "t2", map[string]any{"title": "other team"})
				first := []string{f.insert(t, f.products, "t1", nil), f.insert(t, f.products, "t1", nil)}
				var queued []string
				for i, k := range c.queued {
					queued = append(queued, fmt.Sprintf("%s#%d", ids[k], i)) // one name per delete
				}
				recordOf := func(name string) string { id, _, _ := strings.Cut(name, "#"); return id }
				b := &batchRun{f: f}
				f.s.ObserveQueries(func(string, []any) { b.statements.Add(1) })
				ctxOf, guards := guardedContexts(ctx, query, c.guardWant)
				del := func(ctx context.Context, name string) error {
					id := recordOf(name)
					ch := &store.Change{TeamID: "t1", Collection: "shopProducts", Operation: "delete", ItemIDs: []string{id}, CorrelationID: "corr-" + name}
					return f.s.DeleteLogged(ctx, store.GuardOf(ctx), f.products, "t1", id, ch)
				}
				rowsBefore, keptBefore := countOf(t, f.db, "shop_products"), keptCount(t, f.db)
				b.run(t, first, queued, del, ctxOf, nil)
				if got := b.statements.Load(); got != c.statements {
					t.Errorf("statements after the release: got %d, want %d", got, c.statements)
				}
				stale := c.guardWant != 0 && c.guardWant != 7
				var deleted []string
				oneOfDeleted := 0
				for _, name := range append(slices.Clone(first), queued...) {
					i, err := slices.Index(queued, name), b.errs[name]
					switch {
					case stale:
						if !errors.Is(err, store.ErrWriteGuardRefused) {
							t.Errorf("delete %s under a stale guard: got %v, want ErrWriteGuardRefused", name, err)
						}
						if got := guards(name).State(); got != store.GuardRefused {
							t.Errorf("guard of %s: got %v, want %v", name, got, store.GuardRefused)
						}
						continue
					case i >= 0 && slices.Contains(c.notFound, i):
						if !errors.Is(err, store.ErrNotFound) {
							t.Errorf("delete %s: got %v, want ErrNotFound", name, err)
						}
						continue
					case i >= 0 && slices.Contains(c.oneOf, i):
						if err == nil {
							oneOfDeleted++
							deleted = append(deleted, name)
						} else if !errors.Is(err, store.ErrNotFound) {
							t.Errorf("delete %s: got %v, want nil or ErrNotFound", name, err)
						}
						continue
					case err != nil:
						t.Errorf("delete %s: got %v, want no error", name, err)
						continue
					}
					deleted = append(deleted, name)
					if c.guardWant != 0 {
						if got := guards(name).State(); got != store.GuardConfirmed {
							t.Errorf("guard of %s: got %v, want %v", name, got, store.GuardConfirmed)
						}
					}
				}
				if len(c.oneOf) > 0 && oneOfDeleted != 1 {
					t.Errorf("deletes of the same record that deleted it: got %d, want 1", oneOfDeleted)
				}
				if got, want := rowsBefore-countOf(t, f.db, "shop_products"), len(deleted); got != want {
					t.Errorf("records deleted: got %d, want %d", got, want)
				}
				if got, want := keptBefore-keptCount(t, f.db), len(deleted); got != want {
					t.Errorf("records deleted by the kept row count: got %d, want %d", got, want)
				}
				wantChangeRows(t, f, "delete", recordOf, deleted)
			})
		}
	})
}

// TestConcurrentUpdatesOnPostgreSQLShareAStatement: updates of a
// collection that set and compare the same fields and arrive while its
// statements' slots are taken wait and then go together in one statement,
// each returning the record as it was and whether it was written, with a
// change row for each written; an update that changes nothing writes
// nothing; a record the team (or the owner) does not have is ErrNotFound
// while the others are written; a batch PostgreSQL rejects (a unique
// value taken) writes each update on its own; two updates of one record
// run alone; a batch under a stale guard writes nothing.
func TestConcurrentUpdatesOnPostgreSQLShareAStatement(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		if e != testdb.EnginePostgres {
			t.Skip("SQLite writes through its queue")
		}
		type upd struct {
			record string // "r<n>" of t1 (r3 owned by u2), "none"
			title  string // "": a new title of its own; "=": the stored one
			sku    string // set too when not empty
		}
		cases := []struct {
			name       string
			owner      string // every update's owner filter
			queued     []upd
			guardWant  int64 // 0: no guard; the counter holds 7
			notFound   []int
			unchanged  []int
			oneOf      []int // exactly one of these is written, the others fail
			same       []int // two updates of one record, one after the other
			statements int64 // issued after the slot holders'
		}{
			{name: "updates that arrive while both slots are taken share one statement", queued: []upd{{record: "r0"}, {record: "r1"}, {record: "r2"}, {record: "r3"}}, statements: 1},
			{name: "an update that changes nothing writes nothing and logs no change", queued: []upd{{record: "r0"}, {record: "r1", title: "="}, {record: "r2"}, {record: "r3"}}, unchanged: []int{1}, statements: 1},
			{name: "a record the team or the owner does not have is not found while the others are written", owner: "u1", queued: []upd{{record: "r0"}, {record: "none"}, {record: "r3"}, {record: "r1"}}, notFound: []int{1, 2}, statements: 1},
			{name: "a batch with a unique value taken twice writes each update on its own", queued: []upd{{record: "r0"}, {record: "r1", sku: "dup"}, {record: "r2", sku: "dup"}, {record: "r3"}}, oneOf: []int{1, 2}, statements: 1 + 4},
			{name: "two updates of one record in a batch run alone", queued: []upd{{record: "r0"}, {record: "r1"}, {record: "r1"}, {record: "r2"}}, same: []int{1, 2}, statements: 4},
			{name: "a batch under a guard that holds writes every update", queued: []upd{{record: "r0"}, {record: "r1"}, {record: "r2"}, {record: "r3"}}, guardWant: 7, statements: 1},
			// The batch and one read of its guard, and the slot holders'
			// reads of theirs (their updates found nothing).
			{name: "a batch under a stale guard writes nothing", queued: []upd{{record: "r0"}, {record: "r1"}, {record: "r2"}, {record: "r3"}}, guardWant: 6, statements: 2 + 2},
		}
		for n, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				f, query := newBatchFixture(t, e)
				ctx := t.Context()
				ids := map[string]string{"none": fmt.Sprintf("u%d-none", n)}
				for i := range 3 {
					ids[fmt.Sprintf("r%d", i)] = f.insert(t, f.products, "t1", map[string]any{"title": "stored"})
				}
				ids["r3"] = f.insert(t, f.products, "t1", map[string]any{"title": "stored"})
				if _, err := f.db.ExecContext(ctx, `UPDATE shop_products SET owner = 'u2' WHERE id = ?`, ids["r3"]); err != nil {
					t.Fatal(err)
				}
				first := []string{f.insert(t, f.products, "t1", map[string]any{"title": "stored"}), f.insert(t, f.products, "t1", map[string]any{"title": "stored"})}
				spec := map[string]upd{}
				var queued []string
				for i, q := range c.queued {
					name := fmt.Sprintf("%s#%d", ids[q.record], i)
					queued = append(queued, name)
					spec[name] = q
				}
				recordOf := func(name string) string { id, _, _ := strings.Cut(name, "#"); return id }
				b := &batchRun{f: f}
				f.s.ObserveQueries(func(string, []any) { b.statements.Add(1) })
				ctxOf, guards := guardedContexts(ctx, query, c.guardWant)
				var mu sync.Mutex
				befores, written := map[string]store.Record{}, map[string]bool{}
				write := func(ctx context.Context, name string) error {
					title := "new " + name
					if spec[name].title == "=" {
						title = "stored"
					}
					changes := store.Record{"title": title}
					if sku := spec[name].sku; sku != "" {
						changes["sku"] = sku
					}
					ch := &store.Change{TeamID: "t1", Collection: "shopProducts", Operation: "update", ItemIDs: []string{recordOf(name)}, CorrelationID: "corr-" + name}
					before, w, err := f.s.UpdateLogged(ctx, store.GuardOf(ctx), f.products, "t1", recordOf(name), c.owner, changes, store.Record{"title": title}, ch)
					mu.Lock()
					befores[name], written[name] = before, w
					mu.Unlock()
					return err
				}
				if c.queued[1].sku != "" {
					// Every update of the run sets the same fields.
					write = func(ctx context.Context, name string) error {
						sku := spec[name].sku
						if sku == "" {
							sku = "sku " + name
						}
						ch := &store.Change{TeamID: "t1", Collection: "shopProducts", Operation: "update", ItemIDs: []string{recordOf(name)}, CorrelationID: "corr-" + name}
						before, w, err := f.s.UpdateLogged(ctx, store.GuardOf(ctx), f.products, "t1", recordOf(name), c.owner, store.Record{"title": "new " + name, "sku": sku}, store.Record{"title": "new " + name}, ch)
						mu.Lock()
						befores[name], written[name] = before, w
						mu.Unlock()
						return err
					}
				}
				b.run(t, first, queued, write, ctxOf, nil)
				if got := b.statements.Load(); got != c.statements {
					t.Errorf("statements after the release: got %d, want %d", got, c.statements)
				}
				stale := c.guardWant != 0 && c.guardWant != 7
				var logged []string
				oneOfWritten := 0
				for _, name := range append(slices.Clone(first), queued...) {
					i, err := slices.Index(queued, name), b.errs[name]
					switch {
					case stale:
						if !errors.Is(err, store.ErrWriteGuardRefused) {
							t.Errorf("update %s under a stale guard: got %v, want ErrWriteGuardRefused", name, err)
						}
						continue
					case i >= 0 && slices.Contains(c.notFound, i):
						if !errors.Is(err, store.ErrNotFound) {
							t.Errorf("update %s: got %v, want ErrNotFound", name, err)
						}
						continue
					case i >= 0 && slices.Contains(c.oneOf, i):
						if err == nil {
							oneOfWritten++
							logged = append(logged, name)
						}
						continue
					case err != nil:
						t.Errorf("update %s: got %v, want no error", name, err)
						continue
					case i >= 0 && slices.Contains(c.same, i):
						logged = append(logged, name)
						continue
					}
					if got := befores[name]["title"]; got != "stored" {
						t.Errorf("update %s: got the record before with title %v, want %q", name, got, "stored")
					}
					if got, want := written[name], !(i >= 0 && slices.Contains(c.unchanged, i)); got != want {
						t.Errorf("update %s written: got %v, want %v", name, got, want)
					}
					if written[name] {
						logged = append(logged, name)
						if got := titleOf(t, f.db, recordOf(name)); got != "new "+name {
							t.Errorf("title of %s: got %q, want %q", name, got, "new "+name)
						}
					}
					if c.guardWant != 0 {
						if got := guards(name).State(); got != store.GuardConfirmed {
							t.Errorf("guard of %s: got %v, want %v", name, got, store.GuardConfirmed)
						}
					}
				}
				if len(c.same) == 2 {
					// The later of the two saw the earlier's title, and
					// left its own.
					a, b := queued[c.same[0]], queued[c.same[1]]
					if befores[a]["title"] != "stored" {
						a, b = b, a
					}
					if got := befores[b]["title"]; befores[a]["title"] != "stored" || got != "new "+a {
						t.Errorf("records before of two updates of one record: got %v and %v, want %q and %q", befores[a]["title"], got, "stored", "new "+a)
					}
					if got := titleOf(t, f.db, recordOf(a)); got != "new "+b {
						t.Errorf("title after two updates of one record: got %q, want %q", got, "new "+b)
					}
				}
				if len(c.oneOf) > 0 && oneOfWritten != 1 {
					t.Errorf("updates with the same unique value that were written: got %d, want 1", oneOfWritten)
				}
				if stale || len(c.notFound) > 0 {
					for _, name := range queued {
						if b.errs[name] != nil && recordOf(name) != ids["none"] {
							if got := titleOf(t, f.db, recordOf(name)); got != "stored" {
								t.Errorf("title of %s after a failed update: got %q, want %q", name, got, "stored")
							}
						}
					}
				}
				wantChangeRows(t, f, "update", recordOf, logged)
			})
		}
	})
}

// TestASharedStatementThatPanicsFailsItsWritesAndFreesItsSlot: when the
// statement of a batch panics (here in the query hook), the write that ran
// it panics on its own goroutine, the batch's other writes get an error
// instead of waiting forever or reporting success, and the shape's next
// writes run as usual.
func TestASharedStatementThatPanicsFailsItsWritesAndFreesItsSlot(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		if e != testdb.EnginePostgres {
			t.Skip("SQLite writes through its queue")
		}
		f, _ := newBatchFixture(t, e)
		b := &batchRun{f: f}
		var panics atomic.Int64
		f.s.ObserveQueries(func(q string, _ []any) {
			if strings.Contains(q, "SELECT * FROM (VALUES") && panics.Add(1) == 1 {
				panic("boom")
			}
		})
		create := func(ctx context.Context, id string) (err error) {
			defer func() {
				if p := recover(); p != nil {
					err = fmt.Errorf("panicked: %v", p)
				}
			}()
			rec, ch := batchRecord(id, "")
			return f.s.InsertLogged(ctx, store.GuardOf(ctx), f.products, rec, ch)
		}
		queued := []string{"p-0", "p-1", "p-2", "p-3"}
		b.run(t, []string{"p-first-a", "p-first-b"}, queued, create, nil, nil)
		panicked := 0
		for _, id := range queued {
			switch err := b.errs[id]; {
			case err == nil:
				t.Errorf("create %s in the batch that panicked: got no error, want one", id)
			case strings.HasPrefix(err.Error(), "panicked: boom"):
				panicked++
			}
		}
		if panicked != 1 {
			t.Errorf("creates that panicked: got %d, want 1 (the one that ran the statement)", panicked)
		}
		if got := countOf(t, f.db, "shop_products"); got != 2 {
			t.Errorf("records: got %d, want 2 (the slot holders')", got)
		}
		b.run(t, []string{"q-first-a", "q-first-b"}, []string{"q-0", "q-1"}, create, nil, nil)
		for _, id := range []string{"q-first-a", "q-first-b", "q-0", "q-1"} {
			if err := b.errs[id]; err != nil {
				t.Errorf("create %s after the panic: got %v, want no error", id, err)
			}
		}
	})
}
