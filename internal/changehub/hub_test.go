package changehub

import (
	"context"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/store"
)

// openLog opens a Store on the SQLite database at path (a file, or
// ":memory:<name>") with the change log, as kit's Open does, with hook
// (nil for none) seeing every statement; it is closed when t ends.
func openLog(t *testing.T, path string, hook bun.QueryHook) *store.Store {
	t.Helper()
	db, err := store.OpenSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	if hook != nil {
		db = db.WithQueryHook(hook)
	}
	if err := store.CreateChangesTable(t.Context(), db); err != nil {
		db.Close()
		t.Fatal(err)
	}
	s := store.New(db, func() *collections.Registry { return nil })
	s.SetQueryHook(hook)
	t.Cleanup(func() {
		s.Close()
		db.Close()
	})
	return s
}

// openHub returns a Hub reading s's log and handed s's commits, as kit
// wires it, with a registry of one collection, notes (key appNotes); it
// is closed when t ends.
func openHub(t *testing.T, s *store.Store, cfg Config) *Hub {
	t.Helper()
	reg, _, err := collections.Build([]collections.Definition{{Name: "notes", Fields: []collections.Field{{Name: "body", Type: collections.TypeText}}}}, collections.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h := New(Sources{Log: s, Registry: func() *collections.Registry { return reg }}, cfg)
	s.Committed = h.Handoff
	t.Cleanup(h.Close)
	return h
}

// createNote commits the change of a create of a team t1 note through
// s's write queue, as kit's record create does on SQLite.
func createNote(ctx context.Context, s *store.Store) error {
	ch := store.Change{TeamID: "t1", Collection: "appNotes", Operation: "create", ItemIDs: []string{"n1"},
		CorrelationID: "c1", Timestamp: time.Now().UnixMilli()}
	return s.RunWrite(ctx, store.Write{Single: true}, func(ctx context.Context, tx bun.Tx) error {
		return s.RecordChange(ctx, tx, ch)
	})
}

func TestChangeHubDisconnectsASlowSubscriber(t *testing.T) {
	s := openLog(t, ":memory:"+t.Name(), nil)
	h := openHub(t, s, Config{Buffer: 1})
	slow := newSubscriber("t1", nil, 1)
	if _, err := h.subscribe(t.Context(), slow); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := createNote(t.Context(), s); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-slow.dropped:
	case <-time.After(15 * time.Second): // only keeps a broken test from hanging
		t.Fatal("the subscriber that read nothing was kept")
	}
	h.mu.Lock()
	count := h.count
	h.mu.Unlock()
	if count != 0 {
		t.Errorf("got %d subscribers after the drop, want 0", count)
	}
	if got := slow.buffer - slow.room(); got != 1 {
		t.Errorf("got %d buffered events, want the buffer's 1", got)
	}
}

// writerAndReader opens two Stores on one SQLite file, as two processes
// would, the reader's with a hub configured by cfg, and subscribes a
// stream of team "t1" with cfg.Buffer to the reader's hub; everything is
// closed when t ends.
func writerAndReader(t *testing.T, cfg Config) (writer, reader *store.Store, sub *subscriber) {
	t.Helper()
	path := t.TempDir() + "/kit.db"
	writer = openLog(t, path, nil)
	reader = openLog(t, path, nil)
	h := openHub(t, reader, cfg)
	sub = newSubscriber("t1", nil, cfg.Buffer)
	if _, err := h.subscribe(t.Context(), sub); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.unsubscribe(sub) })
	return writer, reader, sub
}

func TestChangeHubKeepsASubscriberThatKeepsUpWhenAnotherProcessCommitsMoreThanItsBuffer(t *testing.T) {
	// The reader learns of the writer's changes only by its poll, which
	// comes long after the writer committed them all.
	writer, _, sub := writerAndReader(t, Config{Buffer: 8, PollInterval: 300 * time.Millisecond})
	const writes = 40
	for range writes {
		if err := createNote(t.Context(), writer); err != nil {
			t.Fatal(err)
		}
	}
	got := 0
	deadline := time.After(15 * time.Second) // only keeps a broken test from hanging
	for got < writes {
		select {
		case <-sub.ready:
			for _, r := range sub.take(nil) {
				got += len(r.frames)
			}
		case <-sub.dropped:
			t.Fatalf("got the subscriber dropped after %d of %d changes, want it kept: it read every change at once", got, writes)
		case <-deadline:
			t.Fatalf("got %d of %d changes", got, writes)
		}
	}
}

