package kit

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/jsonstring"
	"github.com/collectionkit/kit/internal/store"
)

// ChangesConfig configures the change stream, GET
// {prefix}/teams/{team}/kit-changes (see [ChangeEvent]). The zero value is
// the documented defaults, with the stream on.
type ChangesConfig struct {
	// Disabled turns the change stream off: no change log is written and
	// the route answers 404.
	Disabled bool
	// Retention is how long the change log keeps a change, for clients
	// that resume with Last-Event-ID. Default 1 hour.
	Retention time.Duration
	// MaxRetained bounds the change log to the newest changes (all teams
	// together). Default 100,000.
	MaxRetained int64
	// Heartbeat is the interval of the comment lines that keep proxies
	// from closing an idle stream. Default 15 s.
	Heartbeat time.Duration
	// PollInterval is how often an instance with subscribers reads the
	// change log for changes committed by other processes (this
	// instance's own writes wake it at once): the delay of another
	// process's changes. Default 50 ms, one primary-key read per interval
	// while the instance has streams.
	PollInterval time.Duration
	// AuthCheckInterval is how often an open stream checks that its
	// caller is still allowed (with kit's own accounts store: one read of
	// the authorization counter per instance, and a full check for every
	// stream only when it changed). Default 250 ms, so a removed member, a
	// revoked token, a ban or an ended session closes the stream within
	// one second.
	AuthCheckInterval time.Duration
	// Buffer is how many events may wait for one subscriber; a subscriber
	// that falls further behind is disconnected (it resumes with
	// Last-Event-ID). Default 256.
	Buffer int
	// DeliveryInterval is the least time between two deliveries of an
	// instance to its streams: a change committed while the previous
	// delivery is this recent waits for the next one, with every other
	// change committed meanwhile, and each stream writes all of them in
	// one write and flush. The first change after a quiet period is
	// delivered at once. A longer interval means fewer writes per stream
	// under load and a later delivery. Default 5 ms. Under load the
	// interval stretches up to MaxDeliveryInterval (see FanoutShare).
	DeliveryInterval time.Duration
	// MaxDeliveryInterval is the longest the delivery interval stretches
	// when writing to the streams would otherwise take more than
	// FanoutShare of the time. Default 250 ms; at most DeliveryInterval
	// (or less) keeps the interval fixed at DeliveryInterval.
	MaxDeliveryInterval time.Duration
	// FanoutShare bounds the time an instance's streams spend writing,
	// as a share of the time: after each delivery the next waits
	// max(DeliveryInterval, min(W/FanoutShare, MaxDeliveryInterval)),
	// where W is the time the streams took to write that delivery (wall
	// time, summed over the streams). So at a low rate of changes
	// deliveries stay DeliveryInterval apart, and under load they are
	// spaced further apart, each carrying more changes per write, until
	// the writes take at most FanoutShare of the time or the interval
	// reaches MaxDeliveryInterval. Like a group commit: latency rises only
	// when throughput needs it. Default 0.05 (5%), also for zero, negative
	// and NaN; values above 1 count as 1.
	FanoutShare float64
	// PruneInterval is how often retention runs (once per period across
	// the instances sharing the database). Default 1 minute.
	PruneInterval time.Duration
}

func (c ChangesConfig) withDefaults() ChangesConfig {
	if c.Retention <= 0 {
		c.Retention = time.Hour
	}
	if c.MaxRetained <= 0 {
		c.MaxRetained = 100_000
	}
	if c.Heartbeat <= 0 {
		c.Heartbeat = 15 * time.Second
	}
	if c.PollInterval <= 0 {
		c.PollInterval = 50 * time.Millisecond
	}
	if c.AuthCheckInterval <= 0 {
		c.AuthCheckInterval = 250 * time.Millisecond
	}
	if c.Buffer <= 0 {
		c.Buffer = 256
	}
	if c.DeliveryInterval <= 0 {
		c.DeliveryInterval = 5 * time.Millisecond
	}
	if c.MaxDeliveryInterval == 0 {
		c.MaxDeliveryInterval = 250 * time.Millisecond
	}
	c.MaxDeliveryInterval = max(c.MaxDeliveryInterval, c.DeliveryInterval)
	if !(c.FanoutShare > 0) { // also NaN
		c.FanoutShare = 0.05
	}
	c.FanoutShare = min(c.FanoutShare, 1)
	if c.PruneInterval <= 0 {
		c.PruneInterval = time.Minute
	}
	return c
}

