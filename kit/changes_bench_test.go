package kit_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
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
// 0, 100 and 1,000 subscribers over real HTTP: the create throughput
// through the record API from 8 goroutines (creates/s), the delivery
// latency from commit (the after-commit hook) to each subscriber reading
// the event (p50-ms, p99-ms), the server process's CPU time and bytes
// handed to write(2) per create, and the memory an idle subscriber holds
// (bytes/sub: heap and stacks, measured after opening them all), and the
// delivery interval the fan-out budget chose last while the creates ran
// (interval-ms). Run it with a fixed count of creates:
//
//	go test ./kit -run '^$' -bench ChangeStream -benchtime 2000x
//
// In "teams=1" every subscriber is a member of the one written team, so
// each create is delivered to all of them (the worst case: the bytes sent
// grow with creates times subscribers). In "teams=100" the subscribers are
// spread over 100 teams and the creates go round the teams, as in a
// multi-tenant service: each create reaches a hundredth of them.
//
// With "clients=process" the subscribers read their streams in a child
// process (this test binary, re-executed to run
// TestChangeStreamSubscriberProcess), so the CPU, the writes and bytes/sub
// are the server's alone, as for remote clients. With "clients=inprocess"
// the reading clients share the process, and its CPU, with the server, and
// bytes/sub counts both ends of each stream.
//
// The 0-subscriber cases are the baselines: "teams=1" for the one-team
// cases and "teams=100" for the 100-team ones (creates spread over 100
// teams touch more pages per group commit, so they cost more with no
// stream at all).
//
// With "clients=process" the benchmark also reports the child's CPU time
// per create while the creates ran and until every change was read
// (reader-cpu-µs/create): the reading side's share of the two cores, which
// remote clients would not take from the server.
//
// KIT_BENCH_CPUPROFILE (a file path) writes a CPU profile of the server
// process from the first create until every subscriber has read every
// change (without the setup that go test's -cpuprofile includes: opening
// the streams and the teams).
//
// KIT_BENCH_NO_CHANGES=1 turns the change log off (Config.Changes.Disabled)
// for the 0-subscriber baseline; KIT_BENCH_DELIVERY_INTERVAL (a duration)
// sets Config.Changes.DeliveryInterval, KIT_BENCH_MAX_DELIVERY_INTERVAL
// its MaxDeliveryInterval.
func BenchmarkChangeStream(b *testing.B) {
	duration := func(env string) time.Duration {
		v := os.Getenv(env)
		if v == "" {
			return 0
		}
		d, err := time.ParseDuration(v)
		if err != nil {
			b.Fatal(err)
		}
		return d
	}
	interval, maxInterval := duration("KIT_BENCH_DELIVERY_INTERVAL"), duration("KIT_BENCH_MAX_DELIVERY_INTERVAL")
	type benchCase struct {
		subs, teams int
		process     bool
	}
	cases := []benchCase{{0, 1, false}, {0, 100, false}}
	for _, process := range []bool{true, false} {
		cases = append(cases, []benchCase{{100, 1, process}, {100, 100, process}, {1000, 1, process}, {1000, 100, process}}...)
	}
	for _, c := range cases {
		clients := "inprocess"
		if c.process {
			clients = "process"
		}
		b.Run(fmt.Sprintf("subscribers=%d/teams=%d/clients=%s", c.subs, c.teams, clients), func(b *testing.B) {
			k := newKitConfig(b, kit.Config{SQLitePath: tempDBPath(b), Definitions: shopDefinitions(),
				Changes: kit.ChangesConfig{Disabled: os.Getenv("KIT_BENCH_NO_CHANGES") != "", DeliveryInterval: interval, MaxDeliveryInterval: maxInterval}})
			benchChangeStream(b, k, k, c.subs, c.teams, c.process)
		})
	}
}

