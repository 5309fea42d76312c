package events_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/collectionkit/kit/events"
	"github.com/collectionkit/kit/internal/testdb"
)

// cleanupWorld writes ten events and dates them, oldest first: {c0} to
// {c3} 100 to 97 days old, {c4} 5 days, {c5} and {c6} 4 days (the same
// instant), {c7} 2 days, {c8} 1 day and {c9} an hour. It returns the
// events' timestamps.
func cleanupWorld(t *testing.T, e testdb.Engine, cfg events.Config) (*world, []time.Time) {
	t.Helper()
	w := newWorld(t, e, cfg)
	ids := make([]string, 10)
	for i := range ids {
		ids[i] = fmt.Sprintf("item-%d", i)
	}
	evs, err := w.tr.Track(context.Background(), w.ids["acme"], w.ids["mia"], events.TrackOptions{
		Operation: "delete", Collection: "shopProducts", ItemIDs: ids})
	if err != nil || len(evs) != 10 {
		t.Fatalf("seed: got %d events, %v; want 10", len(evs), err)
	}
	now := time.Now().UTC().Truncate(time.Second)
	day := 24 * time.Hour
	ages := []time.Duration{100 * day, 99 * day, 98 * day, 97 * day, 5 * day, 4 * day, 4 * day, 2 * day, day, time.Hour}
	times := make([]time.Time, 10)
	for i, e := range evs {
		times[i] = now.Add(-ages[i])
		w.backdate(t, e.ID, times[i])
		w.ids[fmt.Sprintf("c%d", i)] = e.ID
	}
	return w, times
}

func ints(n int) *int { return &n }

func TestCleanupOldEvents(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		cases := []struct {
			name      string
			cfg       events.Retention
			opts      events.CleanupOptions
			deleted   int
			oldestIdx int // index of the oldest remaining event; -1 for none
		}{
			{name: "the defaults delete the events older than 90 days", deleted: 4, oldestIdx: 4},
			{name: "MaxEvents then deletes the oldest events beyond the count", opts: events.CleanupOptions{MaxEvents: ints(3)}, deleted: 7, oldestIdx: 7},
			{name: "RetentionDays 0 is honoured and deletes every event tracked before now", opts: events.CleanupOptions{RetentionDays: ints(0)}, deleted: 10, oldestIdx: -1},
			{name: "MaxEvents 0 is honoured and deletes every event", opts: events.CleanupOptions{RetentionDays: ints(-1), MaxEvents: ints(0)}, deleted: 10, oldestIdx: -1},
			{name: "a negative RetentionDays skips the age phase", opts: events.CleanupOptions{RetentionDays: ints(-1), MaxEvents: ints(5)}, deleted: 5, oldestIdx: 5},
			{name: "events of the same instant are cut in id order", opts: events.CleanupOptions{MaxEvents: ints(4)}, deleted: 6, oldestIdx: 6},
			{name: "the configured retention applies when the options leave it unset", cfg: events.Retention{Days: 30, MaxEvents: 5}, deleted: 5, oldestIdx: 5},
			{name: "the options override the configured retention", cfg: events.Retention{Days: 30, MaxEvents: 5},
				opts: events.CleanupOptions{RetentionDays: ints(200), MaxEvents: ints(8)}, deleted: 2, oldestIdx: 2},
			{name: "a retention that keeps everything deletes nothing", opts: events.CleanupOptions{RetentionDays: ints(365)}, deleted: 0, oldestIdx: 0},
			{name: "a configuration without limits deletes nothing", cfg: events.Retention{Days: -1, MaxEvents: -1}, deleted: 0, oldestIdx: 0},
			{name: "small batches delete the same events", opts: events.CleanupOptions{MaxEvents: ints(3), BatchSize: 2}, deleted: 7, oldestIdx: 7},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel() // each case has its own world
				w, times := cleanupWorld(t, e, events.Config{Retention: tc.cfg})
				ctx := context.Background()

				dry := tc.opts
				dry.DryRun = true
				planned, err := w.tr.CleanupOldEvents(ctx, dry)
				if err != nil {
					t.Fatal(err)
				}
				if n := w.count(t, "kit_events"); n != 10 {
					t.Fatalf("after the dry run: got %d events, want all 10", n)
				}
				checkResult(t, "dry run", planned, tc.deleted, tc.oldestIdx, times)

				done, err := w.tr.CleanupOldEvents(ctx, tc.opts)
				if err != nil {
					t.Fatal(err)
				}
				checkResult(t, "real run", done, tc.deleted, tc.oldestIdx, times)
				if fmt.Sprint(done.DeletedCount, done.TotalRemaining, done.OldestRemaining) != fmt.Sprint(planned.DeletedCount, planned.TotalRemaining, planned.OldestRemaining) {
					t.Errorf("real run %+v differs from dry run %+v", done, planned)
				}
				left := w.stored(t)
				if len(left) != 10-tc.deleted {
					t.Fatalf("events left: got %d, want %d", len(left), 10-tc.deleted)
				}
				// What is left is the newest events ({c5} and {c6} share an
				// instant; ids, time-ordered, break the tie).
				for i, e := range left {
					if e.ID != w.ids[fmt.Sprintf("c%d", tc.deleted+i)] {
						t.Errorf("event left %d: got %s, want {c%d}", i, e.ID, tc.deleted+i)
					}
				}
			})
		}
	})
}

