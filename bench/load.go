package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// allWorkloads are the workloads in the order they run. The reads come
// first; every workload starts from the seeded data anyway.
var allWorkloads = append([]string{"list", "search"}, append(searchRateWorkloads(), "filter", "filter-writes", "get", "ids1", "ids100", "create", "update", "delete")...)

// target is one running server as the generator sees it.
type target struct {
	base  string // http://127.0.0.1:port/api/teams/<team>/shop-products
	token string
}

// request is one request to send.
type request struct {
	method string
	path   string // after target.base
	body   []byte
}

// workload makes the requests of one kind. next is called concurrently; it
// returns false when the workload has nothing left to do (delete runs out
// of records).
type workload struct {
	name string
	want int // the status every answer must have
	// pool is how many requests the workload can make at most; 0 means
	// no limit.
	pool int
	next func(r *rand.Rand, n int64) (request, bool)
}

// filters are the filter workload's conditions, over an indexed number
// (stock) and an unindexed decimal (price), with 1% to 10% of the rows.
var filters = []string{
	`{"stock":{"lt":100}}`,
	`{"price":{"gte":"900.00"}}`,
	`{"price":{"lte":"50.00"},"stock":{"gte":500}}`,
	`{"stock":{"gte":250,"lt":260}}`,
}

// newWorkload returns the named workload over the seeded data. seq makes
// the create workload's skus unique across the warm-up and the timed run.
func newWorkload(name string, ds *dataset, ids []string, seq *atomic.Int64) workload {
	switch name {
	case "list":
		// Pages 1 to 10 of 20, newest first, with the total count.
		return workload{name: name, want: 200, next: func(_ *rand.Rand, n int64) (request, bool) {
			return request{method: "GET", path: "?page=" + strconv.FormatInt(1+n%10, 10) + "&pageSize=20"}, true
		}}
	case "search":
		terms := make([]string, len(ds.Terms))
		for i, t := range ds.Terms {
			terms[i] = "?search=" + url.QueryEscape(t) + "&pageSize=20"
		}
		return workload{name: name, want: 200, next: func(_ *rand.Rand, n int64) (request, bool) {
			return request{method: "GET", path: terms[n%int64(len(terms))]}, true
		}}
	case "filter":
		qs := make([]string, len(filters))
		for i, f := range filters {
			qs[i] = "?filter=" + url.QueryEscape(f) + "&pageSize=20"
		}
		return workload{name: name, want: 200, next: func(_ *rand.Rand, n int64) (request, bool) {
			return request{method: "GET", path: qs[n%int64(len(qs))]}, true
		}}
	case "filter-writes":
		// The filter workload with one request in ten an update of a
		// random record of the team (price and stock, the fields the
		// filters test): kit's remembered totals of the team are
		// counted again after each update.
		qs := make([]string, len(filters))
		for i, f := range filters {
			qs[i] = "?filter=" + url.QueryEscape(f) + "&pageSize=20"
		}
		return workload{name: name, want: 200, next: func(r *rand.Rand, n int64) (request, bool) {
			if n%10 == 9 {
				body := fmt.Sprintf(`{"price":"%s","stock":%d}`, centsString(100+r.Int64N(99900)), r.IntN(1000))
				return request{method: "PATCH", path: "/" + ids[r.IntN(len(ids))], body: []byte(body)}, true
			}
			return request{method: "GET", path: qs[(n-n/10)%int64(len(qs))]}, true
		}}
	case "get":
		return workload{name: name, want: 200, next: func(r *rand.Rand, _ int64) (request, bool) {
			return request{method: "GET", path: "/" + ids[r.IntN(len(ids))]}, true
		}}
	case "create":
		return workload{name: name, want: 201, next: func(r *rand.Rand, _ int64) (request, bool) {
			i := seq.Add(1)
			body := fmt.Sprintf(`{"title":"%s %s %s","sku":"NEW-%08d","description":"%s %s %s %s %s %s %s %s.","price":"%s","stock":%d,"isActive":true}`,
				ds.word(r), ds.word(r), ds.word(r), i,
				ds.word(r), ds.word(r), ds.word(r), ds.word(r), ds.word(r), ds.word(r), ds.word(r), ds.word(r),
				centsString(100+r.Int64N(99900)), r.IntN(1000))
			return request{method: "POST", body: []byte(body)}, true
		}}
	case "update":
		return workload{name: name, want: 200, next: func(r *rand.Rand, _ int64) (request, bool) {
			body := fmt.Sprintf(`{"price":"%s","stock":%d}`, centsString(100+r.Int64N(99900)), r.IntN(1000))
			return request{method: "PATCH", path: "/" + ids[r.IntN(len(ids))], body: []byte(body)}, true
		}}
	case "delete":
		// Every record of the loaded team once, in a fixed shuffled order;
		// the run ends early when they are all gone.
		order := slices.Clone(ids)
		rand.New(rand.NewPCG(7, 7)).Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		var next atomic.Int64
		return workload{name: name, want: 204, pool: len(order), next: func(*rand.Rand, int64) (request, bool) {
			i := next.Add(1) - 1
			if i >= int64(len(order)) {
				return request{}, false
			}
			return request{method: "DELETE", path: "/" + order[i]}, true
		}}
	}
	if wl, ok := idsWorkload(name, ids); ok {
		return wl
	}
	wl, _ := searchRateWorkload(name)
	return wl
}

