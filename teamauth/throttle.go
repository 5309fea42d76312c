package teamauth

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// LoginThrottle bounds failed sign-ins. Failures are counted per account
// (the email asked for, lower-cased) and per client address (the host part
// of http.Request.RemoteAddr: behind a proxy, the host's middleware must
// set RemoteAddr to the client's address). Once either count reaches its
// limit within Window, sign-ins for that account or from that address are
// refused with 429 and a Retry-After header until the window that began
// with the first failure ends. A successful sign-in clears the account's
// count. The zero value is the default throttle.
type LoginThrottle struct {
	// AccountFailures is how many failures an account may have per
	// Window. Default 5.
	AccountFailures int
	// AddressFailures is how many failures a client address may have per
	// Window. Default 20.
	AddressFailures int
	// Window is the period failures are counted over. Default 15 minutes.
	Window time.Duration
	// MaxEntries bounds the memory: how many accounts, and how many
	// addresses, are tracked at once. Past it, expired entries are dropped
	// and then, if need be, arbitrary ones. Default 10000.
	MaxEntries int
}

func (c LoginThrottle) window() time.Duration {
	if c.Window > 0 {
		return c.Window
	}
	return 15 * time.Minute
}

func orDefault(n, def int) int {
	if n > 0 {
		return n
	}
	return def
}

// failureCounter counts failures per key in fixed windows, in bounded
// memory.
type failureCounter struct {
	mu      sync.Mutex
	limit   int
	window  time.Duration
	max     int
	entries map[string]failureEntry
}

type failureEntry struct {
	count int
	start time.Time
}

func newFailureCounter(limit int, window time.Duration, max int) *failureCounter {
	return &failureCounter{limit: limit, window: window, max: max, entries: map[string]failureEntry{}}
}

// blocked returns how long key is refused for, or 0.
func (c *failureCounter) blocked(key string, now time.Time) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || e.count < c.limit {
		return 0
	}
	if left := e.start.Add(c.window).Sub(now); left > 0 {
		return left
	}
	delete(c.entries, key)
	return 0
}

// fail counts a failure of key.
func (c *failureCounter) fail(key string, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || !now.Before(e.start.Add(c.window)) {
		if !ok && len(c.entries) >= c.max {
			c.makeRoom(now)
		}
		e = failureEntry{start: now}
	}
	e.count++
	c.entries[key] = e
}

// makeRoom drops expired entries and, when none had expired, an arbitrary
// one (map iteration order is random), so the map never grows past max.
func (c *failureCounter) makeRoom(now time.Time) {
	for k, e := range c.entries {
		if !now.Before(e.start.Add(c.window)) {
			delete(c.entries, k)
		}
	}
	for k := range c.entries {
		if len(c.entries) < c.max {
			break
		}
		delete(c.entries, k)
	}
}

// clear forgets key.
func (c *failureCounter) clear(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, key)
}

func (c *failureCounter) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// loginLimiter is a LoginThrottle at work.
type loginLimiter struct {
	accounts  *failureCounter
	addresses *failureCounter
}

func newLoginLimiter(c LoginThrottle) *loginLimiter {
	max := orDefault(c.MaxEntries, 10000)
	return &loginLimiter{
		accounts:  newFailureCounter(orDefault(c.AccountFailures, 5), c.window(), max),
		addresses: newFailureCounter(orDefault(c.AddressFailures, 20), c.window(), max),
	}
}

// check returns ErrTooManyAttempts when the account or the address is
// refused for now.
func (l *loginLimiter) check(account, address string, now time.Time) error {
	wait := max(l.accounts.blocked(account, now), l.addresses.blocked(address, now))
	if wait > 0 {
		return &TooManyAttemptsError{RetryAfter: wait}
	}
	return nil
}

func (l *loginLimiter) failed(account, address string, now time.Time) {
	l.accounts.fail(account, now)
	l.addresses.fail(address, now)
}

func (l *loginLimiter) succeeded(account string) { l.accounts.clear(account) }

// TooManyAttemptsError (429) refuses a sign-in while its account or client
// address has failed too often (see LoginThrottle). errors.Is matches it as
// ErrTooManyAttempts.
type TooManyAttemptsError struct {
	// RetryAfter is how long until the refusal ends.
	RetryAfter time.Duration
}

func (e *TooManyAttemptsError) Error() string {
	return fmt.Sprintf("too many failed sign-ins; try again in %d seconds", e.retryAfterSeconds())
}

// HTTPStatus returns 429.
func (e *TooManyAttemptsError) HTTPStatus() int { return http.StatusTooManyRequests }

// Is reports whether target is ErrTooManyAttempts.
func (e *TooManyAttemptsError) Is(target error) bool { return target == ErrTooManyAttempts }

func (e *TooManyAttemptsError) retryAfterSeconds() int64 {
	return int64((e.RetryAfter + time.Second - 1) / time.Second)
}

// retryAfter is the Retry-After header value: whole seconds, rounded up.
func (e *TooManyAttemptsError) retryAfter() string {
	return strconv.FormatInt(e.retryAfterSeconds(), 10)
}
