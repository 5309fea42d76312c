package kit

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// runWrite runs fn in a write transaction. On SQLite, kit's own writers
// queue on an in-process lock first: SQLite allows one writer at a time,
// and a writer that finds the database locked waits in SQLite's busy
// handler, which sleeps in growing steps (up to 100 ms) before it retries.
// Queued on a Go lock, the next writer starts the moment the previous one
// commits, which keeps write latency flat under concurrency. Writers in
// other processes still meet SQLite's lock and busy timeout.
func (k *Kit) runWrite(ctx context.Context, fn func(ctx context.Context, tx bun.Tx) error) error {
	if k.db.Dialect().Name() != dialect.PG {
		select {
		case k.writeSlot <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
		defer func() { <-k.writeSlot }()
	}
	return k.db.RunInTx(ctx, nil, fn)
}
