package kit_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"runtime"
	"sync"
	"testing"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
)

// TestUnfilteredTotalsStayExact runs writes of every kind in order, on each
// engine, and after each compares the unfiltered totals of both teams (the
// kept row counts) with a count of the rows, and a filtered total (a count
// of the matches) with its rows too.
func TestUnfilteredTotalsStayExact(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		k := newKitOn(t, e, shopDefs()...)
		ctx := context.Background()
		recs := k.Records(productsKey)
		var made []string
		create := func(a kit.Actor, title string) (string, error) {
			rec, err := recs.Create(ctx, a, map[string]any{"title": title, "sku": title})
			if err != nil {
				return "", err
			}
			return rec["id"].(string), nil
		}
		teamRows := func(team, where string) int {
			var n int
			if err := k.DB().QueryRowContext(ctx, `SELECT count(*) FROM `+productsTable+` WHERE team_id = ?`+where, team).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		failTitle := "fail"
		hooked := false
		steps := []struct {
			name string
			do   func(t *testing.T)
		}{
			{"creates in two teams count one each", func(t *testing.T) {
				for i := range 6 {
					id, err := create(adminA, fmt.Sprintf("a%d", i))
					if err != nil {
						t.Fatal(err)
					}
					made = append(made, id)
				}
				if _, err := create(adminB, "b0"); err != nil {
					t.Fatal(err)
				}
			}},
			{"a create refused by the unique sku counts nothing", func(t *testing.T) {
				if _, err := create(adminA, "a0"); err == nil {
					t.Fatal("got no error for a duplicate sku, want a conflict")
				}
			}},
			{"a delete counts minus one", func(t *testing.T) {
				if err := recs.Delete(ctx, adminA, made[0]); err != nil {
					t.Fatal(err)
				}
			}},
			{"a delete of a missing record counts nothing", func(t *testing.T) {
				if err := recs.Delete(ctx, adminA, made[0]); !errors.Is(err, kit.ErrNotFound) {
					t.Fatalf("got %v, want ErrNotFound", err)
				}
			}},
			{"a bulk delete counts minus its records", func(t *testing.T) {
				if err := recs.DeleteMany(ctx, adminA, made[1:3]); err != nil {
					t.Fatal(err)
				}
			}},
			{"a bulk delete with another team's record deletes and counts nothing", func(t *testing.T) {
				if err := recs.DeleteMany(ctx, adminB, made[3:5]); err == nil {
					t.Fatal("got no error, want ErrNotFound")
				}
			}},
			{"writes an OnMutationTx listener fails are rolled back and count nothing", func(t *testing.T) {
				if !hooked {
					hooked = true
					k.OnMutationTx(func(_ context.Context, _ bun.Tx, m *kit.Mutation) error {
						if m.Data["title"] == failTitle || m.ItemID == made[3] {
							return errors.New("refused by the listener")
						}
						return nil
					})
				}
				if _, err := create(adminA, failTitle); err == nil {
					t.Fatal("got no error for a create the listener refuses")
				}
				if err := recs.Delete(ctx, adminA, made[3]); err == nil {
					t.Fatal("got no error for a delete the listener refuses")
				}
			}},
			{"concurrent creates and deletes, some refused, count what committed", func(t *testing.T) {
				var release func()
				if e == testdb.EngineSQLite {
					release = kit.HoldWrites(k) // one group commit for them all
				}
				// As requests' actors: behind HoldWrites an in-memory
				// database's reads wait for the writer.
				adminA, adminB := kit.ActorOfARequest(adminA), kit.ActorOfARequest(adminB)
				var wg sync.WaitGroup
				for i := range 24 {
					wg.Go(func() {
						title := fmt.Sprintf("c%d", i)
						if i%4 == 0 {
							title = failTitle
						}
						_, _ = create(adminA, title)
					})
				}
				wg.Go(func() { _ = recs.Delete(ctx, adminA, made[4]) })
				wg.Go(func() { _ = recs.Delete(ctx, adminA, made[3]) }) // refused
				wg.Go(func() { _, _ = create(adminB, "b1") })
				if release != nil {
					for kit.QueuedWrites(k) < 27 {
						runtime.Gosched() // until every write is queued behind the held one
					}
					release()
				}
				wg.Wait()
			}},
		}
		for _, st := range steps {
			t.Run(st.name, func(t *testing.T) {
				st.do(t)
				for _, a := range []kit.Actor{adminA, adminB} {
					if got, want := mustList(t, k, productsKey, a, url.Values{}).Pagination.TotalItems, teamRows(a.TeamID, ""); got != want {
						t.Errorf("team %s: got total %d, want %d (its rows)", a.TeamID, got, want)
					}
				}
				filter := query("filter", `{"title":{"startsWith":"c"}}`)
				if got, want := mustList(t, k, productsKey, adminA, filter).Pagination.TotalItems, teamRows(teamA, ` AND title LIKE 'c%'`); got != want {
					t.Errorf("filtered: got total %d, want %d (its matches)", got, want)
				}
			})
		}
	})
}