// ChangeEvent is the data of one change stream event: a committed create,
// update, delete, move or reorder of a team's record. Record data is not
// sent; clients refetch through the normal, authorized reads.
type ChangeEvent struct {
	// ID is the change's position in the change log, also the event's SSE
	// id: it grows with every committed change, across instances.
	ID int64 `json:"id"`
	// Operation is create, update, delete, move or reorder.
	Operation Operation `json:"operation"`
	// Collection is the registry key of the changed collection.
	Collection string `json:"collection"`
	// ItemID is the changed record, when the change concerns one record
	// and is not a reorder.
	ItemID string `json:"itemId,omitempty"`
	// ItemIDs are the reordered records in their new order (reorder), or
	// the records a bulk delete of several removed.
	ItemIDs []string `json:"itemIds,omitempty"`
	// CorrelationID is the writing request's X-Correlation-Id (or the
	// generated one).
	CorrelationID string `json:"correlationId"`
	// Timestamp is when the mutation started, in Unix milliseconds.
	Timestamp int64 `json:"timestamp"`
	// Invalidate lists the cache keys the change makes stale:
	// "collection:<key>:*" of the collection and of every collection its
	// references point at.
	Invalidate []string `json:"invalidate"`
}

// changesOn reports whether the change log is written.
func (k *Kit) changesOn() bool { return !k.cfg.Changes.Disabled }

// changed wakes the change hub after a write that recorded a change
// committed, unless the store hands the hub its changes itself
// (store.Committed), which wakes it then.
func (k *Kit) changed() {
	if k.changesOn() && !k.store.HandsOverChanges() {
		k.hub.notify()
	}
}

// recordChange writes m to the change log in tx, the mutation's
// transaction, after every OnMutationTx listener.
func (k *Kit) recordChange(ctx context.Context, tx bun.Tx, m *Mutation) error {
	return k.store.RecordChange(ctx, tx, *changeRow(m))
}

// changeOf returns m's change log row, or nil when the change log is off.
func (k *Kit) changeOf(m *Mutation) *store.Change {
	if !k.changesOn() {
		return nil
	}
	return changeRow(m)
}

// changeRow returns m's change log row.
func changeRow(m *Mutation) *store.Change {
	ids := m.ItemIDs // reorder, delete (several for a bulk delete)
	if len(ids) == 0 {
		ids = []string{m.ItemID}
	}
	return &store.Change{
		TeamID: m.TeamID, Collection: m.Collection, Operation: string(m.Operation),
		ItemIDs: ids, CorrelationID: m.CorrelationID, Timestamp: m.Timestamp,
	}
}

// invalidateKeys returns the cache keys a change of collection key makes
// stale: its own and those of the collections its references name (by
// registry key, or by name, preferably in its layer).
func invalidateKeys(reg *collections.Registry, key string) []string {
	keys := []string{"collection:" + key + ":*"}
	c, ok := reg.Get(key)
	if !ok {
		return keys
	}
	seen := map[string]bool{key: true}
	for _, target := range sortedValues(c.Config().References) {
		ref := resolveCollection(reg, c.Layer(), target)
		if !seen[ref] {
			seen[ref] = true
			keys = append(keys, "collection:"+ref+":*")
		}
	}
	return keys
}

