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

// MaxBodyBytes returns the request body limit in force (Config.MaxBodyBytes,
// default 1 MiB), for add-ons that read bodies themselves.
func (k *Kit) MaxBodyBytes() int64 { return k.cfg.MaxBodyBytes }
