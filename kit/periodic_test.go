package kit_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
)

func TestClaimPeriodLetsOneInstanceRunPerPeriod(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		kits := startTogether(t, testdb.Shared(t, e), 2)
		var wins atomic.Int64
		var wg sync.WaitGroup
		for _, k := range kits {
			for range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					ok, err := k.ClaimPeriod(t.Context(), "retention", time.Hour)
					if err != nil {
						t.Error(err)
					}
					if ok {
						wins.Add(1)
					}
				}()
			}
		}
		wg.Wait()
		if got := wins.Load(); got != 1 {
			t.Errorf("claims won: got %d of 16, want exactly 1", got)
		}
		if ok, _ := kits[1].ClaimPeriod(t.Context(), "another-job", time.Hour); !ok {
			t.Errorf("another job's first claim: got false, want true")
		}
		time.Sleep(30 * time.Millisecond)
		if ok, _ := kits[0].ClaimPeriod(t.Context(), "retention", 20*time.Millisecond); !ok {
			t.Errorf("a claim after the period passed: got false, want true")
		}
	})
}

// TestTickerPeriodIsATenthShort checks the period a ticking loop claims:
// a tenth less than its interval, so a claim stamped after its tick does
// not make the same loop skip its next tick.
func TestTickerPeriodIsATenthShort(t *testing.T) {
	for _, c := range []struct{ interval, want time.Duration }{
		{time.Hour, 54 * time.Minute},
		{time.Minute, 54 * time.Second},
		{100 * time.Millisecond, 90 * time.Millisecond},
	} {
		if got := kit.TickerPeriod(c.interval); got != c.want {
			t.Errorf("TickerPeriod(%s): got %s, want %s", c.interval, got, c.want)
		}
	}
}
