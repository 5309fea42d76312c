package changehub

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/collectionkit/kit/internal/store"
)

// ErrClosed is returned by Hub.Subscribe after Hub.Close.
var ErrClosed = errors.New("changehub: the hub is closed")

// Hub hands every committed change to the open streams of its team (see
// the package doc). Create it with New; one per change log reader (kit:
// one per Kit). Its methods are safe for concurrent use.
type Hub struct {
	src    Sources
	cfg    Config
	logger *slog.Logger
	enc    Encoder

	mu      sync.Mutex
	subs    map[string]map[*subscriber]struct{} // by team id
	count   int
	live    bool // cursor is current (there are subscribers)
	gen     uint64
	cursor  store.ChangeCursor
	running bool
	authCh  chan struct{} // closed when the authorization counter changed

	authVersion atomic.Int64
	wake        chan struct{}
	stop        chan struct{}
	stopOnce    sync.Once
	// written is the time the streams have spent writing deliveries, in
	// nanoseconds (see nextDelivery).
	written atomic.Int64
	// interval is the time the last delivery waited for the next, in
	// nanoseconds (see DeliveryInterval).
	interval atomic.Int64
	// touched holds the streams given rounds since they were last
	// signalled (the loop's goroutine only, in poll under mu).
	touched map[*subscriber]struct{}
	// open holds each team's round since the last signal (the loop's
	// goroutine only): a delivery reads the log in several batches, and
	// each batch extends the team's round rather than adding one, so a
	// stream is handed one round per delivery (see offer).
	open map[string]*round
	wg   sync.WaitGroup

	// listening mirrors live for Handoff, which must not wait for mu.
	listening atomic.Bool
	handMu    sync.Mutex
	// handed holds the changes this process's write queue committed
	// (Handoff) and the hub has not delivered yet, in position order,
	// while there are subscribers: the next delivery takes them from here
	// rather than reading them back from the log (see takeHanded).
	handed []store.Change
}

// New returns a Hub that reads src.Log, tuned by cfg (zero fields take
// their defaults). It starts no goroutine: the first Subscribe starts
// delivery, StartRetention starts retention, and Close ends both.
func New(src Sources, cfg Config) *Hub {
	logger := src.Logger
	if logger == nil {
		logger = slog.Default()
	}
	return &Hub{src: src, cfg: cfg.withDefaults(), logger: logger,
		subs: map[string]map[*subscriber]struct{}{}, authCh: make(chan struct{}),
		wake: make(chan struct{}, 1), stop: make(chan struct{}),
		touched: map[*subscriber]struct{}{}, open: map[string]*round{}}
}

// maxHanded bounds handed: beyond it the hub forgets what it was handed
// and reads the changes from the log, as it does for other processes'.
const maxHanded = 1 << 15

// Handoff keeps the changes this process's write queue just committed,
// with their positions and in commit order, for the next delivery, and
// wakes the hub (store.Store.Committed). It neither blocks nor writes,
// and it may keep changes. While no stream is open it ignores them.
func (h *Hub) Handoff(changes []store.Change) {
	if !h.listening.Load() {
		return
	}
	h.handMu.Lock()
	if len(h.handed)+len(changes) > maxHanded {
		h.handed = h.handed[:0] // the log has them
	}
	h.handed = append(h.handed, changes...)
	h.handMu.Unlock()
	h.Notify()
}

// takeHanded returns up to limit handed changes that directly follow
// position pos (pos+1, pos+2, ...), forgetting those at or before pos. It
// returns none when the first handed change after pos is not pos+1 (a
// change this process was not handed, from another process or written
// outside the write queue, comes first) or nothing was handed: the
// caller reads the log then.
func (h *Hub) takeHanded(pos int64, limit int) []store.Change {
	h.handMu.Lock()
	defer h.handMu.Unlock()
	i := 0
	for i < len(h.handed) && h.handed[i].ID <= pos {
		i++
	}
	rest := h.handed[i:]
	n := 0
	for n < len(rest) && n < limit && rest[n].ID == pos+1+int64(n) {
		n++
	}
	out := slices.Clone(rest[:n])
	h.handed = append(h.handed[:0], rest[n:]...)
	return out
}

