package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Client talks to one kit server over its HTTP API. It is safe for
// concurrent use; make one per server and credentials and keep it.
type Client struct {
	base      *url.URL
	http      *http.Client
	token     string
	userAgent string
	retries   int
	backoff   time.Duration
	busy      int // retries of a busy answer; see WithBusyRetries
	logger    *slog.Logger
	cache     *Cache

	mu       sync.Mutex
	registry map[string]CollectionConfig // registry key -> config, loaded on first use
}

// Option configures a [Client] in [New].
type Option func(*Client)

// WithToken sends token as "Authorization: Bearer <token>" on every
// request (an API token made with `kit token create`).
func WithToken(token string) Option { return func(c *Client) { c.token = token } }

// WithHTTPClient makes the client send its requests through hc, for
// example one with a cookie jar holding a session cookie, or with its own
// transport and timeout. The default (and what nil means) is a client
// with a 30-second timeout.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) {
		if hc != nil {
			c.http = hc
		}
	}
}

// WithUserAgent sets the User-Agent header of every request. The default
// is "kit-go-client".
func WithUserAgent(ua string) Option { return func(c *Client) { c.userAgent = ua } }

// WithRetries retries idempotent requests (GET, HEAD, OPTIONS, PUT,
// DELETE) up to n more times when they fail to reach the server (a refused
// or reset connection, a connection closed before the answer), waiting
// backoff before the first retry and twice as long before each next one.
// An answer from the server is never retried (but see [WithBusyRetries]),
// nor are POST and PATCH requests, nor a request whose context ended. A
// DELETE retried after the server applied it answers 404. The default is
// no retries.
func WithRetries(n int, backoff time.Duration) Option {
	return func(c *Client) { c.retries, c.backoff = max(n, 0), max(backoff, 0) }
}

// MaxBusyWait is the longest Retry-After a busy answer may ask for and
// still be retried (see [WithBusyRetries]); one that asks for longer is
// returned at once.
const MaxBusyWait = 10 * time.Second

// DefaultBusyRetries is how many times a client retries a busy answer
// unless [WithBusyRetries] says otherwise.
const DefaultBusyRetries = 2

// WithBusyRetries retries an idempotent request (GET, HEAD, OPTIONS, PUT,
// DELETE) up to n more times when the server answers 503 Service
// Unavailable with a Retry-After header, waiting what the header asks for
// before each retry. kit answers so when every scan slot is taken and its
// queue is full (an expensive search, sort or filter; nothing was read),
// and a proxied collection relays its source's answer. A busy answer is
// returned as it is, an [*Error] matching [ErrUnavailable], once the
// retries are spent, when it has no Retry-After, when it asks for longer
// than [MaxBusyWait], and when the request's context would end before the
// wait does. A request whose context ends while it waits fails with the
// context's error. The default is [DefaultBusyRetries]; 0 turns it off.
func WithBusyRetries(n int) Option { return func(c *Client) { c.busy = max(n, 0) } }

// WithLogger sets the logger of [Client.ApplyTransform]'s failures. The
// default is slog.Default() at the time of the call.
func WithLogger(l *slog.Logger) Option { return func(c *Client) { c.logger = l } }

// WithCache caches list and item answers in cache (see [Cache]); a
// mutation made through the client invalidates what it may have changed.
// Several clients may share one cache. The default is no cache.
func WithCache(cache *Cache) Option { return func(c *Client) { c.cache = cache } }

