package store_test

import (
	"context"
	"errors"
	"net/url"
	"testing"
	"time"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/store"
	"github.com/collectionkit/kit/internal/testdb"
)

// TestAListThatReadsBeyondAnIndexRangeWaitsForAScanSlotOrIsRefused holds
// the only scan slot and checks the rule of scanslots.go on both engines:
// a large team's list in an order no index holds, or with a filter no
// index narrows, waits for the slot; one more than ScanQueue waiting is
// refused at once with ErrBusy; a list an index serves, and a small
// team's, never waits; and once the slot is free the waiting list runs.
func TestAListThatReadsBeyondAnIndexRangeWaitsForAScanSlotOrIsRefused(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		f := newFixture(t, e)
		f.s.SetRareCandidates(30) // t1 (100 rows) is large, t2 (25) small
		f.s.SearchScans = 1
		f.s.ScanQueue = 1
		seedPlanRows(t, f, 100)
		query := func(t *testing.T, params string) collections.ListQuery {
			t.Helper()
			v, err := url.ParseQuery(params)
			if err != nil {
				t.Fatal(err)
			}
			q, err := f.products.ParseListQuery(v, collections.QueryLimits{})
			if err != nil {
				t.Fatal(err)
			}
			return q
		}
		release, err := f.s.AcquireScan(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		never := []struct{ name, team, params string }{
			{"the created order (its index)", "t1", ""},
			{"an order an index holds (a unique field)", "t1", "sort=sku"},
			{"a filter an index narrows", "t1", `filter={"sku":"SKU-00001"}`},
			{"a filter an index narrows beside one it does not", "t1", `filter={"sku":"SKU-00001","weight":{"gt":1}}`},
			{"a small team's unindexed sort", "t2", "sort=title"},
			{"a small team's scanning filter", "t2", `filter={"title":{"contains":"item"}}`},
			{"a list of ids", "t1", "sort=title&ids=" + `["a","b"]`},
		}
		for _, tt := range never {
			t.Run(tt.name+" runs while the slot is held", func(t *testing.T) {
				ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
				defer cancel()
				if _, err := f.s.List(ctx, store.Read{}, f.products, tt.team, query(t, tt.params)); err != nil {
					t.Errorf("got %v, want nil", err)
				}
			})
		}
		waits := []struct{ name, params string }{
			{"a large team's sort by an unindexed field", "sort=title"},
			{"a large team's descending sort by an unindexed field", "sort=-weight"},
			{"a large team's filter no index narrows", `filter={"title":{"contains":"item"}}`},
		}
		for _, tt := range waits {
			t.Run(tt.name+" waits while the slot is held, and one more is refused", func(t *testing.T) {
				ctx, cancel := context.WithCancel(t.Context())
				done := make(chan error, 1)
				q := query(t, tt.params)
				go func() {
					_, err := f.s.List(ctx, store.Read{}, f.products, "t1", q)
					done <- err
				}()
				// The first list waits (ScanQueue 1); the next is refused.
				for deadline := time.Now().Add(5 * time.Second); f.s.ScanWaiting() == 0; {
					if time.Now().After(deadline) {
						cancel()
						t.Fatalf("the list does not wait for the slot: %v", <-done)
					}
					time.Sleep(time.Millisecond)
				}
				if _, err := f.s.List(t.Context(), store.Read{}, f.products, "t1", q); !errors.Is(err, store.ErrBusy) {
					t.Errorf("a second list while one waits: got %v, want ErrBusy", err)
				}
				select {
				case err := <-done:
					t.Fatalf("the waiting list ended while the slot was held: %v", err)
				default:
				}
				cancel()
				if err := <-done; !errors.Is(err, context.Canceled) {
					t.Errorf("the waiting list: got %v, want context.Canceled", err)
				}
			})
		}
		release()
		for _, tt := range waits {
			t.Run(tt.name+" runs once the slot is free", func(t *testing.T) {
				page, err := f.s.List(t.Context(), store.Read{}, f.products, "t1", query(t, tt.params))
				if err != nil || page.Total == 0 {
					t.Errorf("got %d matches and %v, want some and nil", page.Total, err)
				}
			})
		}
	})
}
