package kit_test

import (
	"context"
	"errors"
	"fmt"
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
	app.Kit.OnMutationRows(func(ctx context.Context, db bun.IDB, m *kit.Mutation) (kit.MutationRows, error) {
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

// TestOptionalMutationRowsFailAlone checks the rows of concurrent writes,
// which the SQLite write queue commits in groups: an optional row whose
// INSERT fails costs only its own write's rows (the other writes of its
// group keep theirs, and every change commits), and one whose failure
// ends the whole transaction (a trigger's RAISE(ROLLBACK) on SQLite)
// fails its write, with nothing written.
func TestOptionalMutationRowsFailAlone(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		ctx := t.Context()
		r := newRowsApp(t, e)
		r.optional = true
		products := r.Kit.Records("shopProducts")
		refuseUpdates := []string{
			`CREATE TRIGGER test_notes_no_updates BEFORE INSERT ON test_notes WHEN NEW.operation = 'update' BEGIN SELECT RAISE(ABORT, 'no update notes'); END`,
		}
		if e == testdb.EnginePostgres {
			refuseUpdates = []string{
				`CREATE FUNCTION test_notes_no_updates() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'no update notes'; END $$`,
				`CREATE TRIGGER test_notes_no_updates BEFORE INSERT ON test_notes FOR EACH ROW WHEN (NEW.operation = 'update') EXECUTE FUNCTION test_notes_no_updates()`,
			}
		}
		for _, q := range refuseUpdates {
			if _, err := r.Kit.DB().ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}

		t.Run("a failed optional row costs only its own write's rows", func(t *testing.T) {
			var ids []string
			for i := range 8 {
				rec, err := products.Create(ctx, r.actor, map[string]any{"title": "Saw " + string(rune('a'+i))})
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, rec["id"].(string))
			}
			var wg sync.WaitGroup
			errs := make([]error, 2*len(ids))
			for i, id := range ids {
				wg.Go(func() {
					_, errs[2*i] = products.Update(ctx, r.actor, id, map[string]any{"title": "Plane"})
				})
				wg.Go(func() {
					_, errs[2*i+1] = products.Create(ctx, r.actor, map[string]any{"title": "Rasp"})
				})
			}
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Errorf("write %d: got %v, want it committed", i, err)
				}
			}
			var creates, updates, planes int
			if err := r.Kit.DB().QueryRowContext(ctx, `SELECT count(*) FROM test_notes WHERE operation = 'create'`).Scan(&creates); err != nil {
				t.Fatal(err)
			}
			if err := r.Kit.DB().QueryRowContext(ctx, `SELECT count(*) FROM test_notes WHERE operation = 'update'`).Scan(&updates); err != nil {
				t.Fatal(err)
			}
			if err := r.Kit.DB().QueryRowContext(ctx, `SELECT count(*) FROM shop_products WHERE title = 'Plane'`).Scan(&planes); err != nil {
				t.Fatal(err)
			}
			if creates != 2*len(ids) || updates != 0 || planes != len(ids) {
				t.Errorf("create notes, update notes, updated products: got %d, %d, %d, want %d, 0, %d",
					creates, updates, planes, 2*len(ids), len(ids))
			}
		})

		if e != testdb.EngineSQLite {
			return
		}
		t.Run("an optional row whose failure ends the transaction fails its write and nothing is written", func(t *testing.T) {
			if _, err := r.Kit.DB().ExecContext(ctx, `CREATE TRIGGER test_notes_lose BEFORE INSERT ON test_notes WHEN NEW.operation = 'delete' BEGIN SELECT RAISE(ROLLBACK, 'the transaction is gone'); END`); err != nil {
				t.Fatal(err)
			}
			rec, err := products.Create(ctx, r.actor, map[string]any{"title": "Level"})
			if err != nil {
				t.Fatal(err)
			}
			before, notes := r.count(t, "shop_products"), r.count(t, "test_notes")
			if err := products.Delete(ctx, r.actor, rec["id"].(string)); err == nil {
				t.Fatal("delete: got no error, want the lost transaction's")
			}
			if got := r.count(t, "shop_products"); got != before {
				t.Errorf("products: got %d, want %d (the delete undone)", got, before)
			}
			if got := r.count(t, "test_notes"); got != notes {
				t.Errorf("notes: got %d, want %d", got, notes)
			}
			if _, err := products.Get(ctx, r.actor, rec["id"].(string)); err != nil {
				t.Errorf("get after the failed delete: got %v, want the record", err)
			}
		})
	})
}

