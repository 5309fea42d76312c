package changehub

import "sync"

// subscriber is one open stream as the hub sees it. The hub queues whole
// rounds for it and signals ready once per delivery, so a stream wakes,
// writes and flushes once per delivery however many changes and rounds it
// holds.
type subscriber struct {
	teamID string
	only   map[string]bool // collections asked for; nil for all
	buffer int             // how many wanted changes may wait

	mu      sync.Mutex
	pending []*round
	queued  int // the wanted changes in pending

	// ready holds a signal when rounds were queued since the last take
	// (sent by signal).
	ready chan struct{}
	// dropped is closed when the hub gave up on the subscriber (its
	// buffer was full) or the hub closed.
	dropped chan struct{}
}

func newSubscriber(teamID string, only map[string]bool, buffer int) *subscriber {
	return &subscriber{teamID: teamID, only: only, buffer: buffer,
		ready: make(chan struct{}, 1), dropped: make(chan struct{})}
}

// wants reports whether s asked for f's collection.
func (s *subscriber) wants(f *Frame) bool {
	return s.only == nil || s.only[f.Collection]
}

// offer queues r for s, without waking the stream (see signal): queued
// is false when s wants none of r's new changes (r.frames[from:], never
// empty); ok is
// false, and nothing is queued, when s has no room for those it wants.
// When r extends prev (the team's round of the same delivery, r.frames
// starting with prev.frames) and prev is still s's last queued round, r
// takes its place, so that the stream writes the delivery's shared bytes
// as they are; otherwise r is queued, and the stream skips the changes it
// has written already (see appendTo).
func (s *subscriber) offer(prev, r *round, from int) (queued, ok bool) {
	n := s.wanted(r.frames[from:])
	if n == 0 {
		return false, true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.queued+n > s.buffer {
		return false, false
	}
	if last := len(s.pending) - 1; prev != nil && last >= 0 && s.pending[last] == prev {
		s.pending[last] = r
	} else {
		s.pending = append(s.pending, r)
	}
	s.queued += n
	return true, true
}

// wanted returns how many of frames s wants.
func (s *subscriber) wanted(frames []*Frame) int {
	if s.only == nil {
		return len(frames)
	}
	n := 0
	for _, f := range frames {
		if s.wants(f) {
			n++
		}
	}
	return n
}

// signal wakes the stream to take what was queued.
func (s *subscriber) signal() {
	select {
	case s.ready <- struct{}{}:
	default:
	}
}

// take returns the queued rounds, oldest first, and empties the queue;
// spare (the slice a previous take returned, done with) is reused.
func (s *subscriber) take(spare []*round) []*round {
	clear(spare)
	s.mu.Lock()
	rounds := s.pending
	s.pending = spare[:0]
	s.queued = 0
	s.mu.Unlock()
	return rounds
}

// room is how many more changes s can queue.
func (s *subscriber) room() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buffer - s.queued
}

// appendTo appends the events of r that s wants and that come after pos
// to buf; it returns buf and the new position.
func (s *subscriber) appendTo(buf []byte, r *round, pos int64) ([]byte, int64) {
	if s.only == nil && r.frames[0].ID > pos {
		return append(buf, r.sse...), r.frames[len(r.frames)-1].ID
	}
	for _, f := range r.frames {
		if f.ID > pos && s.wants(f) {
			buf = append(buf, f.SSE...)
			pos = f.ID
		}
	}
	return buf, pos
}
