package kit_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/kittest"
	"github.com/collectionkit/kit/teamauth"
)

// TestAWriteThatEndsItsGroupsTransactionLosesNoOtherWrite checks the
// SQLite write queue when one write of a group fails in a way that ends
// the whole transaction (here a trigger's RAISE(ROLLBACK); a full disk or
// an I/O error does the same): every other write either committed and
// said so, or failed and left nothing, never committed while reporting a
// failure nor reported success without its row.
func TestAWriteThatEndsItsGroupsTransactionLosesNoOtherWrite(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	k := kittest.NewKit(t, kit.Config{DB: testdb.Open(t, testdb.EngineSQLite), Definitions: shopDefinitions(), Logger: quietLogger()})
	team, _ := k.Accounts().CreateTeam(ctx, teamauth.Team{Name: "Acme", Slug: "acme"})
	user, _ := k.Accounts().CreateUser(ctx, teamauth.User{Name: "Ann"})
	if _, err := k.Accounts().AddMember(ctx, team.ID, user.ID, teamauth.RoleOwner); err != nil {
		t.Fatal(err)
	}
	actor := kit.Actor{TeamID: team.ID, UserID: user.ID, Role: teamauth.RoleOwner}
	products := k.Records("shopProducts")
	const n = 24
	ids := make([]string, n)
	for i := range ids {
		rec, err := products.Create(ctx, actor, map[string]any{"title": "start"})
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = rec["id"].(string)
	}
	if _, err := k.DB().ExecContext(ctx, `CREATE TRIGGER test_lose BEFORE UPDATE ON shop_products WHEN NEW.title = 'lose' BEGIN SELECT RAISE(ROLLBACK, 'the transaction is gone'); END`); err != nil {
		t.Fatal(err)
	}
	for round := range 5 {
		errs := make([]error, n)
		titles := make([]string, n)
		var wg sync.WaitGroup
		for i, id := range ids {
			titles[i] = fmt.Sprintf("round %d write %d", round, i)
			if i == n/2 {
				titles[i] = "lose"
			}
			wg.Go(func() {
				_, errs[i] = products.Update(ctx, actor, id, map[string]any{"title": titles[i]})
			})
		}
		wg.Wait()
		for i, id := range ids {
			rec, err := products.Get(ctx, actor, id)
			if err != nil {
				t.Fatal(err)
			}
			stored := rec["title"] == titles[i]
			switch {
			case i == n/2 && (errs[i] == nil || stored):
				t.Errorf("round %d: the losing write: got error %v, stored %v, want an error and nothing stored", round, errs[i], stored)
			case i != n/2 && errs[i] == nil && !stored:
				t.Errorf("round %d, write %d: got success, want its title stored (got %v)", round, i, rec["title"])
			case i != n/2 && errs[i] != nil && stored:
				t.Errorf("round %d, write %d: got error %v, want its title not stored", round, i, errs[i])
			}
		}
	}
}
