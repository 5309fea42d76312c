// Package limiter is a small per-client token-bucket rate limiter written
// as plain net/http middleware, to plug into kit.Config.Middleware. A
// client is its remote IP. Refused requests get 429 in kit's error shape
// and a Retry-After header.
package limiter

import (
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/collectionkit/kit/kit"
)

// Limiter holds one bucket per client.
type Limiter struct {
	rate  float64 // tokens per second
	burst float64
	now   func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	last   time.Time
}

// New returns a limiter allowing rate requests per second per client, with
// bursts of up to burst.
func New(rate float64, burst int) *Limiter {
	return &Limiter{rate: rate, burst: float64(burst), now: time.Now, buckets: map[string]*bucket{}}
}

// Allow takes a token from client's bucket. When none is left it reports
// false and how long until one is.
func (l *Limiter) Allow(client string) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	b, ok := l.buckets[client]
	if !ok {
		if len(l.buckets) > 100_000 {
			l.evict(now)
		}
		b = &bucket{tokens: l.burst, last: now}
		l.buckets[client] = b
	}
	b.tokens = math.Min(l.burst, b.tokens+now.Sub(b.last).Seconds()*l.rate)
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	return false, time.Duration((1 - b.tokens) / l.rate * float64(time.Second))
}

// evict drops buckets that have refilled, keeping memory bounded.
func (l *Limiter) evict(now time.Time) {
	for k, b := range l.buckets {
		if b.tokens+now.Sub(b.last).Seconds()*l.rate >= l.burst {
			delete(l.buckets, k)
		}
	}
}

// Middleware refuses a client's request with 429 when its bucket is empty.
func (l *Limiter) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		client, _, err := net.SplitHostPort(r.RemoteAddr)
		if err != nil {
			client = r.RemoteAddr
		}
		ok, wait := l.Allow(client)
		if !ok {
			w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
			kit.WriteJSON(w, http.StatusTooManyRequests, map[string]any{
				"status": 429, "statusText": http.StatusText(http.StatusTooManyRequests),
				"message": "rate limit exceeded", "data": map[string]any{"retryAfterSeconds": math.Ceil(wait.Seconds())},
			})
			return
		}
		next.ServeHTTP(w, r)
	})
}
