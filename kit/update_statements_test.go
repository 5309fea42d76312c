package kit_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
)

// TestAPostgreSQLUpdateIsOneStatement checks the statements of updates on
// PostgreSQL: an update that needs no lookup writes and reads the record
// it replaces in one UPDATE, with no SELECT of the record before it; one
// that changes nothing, or that a member may not make, is still answered
// as Update documents (see TestRecordsUpdateKeepsEveryRule for the
// outcomes).
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
	}{
		{"an owner's change of plain fields is one UPDATE and no SELECT", aliceA, map[string]any{"price": "2.00", "title": "Desk lamp"}, 0, 1},
		{"a change of the only unique field is one UPDATE and no SELECT", aliceA, map[string]any{"sku": "L2"}, 0, 1},
		{"a change to the stored values is undone and reads nothing more", aliceA, map[string]any{"price": "2.00"}, 0, 1},
		{"another member's attempt is read again to tell forbidden from missing", bobA, map[string]any{"price": "3.00"}, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := log.len()
			_, err := k.Records(productsKey).Update(t.Context(), tt.actor, id, tt.data)
			if wantForbidden := tt.actor == bobA; errors.Is(err, kit.ErrForbidden) != wantForbidden || !wantForbidden && err != nil {
				t.Fatalf("got error %v, want forbidden %v", err, wantForbidden)
			}
			selects, updates := 0, 0
			for _, e := range log.since(n) {
				q := strings.TrimSpace(e.query)
				switch {
				case strings.HasPrefix(q, "SELECT") && strings.Contains(q, `"shop_products"`):
					selects++
				case strings.HasPrefix(q, "UPDATE") && strings.Contains(q, `"shop_products"`):
					updates++
				}
			}
			if selects != tt.wantSelects || updates != tt.wantUpdates {
				t.Errorf("got %d SELECT and %d UPDATE of the record, want %d and %d", selects, updates, tt.wantSelects, tt.wantUpdates)
			}
		})
	}
}