// BenchmarkChangeStreamAcrossInstances measures delivery from one kit
// instance to the subscribers of another on one PostgreSQL database (each
// with its own connection pool, as two processes): creates go through
// instance A, 100 subscribers read instance B's stream, which learns of
// A's changes by reading the change log every PollInterval while it has
// subscribers. It runs with the PollInterval before 2026-11-23 (250 ms)
// and with today's default (50 ms), the subscribers reading in this
// process ("clients=inprocess") or in a child process ("clients=process",
// as for BenchmarkChangeStream: the readers then do not stretch the wall
// time of the streams' writes that the fan-out budget counts). It needs
// KIT_TEST_POSTGRES.
//
//	go test ./kit -run '^$' -bench ChangeStreamAcrossInstances -benchtime 2000x
func BenchmarkChangeStreamAcrossInstances(b *testing.B) {
	for _, poll := range []time.Duration{250 * time.Millisecond, 50 * time.Millisecond} {
		for _, process := range []bool{false, true} {
			clients := "inprocess"
			if process {
				clients = "process"
			}
			b.Run(fmt.Sprintf("poll=%v/clients=%s", poll, clients), func(b *testing.B) {
				open := testdb.Shared(b, testdb.EnginePostgres)
				cfg := func() kit.Config {
					return kit.Config{DB: open(), Definitions: shopDefinitions(), Logger: quietLogger(),
						Changes: kit.ChangesConfig{PollInterval: poll}}
				}
				a := kittest.NewKit(b, cfg())
				other := kittest.NewKit(b, cfg())
				benchChangeStream(b, a, other, 100, 1, process)
			})
		}
	}
}

