package changehub

import (
	"context"
	"time"

	"github.com/collectionkit/kit/internal/store"
)

// loop delivers changes while the hub runs: at each wake (this process's
// writes), each poll tick (other processes' writes) and each
// authorization tick. It runs on its own goroutine, started by the first
// subscribe, until Close.
func (h *Hub) loop() {
	defer h.wg.Done()
	poll := time.NewTicker(h.cfg.PollInterval)
	defer poll.Stop()
	auth := time.NewTicker(h.cfg.AuthCheckInterval)
	defer auth.Stop()
	gather := time.NewTimer(h.cfg.DeliveryInterval)
	defer gather.Stop()
	ctx, cancel := h.stopContext()
	defer cancel()
	for {
		var readLog bool // see poll
		select {
		case <-h.stop:
			return
		case <-auth.C:
			h.checkAuthVersion(ctx)
			continue
		case <-h.wake:
			// A wake from this process's writes: when the store hands
			// them all over, what they wrote is in handed, and other
			// processes' changes wait for the poll.
			readLog = !h.src.Log.HandsOverChanges()
		case <-poll.C:
			readLog = true
		}
		if !h.deliver(ctx, readLog, gather) {
			return
		}
	}
}

// deliver hands the streams every change there is to take now, then
// waits until the next delivery may start (see gatherWait); it reports
// false when the hub is stopping.
func (h *Hub) deliver(ctx context.Context, readLog bool, gather *time.Timer) bool {
	for {
		// The log holds what the streams have not taken yet, so the hub
		// reads no further ahead than their buffers allow: a stream is
		// slow, and dropped, only when it has no room for a batch (at most
		// half its buffer) after slowStreamWait, however many changes
		// another process committed between two polls.
		if !h.waitForRoom(ctx) {
			return false
		}
		more, n := h.poll(ctx, readLog)
		if more {
			// A full batch: the next is waiting already. The streams are
			// woken once for all of them (or by waitForRoom when one needs
			// room), so that a stream writes them together.
			continue
		}
		h.signal()
		if n == 0 {
			return true
		}
		return h.gatherWait(gather)
	}
}

// gatherWait lets the changes committing meanwhile gather, so that each
// stream is written and flushed once for several of them: with many
// subscribers the fan-out, not the database, is the cost. The wait is
// DeliveryInterval, stretched while the streams are still writing this
// delivery when their writes would take more than FanoutShare of the
// time. It reports false when the hub is stopping.
func (h *Hub) gatherWait(gather *time.Timer) bool {
	start := time.Now()
	written := h.written.Load()
	wait := h.cfg.DeliveryInterval
	for wait > 0 {
		gather.Reset(wait)
		select {
		case <-h.stop:
			return false
		case <-gather.C:
		}
		next := nextDelivery(time.Duration(h.written.Load()-written), h.cfg)
		h.interval.Store(int64(next))
		wait = next - time.Since(start)
	}
	return true
}

// nextDelivery returns the time from one delivery to the next when the
// streams took written to write it: written / FanoutShare, within
// [DeliveryInterval, MaxDeliveryInterval].
func nextDelivery(written time.Duration, cfg Config) time.Duration {
	d := time.Duration(float64(written) / cfg.FanoutShare)
	return min(max(d, cfg.DeliveryInterval), cfg.MaxDeliveryInterval)
}

// signal wakes every stream given rounds since the last signal.
func (h *Hub) signal() {
	for s := range h.touched {
		s.signal()
	}
	clear(h.touched)
	clear(h.open)
}

// slowStreamWait is how long the hub waits for every stream to have room
// for a batch before it reads the next one; a stream that still has none
// is dropped then.
const slowStreamWait = time.Second

// dropFull drops every stream whose buffer has no room for need more
// changes, so that one slow stream delays the others once, not at every
// batch.
func (h *Hub) dropFull(need int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, subs := range h.subs {
		for s := range subs {
			if s.room() < need {
				close(s.dropped)
				h.remove(s)
			}
		}
	}
}

// anyFull reports whether a stream's buffer has no room for need more
// changes.
func (h *Hub) anyFull(need int) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, subs := range h.subs {
		for s := range subs {
			if s.room() < need {
				return true
			}
		}
	}
	return false
}

