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

	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/kittest"
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
//
// In "teams=1" every subscriber is a member of the one written team, so
// each create is delivered to all of them (the worst case: the bytes sent
// grow with creates times subscribers, and the reading clients share the
// process's two cores). In "teams=100" the subscribers are spread over 100
// teams and the creates go round the teams, as in a multi-tenant service:
// each create reaches a hundredth of them. KIT_BENCH_NO_CHANGES=1 turns the
// change log off (Config.Changes.Disabled) for the 0-subscriber baseline.
func BenchmarkChangeStream(b *testing.B) {
	for _, c := range []struct{ subs, teams int }{{0, 1}, {100, 1}, {1000, 1}, {1000, 100}} {
		b.Run(fmt.Sprintf("subscribers=%d/teams=%d", c.subs, c.teams), func(b *testing.B) {
			k := newKitConfig(b, kit.Config{SQLitePath: tempDBPath(b), Definitions: shopDefinitions(),
				Changes: kit.ChangesConfig{Disabled: os.Getenv("KIT_BENCH_NO_CHANGES") != ""}})
			benchChangeStream(b, k, k, c.subs, c.teams)
		})
	}
}

// BenchmarkChangeStreamAcrossInstances measures delivery from one kit
// instance to the subscribers of another on one PostgreSQL database (each
// with its own connection pool, as two processes): creates go through
// instance A, 100 subscribers read instance B's stream, which learns of
// A's changes by reading the change log every PollInterval while it has
// subscribers. It runs with the PollInterval before 2026-11-23 (250 ms)
// and with today's default (50 ms). It needs KIT_TEST_POSTGRES.
//
//	go test ./kit -run '^$' -bench ChangeStreamAcrossInstances -benchtime 2000x
func BenchmarkChangeStreamAcrossInstances(b *testing.B) {
	for _, poll := range []time.Duration{250 * time.Millisecond, 50 * time.Millisecond} {
		b.Run(fmt.Sprintf("poll=%v", poll), func(b *testing.B) {
			open := testdb.Shared(b, testdb.EnginePostgres)
			cfg := func() kit.Config {
				return kit.Config{DB: open(), Definitions: shopDefinitions(), Logger: quietLogger(),
					Changes: kit.ChangesConfig{PollInterval: poll}}
			}
			a := kittest.NewKit(b, cfg())
			other := kittest.NewKit(b, cfg())
			benchChangeStream(b, a, other, 100, 1)
		})
	}
}

// benchChangeStream creates b.N records through writer and streams them
// from reader (the same kit, or another on the same database) to subs
// subscribers spread over teams teams.
func benchChangeStream(b *testing.B, writer, reader *kit.Kit, subs, teams int) {
	ctx := context.Background()
	acc := writer.Accounts()
	user, err := acc.CreateUser(ctx, teamauth.User{Name: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	slugs := make([]string, teams)
	actors := make([]kit.Actor, teams)
	for i := range teams {
		slugs[i] = fmt.Sprintf("bench%d", i)
		team, err := acc.CreateTeam(ctx, teamauth.Team{Name: slugs[i], Slug: slugs[i]})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := acc.AddMember(ctx, team.ID, user.ID, teamauth.RoleOwner); err != nil {
			b.Fatal(err)
		}
		actors[i] = kit.Actor{UserID: user.ID, TeamID: team.ID, Role: teamauth.RoleOwner}
	}
	token, _, err := acc.CreateToken(ctx, user.ID, "bench")
	if err != nil {
		b.Fatal(err)
	}
	k := writer
	var mu sync.Mutex
	committed := map[string]time.Time{}
	k.OnMutation(func(_ context.Context, m kit.Mutation) {
		now := time.Now()
		mu.Lock()
		committed[m.ItemID] = now
		mu.Unlock()
	})
	srv := httptest.NewServer(reader.Handler())
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
			req, _ := http.NewRequestWithContext(streamCtx, http.MethodGet, srv.URL+"/api/teams/"+slugs[i%teams]+"/kit-changes", nil)
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
	cpu0, written0 := processCPU(), processWritten()
	b.ResetTimer()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := w; n < b.N; n += writers {
				if _, err := k.Records("shopCategories").Create(ctx, actors[n%teams], map[string]any{"title": "bench"}); err != nil {
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
	if cpu0 >= 0 {
		// The process's CPU time and bytes handed to write(2) per create:
		// steadier than creates/s on a machine whose speed varies, and the
		// second counts the WAL pages a write transaction adds.
		b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/float64(b.N), "cpu-µs/create")
		b.ReportMetric(float64(processWritten()-written0)/float64(b.N), "written-B/create")
	}
	if subs == 0 {
		return
	}
	b.ReportMetric(perSub, "bytes/sub") // after ResetTimer, which drops metrics
	// want is how many changes subscriber i receives: the creates of its
	// team (the creates go round the teams).
	want := func(i int) int {
		t := i % teams
		return max(b.N-t+teams-1, 0) / teams
	}
	// Wait until every subscriber has read every change (the limit only
	// keeps a broken benchmark from hanging), then stop the streams.
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		all := true
		for i := range subs {
			if counts[i].Load() < int64(want(i)) {
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
		if len(got[i]) != want(i) {
			b.Errorf("subscriber %d: got %d changes, want %d", i, len(got[i]), want(i))
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
