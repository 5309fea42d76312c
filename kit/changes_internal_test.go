package kit

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
	"github.com/collectionkit/kit/teamauth"
)

func TestChangeHubDisconnectsASlowSubscriber(t *testing.T) {
	k, err := Open(t.Context(), Config{SQLitePath: ":memory:" + t.Name(), Changes: ChangesConfig{Buffer: 1},
		Definitions: []collections.Definition{{Name: "notes", Fields: []collections.Field{{Name: "body", Type: collections.TypeText}}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	slow := newChangeSub("t1", nil, 1)
	if _, err := k.hub.subscribe(t.Context(), slow); err != nil {
		t.Fatal(err)
	}
	actor := Actor{UserID: "u1", TeamID: "t1", Role: teamauth.RoleOwner, fromAccess: true}
	for range 2 {
		if _, err := k.Records("appNotes").Create(t.Context(), actor, map[string]any{"body": "x"}); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-slow.dropped:
	case <-time.After(15 * time.Second): // only keeps a broken test from hanging
		t.Fatal("the subscriber that read nothing was kept")
	}
	k.hub.mu.Lock()
	count := k.hub.count
	k.hub.mu.Unlock()
	if count != 0 {
		t.Errorf("got %d subscribers after the drop, want 0", count)
	}
	if got := slow.buffer - slow.room(); got != 1 {
		t.Errorf("got %d buffered events, want the buffer's 1", got)
	}
}

// writerAndReader opens two Kits on one SQLite file, as two processes
// would (the writer with the default change settings, the reader with
// changes), and subscribes a stream of team "t1" with changes.Buffer to
// the reader's hub; everything is closed when t ends.
func writerAndReader(t *testing.T, changes ChangesConfig) (writer, reader *Kit, sub *changeSub) {
	t.Helper()
	path := t.TempDir() + "/kit.db"
	defs := []collections.Definition{{Name: "notes", Fields: []collections.Field{{Name: "body", Type: collections.TypeText}}}}
	writer, err := Open(t.Context(), Config{SQLitePath: path, Definitions: defs})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { writer.Close() })
	reader, err = Open(t.Context(), Config{SQLitePath: path, Definitions: defs, Changes: changes})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reader.Close() })
	sub = newChangeSub("t1", nil, changes.Buffer)
	if _, err := reader.hub.subscribe(t.Context(), sub); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reader.hub.unsubscribe(sub) })
	return writer, reader, sub
}

