package store_test

import (
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/store"
	"github.com/collectionkit/kit/internal/testdb"
)

// BenchmarkListUnderCommonSearches measures, on each engine (PostgreSQL
// when KIT_TEST_POSTGRES is set), an unrelated list (page 1 of team t1,
// newest first, with its total) alone and while eight goroutines search
// t1 for a word 95% of its rows hold ("yonder"), with the default scan
// slots (SearchScans 0) and with a slot per search (unbounded). It
// reports a lone search's mean latency (search-ms), and the list's: quiet,
// in the burst's first moments (loaded: 50 ms after the searches start,
// while the first of them may still run alone) and once the searches keep
// every slot busy (steady: after 500 ms), with loaded/quiet and
// steady/quiet. The Store is warmed first, as kit.New warms it (Warm: on
// PostgreSQL the pool's connections are open before the burst).
// KIT_BENCH_ROWS sets t1's rows (default 20,000; t2 holds a tenth as
// many).
func BenchmarkListUnderCommonSearches(b *testing.B) {
	for _, e := range []testdb.Engine{testdb.EngineSQLite, testdb.EnginePostgres} {
		for _, slots := range []int{0, 8} {
			name := string(e) + "/default-slots"
			if slots > 0 {
				name = string(e) + "/unbounded"
			}
			b.Run(name, func(b *testing.B) {
				if e == testdb.EnginePostgres && os.Getenv(testdb.EnvPostgres) == "" {
					b.Skip("set KIT_TEST_POSTGRES to run on PostgreSQL")
				}
				benchListUnderCommonSearches(b, e, slots)
			})
		}
	}
}

func benchListUnderCommonSearches(b *testing.B, e testdb.Engine, slots int) {
	f := newFixture(b, e, collections.Definition{Name: "products", Layer: "shop", Fields: []collections.Field{
		{Name: "title", Type: collections.TypeString},
		{Name: "description", Type: collections.TypeText},
		{Name: "stock", Type: collections.TypeNumber},
	}})
	f.s.SearchScans = slots
	// Every search counts, as searches for terms that keep changing do:
	// the searches' slots are measured, not a remembered total
	// (totals.go).
	f.s.TotalsCache = -1
	ctx := b.Context()
	tx, err := f.db.BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	recs := store.HitRateRecords(store.BenchRows())
	for len(recs) > 0 {
		n := min(len(recs), 1000)
		if err := f.s.InsertMany(ctx, tx, f.products, recs[:n]); err != nil {
			b.Fatal(err)
		}
		recs = recs[n:]
	}
	if err := f.s.FlushSearch(ctx, tx, f.products); err != nil {
		b.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	if e == testdb.EnginePostgres {
		if _, err := f.db.ExecContext(ctx, "ANALYZE"); err != nil {
			b.Fatal(err)
		}
	}
	// As kit.New does after its sync: on PostgreSQL the pool's
	// connections are open before the burst.
	f.s.Warm(ctx, f.reg)
	list, err := f.products.ParseListQuery(url.Values{"sort": {"-createdAt"}}, collections.QueryLimits{})
	if err != nil {
		b.Fatal(err)
	}
	search, err := f.products.ParseListQuery(url.Values{"sort": {"-createdAt"}, "search": {"yonder"}}, collections.QueryLimits{})
	if err != nil {
		b.Fatal(err)
	}
	timeLists := func(k int) time.Duration {
		t0 := time.Now()
		for range k {
			if _, err := f.s.List(ctx, store.Read{}, f.products, "t1", list); err != nil {
				b.Fatal(err)
			}
		}
		return time.Since(t0) / time.Duration(k)
	}
	var quiet, alone, loaded, steady time.Duration
	for b.Loop() {
		quiet += timeLists(20)
		t0 := time.Now()
		for range 3 {
			if _, err := f.s.List(ctx, store.Read{}, f.products, "t1", search); err != nil {
				b.Fatal(err)
			}
		}
		alone += time.Since(t0) / 3
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for {
					select {
					case <-stop:
						return
					default:
					}
					if _, err := f.s.List(ctx, store.Read{}, f.products, "t1", search); err != nil {
						b.Error(err)
						return
					}
				}
			})
		}
		t0 = time.Now()
		time.Sleep(50 * time.Millisecond) // the searches under way
		loaded += timeLists(20)
		time.Sleep(500*time.Millisecond - time.Since(t0))
		steady += timeLists(20)
		close(stop)
		wg.Wait()
	}
	b.ReportMetric(float64(quiet.Microseconds())/float64(b.N)/1000, "quiet-ms")
	b.ReportMetric(float64(alone.Microseconds())/float64(b.N)/1000, "search-ms")
	b.ReportMetric(float64(loaded.Microseconds())/float64(b.N)/1000, "loaded-ms")
	b.ReportMetric(float64(steady.Microseconds())/float64(b.N)/1000, "steady-ms")
	b.ReportMetric(float64(loaded)/float64(quiet), "loaded/quiet")
	b.ReportMetric(float64(steady)/float64(quiet), "steady/quiet")
}