// TestNoDeleteStateSkipsTheRecordsLastState checks
// MutationRowsOptions.NoDeleteState: an admin's delete hands such a
// listener the id and no BeforeData (the record is not read first), and
// a listener registered without it still gets the record's last state.
func TestNoDeleteStateSkipsTheRecordsLastState(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		opts       kit.MutationRowsOptions
		wantBefore bool
	}{
		{"a listener with NoDeleteState gets the id and no BeforeData", kit.MutationRowsOptions{NoDeleteState: true}, false},
		{"a listener without it gets the deleted record's last state", kit.MutationRowsOptions{}, true},
	}
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				ctx := t.Context()
				k := kittest.NewKit(t, kit.Config{DB: testdb.Open(t, e), Definitions: shopDefinitions(), Logger: quietLogger()})
				team, _ := k.Accounts().CreateTeam(ctx, teamauth.Team{Name: "Acme", Slug: "acme"})
				user, _ := k.Accounts().CreateUser(ctx, teamauth.User{Name: "Ann"})
				if _, err := k.Accounts().AddMember(ctx, team.ID, user.ID, teamauth.RoleOwner); err != nil {
					t.Fatal(err)
				}
				actor := kit.Actor{TeamID: team.ID, UserID: user.ID, Role: teamauth.RoleOwner}
				var deletes []kit.Mutation
				k.OnMutationRowsWith(func(ctx context.Context, db bun.IDB, m *kit.Mutation) (kit.MutationRows, error) {
					if m.Operation == kit.OpDelete {
						deletes = append(deletes, *m)
					}
					return kit.MutationRows{}, nil
				}, tc.opts)
				products := k.Records("shopProducts")
				rec, err := products.Create(ctx, actor, map[string]any{"title": "Saw"})
				if err != nil {
					t.Fatal(err)
				}
				id := rec["id"].(string)
				if err := products.Delete(ctx, actor, id); err != nil {
					t.Fatal(err)
				}
				if len(deletes) != 1 {
					t.Fatalf("delete mutations: got %d, want 1", len(deletes))
				}
				m := deletes[0]
				if m.ItemID != id || len(m.ItemIDs) != 1 || m.ItemIDs[0] != id {
					t.Errorf("ids: got %q and %v, want %q", m.ItemID, m.ItemIDs, id)
				}
				if got := m.BeforeData != nil; got != tc.wantBefore {
					t.Errorf("BeforeData set: got %v, want %v (%v)", got, tc.wantBefore, m.BeforeData)
				}
				if tc.wantBefore && m.BeforeData["title"] != "Saw" {
					t.Errorf("BeforeData title: got %v, want Saw", m.BeforeData["title"])
				}
				if _, err := products.Get(ctx, actor, id); !errors.Is(err, kit.ErrNotFound) {
					t.Errorf("get after delete: got %v, want ErrNotFound", err)
				}
			})
		}
	})
}

// TestAnUpdateWrittenMeanwhileRunsOnTheNewState checks the update that
// kit writes as one statement with its listeners' rows on PostgreSQL: it
// reads the record, gives the listener the state it read, and writes only
// if the record is still in that state. A record written in between (here
// by the listener itself, through another connection) sends the update to
// a transaction, whose listener sees the new state: the record keeps both
// writes, and only the rows built from the state the update replaced are
// inserted.
func TestAnUpdateWrittenMeanwhileRunsOnTheNewState(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		if e != testdb.EnginePostgres {
			t.Skip("on SQLite the listener runs inside the write's transaction: nothing can write in between")
		}
		ctx := t.Context()
		app := kittest.NewApp(t, kit.Config{DB: testdb.Open(t, e), Definitions: shopDefinitions(), Logger: quietLogger()})
		if _, err := app.Kit.DB().NewCreateTable().Model((*noteRow)(nil)).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		actor := app.AddMember(app.Team("acme"), app.User("ann"), teamauth.RoleOwner)
		products := app.Kit.Records("shopProducts")
		rec, err := products.Create(ctx, actor, map[string]any{"title": "Saw", "stock": 1})
		if err != nil {
			t.Fatal(err)
		}
		id := rec["id"].(string)
		var seen []any // the stock each update call was given as before
		var done []error
		app.Kit.OnMutationRows(func(ctx context.Context, db bun.IDB, m *kit.Mutation) (kit.MutationRows, error) {
			if m.Operation != kit.OpUpdate {
				return kit.MutationRows{}, nil
			}
			seen = append(seen, m.BeforeData["stock"])
			if len(seen) == 1 {
				if _, err := app.Kit.DB().ExecContext(ctx, `UPDATE shop_products SET stock = 7 WHERE id = ?`, id); err != nil {
					return kit.MutationRows{}, err
				}
			}
			rows := []noteRow{{ItemID: fmt.Sprint(m.BeforeData["stock"]), Operation: "update"}}
			return kit.MutationRows{Model: &rows, Optional: true, Done: func(err error) { done = append(done, err) }}, nil
		})
		got, err := products.Update(ctx, actor, id, map[string]any{"title": "Saw 2"})
		if err != nil {
			t.Fatal(err)
		}
		if got["title"] != "Saw 2" || got["stock"] != 7.0 {
			t.Errorf("answer: got title %v and stock %v, want Saw 2 and 7 (both writes)", got["title"], got["stock"])
		}
		stored, err := products.Get(ctx, actor, id)
		if err != nil || stored["title"] != "Saw 2" || stored["stock"] != 7.0 {
			t.Errorf("stored: got title %v and stock %v (%v), want Saw 2 and 7", stored["title"], stored["stock"], err)
		}
		if len(seen) != 2 || seen[0] != 1.0 || seen[1] != 7.0 {
			t.Errorf("the listener's states before: got %v, want [1 7] (the read, then the transaction's)", seen)
		}
		var notes []noteRow
		if err := app.Kit.DB().NewSelect().Model(&notes).Scan(ctx); err != nil {
			t.Fatal(err)
		}
		if len(notes) != 1 || notes[0].ItemID != "7" {
			t.Errorf("rows: got %v, want one, built from stock 7", notes)
		}
		if len(done) != 1 || done[0] != nil {
			t.Errorf("Done: got %v, want one call with nil", done)
		}
	})
}