// waitForRoom waits until every stream's buffer has room for a batch, or
// slowStreamWait has passed; it reports false when the hub is stopping.
func (h *Hub) waitForRoom(ctx context.Context) bool {
	need := h.batch()
	var deadline time.Time
	for h.anyFull(need) {
		if deadline.IsZero() {
			h.signal() // let them take what they were given
			deadline = time.Now().Add(slowStreamWait)
		} else if time.Now().After(deadline) {
			h.dropFull(need)
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(time.Millisecond):
		}
	}
	return true
}

// changeBatch is how many changes one read of the log takes at most.
const changeBatch = 500

// batch is how many changes one read of the log takes for live delivery:
// changeBatch, but at most half of a stream's buffer.
func (h *Hub) batch() int { return max(min(changeBatch, h.cfg.Buffer/2), 1) }

// poll takes the next changes, from what this process's writes handed
// over or else from the log, and queues them for their streams; it
// reports whether to take again at once (a full batch came back, or
// handed changes wait beyond a gap) and how many changes it took.
func (h *Hub) poll(ctx context.Context, readLog bool) (more bool, n int) {
	h.mu.Lock()
	if !h.live {
		h.mu.Unlock()
		return false, 0
	}
	cur, gen := h.cursor, h.gen
	h.mu.Unlock()
	batch := h.batch()
	changes, ok := h.next(ctx, &cur, readLog, batch)
	if !ok {
		return false, 0
	}
	reg := h.src.Registry()
	frames := make([]*Frame, len(changes))
	for i, ch := range changes {
		frames[i] = h.enc.Frame(reg, ch)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.gen != gen {
		return false, 0 // the subscribers left meanwhile; a new cursor rules
	}
	h.cursor = cur
	h.queue(frames)
	// Take again at once after a full batch, and after a batch that
	// stopped at a gap in what was handed over: the changes beyond it
	// woke the hub already, and no other wake may come for them.
	more = len(changes) == batch || len(changes) > 0 && !h.handedEmpty()
	return more, len(changes)
}

// next returns up to batch changes after cur and moves cur past them: the
// handed changes that follow cur, else the log's. Without readLog (a wake
// from this process's writes, whose changes the store hands over), it
// reads the log only when what was handed does not follow on from the
// cursor: with nothing handed, the writes that woke it were delivered
// already, and other processes' changes wait for the next PollInterval.
// ok is false when there is nothing to deliver or the log could not be
// read (the error is logged).
func (h *Hub) next(ctx context.Context, cur *store.ChangeCursor, readLog bool, batch int) (changes []store.Change, ok bool) {
	if changes = h.takeHanded(cur.Pos, batch); len(changes) > 0 {
		cur.Pos = changes[len(changes)-1].ID
		return changes, true
	}
	if !readLog && h.handedEmpty() {
		// Everything this process's writes handed over is delivered.
		return nil, false
	}
	changes, err := h.src.Log.NextChanges(ctx, cur, batch)
	if err != nil {
		if ctx.Err() == nil {
			h.logger.Error("kit: read the change log", "error", err)
		}
		return nil, false
	}
	return changes, true
}

// extension is a team's round in one batch: r extends prev, the team's
// round of the same delivery so far (nil for the first batch).
type extension struct {
	prev, r *round
	from    int // r.frames[from:] are new: prev has the rest
}

// queue hands frames, in position order, to their teams' streams; h.mu is
// held. One round per team with streams and delivery: its events are
// concatenated once, and each of its streams queues the round as a whole.
// A later batch of the same delivery extends the round into a new one
// (appending to the shared arrays beyond the old round's length, which no
// reader looks at), which replaces the old one in the queues that still
// hold it. A stream without room is dropped rather than buffered without
// limit.
func (h *Hub) queue(frames []*Frame) {
	rounds := map[string]*extension{}
	var order []*extension
	for _, f := range frames {
		e := rounds[f.TeamID]
		if e == nil {
			if len(h.subs[f.TeamID]) == 0 {
				continue
			}
			e = &extension{prev: h.open[f.TeamID], r: &round{}}
			if e.prev != nil {
				e.r.frames, e.r.sse = e.prev.frames, e.prev.sse
			}
			e.from = len(e.r.frames)
			rounds[f.TeamID] = e
			order = append(order, e)
		}
		e.r.frames = append(e.r.frames, f)
		e.r.sse = append(e.r.sse, f.SSE...)
	}
	for _, e := range order {
		team := e.r.frames[0].TeamID
		h.open[team] = e.r
		for s := range h.subs[team] {
			queued, ok := s.offer(e.prev, e.r, e.from)
			if !ok {
				close(s.dropped)
				h.remove(s)
			} else if queued {
				h.touched[s] = struct{}{}
			}
		}
	}
}
