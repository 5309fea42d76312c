package kit_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/internal/testkit"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// The figures of BenchmarkCheapGetBesideExpensiveLists: the size of the
// team whose expensive lists it sends, and how long and how often it
// times the cheap GET beside them.
const (
	starvationRows   = 100_000
	starvationWindow = 5 * time.Second
	starvationPace   = 2 * time.Millisecond
)

// BenchmarkCheapGetBesideExpensiveLists measures what one member's burst of
// expensive lists costs everyone else: a member of acme (100,000 products)
// sends 0, 8 or 32 concurrent lists that no index serves, each client
// sending its next list as soon as the last is answered (or, refused with
// a 503, after its Retry-After), while the benchmark times GET of one record of another team, globex,
// one request per op. Each op's latency is reported (ns/op, p50-ns, p99-ns)
// with the expensive lists answered per second (lists/s) and those
// refused with 503 (busy/s). Real HTTP over loopback to k.Handler(), on a
// WAL file database as kit serve opens it, and on PostgreSQL when
// KIT_TEST_POSTGRES is set. Compare each burst's latency with the quiet
// run's in the same invocation:
//
//	go test ./kit -run '^$' -bench CheapGetBesideExpensiveLists -benchtime 1x
func BenchmarkCheapGetBesideExpensiveLists(b *testing.B) {
	engines := []struct {
		name string
		cfg  func(b *testing.B) kit.Config
	}{
		{"sqlite", func(b *testing.B) kit.Config { return kit.Config{SQLitePath: tempDBPath(b)} }},
		{"postgres", func(b *testing.B) kit.Config { return kit.Config{DB: testdb.Open(b, testdb.EnginePostgres)} }},
	}
	bursts := []struct {
		name  string
		query string // the expensive list's query
		n     int
	}{
		{"quiet", "", 0},
		{"8 unindexed sorts", "sort=title", 8},
		{"32 unindexed sorts", "sort=title", 32},
		{"8 scanning filters", "filter=" + url.QueryEscape(`{"description":{"contains":"model 1234"}}`), 8},
		{"32 scanning filters", "filter=" + url.QueryEscape(`{"description":{"contains":"model 1234"}}`), 32},
	}
	for _, e := range engines {
		b.Run(e.name, func(b *testing.B) {
			cfg := e.cfg(b)
			cfg.Definitions = []collections.Definition{benchProducts("restful")}
			k := newKitConfig(b, cfg)
			w := seedStarvation(b, k)
			srv := httptest.NewServer(k.Handler())
			b.Cleanup(srv.Close)
			for _, burst := range bursts {
				b.Run(burst.name, func(b *testing.B) {
					ctx, cancel := context.WithCancel(b.Context())
					var served, busy atomic.Int64
					var wg sync.WaitGroup
					for range burst.n {
						wg.Go(func() {
							client := &http.Client{Transport: &http.Transport{}}
							defer client.CloseIdleConnections()
							for ctx.Err() == nil {
								switch status, retry := getStatus(ctx, client, srv.URL+"/api/teams/acme/shop-products?"+burst.query, w.acmeToken); status {
								case http.StatusOK:
									served.Add(1)
								case http.StatusServiceUnavailable:
									// A client that follows the protocol waits
									// as long as Retry-After says.
									busy.Add(1)
									select {
									case <-ctx.Done():
									case <-time.After(retry):
									}
								case 0: // the burst ended
								default:
									b.Errorf("expensive list: got %d, want 200 or 503", status)
									return
								}
							}
						})
					}
					time.Sleep(300 * time.Millisecond) // the burst under way
					client := &http.Client{Transport: &http.Transport{}}
					defer client.CloseIdleConnections()
					url := srv.URL + "/api/teams/globex/shop-products/" + w.globexID
					var took []time.Duration
					served.Store(0)
					busy.Store(0)
					start := time.Now()
					for b.Loop() {
						// One window: a GET every starvationPace for
						// starvationWindow, so that the samples span many
						// expensive lists.
						for end := time.Now().Add(starvationWindow); time.Now().Before(end); time.Sleep(starvationPace) {
							t0 := time.Now()
							if status, _ := getStatus(ctx, client, url, w.globexToken); status != http.StatusOK {
								b.Fatalf("the cheap GET: got %d, want 200", status)
							}
							took = append(took, time.Since(t0))
						}
					}
					elapsed := time.Since(start).Seconds()
					cancel()
					wg.Wait()
					slices.Sort(took)
					var sum time.Duration
					for _, d := range took {
						sum += d
					}
					b.ReportMetric(float64(sum.Nanoseconds())/float64(len(took)), "ns/op")
					b.ReportMetric(float64(took[len(took)/2].Nanoseconds()), "p50-ns")
					b.ReportMetric(float64(took[len(took)*99/100].Nanoseconds()), "p99-ns")
					b.ReportMetric(float64(served.Load())/elapsed, "lists/s")
					b.ReportMetric(float64(busy.Load())/elapsed, "busy/s")
				})
			}
		})
	}
}

// starvationWorld is the seeded world of BenchmarkCheapGetBesideExpensiveLists.
type starvationWorld struct {
	acmeToken, globexToken string
	globexID               string
}

// seedStarvation creates acme with starvationRows products and globex
// with one, each team with an owner and a token.
func seedStarvation(b *testing.B, k *kit.Kit) starvationWorld { return seedStarvationT(b, k) }

func seedStarvationT(b testing.TB, k *kit.Kit) starvationWorld {
	b.Helper()
	ctx := b.Context()
	seed, err := testkit.SeedWorld(ctx, k, testkit.World{
		Teams: []string{"acme", "globex"},
		Users: []testkit.WorldUser{
			{Name: "ann", Team: "acme", Role: teamauth.RoleOwner},
			{Name: "gus", Team: "globex", Role: teamauth.RoleOwner},
		},
	})
	if err != nil {
		b.Fatal(err)
	}
	words := []string{"amber", "birch", "cedar", "delta", "ember", "fjord", "grove", "heron"}
	var wg sync.WaitGroup
	var failed atomic.Pointer[error]
	const workers = 8
	for wkr := range workers {
		wg.Go(func() {
			for i := wkr; i < starvationRows && failed.Load() == nil; i += workers {
				_, err := k.Records(productsKey).Create(ctx, seed.Actors["ann"], map[string]any{
					"title":       fmt.Sprintf("%s %s %d", words[i%len(words)], words[(i/7)%len(words)], i*7919%starvationRows),
					"description": fmt.Sprintf("A sturdy thing for everyday use, model %d", i),
					"price":       "12.34", "stock": i % 500, "sku": fmt.Sprint("sku-", i),
				})
				if err != nil {
					failed.Store(&err)
				}
			}
		})
	}
	wg.Wait()
	if err := failed.Load(); err != nil {
		b.Fatal(*err)
	}
	rec, err := k.Records(productsKey).Create(ctx, seed.Actors["gus"], map[string]any{"title": "Globe", "sku": "g-1"})
	if err != nil {
		b.Fatal(err)
	}
	return starvationWorld{acmeToken: seed.Tokens["ann"], globexToken: seed.Tokens["gus"], globexID: rec["id"].(string)}
}

// getStatus sends GET url with token and returns the status (0 when ctx
// ended first) and the answer's Retry-After.
func getStatus(ctx context.Context, client *http.Client, url, token string) (int, time.Duration) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, 0
	}
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := client.Do(req)
	if err != nil {
		return 0, 0
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, res.Body)
	secs, _ := strconv.Atoi(res.Header.Get("Retry-After"))
	return res.StatusCode, time.Duration(secs) * time.Second
}
