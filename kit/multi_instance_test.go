package kit_test

import (
	"fmt"
	"net/url"
	"sync"
	"testing"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/internal/testkit"
	"github.com/collectionkit/kit/kit"
)

const (
	instances  = 2
	goroutines = 8
	patches    = 100
)

// counterDefinitions has one number field per (instance, goroutine) pair,
// so concurrent partial updates touch different fields of one record.
func counterDefinitions() []collections.Definition {
	var fields []collections.Field
	for i := 0; i < instances*goroutines; i++ {
		fields = append(fields, collections.Field{Name: fmt.Sprintf("counter%d", i), Type: collections.TypeNumber})
	}
	return []collections.Definition{{Name: "counters", Layer: "app", Fields: fields}}
}

// startTogether starts n kits on fresh pools of one database at the same
// moment and fails the test if any of them fails.
func startTogether(t *testing.T, open func() *bun.DB, n int) []*kit.Kit {
	t.Helper()
	dbs := make([]*bun.DB, n)
	for i := range dbs {
		dbs[i] = open()
	}
	kits := make([]*kit.Kit, n)
	errs := testkit.AtOnce(n, func(i int) (err error) {
		kits[i], err = kit.New(kit.Config{DB: dbs[i], Definitions: counterDefinitions()})
		return err
	})
	for i, err := range errs {
		if err != nil {
			t.Fatalf("instance %d: got %v, want a clean start", i, err)
		}
		t.Cleanup(func() { kits[i].Close() })
	}
	return kits
}

func TestInstancesStartingTogetherOnAnEmptyDatabaseBothSucceed(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		for round := range 3 {
			t.Run(fmt.Sprintf("round %d", round), func(t *testing.T) {
				kits := startTogether(t, testdb.Shared(t, e), 4)
				for i, k := range kits {
					if _, ok := k.Collections().Get("appCounters"); !ok {
						t.Errorf("instance %d: collection missing", i)
					}
				}
			})
		}
	})
}

func TestConcurrentPartialUpdatesFromTwoInstancesLoseNothing(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		kits := startTogether(t, testdb.Shared(t, e), instances)
		actor := kit.Actor{UserID: "u1", TeamID: "t1", Role: "owner"}
		seedActors(t, kits[0], actor)
		rec, err := kits[0].Records("appCounters").Create(t.Context(), actor, map[string]any{})
		if err != nil {
			t.Fatal(err)
		}
		id := rec["id"].(string)

		var wg sync.WaitGroup
		errs := make(chan error, instances*goroutines)
		for i, k := range kits {
			for g := range goroutines {
				wg.Add(1)
				go func() {
					defer wg.Done()
					field := fmt.Sprintf("counter%d", i*goroutines+g)
					for n := 1; n <= patches; n++ {
						if _, err := k.Records("appCounters").Update(t.Context(), actor, id, map[string]any{field: n}); err != nil {
							errs <- fmt.Errorf("%s = %d: %w", field, n, err)
							return
						}
						// Creates from both instances at the same time too.
						if n%10 == 0 {
							if _, err := k.Records("appCounters").Create(t.Context(), actor, map[string]any{field: -1}); err != nil {
								errs <- fmt.Errorf("create: %w", err)
								return
							}
						}
					}
				}()
			}
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		got, err := kits[1].Records("appCounters").Get(t.Context(), actor, id)
		if err != nil {
			t.Fatal(err)
		}
		for f := range instances * goroutines {
			name := fmt.Sprintf("counter%d", f)
			if got[name] != float64(patches) {
				t.Errorf("%s: got %v, want %d (its last write)", name, got[name], patches)
			}
		}
		list, err := kits[0].Records("appCounters").List(t.Context(), actor, url.Values{"pageSize": {"1"}})
		if err != nil {
			t.Fatal(err)
		}
		if want := 1 + instances*goroutines*patches/10; list.Pagination.TotalItems != want {
			t.Errorf("records: got %d, want %d", list.Pagination.TotalItems, want)
		}
	})
}