func TestChangeSubQueuesWholeRoundsWithinItsBuffer(t *testing.T) {
	frame := func(id int64, collection string) *Frame {
		return &Frame{ID: id, TeamID: "t1", Collection: collection, SSE: []byte("id: " + strconv.FormatInt(id, 10) + "\n\n")}
	}
	roundOf := func(frames ...*Frame) *round {
		r := &round{frames: frames}
		for _, f := range frames {
			r.sse = append(r.sse, f.SSE...)
		}
		return r
	}
	tests := []struct {
		name         string
		only         map[string]bool
		buffer       int
		pos          int64 // the stream's position when it takes the rounds
		rounds       []*round
		wantAccepted []bool
		wantWritten  string
	}{
		{name: "a stream writes every queued round in order", buffer: 4,
			rounds:       []*round{roundOf(frame(1, "a"), frame(2, "a")), roundOf(frame(3, "a"))},
			wantAccepted: []bool{true, true}, wantWritten: "id: 1\n\nid: 2\n\nid: 3\n\n"},
		{name: "a stream refuses a round its buffer has no room for", buffer: 2,
			rounds:       []*round{roundOf(frame(1, "a")), roundOf(frame(2, "a"), frame(3, "a"))},
			wantAccepted: []bool{true, false}, wantWritten: "id: 1\n\n"},
		{name: "a narrowed stream counts and writes only its collections", only: map[string]bool{"a": true}, buffer: 1,
			rounds:       []*round{roundOf(frame(1, "a"), frame(2, "b")), roundOf(frame(3, "b")), roundOf(frame(4, "a"))},
			wantAccepted: []bool{true, true, false}, wantWritten: "id: 1\n\n"},
		{name: "a stream skips the changes at or before its position", buffer: 4, pos: 2,
			rounds:       []*round{roundOf(frame(1, "a"), frame(2, "a"), frame(3, "a"))},
			wantAccepted: []bool{true}, wantWritten: "id: 3\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSubscriber("t1", tt.only, tt.buffer)
			for i, r := range tt.rounds {
				if _, got := s.offer(nil, r, 0); got != tt.wantAccepted[i] {
					t.Errorf("round %d: got accepted %v, want %v", i, got, tt.wantAccepted[i])
				}
			}
			if got := len(s.ready); got != 0 {
				t.Errorf("got %d ready signals before signal, want 0", got)
			}
			s.signal()
			s.signal()
			if got := len(s.ready); got != 1 {
				t.Errorf("got %d ready signals after two, want 1", got)
			}
			var buf []byte
			pos := tt.pos
			for _, r := range s.take(nil) {
				buf, pos = s.appendTo(buf, r, pos)
			}
			if string(buf) != tt.wantWritten {
				t.Errorf("got written %q, want %q", buf, tt.wantWritten)
			}
			if got := s.room(); got != tt.buffer {
				t.Errorf("got room %d after the take, want the whole buffer %d", got, tt.buffer)
			}
		})
	}
}

func TestChangeSubTakesAnExtendedRoundInPlaceOfTheOneItExtends(t *testing.T) {
	frame := func(id int64) *Frame {
		return &Frame{ID: id, TeamID: "t1", Collection: "a", SSE: []byte("id: " + strconv.FormatInt(id, 10) + "\n\n")}
	}
	first := &round{frames: []*Frame{frame(1), frame(2)}, sse: []byte("id: 1\n\nid: 2\n\n")}
	// The hub's next batch of the same delivery: first's changes and 3.
	extended := &round{frames: append(first.frames[:2:2], frame(3)), sse: []byte("id: 1\n\nid: 2\n\nid: 3\n\n")}
	tests := []struct {
		name        string
		buffer      int
		takeBetween bool // the stream takes first before the extension comes
		wantOK      bool
		wantRounds  int // rounds the (last) take returns
		wantWritten string
	}{
		{name: "a stream that has not taken the round gets the extension alone", buffer: 4,
			wantOK: true, wantRounds: 1, wantWritten: "id: 1\n\nid: 2\n\nid: 3\n\n"},
		{name: "a stream that took the round writes only the extension's new changes", buffer: 4, takeBetween: true,
			wantOK: true, wantRounds: 1, wantWritten: "id: 1\n\nid: 2\n\nid: 3\n\n"},
		{name: "a stream counts only the new changes against its buffer", buffer: 3,
			wantOK: true, wantRounds: 1, wantWritten: "id: 1\n\nid: 2\n\nid: 3\n\n"},
		{name: "a stream without room for the new changes refuses the extension and keeps the round", buffer: 2,
			wantOK: false, wantRounds: 1, wantWritten: "id: 1\n\nid: 2\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSubscriber("t1", nil, tt.buffer)
			if _, ok := s.offer(nil, first, 0); !ok {
				t.Fatal("got the first round refused, want it queued")
			}
			var buf []byte
			var pos int64
			if tt.takeBetween {
				for _, r := range s.take(nil) {
					buf, pos = s.appendTo(buf, r, pos)
				}
			}
			if _, ok := s.offer(first, extended, len(first.frames)); ok != tt.wantOK {
				t.Errorf("got the extension accepted %v, want %v", ok, tt.wantOK)
			}
			rounds := s.take(nil)
			if len(rounds) != tt.wantRounds {
				t.Errorf("got %d rounds taken, want %d", len(rounds), tt.wantRounds)
			}
			for _, r := range rounds {
				buf, pos = s.appendTo(buf, r, pos)
			}
			if string(buf) != tt.wantWritten {
				t.Errorf("got written %q, want %q", buf, tt.wantWritten)
			}
		})
	}
}

