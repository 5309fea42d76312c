package changehub

import (
	"context"
	"log/slog"
	"time"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/store"
)

// Config tunes a Hub. A zero field takes its default (the defaults kit
// documents on kit.ChangesConfig, whose fields these are).
type Config struct {
	// Retention is how long the log keeps a change. Default 1 hour.
	Retention time.Duration
	// MaxRetained bounds the log to the newest changes of all teams.
	// Default 100,000.
	MaxRetained int64
	// Heartbeat is the interval of a stream's comment lines. Default 15 s.
	Heartbeat time.Duration
	// PollInterval is how often a hub with streams reads the log for
	// changes it was not handed. Default 50 ms.
	PollInterval time.Duration
	// AuthCheckInterval is how often the hub reads the authorization
	// counter, or, without one, how often each stream checks its caller.
	// Default 250 ms.
	AuthCheckInterval time.Duration
	// Buffer is how many changes may wait for one stream. Default 256.
	Buffer int
	// DeliveryInterval is the least time between two deliveries. Default
	// 5 ms.
	DeliveryInterval time.Duration
	// MaxDeliveryInterval is the longest the delivery interval stretches.
	// Default 250 ms; at least DeliveryInterval.
	MaxDeliveryInterval time.Duration
	// FanoutShare bounds the streams' writing time as a share of the time.
	// Default 0.05, also for zero, negative and NaN; at most 1.
	FanoutShare float64
	// PruneInterval is how often retention runs. Default 1 minute.
	PruneInterval time.Duration
}

// withDefaults returns c with every zero (or out of range) field set to
// its default.
func (c Config) withDefaults() Config {
	c.Retention = orDefault(c.Retention, time.Hour)
	if c.MaxRetained <= 0 {
		c.MaxRetained = 100_000
	}
	c.Heartbeat = orDefault(c.Heartbeat, 15*time.Second)
	c.PollInterval = orDefault(c.PollInterval, 50*time.Millisecond)
	c.AuthCheckInterval = orDefault(c.AuthCheckInterval, 250*time.Millisecond)
	if c.Buffer <= 0 {
		c.Buffer = 256
	}
	c.DeliveryInterval = orDefault(c.DeliveryInterval, 5*time.Millisecond)
	if c.MaxDeliveryInterval == 0 {
		c.MaxDeliveryInterval = 250 * time.Millisecond
	}
	c.MaxDeliveryInterval = max(c.MaxDeliveryInterval, c.DeliveryInterval)
	if !(c.FanoutShare > 0) { // also NaN
		c.FanoutShare = 0.05
	}
	c.FanoutShare = min(c.FanoutShare, 1)
	c.PruneInterval = orDefault(c.PruneInterval, time.Minute)
	return c
}

// orDefault returns d when v is zero or negative, else v.
func orDefault(v, d time.Duration) time.Duration {
	if v <= 0 {
		return d
	}
	return v
}

// Log is the change log a Hub reads and prunes; *store.Store implements
// it. Every engine difference (SQLite hands its commits over, PostgreSQL's
// positions may commit out of order) stays behind it.
type Log interface {
	// ChangeHead returns a cursor at the end of the log: every change up
	// to it has committed or never will (waiting, polling every poll,
	// where that takes time).
	ChangeHead(ctx context.Context, poll time.Duration) (store.ChangeCursor, error)
	// NextChanges returns up to limit changes after cur, in position
	// order, and moves cur past them; never a change at or before a
	// position it moved past.
	NextChanges(ctx context.Context, cur *store.ChangeCursor, limit int) ([]store.Change, error)
	// ChangesAfter returns the team's changes with positions in (after,
	// through], in order, at most limit.
	ChangesAfter(ctx context.Context, teamID string, after, through int64, limit int) ([]store.Change, error)
	// ChangeBounds returns the largest position retention deleted and the
	// largest position written.
	ChangeBounds(ctx context.Context) (prunedThrough, last int64, err error)
	// PruneChanges deletes the changes older than olderThan and all but
	// the newest keep, and returns how many it deleted.
	PruneChanges(ctx context.Context, olderThan time.Time, keep int64) (int64, error)
	// HandsOverChanges reports whether every change this process commits
	// is handed to Hub.Handoff: a wake from this process's writes then
	// needs no read of the log.
	HandsOverChanges() bool
}

// Sources are what a Hub reads besides its Config.
type Sources struct {
	// Log is the change log. Required.
	Log Log
	// Registry returns the current registry, against which a change's
	// invalidate list is computed. Required.
	Registry func() *collections.Registry
	// AuthVersion returns the authorization counter, which moves whenever
	// a membership, token, ban or session changes (ok false when it could
	// not be read). Nil when there is none: each stream then checks its
	// caller every AuthCheckInterval.
	AuthVersion func(ctx context.Context) (version int64, ok bool)
	// ClaimPrune reports whether this instance runs retention now, given
	// the interval of its retention ticks: true for one instance per
	// period across those sharing the database. Nil: every instance
	// prunes at every tick.
	ClaimPrune func(ctx context.Context, interval time.Duration) (bool, error)
	// Logger receives the errors of reading and pruning the log. Default
	// slog.Default().
	Logger *slog.Logger
}
