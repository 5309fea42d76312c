package events

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/kit"
)

// DefaultCleanupBatch is how many events one DELETE statement removes at
// most: a cleanup of a million events is a thousand short statements, each
// its own transaction, never one long lock.
const DefaultCleanupBatch = 1000

// CleanupOptions override the configured retention for one cleanup. A nil
// limit uses Config.Retention's.
type CleanupOptions struct {
	// RetentionDays deletes events older than this many days. 0 is
	// honoured (every event tracked before now); a negative value skips
	// the age phase.
	RetentionDays *int
	// MaxEvents then deletes the oldest events until at most this many
	// remain. 0 is honoured (none remain); a negative value skips the
	// count phase.
	MaxEvents *int
	// DryRun deletes nothing and reports what a real run would delete.
	DryRun bool
	// BatchSize bounds each DELETE statement; 0 means
	// DefaultCleanupBatch.
	BatchSize int
}

// CleanupResult is the spec's cleanup result.
type CleanupResult struct {
	// DeletedCount is the number of events deleted (with DryRun: that a
	// real run would delete).
	DeletedCount int `json:"deletedCount"`
	// OldestRemaining is the timestamp of the oldest event left, nil when
	// none is.
	OldestRemaining *time.Time `json:"oldestRemaining"`
	// TotalRemaining is the number of events left.
	TotalRemaining int `json:"totalRemaining"`
}

// CleanupOldEvents deletes old events of every team in two phases, as the
// spec says: first the events older than RetentionDays, then, if more than
// MaxEvents remain, the oldest ones until MaxEvents remain. Both phases
// delete the oldest events first (by timestamp, then id), in statements of
// at most BatchSize events. With DryRun nothing is deleted and the result
// is what a real run would report, as long as no event is written in
// between.
func (t *Tracker) CleanupOldEvents(ctx context.Context, opts CleanupOptions) (CleanupResult, error) {
	days, maxEvents := t.cfg.Retention.days(), t.cfg.Retention.maxEvents()
	if opts.RetentionDays != nil {
		days = max(*opts.RetentionDays, -1)
	}
	if opts.MaxEvents != nil {
		maxEvents = max(*opts.MaxEvents, -1)
	}
	batch := opts.BatchSize
	if batch <= 0 {
		batch = DefaultCleanupBatch
	}
	db := t.k.DB()
	var cutoff time.Time
	if days >= 0 {
		cutoff = time.Now().UTC().AddDate(0, 0, -days)
	}
	var res CleanupResult
	total, err := countEvents(ctx, db, time.Time{})
	if err != nil {
		return res, err
	}

	if opts.DryRun {
		old := 0
		if days >= 0 {
			if old, err = countEvents(ctx, db, cutoff); err != nil {
				return res, err
			}
		}
		res.DeletedCount = old + excess(total-old, maxEvents)
		res.TotalRemaining = total - res.DeletedCount
		if res.TotalRemaining > 0 {
			// Both phases delete a prefix of the (timestamp, id) order, so
			// the oldest survivor is the one right after it.
			ts, err := oldestAt(ctx, db, res.DeletedCount)
			if err != nil {
				return res, err
			}
			res.OldestRemaining = ts
		}
		return res, nil
	}

	if days >= 0 {
		n, err := deleteBatches(ctx, db, -1, batch, func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.Where("? < ?", bun.Ident("timestamp"), cutoff)
		})
		res.DeletedCount += n
		if err != nil {
			return res, err
		}
	}
	if maxEvents >= 0 {
		remaining, err := countEvents(ctx, db, time.Time{})
		if err != nil {
			return res, err
		}
		if over := excess(remaining, maxEvents); over > 0 {
			n, err := deleteBatches(ctx, db, over, batch, nil)
			res.DeletedCount += n
			if err != nil {
				return res, err
			}
		}
	}
	if res.TotalRemaining, err = countEvents(ctx, db, time.Time{}); err != nil {
		return res, err
	}
	if res.TotalRemaining > 0 {
		if res.OldestRemaining, err = oldestAt(ctx, db, 0); err != nil {
			return res, err
		}
	}
	return res, nil
}

// excess is how many of n events are over the limit (-1: none).
func excess(n, limit int) int {
	if limit < 0 || n <= limit {
		return 0
	}
	return n - limit
}

