package kit_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// BenchmarkChangeStream measures the change stream on a SQLite file with
// 0, 100 and 1,000 subscribers over real HTTP (httptest, in process): the
// create throughput through the record API from 8 goroutines (creates/s),
// the delivery latency from commit (the after-commit hook) to each
// subscriber reading the event (p50-ms, p99-ms), and the memory an idle
// subscriber holds (bytes/sub: heap and stacks of both ends of the stream,
// server and reading client, measured after opening them all). Run it
// with a fixed count of creates:
//
//	go test ./kit -run '^$' -bench ChangeStream -benchtime 2000x
func BenchmarkChangeStream(b *testing.B) {
	for _, subs := range []int{0, 100, 1000} {
		b.Run(fmt.Sprintf("subscribers=%d", subs), func(b *testing.B) { benchChangeStream(b, subs) })
	}
}

func benchChangeStream(b *testing.B, subs int) {
	ctx := context.Background()
	k := newKitConfig(b, kit.Config{SQLitePath: tempDBPath(b), Definitions: shopDefinitions(), Changes: kit.ChangesConfig{Disabled: os.Getenv("KIT_BENCH_NO_CHANGES") != ""}})
	acc := k.Accounts()
	team, err := acc.CreateTeam(ctx, teamauth.Team{Name: "Bench", Slug: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	user, err := acc.CreateUser(ctx, teamauth.User{Name: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := acc.AddMember(ctx, team.ID, user.ID, teamauth.RoleOwner); err != nil {
		b.Fatal(err)
	}
	token, _, err := acc.CreateToken(ctx, user.ID, "bench")
	if err != nil {
		b.Fatal(err)
	}
	actor := kit.Actor{UserID: user.ID, TeamID: team.ID, Role: teamauth.RoleOwner}

	var mu sync.Mutex
	committed := map[string]time.Time{}
	k.OnMutation(func(_ context.Context, m kit.Mutation) {
		now := time.Now()
		mu.Lock()
		committed[m.ItemID] = now
		mu.Unlock()
	})
	srv := httptest.NewServer(k.Handler())
	b.Cleanup(srv.Close)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: subs + 1}}

	type received struct {
		item string
		at   time.Time
	}
	got := make([][]received, subs)
	counts := make([]atomic.Int64, subs)
	var ready, done sync.WaitGroup
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	streamCtx, stop := context.WithCancel(ctx)
	defer stop()
	for i := range subs {
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			req, _ := http.NewRequestWithContext(streamCtx, http.MethodGet, srv.URL+"/api/teams/bench/kit-changes", nil)
			req.Header.Set("Authorization", "Bearer "+token)
			res, err := hc.Do(req)
			if err != nil {
				ready.Done()
				return
			}
			defer res.Body.Close()
			sc := bufio.NewScanner(res.Body)
			isReady := false
			for sc.Scan() {
				line := sc.Text()
				if !isReady && strings.HasPrefix(line, "event: ready") {
					isReady = true
					ready.Done()
					continue
				}
				if j := strings.Index(line, `"itemId":"`); j >= 0 && strings.HasPrefix(line, "data: ") {
					rest := line[j+len(`"itemId":"`):]
					got[i] = append(got[i], received{item: rest[:strings.IndexByte(rest, '"')], at: time.Now()})
					counts[i].Add(1)
				}
			}
			if !isReady {
				ready.Done()
			}
		}()
	}
	ready.Wait()
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	perSub := (float64(after.HeapInuse+after.StackInuse) - float64(before.HeapInuse+before.StackInuse)) / float64(max(subs, 1))

	const writers = 8
	b.ResetTimer()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := w; n < b.N; n += writers {
				if _, err := k.Records("shopCategories").Create(ctx, actor, map[string]any{"title": "bench"}); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := b.Elapsed()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "creates/s")
	if subs == 0 {
		return
	}
	b.ReportMetric(perSub, "bytes/sub") // after ResetTimer, which drops metrics
	// Wait until every subscriber has read every change (the limit only
	// keeps a broken benchmark from hanging), then stop the streams.
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		all := true
		for i := range subs {
			if counts[i].Load() < int64(b.N) {
				all = false
				break
			}
		}
		if all {
			break
		}
	}
	stop()
	done.Wait()
	mu.Lock()
	defer mu.Unlock()
	var lat []time.Duration
	for i := range subs {
		if len(got[i]) != b.N {
			b.Errorf("subscriber %d: got %d changes, want %d", i, len(got[i]), b.N)
		}
		for _, r := range got[i] {
			if at, ok := committed[r.item]; ok {
				lat = append(lat, max(r.at.Sub(at), 0))
			}
		}
	}
	slices.Sort(lat)
	if len(lat) > 0 {
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	}
}
