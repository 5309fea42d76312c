package kit

import (
	"context"
	"log/slog"
	"time"
)

// every runs run every interval on one instance of those sharing the
// database: each tick claims job's period (ClaimPeriod) first, and the
// instance that gets it runs. The loop ends when the Kit closes, which
// waits for a run in progress.
func (k *Kit) every(job string, interval time.Duration, run func(ctx context.Context)) {
	k.loops.Add(1)
	go func() {
		defer k.loops.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-k.loopCtx.Done():
				return
			case <-t.C:
			}
			ok, err := k.ClaimPeriod(k.loopCtx, job, TickerPeriod(interval))
			if err != nil && k.loopCtx.Err() == nil {
				k.logger.Error("kit: claim a periodic job", slog.String("job", job), slog.String("err", err.Error()))
			}
			if ok {
				run(k.loopCtx)
			}
		}
	}()
}