// benchChangeStream creates b.N records through writer and streams them
// from reader (the same kit, or another on the same database) to subs
// subscribers spread over teams teams, read in this process or, with
// process, in a child process.
func benchChangeStream(b *testing.B, writer, reader *kit.Kit, subs, teams int, process bool) {
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

	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	var readers streamReaders
	if process && subs > 0 {
		readers = startSubscriberProcess(b, srv.URL, token, slugs, subs, b.N)
	} else if subs > 0 {
		readers = openStreamReaders(srv.URL, token, slugs, subs, b.N)
	}
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	perSub := (float64(after.HeapInuse+after.StackInuse) - float64(before.HeapInuse+before.StackInuse)) / float64(max(subs, 1))

	const writers = 8
	stopProfile := func() {}
	if path := os.Getenv("KIT_BENCH_CPUPROFILE"); path != "" {
		stopProfile = startCPUProfile(b, path)
	}
	cpu0, written0, writes0 := processCPU(), processWritten(), processWrites()
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
	interval := kit.LastDeliveryInterval(reader)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "creates/s")
	if subs > 0 {
		// A create's cost includes its delivery, which may come a delivery
		// interval after the last create: the counters are read once every
		// subscriber has read every change.
		if err := readers.wait(b.N); err != nil {
			b.Fatal(err)
		}
	}
	stopProfile()
	if cpu0 >= 0 {
		// The process's CPU time, bytes handed to write(2) and write calls
		// per create: steadier than creates/s on a machine whose speed
		// varies; the bytes count the WAL pages a write transaction adds
		// and the events sent, the calls the stream writes.
		b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/float64(b.N), "cpu-µs/create")
		b.ReportMetric(float64(processWritten()-written0)/float64(b.N), "written-B/create")
		b.ReportMetric(float64(processWrites()-writes0)/float64(b.N), "writes/create")
	}
	if subs == 0 {
		return
	}
	b.ReportMetric(perSub, "bytes/sub") // after ResetTimer, which drops metrics
	// The delivery interval the fan-out budget chose last while the
	// creates ran.
	b.ReportMetric(float64(interval.Microseconds())/1000, "interval-ms")
	mu.Lock()
	defer mu.Unlock()
	res, err := readers.finish(b.N, committed)
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range res.errors {
		b.Error(e)
	}
	b.ReportMetric(float64(res.p50.Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(res.p99.Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(res.resumes), "resumes")
	if process {
		b.ReportMetric(float64(res.cpu.Microseconds())/float64(b.N), "reader-cpu-µs/create")
	}
}

// streamReaders is the reading side of BenchmarkChangeStream: wait returns
// once every subscriber has read every change of its team (the limit of a
// minute only keeps a broken benchmark from hanging); finish then closes
// the streams and measures the delivery latencies from the commit times.
type streamReaders interface {
	wait(creates int) error
	finish(creates int, committed map[string]time.Time) (readResult, error)
}

// readResult is what the subscribers read.
type readResult struct {
	p50, p99 time.Duration
	resumes  int64 // reconnections of streams the server closed
	// cpu is the reading process's CPU time from the first create until
	// every change was read (the child process only).
	cpu    time.Duration
	errors []string // subscribers that read too many or too few changes
}

// wantChanges is how many changes subscriber i of teams teams receives of
// creates creates going round the teams.
func wantChanges(creates, teams, i int) int {
	t := i % teams
	return max(creates-t+teams-1, 0) / teams
}

// parsePosition reads an SSE id (digits only; -1 otherwise) without
// allocating.
func parsePosition(b []byte) int64 {
	if len(b) == 0 {
		return -1
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int64(c-'0')
	}
	return n
}

// localReaders reads the streams in goroutines of this process.
type localReaders struct {
	teams  int
	got    [][]received
	counts []atomic.Int64
	// disorder counts, per subscriber, the changes whose position was not
	// above the previous change's (read twice or out of order).
	disorder []int
	// resumes counts reconnections with Last-Event-ID, resets the reset
	// events read (a resume beyond the retained log; never here).
	resumes, resets atomic.Int64
	stop            context.CancelFunc
	done            sync.WaitGroup
}

// received is one change read: its item id is kept in place (ids are
// UUIDs, 36 bytes), so that reading a change allocates nothing.
type received struct {
	item [36]byte
	n    uint8 // the id's length in item
	at   time.Time
}

func (r *received) itemID() string { return string(r.item[:r.n]) }

// openStreamReaders opens subs streams, subscriber i on team slugs[i %
// len(slugs)], room for the changes of creates creates, and returns once
// each has read its ready event.
func openStreamReaders(url, token string, slugs []string, subs, creates int) *localReaders {
	r := &localReaders{teams: len(slugs), got: make([][]received, subs), counts: make([]atomic.Int64, subs), disorder: make([]int, subs)}
	for i := range subs {
		r.got[i] = make([]received, 0, wantChanges(creates, len(slugs), i))
	}
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: subs + 1}}
	streamCtx, stop := context.WithCancel(context.Background())
	r.stop = stop
	var ready sync.WaitGroup
	for i := range subs {
		ready.Add(1)
		r.done.Add(1)
		go func() {
			defer r.done.Done()
			isReady := false
			defer func() {
				if !isReady {
					ready.Done()
				}
			}()
			// A stream the server closed (a subscriber too slow for its
			// buffer) is resumed with Last-Event-ID, as clients do.
			var last, cur int64 // the last change's position, the current event's
			for streamCtx.Err() == nil {
				req, _ := http.NewRequestWithContext(streamCtx, http.MethodGet, url+"/api/teams/"+slugs[i%len(slugs)]+"/kit-changes", nil)
				req.Header.Set("Authorization", "Bearer "+token)
				if last > 0 {
					req.Header.Set("Last-Event-ID", strconv.FormatInt(last, 10))
					r.resumes.Add(1)
				}
				res, err := hc.Do(req)
				if err != nil {
					return
				}
				// Lean on purpose: in the child process this reading shares
				// the server's two cores, so it reads lines as bytes and
				// keeps only what the checks need (the item, for latency;
				// the position, for order), one allocation per change.
				sc := bufio.NewScanner(res.Body)
				for sc.Scan() {
					line := sc.Bytes()
					if id, ok := bytes.CutPrefix(line, []byte("id: ")); ok {
						cur = parsePosition(id)
						continue
					}
					if !isReady && bytes.HasPrefix(line, []byte("event: ready")) {
						isReady = true
						ready.Done()
						continue
					}
					if bytes.HasPrefix(line, []byte("event: reset")) {
						r.resets.Add(1)
					}
					if !bytes.HasPrefix(line, []byte("data: ")) {
						continue
					}
					if j := bytes.Index(line, []byte(`"itemId":"`)); j >= 0 {
						if cur <= last {
							r.disorder[i]++ // a change again or out of order
						}
						last = cur
						rest := line[j+len(`"itemId":"`):]
						g := received{at: time.Now()}
						g.n = uint8(copy(g.item[:], rest[:bytes.IndexByte(rest, '"')]))
						r.got[i] = append(r.got[i], g)
						r.counts[i].Add(1)
					}
				}
				res.Body.Close()
				if !isReady {
					return
				}
			}
		}()
	}
	ready.Wait()
	return r
}