func sortedValues(m map[string]string) []string {
	fields := make([]string, 0, len(m))
	for f := range m {
		fields = append(fields, f)
	}
	slices.Sort(fields)
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = m[f]
	}
	return out
}

func resolveCollection(reg *collections.Registry, layer, target string) string {
	if _, ok := reg.Get(target); ok {
		return target
	}
	found := ""
	for _, c := range reg.All() {
		if c.Name() != target {
			continue
		}
		if c.Layer() == layer {
			return c.Key()
		}
		if found == "" {
			found = c.Key()
		}
	}
	if found == "" {
		return target
	}
	return found
}

// changeFrame is one change, encoded once for every subscriber.
type changeFrame struct {
	id         int64
	teamID     string
	collection string
	sse        []byte // the complete SSE event
}

// frameOf encodes ch once for every subscriber: the JSON of its
// ChangeEvent (as encoding/json writes it, without HTML escaping) in an
// SSE event.
func (k *Kit) frameOf(reg *collections.Registry, ch store.Change) *changeFrame {
	invalidate := k.invalidations.encoded(reg, ch.Collection)
	size := 200 + len(ch.Operation) + len(ch.Collection) + len(ch.CorrelationID) + len(invalidate)
	for _, id := range ch.ItemIDs {
		size += len(id) + 3
	}
	sse := make([]byte, 0, size) // the event's length, or a little more
	sse = append(sse, "id: "...)
	sse = strconv.AppendInt(sse, ch.ID, 10)
	sse = append(sse, "\ndata: {\"id\":"...)
	sse = strconv.AppendInt(sse, ch.ID, 10)
	sse = append(sse, `,"operation":`...)
	sse = jsonstring.Append(sse, ch.Operation)
	sse = append(sse, `,"collection":`...)
	sse = jsonstring.Append(sse, ch.Collection)
	if Operation(ch.Operation) == OpReorder || len(ch.ItemIDs) > 1 {
		if len(ch.ItemIDs) > 0 {
			sse = append(sse, `,"itemIds":[`...)
			for i, id := range ch.ItemIDs {
				if i > 0 {
					sse = append(sse, ',')
				}
				sse = jsonstring.Append(sse, id)
			}
			sse = append(sse, ']')
		}
	} else if len(ch.ItemIDs) == 1 && ch.ItemIDs[0] != "" {
		sse = append(sse, `,"itemId":`...)
		sse = jsonstring.Append(sse, ch.ItemIDs[0])
	}
	sse = append(sse, `,"correlationId":`...)
	sse = jsonstring.Append(sse, ch.CorrelationID)
	sse = append(sse, `,"timestamp":`...)
	sse = strconv.AppendInt(sse, ch.Timestamp, 10)
	sse = append(sse, `,"invalidate":`...)
	sse = append(sse, invalidate...)
	sse = append(sse, "}\n\n"...)
	return &changeFrame{id: ch.ID, teamID: ch.TeamID, collection: ch.Collection, sse: sse}
}

// invalidations keeps each collection's "invalidate" list, encoded as a
// JSON array, for the registry it was computed from (a schema change
// brings a new registry, which starts over).
type invalidations struct {
	mu  sync.Mutex
	reg *collections.Registry
	m   map[string][]byte
}

// encoded returns the JSON array of invalidateKeys(reg, key).
func (c *invalidations) encoded(reg *collections.Registry, key string) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.reg != reg {
		c.reg, c.m = reg, map[string][]byte{}
	}
	data, ok := c.m[key]
	if !ok {
		data, _ = json.Marshal(invalidateKeys(reg, key)) // strings: cannot fail
		c.m[key] = data
	}
	return data
}

// changeRound is the changes of one team that one delivery hands to the
// team's streams, encoded once for all of them.
type changeRound struct {
	frames []*changeFrame // in position order
	sse    []byte         // every frame's event, concatenated
}