func (d *dataset) word(r *rand.Rand) string { return d.Vocab[r.IntN(len(d.Vocab))] }

// phase is the outcome of driving one workload for a while. requests
// and latencies count the answers the workload wanted only; a refusal (a
// 503 with Retry-After from a full scan queue, say) or any other failure
// counts in errors, so that it adds nothing to a server's throughput.
type phase struct {
	requests  int64
	errors    int64
	firstErr  string
	elapsed   time.Duration
	latencies []time.Duration // sorted
	exhausted bool            // the workload ran out of work before the time was up
	genCPU    time.Duration   // the generator's CPU time (this process)
}

// generator drives HTTP load at one target over a fixed number of
// keep-alive connections.
type generator struct {
	client *http.Client
	conns  int
}

func newGenerator(conns int) *generator {
	tr := &http.Transport{
		MaxIdleConns:        conns,
		MaxIdleConnsPerHost: conns,
		MaxConnsPerHost:     conns,
		DisableCompression:  true,
		IdleConnTimeout:     time.Minute,
	}
	return &generator{client: &http.Client{Transport: tr, Timeout: time.Minute}, conns: conns}
}

func (g *generator) close() { g.client.CloseIdleConnections() }

// busyRetries is how many times a worker sends a request again after a
// busy answer, as kit's Go client does by default
// (client.DefaultBusyRetries).
const busyRetries = 2

// run sends wl's requests from g.conns workers until d has passed, max
// requests were sent, or the workload has no more work. Each worker sends
// its next request when the previous answer is read (a closed loop), so
// the latencies are those of a saturated server. A busy answer (503 with
// Retry-After: a full scan queue) counts as an error, and its worker
// waits what the header asks, as kit's clients do, before it sends the
// same request again (at most busyRetries times; a success then counts
// with its latency from the first attempt) or, once those are spent, its
// next one. A worker that asked again at once would only add refusals to
// the server's work, which no client of kit does.
func (g *generator) run(ctx context.Context, t target, wl workload, d time.Duration, max int64, seed uint64) phase {
	var sent atomic.Int64
	var exhausted atomic.Bool
	var mu sync.Mutex
	var out phase
	lat := make([][]time.Duration, g.conns)
	cpu0 := processCPU()
	start := time.Now()
	deadline := start.Add(d)
	var wg sync.WaitGroup
	for w := range g.conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, uint64(w)))
			mine := make([]time.Duration, 0, 1024)
			for ctx.Err() == nil && time.Now().Before(deadline) {
				n := sent.Add(1)
				if n > max {
					break
				}
				req, ok := wl.next(r, n)
				if !ok {
					exhausted.Store(true)
					break
				}
				t0 := time.Now()
				for busy := 0; ; busy++ {
					status, after, body, err := g.do(ctx, t, req)
					if err == nil && status == wl.want {
						mine = append(mine, time.Since(t0))
						break
					}
					mu.Lock()
					out.errors++
					if out.firstErr == "" {
						if err != nil {
							out.firstErr = err.Error()
						} else {
							out.firstErr = fmt.Sprintf("%s %s: %d %s", req.method, req.path, status, bytes.TrimSpace(body))
						}
					}
					mu.Unlock()
					if err != nil || status != http.StatusServiceUnavailable || after <= 0 {
						break
					}
					wait := min(after, time.Until(deadline))
					if wait > 0 {
						select {
						case <-ctx.Done():
						case <-time.After(wait):
						}
					}
					if busy >= busyRetries || ctx.Err() != nil || !time.Now().Before(deadline) {
						break
					}
				}
			}
			lat[w] = mine
		}()
	}
	wg.Wait()
	out.elapsed = time.Since(start)
	out.genCPU = processCPU() - cpu0
	out.exhausted = exhausted.Load()
	for _, l := range lat {
		out.latencies = append(out.latencies, l...)
	}
	out.requests = int64(len(out.latencies))
	slices.Sort(out.latencies)
	return out
}

// do sends one request and reads the whole answer: its status, the wait
// its Retry-After header asks for (delay-seconds; 0 without one), and its
// body, kept only for error messages (its first 300 bytes).
func (g *generator) do(ctx context.Context, t target, r request) (int, time.Duration, []byte, error) {
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, t.base+r.path, body)
	if err != nil {
		return 0, 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+t.token)
	if r.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := g.client.Do(req)
	if err != nil {
		return 0, 0, nil, err
	}
	defer resp.Body.Close()
	var after time.Duration
	if secs, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && secs > 0 {
		after = time.Duration(secs) * time.Second
	}
	var head [300]byte
	n, _ := io.ReadFull(resp.Body, head[:])
	_, err = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, after, head[:n], err
}

// getJSON fetches one answer for the result checks.
func (g *generator) getJSON(ctx context.Context, t target, path string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", t.base+path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+t.token)
	resp, err := g.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != 200 {
		return nil, fmt.Errorf("GET %s: %d %s", path, resp.StatusCode, bytes.TrimSpace(b))
	}
	return b, nil
}

// processCPU is this process's user plus system CPU time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// percentile returns the p-th percentile (0..100) of sorted latencies.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted))*p/100+0.5) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}