func TestChangeHubHandsAStreamOneRoundPerDeliveryOfSeveralBatches(t *testing.T) {
	// The reader does not poll during the test: its own write, after the
	// writer's, wakes it to read them all, in batches of 32 (half its
	// buffer).
	writer, reader, sub := writerAndReader(t, Config{Buffer: 64, PollInterval: time.Hour})
	const writes = 61
	for i := range writes {
		w := writer
		if i == writes-1 {
			w = reader
		}
		if err := createNote(t.Context(), w); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-sub.ready:
	case <-time.After(15 * time.Second): // only keeps a broken test from hanging
		t.Fatal("got no delivery")
	}
	rounds := sub.take(nil)
	if len(rounds) != 1 {
		t.Fatalf("got %d rounds for one delivery of two batches, want 1", len(rounds))
	}
	r := rounds[0]
	if len(r.frames) != writes {
		t.Errorf("got %d changes in the round, want %d", len(r.frames), writes)
	}
	var want []byte
	for i, f := range r.frames {
		if i > 0 && f.ID <= r.frames[i-1].ID {
			t.Errorf("got change %d at position %d after %d, want positions in order", i, f.ID, r.frames[i-1].ID)
		}
		want = append(want, f.SSE...)
	}
	if string(r.sse) != string(want) {
		t.Errorf("got the round's events %q, want its frames' events in order %q", r.sse, want)
	}
}

