package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Change is one event of a team's change stream: a committed create,
// update, delete, move or reorder of one of its records. It carries no
// record data; refetch what you show.
type Change struct {
	// ID is the change's position; Subscribe resumes after the last one.
	ID int64 `json:"id"`
	// Operation is "create", "update", "delete", "move" or "reorder".
	Operation string `json:"operation"`
	// Collection is the registry key of the changed collection.
	Collection string `json:"collection"`
	// ItemID is the changed record, when the change concerns one record
	// and is not a reorder.
	ItemID string `json:"itemId,omitempty"`
	// ItemIDs are the reordered records in their new order (reorder), or
	// the records a bulk delete of several removed.
	ItemIDs []string `json:"itemIds,omitempty"`
	// CorrelationID is the writing request's correlation id.
	CorrelationID string `json:"correlationId"`
	// Timestamp is the change's time in Unix milliseconds.
	Timestamp int64 `json:"timestamp"`
	// Invalidate lists the cache keys the change made stale, in the
	// spec's form "collection:<key>:*".
	Invalidate []string `json:"invalidate"`
}

// SubscribeOptions configures [Team.Subscribe]. The zero value follows
// every collection from now on.
type SubscribeOptions struct {
	// Collections narrows the stream to these registry keys.
	Collections []string
	// LastEventID resumes after this position (a Change's ID, as a
	// decimal string) instead of starting at the stream's current end.
	LastEventID string
	// OnChange is called for every change, in order, after the cache
	// (when the client has one) dropped the change's Invalidate keys.
	OnChange func(Change)
	// OnReset is called when the server could not resume where the
	// client left off (the changes in between are no longer kept): every
	// cached answer has been dropped; refetch what you show.
	OnReset func()
	// OnConnect is called each time the stream is open and current (after
	// any backlog of a resumed connection).
	OnConnect func()
	// MinBackoff is the wait before reconnecting after a broken stream,
	// doubled after each failed attempt up to MaxBackoff. Defaults 500 ms
	// and 30 s.
	MinBackoff, MaxBackoff time.Duration
	// IdleTimeout reconnects a stream that sent nothing (not even a
	// heartbeat) for this long. Default 60 s (kit's heartbeat is 15 s).
	IdleTimeout time.Duration
}

// Subscribe follows the team's change stream (GET
// /teams/{team}/kit-changes) until ctx ends, and returns ctx's error then.
// With a cache, each change drops the cached answers of its Invalidate
// keys (of every team: keys are per collection) before OnChange runs; a
// reset drops the whole cache. A broken connection is reopened with
// Last-Event-ID after a backoff, so no committed change is missed or
// repeated while the server still keeps it. An answer refusing the stream
// (400, 401, 403, 404) ends Subscribe with that [*Error]; other failed
// answers are retried like broken connections.
//
// The stream does not use the client's HTTP timeout (a stream is meant
// to stay open); IdleTimeout watches it instead.
func (t *Team) Subscribe(ctx context.Context, opts SubscribeOptions) error {
	if opts.MinBackoff <= 0 {
		opts.MinBackoff = 500 * time.Millisecond
	}
	if opts.MaxBackoff < opts.MinBackoff {
		opts.MaxBackoff = max(30*time.Second, opts.MinBackoff)
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = time.Minute
	}
	hc := *t.c.http
	hc.Timeout = 0
	last := opts.LastEventID
	wait := opts.MinBackoff
	for {
		connected, err := t.follow(ctx, &hc, opts, &last)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var kerr *Error
		if errors.As(err, &kerr) && kerr.Status >= 400 && kerr.Status < 500 && kerr.Status != http.StatusTooManyRequests {
			return err
		}
		if connected {
			wait = opts.MinBackoff
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		case <-timer.C:
		}
		wait = min(wait*2, opts.MaxBackoff)
	}
}

// follow opens the stream once and reads it until it breaks; connected
// says whether it got as far as the ready event.
func (t *Team) follow(ctx context.Context, hc *http.Client, opts SubscribeOptions, last *string) (connected bool, err error) {
	u := *t.c.base
	path := "/teams/" + url.PathEscape(t.id) + "/kit-changes"
	u.RawPath = t.c.base.EscapedPath() + path
	u.Path, _ = url.PathUnescape(u.RawPath)
	if len(opts.Collections) > 0 {
		u.RawQuery = url.Values{"collections": {strings.Join(opts.Collections, ",")}}.Encode()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return false, fmt.Errorf("kit client: %w", err)
	}
	req.Header.Set("Accept", "text/event-stream")
	if *last != "" {
		req.Header.Set("Last-Event-ID", *last)
	}
	if t.c.token != "" {
		req.Header.Set("Authorization", "Bearer "+t.c.token)
	}
	if t.c.userAgent != "" {
		req.Header.Set("User-Agent", t.c.userAgent)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return false, fmt.Errorf("kit client: subscribe: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		return false, decodeError(resp, raw)
	}
	idle := time.AfterFunc(opts.IdleTimeout, cancel)
	defer idle.Stop()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var kind, id string
	var data []string
	for sc.Scan() {
		idle.Reset(opts.IdleTimeout)
		line := sc.Text()
		if line != "" {
			field, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			switch field {
			case "event":
				kind = value
			case "id":
				id = value
			case "data":
				data = append(data, value)
			}
			continue
		}
		// A blank line ends an event.
		if id != "" {
			*last = id
		}
		payload := strings.Join(data, "\n")
		switch {
		case kind == "reset":
			t.c.Invalidate("")
			if opts.OnReset != nil {
				opts.OnReset()
			}
		case kind == "ready":
			connected = true
			if opts.OnConnect != nil {
				opts.OnConnect()
			}
		case kind == "" && payload != "":
			var ch Change
			if err := json.Unmarshal([]byte(payload), &ch); err != nil {
				return connected, fmt.Errorf("kit client: change %s: %w", strconv.Quote(payload), err)
			}
			for _, key := range ch.Invalidate {
				t.c.Invalidate(strings.TrimSuffix(key, "*"))
			}
			if opts.OnChange != nil {
				opts.OnChange(ch)
			}
		}
		kind, id, data = "", "", nil
	}
	if err := sc.Err(); err != nil {
		return connected, fmt.Errorf("kit client: subscribe: %w", err)
	}
	return connected, io.ErrUnexpectedEOF
}