func checkResult(t *testing.T, run string, got events.CleanupResult, deleted, oldestIdx int, times []time.Time) {
	t.Helper()
	if got.DeletedCount != deleted || got.TotalRemaining != 10-deleted {
		t.Errorf("%s: got %d deleted, %d remaining; want %d and %d", run, got.DeletedCount, got.TotalRemaining, deleted, 10-deleted)
	}
	switch {
	case oldestIdx < 0 && got.OldestRemaining != nil:
		t.Errorf("%s oldestRemaining: got %s, want none", run, got.OldestRemaining)
	case oldestIdx >= 0 && (got.OldestRemaining == nil || !got.OldestRemaining.Equal(times[oldestIdx])):
		t.Errorf("%s oldestRemaining: got %v, want %s", run, got.OldestRemaining, times[oldestIdx])
	}
}

func TestRetention(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		t.Run("the retention loop cleans up and stops with its context", func(t *testing.T) {
			w, _ := cleanupWorld(t, e, events.Config{Retention: events.Retention{Days: 30}})
			ctx, cancel := context.WithCancel(context.Background())
			done := w.tr.StartRetention(ctx, 10*time.Millisecond)
			deadline := time.Now().Add(5 * time.Second)
			for w.count(t, "kit_events") != 6 {
				if time.Now().After(deadline) {
					t.Fatalf("events: got %d, want 6 after the loop ran", w.count(t, "kit_events"))
				}
				time.Sleep(5 * time.Millisecond)
			}
			cancel()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("the loop did not stop after its context ended")
			}
		})
		t.Run("a disabled retention runs nothing", func(t *testing.T) {
			w, _ := cleanupWorld(t, e, events.Config{Retention: events.Retention{Disabled: true, Days: 30}})
			select {
			case <-w.tr.StartRetention(context.Background(), time.Millisecond):
			case <-time.After(time.Second):
				t.Fatal("got a running loop, want none")
			}
			if n := w.count(t, "kit_events"); n != 10 {
				t.Fatalf("events: got %d, want 10", n)
			}
		})
		t.Run("the lock seam decides whether an instance cleans up", func(t *testing.T) {
			var held atomic.Bool // another instance holds the lock
			held.Store(true)
			runs := make(chan bool, 1) // each run of the lock: did it clean up
			lock := func(ctx context.Context, cleanup func(context.Context) error) error {
				if held.Load() {
					runs <- false
					return nil
				}
				err := cleanup(ctx)
				runs <- true
				return err
			}
			w, _ := cleanupWorld(t, e, events.Config{Retention: events.Retention{Days: 30, Lock: lock}})
			for _, tc := range []struct {
				held bool
				left int
			}{{true, 10}, {false, 6}} {
				held.Store(tc.held)
				ctx, cancel := context.WithCancel(context.Background())
				done := w.tr.StartRetention(ctx, time.Hour)
				cleaned := <-runs
				cancel()
				<-done
				if cleaned == tc.held {
					t.Errorf("lock held elsewhere %v: got cleanup %v", tc.held, cleaned)
				}
				if n := w.count(t, "kit_events"); n != tc.left {
					t.Errorf("lock held elsewhere %v: got %d events, want %d", tc.held, n, tc.left)
				}
			}
		})
	})
}
