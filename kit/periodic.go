package kit

import (
	"context"
	"time"
)

// ClaimPeriod reports whether this instance should run the periodic job
// name now: true for exactly one caller per period across every instance
// sharing the database, false for the others until period has passed since
// the claimed run. The claim is a read-then-write under the database's
// write lock (SQLite) or a transaction-scoped advisory lock (PostgreSQL).
// Run the job after a successful claim; the claim is not returned if the
// job fails, so a failing job is retried next period, not at once.
func (k *Kit) ClaimPeriod(ctx context.Context, name string, period time.Duration) (bool, error) {
	return k.store.ClaimPeriod(ctx, name, period)
}

// TickerPeriod is the period a loop that ticks every interval should pass
// to ClaimPeriod: a tenth less than interval. A claim is stamped a little
// after its tick, and the same loop's next tick comes exactly interval
// after the previous one, so claiming the full interval would find the
// period not quite over and skip it, running every other interval even
// alone. The tenth absorbs that delay (and clock skew between instances up
// to the same amount); a claim still holds off every other instance's tick
// of the same period.
func TickerPeriod(interval time.Duration) time.Duration {
	return interval - interval/10
}

// MaxBodyBytes returns the request body limit in force (Config.MaxBodyBytes,
// default 1 MiB), for add-ons that read bodies themselves.
func (k *Kit) MaxBodyBytes() int64 { return k.cfg.MaxBodyBytes }
