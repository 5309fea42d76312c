package events_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"testing"
	"time"

	"github.com/collectionkit/kit/events"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/internal/testkit"
	"github.com/collectionkit/kit/kit"
)

// startInstances starts n kits, each with the add-on installed with cfg,
// on new pools of one database (testdb.Shared) at the same moment, as n
// processes would, and fails the test if any of them fails.
func startInstances(t *testing.T, e testdb.Engine, n int, cfg events.Config) ([]*kit.Kit, []*events.Tracker) {
	t.Helper()
	open := testdb.Shared(t, e)
	dbs := make([]kit.Config, n)
	for i := range dbs {
		dbs[i] = kit.Config{DB: open(), Definitions: shopDefinitions(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	}
	kits := make([]*kit.Kit, n)
	trackers := make([]*events.Tracker, n)
	errs := testkit.AtOnce(n, func(i int) error {
		k, err := kit.New(dbs[i])
		if err != nil {
			return err
		}
		kits[i] = k
		trackers[i], err = events.Install(t.Context(), k, cfg)
		return err
	})
	for _, k := range kits {
		if k != nil {
			t.Cleanup(func() { k.Close() })
		}
	}
	for i, err := range errs {
		if err != nil {
			t.Fatalf("instance %d: got %v, want a clean start", i, err)
		}
	}
	return kits, trackers
}

// TestRetentionRunsOncePerIntervalAcrossInstances runs the retention loop
// of one, then two instances on one database for about a second: without a
// Retention.Lock the loop claims each period (kit.ClaimPeriod), so the
// instances clean up once per interval between them, not once each, and
// a lone instance misses no period.
func TestRetentionRunsOncePerIntervalAcrossInstances(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		for _, instances := range []int{1, 2} {
			t.Run(fmt.Sprintf("%d instances", instances), func(t *testing.T) {
				testRetentionOncePerInterval(t, e, instances)
			})
		}
	})
}

func testRetentionOncePerInterval(t *testing.T, e testdb.Engine, instances int) {
	const (
		interval = 150 * time.Millisecond
		duration = time.Second
	)
	kits, trackers := startInstances(t, e, instances, events.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	began := time.Now()
	dones := make([]<-chan struct{}, instances)
	for i, tr := range trackers {
		dones[i] = tr.StartRetention(ctx, interval)
	}
	time.Sleep(duration)
	cancel()
	elapsed := time.Since(began)
	for _, done := range dones {
		<-done
	}

	var runs int64
	per := make([]int64, instances)
	for i, tr := range trackers {
		per[i] = events.RetentionRuns(tr)
		runs += per[i]
	}
	// At most one cleanup per interval between the instances is the
	// rule; a busy machine can only delay cleanups, so the bound below is
	// one (the retention ran at all), not the number of periods: the test
	// holds whatever the load.
	periods := float64(elapsed) / float64(interval)
	lo, hi := int64(1), int64(math.Ceil(periods))+1
	t.Logf("%d instances, interval %s, %s: %d cleanups (per instance %v), want %d to %d",
		instances, interval, elapsed.Round(time.Millisecond), runs, per, lo, hi)
	if runs < lo || runs > hi {
		t.Errorf("cleanups: got %d (per instance %v) in %s, want %d to %d: one per %s between the instances",
			runs, per, elapsed.Round(time.Millisecond), lo, hi, interval)
	}
	// The claims are kit's periodic record.
	var name string
	if err := kits[0].DB().QueryRowContext(context.Background(),
		"SELECT name FROM kit_periodic WHERE name = 'kit-events-retention'").Scan(&name); err != nil {
		t.Errorf("kit_periodic: %v, want the retention's claim", err)
	}
}
