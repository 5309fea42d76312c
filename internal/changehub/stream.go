package changehub

import (
	"context"
	"strconv"
	"time"
)

// Writer sends data to a stream's client in one write and flush, and
// reports whether it could (false: the client is gone, and the stream
// ends). data is never empty; it is valid only during the call.
type Writer func(data []byte) bool

// AuthWatch is a stream's view of the hub's authorization counter, taken
// by Hub.WatchAuth before the caller's first authorization check.
type AuthWatch struct {
	ch        <-chan struct{} // closed at the counter's next change
	checkedAt int64           // the counter's value before the last check
	versioned bool            // the hub has a counter (Sources.AuthVersion)
}

// WatchAuth returns the authorization counter's state for a stream that
// is about to be authorized. Call it before the caller's first check, so
// that a change of the counter after that check is not missed.
func (h *Hub) WatchAuth(ctx context.Context) AuthWatch {
	w := AuthWatch{ch: h.authChanged(), versioned: h.src.AuthVersion != nil}
	if w.versioned {
		w.checkedAt, _ = h.src.AuthVersion(ctx)
	}
	return w
}

// Access is how an open stream checks again that its caller may still
// read the team.
type Access struct {
	// Watch is what WatchAuth returned before the caller's first check.
	Watch AuthWatch
	// Allowed checks the caller again, fully: false ends the stream.
	Allowed func(ctx context.Context) bool
}

// fullAuthCheckEvery is how often a stream re-checks its caller even when
// the authorization counter did not change (a session that ran out of time
// changes no row).
const fullAuthCheckEvery = time.Minute

// Stream is one client's subscription to a team's changes, from
// Hub.Subscribe to Close. One goroutine uses it: Resume, then Serve, then
// Close.
type Stream struct {
	h      *Hub
	sub    *subscriber
	live   int64    // the position from which the hub hands it changes
	pos    int64    // the last position written, or the one to start after
	reset  string   // why the stream does not resume where asked, or ""
	buf    []byte   // what the next write sends
	rounds []*round // the last take's rounds, for reuse
}

// Subscribe registers a stream of team teamID's changes (of the
// collections in only, by registry key; nil for all) at the live
// position: every change committed after Subscribe returns reaches it,
// unless the hub drops it. It reads the log's end when no stream was
// open. The caller must Close the stream. After Close it fails with
// ErrClosed.
func (h *Hub) Subscribe(ctx context.Context, teamID string, only map[string]bool) (*Stream, error) {
	sub := newSubscriber(teamID, only, h.cfg.Buffer)
	live, err := h.subscribe(ctx, sub)
	if err != nil {
		return nil, err
	}
	return &Stream{h: h, sub: sub, live: live, pos: live}, nil
}

// Close ends the subscription; the hub forgets the stream.
func (s *Stream) Close() { s.h.unsubscribe(s.sub) }

// LastEventID is where a client asks to resume: after the position of the
// last event it received.
type LastEventID struct {
	// ID is the position.
	ID int64
	// Given is false for a new stream, which starts at the live position.
	Given bool
	// Malformed says the value given is not a position (not a
	// non-negative integer); the stream starts with a reset.
	Malformed bool
}

// Resume sets where the stream starts: after last when the log still
// holds every change since, else at the live position with a reset event
// first (malformed, pruned, or beyond the log). It returns an error only
// when the log's bounds could not be read; call it before Serve.
func (s *Stream) Resume(ctx context.Context, last LastEventID) error {
	if !last.Given {
		return nil
	}
	pruned, written, err := s.h.src.Log.ChangeBounds(ctx)
	switch {
	case err != nil:
		return err
	case last.Malformed:
		s.reset = "malformed Last-Event-ID"
	case last.ID < pruned:
		s.reset = "the changes after Last-Event-ID are no longer retained"
	case last.ID > written:
		s.reset = "Last-Event-ID is beyond the change log"
	default:
		s.pos = last.ID
	}
	return nil
}

// Serve writes the stream to w until ctx ends, the client is gone (w
// returns false), the hub drops the stream, or a.Allowed refuses the
// caller: "retry: 2000", the reset event when Resume asked for one, the
// team's changes from the start position to the live one (the backlog,
// one write per batch read from the log), the ready event, and then every
// live change, one write per delivery, with a heartbeat comment every
// Config.Heartbeat.
func (s *Stream) Serve(ctx context.Context, w Writer, a Access) {
	s.buf = append(s.buf, "retry: 2000\n\n"...)
	if s.reset != "" {
		s.buf = appendControl(s.buf, "reset", s.live, `{"id":`+strconv.FormatInt(s.live, 10)+`,"reason":`+strconv.Quote(s.reset)+`}`)
	}
	if !s.backlog(ctx, w) {
		return
	}
	s.buf = appendControl(s.buf, "ready", s.pos, `{"id":`+strconv.FormatInt(s.pos, 10)+`}`)
	if !s.send(w) {
		return
	}
	s.follow(ctx, w, &guard{h: s.h, watch: a.Watch, allowed: a.Allowed, lastFull: time.Now()})
}