// changeSub is one open stream. The hub queues whole rounds for it and
// signals ready once per delivery, so a stream wakes, writes and flushes
// once per delivery however many changes and rounds it holds.
type changeSub struct {
	teamID string
	only   map[string]bool // collections asked for; nil for all
	buffer int             // how many wanted changes may wait

	mu      sync.Mutex
	pending []*changeRound
	queued  int // the wanted changes in pending

	// ready holds a signal when rounds were queued since the last take
	// (sent by signal).
	ready chan struct{}
	// dropped is closed when the hub gave up on the subscriber (its
	// buffer was full) or the Kit closed.
	dropped chan struct{}
}

func newChangeSub(teamID string, only map[string]bool, buffer int) *changeSub {
	return &changeSub{teamID: teamID, only: only, buffer: buffer,
		ready: make(chan struct{}, 1), dropped: make(chan struct{})}
}

func (s *changeSub) wants(f *changeFrame) bool {
	return s.only == nil || s.only[f.collection]
}

// offer queues r for s, without waking the stream (see signal): queued
// is false when s wants none of r's new changes (r.frames[from:]); ok is
// false, and nothing is queued, when s has no room for those it wants.
// When r extends prev (the team's round of the same delivery, r.frames
// starting with prev.frames) and prev is still s's last queued round, r
// takes its place, so that the stream writes the delivery's shared bytes
// as they are; otherwise r is queued, and the stream skips the changes it
// has written already (see appendTo).
func (s *changeSub) offer(prev, r *changeRound, from int) (queued, ok bool) {
	n := len(r.frames) - from
	if s.only != nil {
		n = 0
		for _, f := range r.frames[from:] {
			if s.wants(f) {
				n++
			}
		}
		if n == 0 {
			return false, true
		}
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

// signal wakes the stream to take what was queued.
func (s *changeSub) signal() {
	select {
	case s.ready <- struct{}{}:
	default:
	}
}

// take returns the queued rounds, oldest first, and empties the queue;
// spare (the slice a previous take returned, done with) is reused.
func (s *changeSub) take(spare []*changeRound) []*changeRound {
	clear(spare)
	s.mu.Lock()
	rounds := s.pending
	s.pending = spare[:0]
	s.queued = 0
	s.mu.Unlock()
	return rounds
}

// room is how many more changes s can queue.
func (s *changeSub) room() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buffer - s.queued
}

// appendTo appends the events of r that s wants and that come after pos
// to buf; it returns buf and the new position.
func (s *changeSub) appendTo(buf []byte, r *changeRound, pos int64) ([]byte, int64) {
	if s.only == nil && r.frames[0].id > pos {
		return append(buf, r.sse...), r.frames[len(r.frames)-1].id
	}
	for _, f := range r.frames {
		if f.id > pos && s.wants(f) {
			buf = append(buf, f.sse...)
			pos = f.id
		}
	}
	return buf, pos
}

// changeHub hands every committed change to the streams of its team
// while streams are open: on SQLite the write queue hands it this
// process's changes as it commits them, and it reads the change log for
// the rest (other processes' changes, and every change on PostgreSQL,
// whose positions need not commit in order). One per Kit.
type changeHub struct {
	k   *Kit
	cfg ChangesConfig

	mu      sync.Mutex
	subs    map[string]map[*changeSub]struct{} // by team id
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
	// nanoseconds (for benchmarks).
	interval atomic.Int64
	// touched holds the streams given rounds since they were last
	// signalled (the loop's goroutine only, in poll under mu).
	touched map[*changeSub]struct{}
	// open holds each team's round since the last signal (the loop's
	// goroutine only): a delivery reads the log in several batches, and
	// each batch extends the team's round rather than adding one, so a
	// stream is handed one round per delivery (see offer).
	open map[string]*changeRound
	wg   sync.WaitGroup

	// listening mirrors live for handoff, which must not wait for mu.
	listening atomic.Bool
	handMu    sync.Mutex
	// handed holds the changes this process's write queue committed
	// (store.Committed) and the hub has not delivered yet, in position
	// order, while there are subscribers: the next delivery takes them
	// from here rather than reading them back from the log (see
	// takeHanded).
	handed []store.Change
}

// maxHanded bounds handed: beyond it the hub forgets what it was handed
// and reads the changes from the log, as it does for other processes'.
const maxHanded = 1 << 15

// handoff keeps the changes the write queue just committed for the next
// delivery and wakes the hub (the store's Committed hook).
func (h *changeHub) handoff(changes []store.Change) {
	if !h.listening.Load() {
		return
	}
	h.handMu.Lock()
	if len(h.handed)+len(changes) > maxHanded {
		h.handed = h.handed[:0] // the log has them
	}
	h.handed = append(h.handed, changes...)
	h.handMu.Unlock()
	h.notify()
}

// takeHanded returns up to limit handed changes that directly follow
// position pos (pos+1, pos+2, ...), forgetting those at or before pos. It
// returns none when the first handed change after pos is not pos+1 (a
// change this process was not handed, from another process or written
// outside the write queue, comes first) or nothing was handed: the
// caller reads the log then.
func (h *changeHub) takeHanded(pos int64, limit int) []store.Change {
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
func (h *changeHub) handedEmpty() bool {
	h.handMu.Lock()
	defer h.handMu.Unlock()
	return len(h.handed) == 0
}

// forgetHanded drops what was handed (the last subscriber left).
func (h *changeHub) forgetHanded() {
	h.handMu.Lock()
	h.handed = nil
	h.handMu.Unlock()
}

func newChangeHub(k *Kit, cfg ChangesConfig) *changeHub {
	return &changeHub{k: k, cfg: cfg, subs: map[string]map[*changeSub]struct{}{},
		authCh: make(chan struct{}), wake: make(chan struct{}, 1), stop: make(chan struct{}),
		touched: map[*changeSub]struct{}{}, open: map[string]*changeRound{}}
}

// notify wakes the hub after a local commit.
func (h *changeHub) notify() {
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

// subscribe registers a stream and returns the position from which it
// receives live changes: every change after it reaches s (unless s is
// dropped), none at or before it.
func (h *changeHub) subscribe(ctx context.Context, s *changeSub) (int64, error) {
	h.mu.Lock()
	for !h.live {
		gen := h.gen
		h.mu.Unlock()
		cur, err := h.k.store.ChangeHead(ctx, h.cfg.PollInterval)
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
		h.subs[s.teamID] = map[*changeSub]struct{}{}
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

func (h *changeHub) unsubscribe(s *changeSub) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.subs[s.teamID][s]; !ok {
		return
	}
	h.remove(s)
}

// remove drops s; h.mu is held.
func (h *changeHub) remove(s *changeSub) {
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
func (h *changeHub) authChanged() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.authCh
}

func (h *changeHub) close() {
	h.stopOnce.Do(func() { close(h.stop) })
	h.wg.Wait()
	h.dropAll()
}

// dropAll ends every open stream.
func (h *changeHub) dropAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, subs := range h.subs {
		for s := range subs {
			close(s.dropped)
			h.remove(s)
		}
	}
}

// CloseStreams ends every open change stream; clients reconnect and
// resume with Last-Event-ID (on another instance, or on this one once it
// is back). A stream is a request that never finishes by itself, so
// http.Server.Shutdown would wait for it until its context ends: register
// this with srv.RegisterOnShutdown(k.CloseStreams). Streams opened later
// are served as usual.
func (k *Kit) CloseStreams() { k.hub.dropAll() }

// stopContext returns a context that ends when the hub closes (or cancel
// is called), for the hub's own goroutines.
func (h *changeHub) stopContext() (context.Context, context.CancelFunc) {
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

func (h *changeHub) loop() {
	defer h.wg.Done()
	poll := time.NewTicker(h.cfg.PollInterval)
	defer poll.Stop()
	auth := time.NewTicker(h.cfg.AuthCheckInterval)
	defer auth.Stop()
	gather := time.NewTimer(h.cfg.DeliveryInterval)
	defer gather.Stop()
	ctx, cancel := h.stopContext()
	defer cancel()
	var readLog bool // see poll
	for {
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
			readLog = !h.k.store.HandsOverChanges()
		case <-poll.C:
			readLog = true
		}
		for {
			// The log holds what the streams have not taken yet, so the
			// hub reads no further ahead than their buffers allow: a
			// stream is slow, and dropped, only when it has no room for a
			// batch (at most half its buffer) after slowStreamWait, however
			// many changes another process committed between two polls.
			if !h.waitForRoom(ctx) {
				return
			}
			more, n := h.poll(ctx, readLog)
			if more {
				// A full batch: the next is waiting already. The streams
				// are woken once for all of them (or by waitForRoom when
				// one needs room), so that a stream writes them together.
				continue
			}
			h.signal()
			if n == 0 {
				break
			}
			// Let the changes committing meanwhile gather, so that each
			// stream is written and flushed once for several of them: with
			// many subscribers the fan-out, not the database, is the cost.
			// The wait is DeliveryInterval, stretched while the streams
			// are still writing this delivery when their writes would take
			// more than FanoutShare of the time.
			start := time.Now()
			written := h.written.Load()
			wait := h.cfg.DeliveryInterval
			for wait > 0 {
				gather.Reset(wait)
				select {
				case <-h.stop:
					return
				case <-gather.C:
				}
				next := nextDelivery(time.Duration(h.written.Load()-written), h.cfg)
				h.interval.Store(int64(next))
				wait = next - time.Since(start)
			}
			break
		}
	}
}

// nextDelivery returns the time from one delivery to the next when the
// streams took written to write it: written / FanoutShare, within
// [DeliveryInterval, MaxDeliveryInterval].
func nextDelivery(written time.Duration, cfg ChangesConfig) time.Duration {
	d := time.Duration(float64(written) / cfg.FanoutShare)
	return min(max(d, cfg.DeliveryInterval), cfg.MaxDeliveryInterval)
}

// signal wakes every stream given rounds since the last signal.
func (h *changeHub) signal() {
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
func (h *changeHub) dropFull(need int) {
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

// waitForRoom waits until every stream's buffer has room for a batch, or
// slowStreamWait has passed; it reports false when the hub is stopping.
func (h *changeHub) waitForRoom(ctx context.Context) bool {
	need := h.batch()
	var deadline time.Time
	for {
		h.mu.Lock()
		full := false
	scan:
		for _, subs := range h.subs {
			for s := range subs {
				if s.room() < need {
					full = true
					break scan
				}
			}
		}
		h.mu.Unlock()
		if !full {
			return true
		}
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
}

// checkAuthVersion reads the authorization counter (kit's own accounts
// store only) and tells the streams when it changed.
func (h *changeHub) checkAuthVersion(ctx context.Context) {
	if h.k.cfg.Directory != h.k.auth {
		return
	}
	h.mu.Lock()
	idle := h.count == 0
	h.mu.Unlock()
	if idle {
		return
	}
	v, ok := h.k.auth.AuthVersion(ctx)
	if !ok || h.authVersion.Swap(v) == v {
		return
	}
	h.mu.Lock()
	close(h.authCh)
	h.authCh = make(chan struct{})
	h.mu.Unlock()
}

// changeBatch is how many changes one read of the log takes at most.
const changeBatch = 500

// batch is how many changes one read of the log takes for live delivery:
// changeBatch, but at most half of a stream's buffer.
func (h *changeHub) batch() int { return max(min(changeBatch, h.cfg.Buffer/2), 1) }

// poll takes the next changes, from what this process's writes handed
// over or else from the log, and delivers them; it reports whether a full
// batch came back (take again at once) and how many changes it took.
// Without readLog (a wake from this process's writes, whose changes the
// store hands over), it reads the log only when what was handed does not
// follow on from the cursor: with nothing handed, the writes that woke it
// were delivered already, and other processes' changes wait for the next
// PollInterval.
func (h *changeHub) poll(ctx context.Context, readLog bool) (more bool, n int) {
	h.mu.Lock()
	if !h.live {
		h.mu.Unlock()
		return false, 0
	}
	cur, gen := h.cursor, h.gen
	h.mu.Unlock()
	batch := h.batch()
	changes := h.takeHanded(cur.Pos, batch)
	switch {
	case len(changes) > 0:
		cur.Pos = changes[len(changes)-1].ID
	case !readLog && h.handedEmpty():
		// Everything this process's writes handed over is delivered.
		return false, 0
	default:
		var err error
		changes, err = h.k.store.NextChanges(ctx, &cur, batch)
		if err != nil {
			if ctx.Err() == nil {
				h.k.logger.Error("kit: read the change log", "error", err)
			}
			return false, 0
		}
	}
	reg := h.k.Collections()
	frames := make([]*changeFrame, len(changes))
	for i, ch := range changes {
		frames[i] = h.k.frameOf(reg, ch)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.gen != gen {
		return false, 0 // the subscribers left meanwhile; a new cursor rules
	}
	h.cursor = cur
	// One round per team with streams and delivery: its events are
	// concatenated once, and each of its streams queues the round as a
	// whole. A later batch of the same delivery extends the round into a
	// new one (appending to the shared arrays beyond the old round's
	// length, which no reader looks at), which replaces the old one in the
	// queues that still hold it.
	type extension struct {
		prev, r *changeRound
		from    int // r.frames[from:] are new: prev has the rest
	}
	rounds := map[string]*extension{}
	var order []*extension
	for _, f := range frames {
		e := rounds[f.teamID]
		if e == nil {
			if len(h.subs[f.teamID]) == 0 {
				continue
			}
			e = &extension{prev: h.open[f.teamID], r: &changeRound{}}
			if e.prev != nil {
				e.r.frames, e.r.sse = e.prev.frames, e.prev.sse
			}
			e.from = len(e.r.frames)
			rounds[f.teamID] = e
			order = append(order, e)
		}
		e.r.frames = append(e.r.frames, f)
		e.r.sse = append(e.r.sse, f.sse...)
	}
	for _, e := range order {
		r := e.r
		h.open[r.frames[0].teamID] = r
		for s := range h.subs[r.frames[0].teamID] {
			queued, ok := s.offer(e.prev, r, e.from)
			if !ok {
				// Too slow: disconnect rather than buffer without limit.
				close(s.dropped)
				h.remove(s)
			} else if queued {
				h.touched[s] = struct{}{}
			}
		}
	}
	return len(changes) == batch, len(changes)
}

// pruneLoop runs retention every PruneInterval, once per period across the
// instances sharing the database.
func (h *changeHub) pruneLoop() {
	defer h.wg.Done()
	t := time.NewTicker(h.cfg.PruneInterval)
	defer t.Stop()
	ctx, cancel := h.stopContext()
	defer cancel()
	for {
		select {
		case <-h.stop:
			return
		case <-t.C:
		}
		claimed, err := h.k.ClaimPeriod(ctx, "kit:changes:prune", TickerPeriod(h.cfg.PruneInterval))
		if err == nil && claimed {
			_, err = h.prune(ctx)
		}
		if err != nil && ctx.Err() == nil {
			h.k.logger.Error("kit: change log retention", "error", err)
		}
	}
}

func (h *changeHub) prune(ctx context.Context) (int64, error) {
	return h.k.store.PruneChanges(ctx, time.Now().Add(-h.cfg.Retention), h.cfg.MaxRetained)
}
