package main

import (
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"
)

// TestABusyAnswerIsAskedAgainAfterItsRetryAfter drives one worker at a
// server that refuses its first two requests as kit's full scan queue
// does (503, Retry-After: 1) and answers the rest.
func TestABusyAnswerIsAskedAgainAfterItsRetryAfter(t *testing.T) {
	var mu sync.Mutex
	var arrivals []time.Time
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		arrivals = append(arrivals, time.Now())
		paths = append(paths, r.URL.Path)
		n := len(arrivals)
		mu.Unlock()
		if n <= 2 {
			w.Header().Set("Retry-After", "1")
			http.Error(w, `{"status":503}`, http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(srv.Close)
	g := newGenerator(1)
	t.Cleanup(g.close)
	wl := workload{name: "get", want: 200, next: func(_ *rand.Rand, n int64) (request, bool) {
		return request{method: "GET", path: "/" + strconv.FormatInt(n, 10)}, true
	}}
	out := g.run(t.Context(), target{base: srv.URL}, wl, 2500*time.Millisecond, 1<<20, 1)

	mu.Lock()
	defer mu.Unlock()
	if len(arrivals) < 3 {
		t.Fatalf("got %d requests, want at least 3", len(arrivals))
	}
	if out.errors != 2 {
		t.Errorf("got %d errors, want 2: the two refusals", out.errors)
	}
	for i := 1; i <= 2; i++ {
		if gap := arrivals[i].Sub(arrivals[i-1]); gap < time.Second {
			t.Errorf("request %d came %v after the refusal before it, want at least its Retry-After, 1s", i+1, gap)
		}
	}
	if paths[1] != paths[0] || paths[2] != paths[0] {
		t.Errorf("got paths %v first, want the refused request %s sent again twice", paths[:3], paths[0])
	}
	if len(out.latencies) == 0 {
		t.Fatal("got no successful answer, want the refused request's at least")
	}
	if got := out.latencies[len(out.latencies)-1]; got < 2*time.Second {
		t.Errorf("got a longest latency of %v, want the refused request's, from its first attempt: at least 2s", got)
	}
}