// New returns a client of the kit API at baseURL: the URL kit's handler is
// mounted at, prefix included ("http://127.0.0.1:8080/api"). It fails only
// on a baseURL that is not an absolute http or https URL.
func New(baseURL string, opts ...Option) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil {
		return nil, fmt.Errorf("kit client: base URL: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("kit client: base URL %q: want an absolute http or https URL", baseURL)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawQuery, u.Fragment = "", ""
	c := &Client{
		base:      u,
		http:      &http.Client{Timeout: 30 * time.Second},
		userAgent: "kit-go-client",
		busy:      DefaultBusyRetries,
	}
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

// Cache returns the client's cache, nil without [WithCache].
func (c *Client) Cache() *Cache { return c.cache }

// Invalidate drops every cached answer whose key starts with prefix
// ("collection:shopProducts:" for one collection, "" for all), for
// changes the client did not make itself (another writer, the change
// stream). It does nothing without a cache.
func (c *Client) Invalidate(prefix string) {
	if c.cache != nil {
		c.cache.Invalidate(prefix)
	}
}

// Do sends one request to the API and decodes a 2xx answer's JSON body
// into out (unless out is nil or the answer has no body). path is relative
// to the base URL and escaped as in a URL ("/kit/collections", or
// "/teams/"+url.PathEscape(team)+"/..."); query may be nil; body, when not
// nil, is sent as JSON. A non-2xx answer is an [*Error]. Do is the
// building block of the other methods, for routes they do not cover.
func (c *Client) Do(ctx context.Context, method, path string, query url.Values, body, out any) error {
	_, err := c.do(ctx, method, path, query, body, nil, out)
	return err
}

// do is Do with extra headers; it returns the raw body of a 2xx answer.
func (c *Client) do(ctx context.Context, method, path string, query url.Values, body any, header http.Header, out any) ([]byte, error) {
	raw, _, err := c.exchange(ctx, method, path, query, body, header, out)
	return raw, err
}

// exchange is do that also returns the headers of a 2xx answer.
func (c *Client) exchange(ctx context.Context, method, path string, query url.Values, body any, header http.Header, out any) ([]byte, http.Header, error) {
	u := *c.base
	u.RawPath = c.base.EscapedPath() + path
	p, err := url.PathUnescape(u.RawPath)
	if err != nil {
		return nil, nil, fmt.Errorf("kit client: path %q: %w", path, err)
	}
	u.Path = p
	if len(query) > 0 {
		u.RawQuery = query.Encode()
	}
	var payload []byte
	if body != nil {
		if payload, err = json.Marshal(body); err != nil {
			return nil, nil, fmt.Errorf("kit client: encode %s %s body: %w", method, path, err)
		}
	}
	resp, err := c.send(ctx, method, u.String(), payload, body != nil, header)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, fmt.Errorf("kit client: %s %s: read answer: %w", method, path, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, nil, decodeError(resp, raw)
	}
	if out != nil && len(bytes.TrimSpace(raw)) > 0 {
		if err := json.Unmarshal(raw, out); err != nil {
			return nil, nil, fmt.Errorf("kit client: %s %s: decode answer: %w", method, path, err)
		}
	}
	return raw, resp.Header, nil
}

// send sends a request, retrying idempotent ones on connection errors
// (WithRetries) and on busy answers (WithBusyRetries).
func (c *Client) send(ctx context.Context, method, target string, payload []byte, hasBody bool, header http.Header) (*http.Response, error) {
	wait := c.backoff
	failed, busy := 0, 0
	for {
		var rd io.Reader
		if hasBody {
			rd = bytes.NewReader(payload)
		}
		req, err := http.NewRequestWithContext(ctx, method, target, rd)
		if err != nil {
			return nil, fmt.Errorf("kit client: %w", err)
		}
		for k, vs := range header {
			req.Header[k] = vs
		}
		req.Header.Set("Accept", "application/json")
		if hasBody {
			req.Header.Set("Content-Type", "application/json")
		}
		if c.token != "" {
			req.Header.Set("Authorization", "Bearer "+c.token)
		}
		if c.userAgent != "" {
			req.Header.Set("User-Agent", c.userAgent)
		}
		resp, err := c.http.Do(req)
		if err == nil {
			after, ok := c.busyWait(ctx, method, resp, busy)
			if !ok {
				return resp, nil
			}
			busy++
			// Read the refusal out so that its connection is used again.
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
			if err := sleep(ctx, after); err != nil {
				return nil, fmt.Errorf("kit client: %s %s: waiting to retry a busy answer: %w", method, req.URL.Path, err)
			}
			continue
		}
		if failed >= c.retries || !idempotent(method) || ctx.Err() != nil {
			return nil, fmt.Errorf("kit client: %w", err)
		}
		failed++
		if serr := sleep(ctx, wait); serr != nil {
			return nil, fmt.Errorf("kit client: %w", errors.Join(err, serr))
		}
		wait *= 2
	}
}

// busyWait says whether to send the request again after resp, and how
// long to wait first, when busy retries of it after busy answers were
// already sent: yes for a 503 with a Retry-After of at most MaxBusyWait
// (delay-seconds or an HTTP date) to an idempotent request, while retries
// are left and ctx lasts past the wait.
func (c *Client) busyWait(ctx context.Context, method string, resp *http.Response, busy int) (time.Duration, bool) {
	if resp.StatusCode != http.StatusServiceUnavailable || busy >= c.busy || !idempotent(method) {
		return 0, false
	}
	after, ok := retryAfter(resp.Header.Get("Retry-After"), time.Now())
	if !ok || after > MaxBusyWait {
		return 0, false
	}
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) <= after {
		return 0, false
	}
	return after, true
}

// retryAfter parses a Retry-After header's value at now: delay-seconds or
// an HTTP date (RFC 9110, section 10.2.3); a date in the past is no wait.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseUint(v, 10, 32); err == nil {
		return time.Duration(secs) * time.Second, true
	}
	at, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return max(at.Sub(now), 0), true
}

// sleep waits d, or until ctx ends (its error).
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func idempotent(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPut, http.MethodDelete:
		return true
	}
	return false
}

// decodeError turns a non-2xx answer into an *Error.
func decodeError(resp *http.Response, raw []byte) error {
	e := &Error{}
	if json.Unmarshal(raw, e) != nil || e.Status == 0 {
		e = &Error{}
	}
	e.Status = resp.StatusCode
	if e.StatusText == "" {
		e.StatusText = http.StatusText(resp.StatusCode)
	}
	return e
}