func (r *localReaders) wait(creates int) error {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		all := true
		for i := range r.counts {
			if r.counts[i].Load() < int64(wantChanges(creates, r.teams, i)) {
				all = false
				break
			}
		}
		if all {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	return nil
}

func (r *localReaders) finish(creates int, committed map[string]time.Time) (readResult, error) {
	r.stop()
	r.done.Wait()
	res := readResult{resumes: r.resumes.Load()}
	if n := r.resets.Load(); n > 0 {
		res.errors = append(res.errors, fmt.Sprintf("got %d reset events, want none", n))
	}
	var lat []time.Duration
	for i, got := range r.got {
		if want := wantChanges(creates, r.teams, i); len(got) != want {
			res.errors = append(res.errors, fmt.Sprintf("subscriber %d: got %d changes, want %d", i, len(got), want))
		}
		if n := r.disorder[i]; n > 0 {
			res.errors = append(res.errors, fmt.Sprintf("subscriber %d: got %d changes at or below the previous position, want none", i, n))
		}
		for _, g := range got {
			if at, ok := committed[g.itemID()]; ok {
				lat = append(lat, max(g.at.Sub(at), 0))
			}
		}
	}
	slices.Sort(lat)
	if len(lat) > 0 {
		res.p50, res.p99 = lat[len(lat)/2], lat[len(lat)*99/100]
	}
	return res, nil
}

// The child process's protocol: the parent passes the server's URL, the
// token, the team slugs, the subscriber count and the count of creates to
// come in the environment; the child opens the streams and prints
// "ready"; the parent sends "wait <creates>" on the child's stdin, and
// the child prints "delivered" once every subscriber has read every
// change (or a minute passed); the parent writes the commit times to a
// file (item id and Unix nanoseconds per line) and sends "finish <file>";
// the child closes the streams and prints "result <p50 ns> <p99 ns>
// <resumes> <its CPU ns from ready to delivered>", then one "error
// <text>" line per subscriber that read a wrong count of changes or one
// out of order, then "end". KIT_BENCH_READER_CPUPROFILE (a file path)
// has the child write a CPU profile from ready to delivered.
const (
	envSubscribeURL   = "KIT_BENCH_SUBSCRIBE_URL"
	envSubscribeToken = "KIT_BENCH_SUBSCRIBE_TOKEN"
	envSubscribeTeams = "KIT_BENCH_SUBSCRIBE_TEAMS"
	envSubscribeCount = "KIT_BENCH_SUBSCRIBE_COUNT"
	// envSubscribeCreates is how many creates will come (room is made for
	// their changes before they start).
	envSubscribeCreates = "KIT_BENCH_SUBSCRIBE_CREATES"
)

// TestChangeStreamSubscriberProcess is the child process of
// BenchmarkChangeStream's clients=process cases; run by itself it skips.
func TestChangeStreamSubscriberProcess(t *testing.T) {
	url := os.Getenv(envSubscribeURL)
	if url == "" {
		t.Skip("the subscribers' process of BenchmarkChangeStream")
	}
	subs, err := strconv.Atoi(os.Getenv(envSubscribeCount))
	if err != nil {
		t.Fatal(err)
	}
	creates, err := strconv.Atoi(os.Getenv(envSubscribeCreates))
	if err != nil {
		t.Fatal(err)
	}
	r := openStreamReaders(url, os.Getenv(envSubscribeToken), strings.Split(os.Getenv(envSubscribeTeams), ","), subs, creates)
	// The streams are idle until the first create, so the CPU from here
	// until every change was read is the reading of the creates' changes.
	cpu0 := processCPU()
	stopProfile := func() {}
	if path := os.Getenv("KIT_BENCH_READER_CPUPROFILE"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			t.Fatal(err)
		}
		stopProfile = func() {
			pprof.StopCPUProfile()
			_ = f.Close()
		}
	}
	fmt.Println("ready")
	in := bufio.NewScanner(os.Stdin)
	if !in.Scan() {
		t.Fatal("the parent sent no wait line")
	}
	if _, err := fmt.Sscanf(in.Text(), "wait %d", &creates); err != nil {
		t.Fatal(err)
	}
	if err := r.wait(creates); err != nil {
		t.Fatal(err)
	}
	cpu := processCPU() - cpu0
	stopProfile()
	fmt.Println("delivered")
	if !in.Scan() {
		t.Fatal("the parent sent no finish line")
	}
	var path string
	if _, err := fmt.Sscanf(in.Text(), "finish %s", &path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	committed := map[string]time.Time{}
	for line := range strings.SplitSeq(strings.TrimSpace(string(data)), "\n") {
		item, ns, _ := strings.Cut(line, " ")
		n, _ := strconv.ParseInt(ns, 10, 64)
		committed[item] = time.Unix(0, n)
	}
	res, err := r.finish(creates, committed)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("result %d %d %d %d\n", res.p50.Nanoseconds(), res.p99.Nanoseconds(), res.resumes, cpu.Nanoseconds())
	for _, e := range res.errors {
		fmt.Println("error " + e)
	}
	fmt.Println("end")
}

// startCPUProfile writes a CPU profile of this process to path until the
// returned function is called.
func startCPUProfile(b *testing.B, path string) (stop func()) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			b.Error(err)
		}
	}
}