// countEvents counts all events, or those older than before when it is
// set.
func countEvents(ctx context.Context, db bun.IDB, before time.Time) (int, error) {
	q := db.NewSelect().Model((*eventRow)(nil))
	if !before.IsZero() {
		q = q.Where("? < ?", bun.Ident("timestamp"), before)
	}
	n, err := q.Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("events: cleanup: count: %w", err)
	}
	return int(n), nil
}

// oldestAt returns the timestamp of the event at offset in (timestamp, id)
// order, nil when there is none.
func oldestAt(ctx context.Context, db bun.IDB, offset int) (*time.Time, error) {
	var ts time.Time
	err := db.NewSelect().Model((*eventRow)(nil)).Column("timestamp").
		OrderExpr("? ASC, ? ASC", bun.Ident("timestamp"), bun.Ident("id")).
		Limit(1).Offset(int64(offset)).Scan(ctx, &ts)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("events: cleanup: oldest: %w", err)
	}
	ts = ts.UTC()
	return &ts, nil
}

// deleteBatches deletes the oldest events matching where (all when nil),
// at most limit of them (-1: no limit), batch by batch, and returns how
// many it deleted. Each statement commits on its own.
func deleteBatches(ctx context.Context, db bun.IDB, limit, batch int, where func(*bun.SelectQuery) *bun.SelectQuery) (int, error) {
	deleted := 0
	for limit < 0 || deleted < limit {
		n := batch
		if limit >= 0 {
			n = min(batch, limit-deleted)
		}
		ids := db.NewSelect().Model((*eventRow)(nil)).Column("id").
			OrderExpr("? ASC, ? ASC", bun.Ident("timestamp"), bun.Ident("id")).Limit(int64(n))
		if where != nil {
			ids = where(ids)
		}
		res, err := db.NewDelete().TableExpr("kit_events").Where("? IN (?)", bun.Ident("id"), ids).Exec(ctx)
		if err != nil {
			return deleted, fmt.Errorf("events: cleanup: delete: %w", err)
		}
		got, err := res.RowsAffected()
		if err != nil {
			return deleted, fmt.Errorf("events: cleanup: delete: %w", err)
		}
		deleted += int(got)
		if got < int64(n) {
			break
		}
		if err := ctx.Err(); err != nil {
			return deleted, err
		}
	}
	return deleted, nil
}

// StartRetention runs CleanupOldEvents with the configured retention now
// and then every interval (default one hour when interval <= 0), in a
// goroutine, until ctx is done; the returned channel is closed when the
// loop has stopped. With Retention.Disabled it runs nothing and returns a
// closed channel. Without Retention.Lock each run first claims the period
// with kit.ClaimPeriod, so instances sharing one database clean up once
// per interval between them (and a lone instance every interval); with
// Retention.Lock each run goes through it instead. Results and errors are
// logged.
func (t *Tracker) StartRetention(ctx context.Context, interval time.Duration) <-chan struct{} {
	done := make(chan struct{})
	if t.cfg.Retention.Disabled {
		close(done)
		return done
	}
	if interval <= 0 {
		interval = time.Hour
	}
	go func() {
		defer close(done)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			t.retentionRun(ctx, interval)
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return done
}

// retentionClaim is the kit_periodic job the retention loop claims.
const retentionClaim = "kit-events-retention"

// retentionRun is one cleanup of the retention loop. Without a
// Retention.Lock, it runs only when this instance claims the period
// (kit.ClaimPeriod), so several instances sharing one database clean up
// once per interval between them.
func (t *Tracker) retentionRun(ctx context.Context, interval time.Duration) {
	cleanup := func(ctx context.Context) error {
		t.retentionRuns.Add(1)
		res, err := t.CleanupOldEvents(ctx, CleanupOptions{})
		if err != nil {
			return err
		}
		if res.DeletedCount > 0 {
			t.logger.InfoContext(ctx, "events: retention cleanup",
				slog.Int("deleted", res.DeletedCount), slog.Int("remaining", res.TotalRemaining))
		}
		return nil
	}
	var err error
	if lock := t.cfg.Retention.Lock; lock != nil {
		err = lock(ctx, cleanup)
	} else {
		var claimed bool
		claimed, err = t.k.ClaimPeriod(ctx, retentionClaim, kit.TickerPeriod(interval))
		if err == nil && claimed {
			err = cleanup(ctx)
		}
	}
	if err != nil && ctx.Err() == nil {
		t.logger.ErrorContext(ctx, "events: retention cleanup failed", slog.String("err", err.Error()))
	}
}