func TestChangeHubKeepsASubscriberThatKeepsUpWhenAnotherProcessCommitsMoreThanItsBuffer(t *testing.T) {
	// The reader learns of the writer's changes only by its poll, which
	// comes long after the writer committed them all.
	writer, _, sub := writerAndReader(t, ChangesConfig{Buffer: 8, PollInterval: 300 * time.Millisecond})
	const writes = 40
	actor := Actor{UserID: "u1", TeamID: "t1", Role: teamauth.RoleOwner, fromAccess: true}
	for range writes {
		if _, err := writer.Records("appNotes").Create(t.Context(), actor, map[string]any{"body": "x"}); err != nil {
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
	frame := func(id int64, collection string) *changeFrame {
		return &changeFrame{id: id, teamID: "t1", collection: collection, sse: []byte("id: " + strconv.FormatInt(id, 10) + "\n\n")}
	}
	round := func(frames ...*changeFrame) *changeRound {
		r := &changeRound{frames: frames}
		for _, f := range frames {
			r.sse = append(r.sse, f.sse...)
		}
		return r
	}
	tests := []struct {
		name         string
		only         map[string]bool
		buffer       int
		pos          int64 // the stream's position when it takes the rounds
		rounds       []*changeRound
		wantAccepted []bool
		wantWritten  string
	}{
		{name: "a stream writes every queued round in order", buffer: 4,
			rounds:       []*changeRound{round(frame(1, "a"), frame(2, "a")), round(frame(3, "a"))},
			wantAccepted: []bool{true, true}, wantWritten: "id: 1\n\nid: 2\n\nid: 3\n\n"},
		{name: "a stream refuses a round its buffer has no room for", buffer: 2,
			rounds:       []*changeRound{round(frame(1, "a")), round(frame(2, "a"), frame(3, "a"))},
			wantAccepted: []bool{true, false}, wantWritten: "id: 1\n\n"},
		{name: "a narrowed stream counts and writes only its collections", only: map[string]bool{"a": true}, buffer: 1,
			rounds:       []*changeRound{round(frame(1, "a"), frame(2, "b")), round(frame(3, "b")), round(frame(4, "a"))},
			wantAccepted: []bool{true, true, false}, wantWritten: "id: 1\n\n"},
		{name: "a stream skips the changes at or before its position", buffer: 4, pos: 2,
			rounds:       []*changeRound{round(frame(1, "a"), frame(2, "a"), frame(3, "a"))},
			wantAccepted: []bool{true}, wantWritten: "id: 3\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newChangeSub("t1", tt.only, tt.buffer)
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
	frame := func(id int64) *changeFrame {
		return &changeFrame{id: id, teamID: "t1", collection: "a", sse: []byte("id: " + strconv.FormatInt(id, 10) + "\n\n")}
	}
	first := &changeRound{frames: []*changeFrame{frame(1), frame(2)}, sse: []byte("id: 1\n\nid: 2\n\n")}
	// The hub's next batch of the same delivery: first's changes and 3.
	extended := &changeRound{frames: append(first.frames[:2:2], frame(3)), sse: []byte("id: 1\n\nid: 2\n\nid: 3\n\n")}
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
			s := newChangeSub("t1", nil, tt.buffer)
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
	writer, reader, sub := writerAndReader(t, ChangesConfig{Buffer: 64, PollInterval: time.Hour})
	const writes = 61
	actor := Actor{UserID: "u1", TeamID: "t1", Role: teamauth.RoleOwner, fromAccess: true}
	for i := range writes {
		w := writer
		if i == writes-1 {
			w = reader
		}
		if _, err := w.Records("appNotes").Create(t.Context(), actor, map[string]any{"body": "x"}); err != nil {
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
		if i > 0 && f.id <= r.frames[i-1].id {
			t.Errorf("got change %d at position %d after %d, want positions in order", i, f.id, r.frames[i-1].id)
		}
		want = append(want, f.sse...)
	}
	if string(r.sse) != string(want) {
		t.Errorf("got the round's events %q, want its frames' events in order %q", r.sse, want)
	}
}

func TestNextDeliveryStretchesTheIntervalOnlyWhenTheWritesNeedIt(t *testing.T) {
	defaults := ChangesConfig{}.withDefaults()
	tests := []struct {
		name    string
		cfg     ChangesConfig
		written time.Duration
		want    time.Duration
	}{
		{"a delivery nobody wrote keeps DeliveryInterval", defaults, 0, 5 * time.Millisecond},
		{"writes within the share keep DeliveryInterval", defaults, 200 * time.Microsecond, 5 * time.Millisecond},
		{"writes of 2 ms wait 40 ms, so they take 5% of the time", defaults, 2 * time.Millisecond, 40 * time.Millisecond},
		{"writes of 10 ms wait 200 ms", defaults, 10 * time.Millisecond, 200 * time.Millisecond},
		{"writes of 50 ms wait no more than MaxDeliveryInterval", defaults, 50 * time.Millisecond, 250 * time.Millisecond},
		{"a share of 20% waits 5 times the writes",
			ChangesConfig{FanoutShare: 0.2}.withDefaults(), 10 * time.Millisecond, 50 * time.Millisecond},
		{"a share that is not a number counts as the default 5%",
			ChangesConfig{FanoutShare: math.NaN()}.withDefaults(), 2 * time.Millisecond, 40 * time.Millisecond},
		{"a share above 1 counts as 1",
			ChangesConfig{FanoutShare: 3}.withDefaults(), 10 * time.Millisecond, 10 * time.Millisecond},
		{"MaxDeliveryInterval at DeliveryInterval keeps the interval fixed",
			ChangesConfig{DeliveryInterval: 20 * time.Millisecond, MaxDeliveryInterval: 20 * time.Millisecond}.withDefaults(),
			50 * time.Millisecond, 20 * time.Millisecond},
		{"MaxDeliveryInterval below DeliveryInterval keeps the interval fixed",
			ChangesConfig{DeliveryInterval: 500 * time.Millisecond}.withDefaults(), 50 * time.Millisecond, 500 * time.Millisecond},
		{"MaxDeliveryInterval set higher lets the interval stretch further",
			ChangesConfig{MaxDeliveryInterval: time.Second}.withDefaults(), 40 * time.Millisecond, 800 * time.Millisecond},
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
func takeChanges(t *testing.T, sub *changeSub, want int) []int64 {
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
					if f.id > pos {
						ids = append(ids, f.id)
						pos = f.id
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
	k, err := Open(t.Context(), Config{SQLitePath: ":memory:" + t.Name(), QueryHook: reads,
		Changes:     ChangesConfig{PollInterval: time.Hour},
		Definitions: []collections.Definition{{Name: "notes", Fields: []collections.Field{{Name: "body", Type: collections.TypeText}}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	sub := newChangeSub("t1", nil, 256)
	start, err := k.hub.subscribe(t.Context(), sub)
	if err != nil {
		t.Fatal(err)
	}
	defer k.hub.unsubscribe(sub)
	actor := Actor{UserID: "u1", TeamID: "t1", Role: teamauth.RoleOwner, fromAccess: true}
	const writers, each = 4, 25 // concurrent writers: several writes per group commit
	var wg sync.WaitGroup
	for range writers {
		wg.Go(func() {
			for range each {
				if _, err := k.Records("appNotes").Create(t.Context(), actor, map[string]any{"body": "x"}); err != nil {
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

func TestChangeHubReadsTheLogForAChangeItWasNotHanded(t *testing.T) {
	// The reader's own writes are handed to its hub; the writer's, between
	// them, are not, and come from the log: in position order, none
	// missing.
	writer, reader, sub := writerAndReader(t, ChangesConfig{Buffer: 64, PollInterval: time.Hour})
	actor := Actor{UserID: "u1", TeamID: "t1", Role: teamauth.RoleOwner, fromAccess: true}
	order := []*Kit{reader, writer, writer, reader, writer, reader}
	for _, w := range order {
		if _, err := w.Records("appNotes").Create(t.Context(), actor, map[string]any{"body": "x"}); err != nil {
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