// handedEmpty reports whether no handed change waits.
func (h *Hub) handedEmpty() bool {
	h.handMu.Lock()
	defer h.handMu.Unlock()
	return len(h.handed) == 0
}

// forgetHanded drops what was handed (the last subscriber left).
func (h *Hub) forgetHanded() {
	h.handMu.Lock()
	h.handed = nil
	h.handMu.Unlock()
}

// Notify wakes the hub after this process committed a change it did not
// hand over (see Log.HandsOverChanges): the hub reads the log at once
// instead of at its next poll. It never blocks.
func (h *Hub) Notify() {
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

// subscribe registers s and returns the position from which it receives
// live changes: every change after it reaches s (unless s is dropped),
// none at or before it.
func (h *Hub) subscribe(ctx context.Context, s *subscriber) (int64, error) {
	h.mu.Lock()
	for !h.live {
		gen := h.gen
		h.mu.Unlock()
		cur, err := h.src.Log.ChangeHead(ctx, h.cfg.PollInterval)
		if err != nil {
			return 0, err
		}
		h.mu.Lock()
		if !h.live && h.gen == gen {
			h.cursor, h.live = cur, true
			h.gen++
			h.listening.Store(true)
		}
	}
	select {
	case <-h.stop:
		h.mu.Unlock()
		return 0, ErrClosed
	default:
	}
	if h.subs[s.teamID] == nil {
		h.subs[s.teamID] = map[*subscriber]struct{}{}
	}
	h.subs[s.teamID][s] = struct{}{}
	h.count++
	if !h.running {
		h.running = true
		h.wg.Add(1)
		go h.loop()
	}
	pos := h.cursor.Pos
	h.mu.Unlock()
	return pos, nil
}

// unsubscribe removes s unless the hub dropped it already.
func (h *Hub) unsubscribe(s *subscriber) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.subs[s.teamID][s]; !ok {
		return
	}
	h.remove(s)
}

// remove drops s; h.mu is held.
func (h *Hub) remove(s *subscriber) {
	delete(h.subs[s.teamID], s)
	if len(h.subs[s.teamID]) == 0 {
		delete(h.subs, s.teamID)
	}
	h.count--
	if h.count == 0 {
		// Nobody listens: forget the cursor, so that the next subscriber
		// starts at the log's end rather than at a stale position.
		h.live = false
		h.gen++
		h.listening.Store(false)
		h.forgetHanded()
	}
}

// authChanged returns a channel closed at the next change of the
// authorization counter.
func (h *Hub) authChanged() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.authCh
}

// Close ends delivery and retention, waits for their goroutines, and ends
// every open stream. Subscribe fails with ErrClosed afterwards. It may be
// called more than once.
func (h *Hub) Close() {
	h.stopOnce.Do(func() { close(h.stop) })
	h.wg.Wait()
	h.DropAll()
}

// DropAll ends every open stream (its Serve returns); the hub serves
// streams subscribed later as usual.
func (h *Hub) DropAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, subs := range h.subs {
		for s := range subs {
			close(s.dropped)
			h.remove(s)
		}
	}
}

// stopContext returns a context that ends when the hub closes (or cancel
// is called), for the hub's own goroutines.
func (h *Hub) stopContext() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case <-h.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// checkAuthVersion reads the authorization counter (when the hub has one
// and streams are open) and tells the streams when it changed.
func (h *Hub) checkAuthVersion(ctx context.Context) {
	if h.src.AuthVersion == nil {
		return
	}
	h.mu.Lock()
	idle := h.count == 0
	h.mu.Unlock()
	if idle {
		return
	}
	v, ok := h.src.AuthVersion(ctx)
	if !ok || h.authVersion.Swap(v) == v {
		return
	}
	h.mu.Lock()
	close(h.authCh)
	h.authCh = make(chan struct{})
	h.mu.Unlock()
}

// WriteTime is the time the hub's streams have spent writing deliveries,
// which the fan-out budget (Config.FanoutShare) counts.
func (h *Hub) WriteTime() time.Duration { return time.Duration(h.written.Load()) }

// DeliveryInterval is the interval the hub chose after its latest
// delivery (see Config.FanoutShare); 0 before the first.
func (h *Hub) DeliveryInterval() time.Duration { return time.Duration(h.interval.Load()) }