// send writes buf, unless empty, and empties it.
func (s *Stream) send(w Writer) bool {
	if len(s.buf) == 0 {
		return true
	}
	ok := w(s.buf)
	s.buf = s.buf[:0]
	return ok
}

// backlog writes the team's changes after the start position up to the
// live position, as much as the stream wants of each batch read from the
// log in one write; it reports false when the stream ends (the log could
// not be read, which is logged, or the client is gone).
func (s *Stream) backlog(ctx context.Context, w Writer) bool {
	reg := s.h.src.Registry()
	for s.pos < s.live {
		changes, err := s.h.src.Log.ChangesAfter(ctx, s.sub.teamID, s.pos, s.live, changeBatch)
		if err != nil {
			s.h.logger.ErrorContext(ctx, "kit: read the change log", "error", err)
			return false
		}
		for _, ch := range changes {
			if f := s.h.enc.Frame(reg, ch); s.sub.wants(f) {
				s.buf = append(s.buf, f.SSE...)
			}
		}
		if len(changes) < changeBatch {
			s.pos = s.live
		} else {
			s.pos = changes[len(changes)-1].ID
		}
		if !s.send(w) {
			return false
		}
	}
	return true
}

// follow writes live changes and heartbeats, and checks the caller again
// as g says, until the stream ends.
func (s *Stream) follow(ctx context.Context, w Writer, g *guard) {
	heartbeat := time.NewTicker(s.h.cfg.Heartbeat)
	defer heartbeat.Stop()
	var recheck <-chan time.Time // without a counter, every tick checks
	if !g.watch.versioned {
		t := time.NewTicker(s.h.cfg.AuthCheckInterval)
		defer t.Stop()
		recheck = t.C
	}
	for ok := true; ok; {
		select {
		case <-ctx.Done():
			return
		case <-s.sub.dropped:
			return
		case <-s.sub.ready:
			ok = s.deliver(w)
		case <-heartbeat.C:
			s.buf = append(s.buf, ": heartbeat\n\n"...)
			ok = s.send(w) && g.onHeartbeat(ctx)
		case <-g.watch.ch:
			ok = g.onAuthChange(ctx)
		case <-recheck:
			ok = g.check(ctx)
		}
	}
}

// deliver writes everything queued for the stream in one write: a round
// alone as the hub encoded it, several copied together. The time it takes
// counts towards the hub's fan-out budget.
func (s *Stream) deliver(w Writer) bool {
	start := time.Now()
	s.rounds = s.sub.take(s.rounds)
	var ok bool
	if len(s.rounds) == 1 && s.sub.only == nil && s.rounds[0].frames[0].ID > s.pos {
		r := s.rounds[0]
		s.pos = r.frames[len(r.frames)-1].ID
		ok = w(r.sse)
	} else {
		for _, r := range s.rounds {
			s.buf, s.pos = s.sub.appendTo(s.buf, r, s.pos)
		}
		ok = s.send(w)
	}
	s.h.written.Add(int64(time.Since(start)))
	return ok
}

// guard decides when an open stream checks its caller again.
type guard struct {
	h        *Hub
	watch    AuthWatch
	allowed  func(ctx context.Context) bool
	lastFull time.Time // the last full check
}

// check asks allowed.
func (g *guard) check(ctx context.Context) bool {
	g.lastFull = time.Now()
	return g.allowed(ctx)
}

// onHeartbeat checks the caller when the hub has a counter and the last
// full check is fullAuthCheckEvery old.
func (g *guard) onHeartbeat(ctx context.Context) bool {
	if g.watch.versioned && time.Since(g.lastFull) >= fullAuthCheckEvery {
		return g.check(ctx)
	}
	return true
}

// onAuthChange follows the counter's change: only a stream checked under
// another value checks again, so the hub's first read of the counter
// costs nothing.
func (g *guard) onAuthChange(ctx context.Context) bool {
	g.watch.ch = g.h.authChanged()
	if v := g.h.authVersion.Load(); v != g.watch.checkedAt {
		g.watch.checkedAt = v
		return g.check(ctx)
	}
	return true
}
