package kit_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/kittest"
	"github.com/collectionkit/kit/teamauth"
)

// noteRow is the model an OnMutationRows listener of these tests inserts.
type noteRow struct {
	bun.BaseModel `bun:"table:test_notes"`
	ItemID        string `bun:"item_id,pk"`
	Operation     string `bun:"operation,pk"`
}

// rowsApp is a Kit with the shop collections, a test_notes table and an
// OnMutationRows listener that notes each mutation, as configured.
type rowsApp struct {
	*kittest.App
	actor kit.Actor
	mu    sync.Mutex
	// fail makes the listener fail; optional marks its rows optional.
	fail, optional bool
	done           []error // what each Done got
}

func newRowsApp(t *testing.T, e testdb.Engine) *rowsApp {
	t.Helper()
	app := kittest.NewApp(t, kit.Config{DB: testdb.Open(t, e), Definitions: shopDefinitions(), Logger: quietLogger()})
	if _, err := app.Kit.DB().NewCreateTable().Model((*noteRow)(nil)).Exec(t.Context()); err != nil {
		t.Fatal(err)
	}
	acme, ann := app.Team("acme"), app.User("ann")
	r := &rowsApp{App: app, actor: app.AddMember(acme, ann, teamauth.RoleOwner)}
	app.Kit.OnMutationRows(func(ctx context.Context, tx bun.Tx, m *kit.Mutation) (kit.MutationRows, error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.fail {
			return kit.MutationRows{}, errors.New("the listener fails")
		}
		rows := []noteRow{{ItemID: m.ItemID, Operation: string(m.Operation)}}
		return kit.MutationRows{Model: &rows, Optional: r.optional, Done: func(err error) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.done = append(r.done, err)
		}}, nil
	})
	return r
}

func (r *rowsApp) count(t *testing.T, table string) int {
	t.Helper()
	n, err := r.Kit.DB().NewSelect().Table(table).Count(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return int(n)
}

func TestMutationRowsCommitWithTheChange(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		ctx := t.Context()
		r := newRowsApp(t, e)
		products := r.Kit.Records("shopProducts")

		t.Run("a create, an update and a delete each insert their rows", func(t *testing.T) {
			rec, err := products.Create(ctx, r.actor, map[string]any{"title": "Saw"})
			if err != nil {
				t.Fatal(err)
			}
			id := rec["id"].(string)
			if _, err := products.Update(ctx, r.actor, id, map[string]any{"title": "Saw 2"}); err != nil {
				t.Fatal(err)
			}
			if err := products.Delete(ctx, r.actor, id); err != nil {
				t.Fatal(err)
			}
			if got := r.count(t, "test_notes"); got != 3 {
				t.Errorf("notes: got %d, want 3", got)
			}
		})

		t.Run("a listener that fails fails the mutation and nothing is written", func(t *testing.T) {
			before, notes := r.count(t, "shop_products"), r.count(t, "test_notes")
			r.mu.Lock()
			r.fail = true
			r.mu.Unlock()
			defer func() { r.mu.Lock(); r.fail = false; r.mu.Unlock() }()
			if _, err := products.Create(ctx, r.actor, map[string]any{"title": "Hammer"}); err == nil || !strings.Contains(err.Error(), "the listener fails") {
				t.Fatalf("create: got %v, want the listener's error", err)
			}
			if got := r.count(t, "shop_products"); got != before {
				t.Errorf("products: got %d, want %d (the create undone)", got, before)
			}
			if got := r.count(t, "test_notes"); got != notes {
				t.Errorf("notes: got %d, want %d", got, notes)
			}
		})

		t.Run("rows whose insert fails fail the mutation and nothing is written", func(t *testing.T) {
			before := r.count(t, "shop_products")
			if _, err := r.Kit.DB().NewDropTable().Model((*noteRow)(nil)).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			defer func() {
				if _, err := r.Kit.DB().NewCreateTable().Model((*noteRow)(nil)).Exec(ctx); err != nil {
					t.Fatal(err)
				}
			}()
			r.mu.Lock()
			r.done = nil
			r.mu.Unlock()
			if _, err := products.Create(ctx, r.actor, map[string]any{"title": "Chisel"}); err == nil {
				t.Fatal("create: got no error, want the failed insert's")
			}
			if got := r.count(t, "shop_products"); got != before {
				t.Errorf("products: got %d, want %d (the create undone)", got, before)
			}
			r.mu.Lock()
			defer r.mu.Unlock()
			if len(r.done) != 1 || r.done[0] == nil {
				t.Errorf("Done: got %v, want one call with the insert's error", r.done)
			}
		})

		t.Run("optional rows whose insert fails leave the change committed without them", func(t *testing.T) {
			before := r.count(t, "shop_products")
			if _, err := r.Kit.DB().NewDropTable().Model((*noteRow)(nil)).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			r.mu.Lock()
			r.optional, r.done = true, nil
			r.mu.Unlock()
			if _, err := products.Create(ctx, r.actor, map[string]any{"title": "File"}); err != nil {
				t.Fatalf("create: got %v, want it committed", err)
			}
			if got := r.count(t, "shop_products"); got != before+1 {
				t.Errorf("products: got %d, want %d", got, before+1)
			}
			r.mu.Lock()
			defer r.mu.Unlock()
			if len(r.done) != 1 || r.done[0] == nil {
				t.Errorf("Done: got %v, want one call with the insert's error", r.done)
			}
		})
	})
}
