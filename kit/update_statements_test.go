package kit_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
)

// TestAPostgreSQLUpdateIsOneStatement checks the statements of updates on
// PostgreSQL: an update that needs no lookup writes and reads the record
// it replaces in one UPDATE, with no SELECT of the record before it and
// no change log INSERT of its own (with no OnMutationTx listener the
// change row rides in the same statement, outside any transaction); one that changes nothing is answered from
// that statement, which writes nothing; one that a member may not make is
// read again to tell forbidden from missing, as Update
// documents (see TestRecordsUpdateKeepsEveryRule for the outcomes).
func TestAPostgreSQLUpdateIsOneStatement(t *testing.T) {
	log := &queryLog{}
	k := newKitConfig(t, kit.Config{DB: testdb.PostgresDB(t), Definitions: shopDefs(), QueryHook: log})
	rec := mustCreate(t, k, productsKey, aliceA, map[string]any{"title": "Lamp", "sku": "L1", "price": "1.00"})
	id := rec["id"].(string)
	tests := []struct {
		name        string
		actor       kit.Actor
		data        map[string]any
		wantSelects int
		wantUpdates int
		wantLogs    int
	}{
		{"an owner's change of plain fields with its change row is one UPDATE and no SELECT", aliceA, map[string]any{"price": "2.00", "title": "Desk lamp"}, 0, 1, 0},
		{"a change of the only unique field with its change row is one UPDATE and no SELECT", aliceA, map[string]any{"sku": "L2"}, 0, 1, 0},
		{"a change to the stored values is one UPDATE that writes nothing, and nothing more", aliceA, map[string]any{"price": "2.00"}, 0, 1, 0},
		{"another member's attempt is read again to tell forbidden from missing", bobA, map[string]any{"price": "3.00"}, 1, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := log.len()
			_, err := k.Records(productsKey).Update(t.Context(), tt.actor, id, tt.data)
			if wantForbidden := tt.actor == bobA; errors.Is(err, kit.ErrForbidden) != wantForbidden || !wantForbidden && err != nil {
				t.Fatalf("got error %v, want forbidden %v", err, wantForbidden)
			}
			selects, updates, logs := countStatements(log.since(n))
			if selects != tt.wantSelects || updates != tt.wantUpdates || logs != tt.wantLogs {
				t.Errorf("got %d SELECT, %d UPDATE of the record and %d change log INSERT, want %d, %d and %d",
					selects, updates, logs, tt.wantSelects, tt.wantUpdates, tt.wantLogs)
			}
		})
	}
}

// countStatements counts, among logged statements, the reads of the
// record (a SELECT of shop_products), the statements that update it (an
// UPDATE of shop_products, alone or in a WITH) and the change log rows
// written by statements of their own.
func countStatements(log []queryEntry) (selects, updates, logs int) {
	for _, e := range log {
		q := strings.TrimSpace(e.query)
		switch {
		case strings.Contains(q, `UPDATE "shop_products"`), strings.Contains(q, `UPDATE OR FAIL "shop_products"`):
			updates++
		case strings.HasPrefix(q, "SELECT") && strings.Contains(q, `"shop_products"`):
			selects++
		case strings.HasPrefix(q, "INSERT INTO kit_changes"):
			logs++
		}
	}
	return selects, updates, logs
}

// TestConcurrentUpdatesOfARecordEachStartFromTheLastOnesResult has
// writers update one record at once, each to a value of its own: every
// update's before state (what the audit trail and listeners are given)
// must be the result of exactly one other update or the record as
// created, so the updates form one chain, none lost and none built on a
// state that was already replaced. It holds for updates that are one
// statement on PostgreSQL and for those that read the record first (a
// reference to check).
func TestConcurrentUpdatesOfARecordEachStartFromTheLastOnesResult(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		k := newKitOn(t, e, shopDefs()...)
		cat := mustCreate(t, k, categoriesKey, aliceA, map[string]any{"name": "lamps"})["id"].(string)
		tests := []struct {
			name, key, field string
			extra            map[string]any
		}{
			{"updates of a plain field", categoriesKey, "name", nil},
			{"updates that check a reference before they write", productsKey, "title", map[string]any{"categoryId": cat}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				testUpdateChain(t, k, tt.key, tt.field, tt.extra)
			})
		}
	})
}

// testUpdateChain is TestConcurrentUpdatesOfARecordEachStartFromTheLastOnesResult
// on field of a new record of collection key, each update also setting
// extra.
func testUpdateChain(t *testing.T, k *kit.Kit, key, field string, extra map[string]any) {
	rec := mustCreate(t, k, key, aliceA, map[string]any{field: "start"})
	id := rec["id"].(string)
	var mu sync.Mutex
	next := map[string]string{} // before value -> result value
	k.OnMutation(func(_ context.Context, m kit.Mutation) {
		if m.Operation != kit.OpUpdate || m.ItemID != id {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		before, after := fmt.Sprint(m.BeforeData[field]), fmt.Sprint(m.Result.(kit.Record)[field])
		if prev, ok := next[before]; ok {
			t.Errorf("got updates %q and %q both made from %q, want one", prev, after, before)
		}
		next[before] = after
	})
	const writers, each = 8, 15
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				name := fmt.Sprintf("w%d-%d", w, i)
				if _, err := k.Records(key).Update(t.Context(), aliceA, id, with(extra, field, name)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	steps, at := 0, "start"
	for {
		to, ok := next[at]
		if !ok {
			break
		}
		steps++
		at = to
	}
	if steps != writers*each {
		t.Errorf("got a chain of %d updates from the created record, want all %d", steps, writers*each)
	}
	got, err := k.Records(key).Get(t.Context(), aliceA, id)
	if err != nil {
		t.Fatal(err)
	}
	if got[field] != at {
		t.Errorf("got the record's value %v, want the chain's last %q", got[field], at)
	}
}

// with returns a copy of m with key set to v.
func with(m map[string]any, key string, v any) map[string]any {
	out := map[string]any{key: v}
	for k, x := range m {
		out[k] = x
	}
	return out
}