// childReaders reads the streams in a child process.
type childReaders struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
	dir string
}

// startSubscriberProcess starts the child process with subs subscribers
// and returns once each has read its ready event.
func startSubscriberProcess(b *testing.B, url, token string, slugs []string, subs, creates int) *childReaders {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestChangeStreamSubscriberProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), envSubscribeURL+"="+url, envSubscribeToken+"="+token,
		envSubscribeTeams+"="+strings.Join(slugs, ","), envSubscribeCount+"="+strconv.Itoa(subs), envSubscribeCreates+"="+strconv.Itoa(creates))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	c := &childReaders{cmd: cmd, in: in, out: bufio.NewScanner(out), dir: b.TempDir()}
	b.Cleanup(func() {
		_ = in.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	for c.out.Scan() {
		if c.out.Text() == "ready" {
			return c
		}
	}
	b.Fatalf("the subscribers' process ended before its streams were ready: %v", c.out.Err())
	return nil
}

func (c *childReaders) wait(creates int) error {
	if _, err := fmt.Fprintf(c.in, "wait %d\n", creates); err != nil {
		return err
	}
	for c.out.Scan() {
		if c.out.Text() == "delivered" {
			return nil
		}
	}
	return fmt.Errorf("the subscribers' process ended before every change was delivered: %v", c.out.Err())
}

func (c *childReaders) finish(_ int, committed map[string]time.Time) (readResult, error) {
	var sb strings.Builder
	for item, at := range committed {
		fmt.Fprintf(&sb, "%s %d\n", item, at.UnixNano())
	}
	path := c.dir + "/committed.txt"
	if err := os.WriteFile(path, []byte(sb.String()), 0o600); err != nil {
		return readResult{}, err
	}
	if _, err := fmt.Fprintf(c.in, "finish %s\n", path); err != nil {
		return readResult{}, err
	}
	var res readResult
	for c.out.Scan() {
		line := c.out.Text()
		switch {
		case strings.HasPrefix(line, "result "):
			var p50, p99, cpu int64
			if _, err := fmt.Sscanf(line, "result %d %d %d %d", &p50, &p99, &res.resumes, &cpu); err != nil {
				return res, err
			}
			res.p50, res.p99, res.cpu = time.Duration(p50), time.Duration(p99), time.Duration(cpu)
		case strings.HasPrefix(line, "error "):
			res.errors = append(res.errors, strings.TrimPrefix(line, "error "))
		case line == "end":
			return res, nil
		}
	}
	return res, fmt.Errorf("the subscribers' process ended without a result: %v", c.out.Err())
}