func TestNextDeliveryStretchesTheIntervalOnlyWhenTheWritesNeedIt(t *testing.T) {
	defaults := Config{}.withDefaults()
	tests := []struct {
		name    string
		cfg     Config
		written time.Duration
		want    time.Duration
	}{
		{"a delivery nobody wrote keeps DeliveryInterval", defaults, 0, 5 * time.Millisecond},
		{"writes within the share keep DeliveryInterval", defaults, 200 * time.Microsecond, 5 * time.Millisecond},
		{"writes of 2 ms wait 40 ms, so they take 5% of the time", defaults, 2 * time.Millisecond, 40 * time.Millisecond},
		{"writes of 10 ms wait 200 ms", defaults, 10 * time.Millisecond, 200 * time.Millisecond},
		{"writes of 50 ms wait no more than MaxDeliveryInterval", defaults, 50 * time.Millisecond, 250 * time.Millisecond},
		{"a share of 20% waits 5 times the writes",
			Config{FanoutShare: 0.2}.withDefaults(), 10 * time.Millisecond, 50 * time.Millisecond},
		{"a share that is not a number counts as the default 5%",
			Config{FanoutShare: math.NaN()}.withDefaults(), 2 * time.Millisecond, 40 * time.Millisecond},
		{"a share above 1 counts as 1",
			Config{FanoutShare: 3}.withDefaults(), 10 * time.Millisecond, 10 * time.Millisecond},
		{"MaxDeliveryInterval at DeliveryInterval keeps the interval fixed",
			Config{DeliveryInterval: 20 * time.Millisecond, MaxDeliveryInterval: 20 * time.Millisecond}.withDefaults(),
			50 * time.Millisecond, 20 * time.Millisecond},
		{"MaxDeliveryInterval below DeliveryInterval keeps the interval fixed",
			Config{DeliveryInterval: 500 * time.Millisecond}.withDefaults(), 50 * time.Millisecond, 500 * time.Millisecond},
		{"MaxDeliveryInterval set higher lets the interval stretch further",
			Config{MaxDeliveryInterval: time.Second}.withDefaults(), 40 * time.Millisecond, 800 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := nextDelivery(tt.written, tt.cfg); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// logReads counts the statements that read the change log for delivery
// (store.NextChanges).
type logReads struct{ n atomic.Int64 }

func (l *logReads) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }

func (l *logReads) AfterQuery(_ context.Context, ev *bun.QueryEvent) {
	if strings.Contains(ev.Query, "FROM kit_changes WHERE id >") {
		l.n.Add(1)
	}
}

// takeChanges reads sub's deliveries until it holds want changes and
// returns their positions.
func takeChanges(t *testing.T, sub *subscriber, want int) []int64 {
	t.Helper()
	var ids []int64
	deadline := time.After(15 * time.Second) // only keeps a broken test from hanging
	for len(ids) < want {
		select {
		case <-sub.ready:
			pos := int64(0)
			if len(ids) > 0 {
				pos = ids[len(ids)-1]
			}
			for _, r := range sub.take(nil) {
				for _, f := range r.frames {
					if f.ID > pos {
						ids = append(ids, f.ID)
						pos = f.ID
					}
				}
			}
		case <-sub.dropped:
			t.Fatalf("got the subscriber dropped after %d of %d changes", len(ids), want)
		case <-deadline:
			t.Fatalf("got %d of %d changes", len(ids), want)
		}
	}
	return ids
}

func TestChangeHubDeliversItsOwnSQLiteWritesWithoutReadingTheLog(t *testing.T) {
	// No poll during the test: what the hub delivers, it was handed by the
	// write queue or read from the log when woken.
	reads := &logReads{}
	s := openLog(t, ":memory:"+t.Name(), reads)
	h := openHub(t, s, Config{PollInterval: time.Hour})
	sub := newSubscriber("t1", nil, 256)
	start, err := h.subscribe(t.Context(), sub)
	if err != nil {
		t.Fatal(err)
	}
	defer h.unsubscribe(sub)
	const writers, each = 4, 25 // concurrent writers: several writes per group commit
	var wg sync.WaitGroup
	for range writers {
		wg.Go(func() {
			for range each {
				if err := createNote(t.Context(), s); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	ids := takeChanges(t, sub, writers*each)
	for i, id := range ids {
		if want := start + 1 + int64(i); id != want {
			t.Fatalf("got position %d as change %d, want %d: every position in order", id, i, want)
		}
	}
	if n := reads.n.Load(); n != 0 {
		t.Errorf("got %d reads of the change log, want 0: the write queue hands the hub its changes", n)
	}
}

func TestChangeHubReadsTheLogForHandedChangesBeyondAGap(t *testing.T) {
	// While the hub waits out its delivery interval after the reader's
	// first change, the reader writes, the writer writes, the reader
	// writes: two changes are handed over with the writer's between them,
	// and only one wake. The hub delivers the first handed change, then
	// must read the log for the rest at once, not at its next poll.
	writer, reader, sub := writerAndReader(t, Config{Buffer: 64, PollInterval: time.Hour, DeliveryInterval: 300 * time.Millisecond})
	if err := createNote(t.Context(), reader); err != nil {
		t.Fatal(err)
	}
	first := takeChanges(t, sub, 1)
	for _, w := range []*store.Store{reader, writer, reader} {
		if err := createNote(t.Context(), w); err != nil {
			t.Fatal(err)
		}
	}
	ids := takeChanges(t, sub, 3)
	for i, id := range ids {
		if want := first[0] + 1 + int64(i); id != want {
			t.Fatalf("got positions %v after %d, want the next 3 in order", ids, first[0])
		}
	}
}

func TestChangeHubReadsTheLogForAChangeItWasNotHanded(t *testing.T) {
	// The reader's own writes are handed to its hub; the writer's, between
	// them, are not, and come from the log: in position order, none
	// missing.
	writer, reader, sub := writerAndReader(t, Config{Buffer: 64, PollInterval: time.Hour})
	order := []*store.Store{reader, writer, writer, reader, writer, reader}
	for _, w := range order {
		if err := createNote(t.Context(), w); err != nil {
			t.Fatal(err)
		}
	}
	ids := takeChanges(t, sub, len(order))
	for i := 1; i < len(ids); i++ {
		if ids[i] != ids[i-1]+1 {
			t.Errorf("got positions %v, want %d consecutive positions", ids, len(order))
			break
		}
	}
}
