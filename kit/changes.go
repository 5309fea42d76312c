package kit

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/internal/changehub"
	"github.com/collectionkit/kit/internal/store"
)

// ChangesConfig configures the change stream, GET
// {prefix}/teams/{team}/kit-changes (see [ChangeEvent]). The zero value is
// the documented defaults, with the stream on.
type ChangesConfig struct {
	// Disabled turns the change stream off: no change log is written and
	// the route answers 404.
	Disabled bool
	// Retention is how long the change log keeps a change, for clients
	// that resume with Last-Event-ID. Default 1 hour.
	Retention time.Duration
	// MaxRetained bounds the change log to the newest changes (all teams
	// together). Default 100,000.
	MaxRetained int64
	// Heartbeat is the interval of the comment lines that keep proxies
	// from closing an idle stream. Default 15 s.
	Heartbeat time.Duration
	// PollInterval is how often an instance with subscribers reads the
	// change log for changes committed by other processes (this
	// instance's own writes wake it at once): the delay of another
	// process's changes. Default 50 ms, one primary-key read per interval
	// while the instance has streams.
	PollInterval time.Duration
	// AuthCheckInterval is how often an open stream checks that its
	// caller is still allowed (with kit's own accounts store: one read of
	// the authorization counter per instance, and a full check for every
	// stream only when it changed). Default 250 ms, so a removed member, a
	// revoked token, a ban or an ended session closes the stream within
	// one second.
	AuthCheckInterval time.Duration
	// Buffer is how many events may wait for one subscriber; a subscriber
	// that falls further behind is disconnected (it resumes with
	// Last-Event-ID). Default 256.
	Buffer int
	// DeliveryInterval is the least time between two deliveries of an
	// instance to its streams: a change committed while the previous
	// delivery is this recent waits for the next one, with every other
	// change committed meanwhile, and each stream writes all of them in
	// one write and flush. The first change after a quiet period is
	// delivered at once. A longer interval means fewer writes per stream
	// under load and a later delivery. Default 5 ms. Under load the
	// interval stretches up to MaxDeliveryInterval (see FanoutShare).
	DeliveryInterval time.Duration
	// MaxDeliveryInterval is the longest the delivery interval stretches
	// when writing to the streams would otherwise take more than
	// FanoutShare of the time. Default 250 ms; at most DeliveryInterval
	// (or less) keeps the interval fixed at DeliveryInterval.
	MaxDeliveryInterval time.Duration
	// FanoutShare bounds the time an instance's streams spend writing,
	// as a share of the time: after each delivery the next waits
	// max(DeliveryInterval, min(W/FanoutShare, MaxDeliveryInterval)),
	// where W is the time the streams took to write that delivery (wall
	// time, summed over the streams). So at a low rate of changes
	// deliveries stay DeliveryInterval apart, and under load they are
	// spaced further apart, each carrying more changes per write, until
	// the writes take at most FanoutShare of the time or the interval
	// reaches MaxDeliveryInterval. Like a group commit: latency rises only
	// when throughput needs it. Default 0.05 (5%), also for zero, negative
	// and NaN; values above 1 count as 1.
	FanoutShare float64
	// PruneInterval is how often retention runs (once per period across
	// the instances sharing the database). Default 1 minute.
	PruneInterval time.Duration
}

// ChangeEvent is the data of one change stream event: a committed create,
// update, delete, move or reorder of a team's record. Record data is not
// sent; clients refetch through the normal, authorized reads.
type ChangeEvent struct {
	// ID is the change's position in the change log, also the event's SSE
	// id: it grows with every committed change, across instances.
	ID int64 `json:"id"`
	// Operation is create, update, delete (a move to the trash of a
	// softDelete collection too), move, reorder, restore or purge (the
	// trash's).
	Operation Operation `json:"operation"`
	// Collection is the registry key of the changed collection.
	Collection string `json:"collection"`
	// ItemID is the changed record, when the change concerns one record
	// and is not a reorder.
	ItemID string `json:"itemId,omitempty"`
	// ItemIDs are the reordered records in their new order (reorder), or
	// the records a bulk delete of several removed.
	ItemIDs []string `json:"itemIds,omitempty"`
	// CorrelationID is the writing request's X-Correlation-Id (or the
	// generated one).
	CorrelationID string `json:"correlationId"`
	// Timestamp is when the mutation started, in Unix milliseconds.
	Timestamp int64 `json:"timestamp"`
	// Invalidate lists the cache keys the change makes stale:
	// "collection:<key>:*" of the collection and of every collection its
	// references point at.
	Invalidate []string `json:"invalidate"`
}

// newChangeHub returns the Kit's change hub: it reads the change log
// through the store, computes invalidate lists against the current
// registry, and, with kit's own accounts store as the Directory, watches
// its authorization counter.
func (k *Kit) newChangeHub(c ChangesConfig) *changehub.Hub {
	src := changehub.Sources{Log: k.store, Registry: k.Collections, Logger: k.logger,
		ClaimPrune: func(ctx context.Context, interval time.Duration) (bool, error) {
			return k.ClaimPeriod(ctx, "kit:changes:prune", TickerPeriod(interval))
		}}
	if k.cfg.Directory == k.auth {
		src.AuthVersion = k.auth.AuthVersion
	}
	return changehub.New(src, changehub.Config{Retention: c.Retention, MaxRetained: c.MaxRetained,
		Heartbeat: c.Heartbeat, PollInterval: c.PollInterval, AuthCheckInterval: c.AuthCheckInterval,
		Buffer: c.Buffer, DeliveryInterval: c.DeliveryInterval, MaxDeliveryInterval: c.MaxDeliveryInterval,
		FanoutShare: c.FanoutShare, PruneInterval: c.PruneInterval})
}

// changesOn reports whether the change log is written.
func (k *Kit) changesOn() bool { return !k.cfg.Changes.Disabled }

// changed wakes the change hub after a write that recorded a change
// committed, unless the store hands the hub its changes itself
// (store.Committed), which wakes it then.
func (k *Kit) changed() {
	if k.changesOn() && !k.store.HandsOverChanges() {
		k.hub.Notify()
	}
}

// recordChange writes m to the change log in tx, the mutation's
// transaction, after every OnMutationTx listener.
func (k *Kit) recordChange(ctx context.Context, tx bun.Tx, m *Mutation) error {
	return k.store.RecordChange(ctx, tx, *changeRow(m))
}

// changeOf returns m's change log row, or nil when the change log is off.
func (k *Kit) changeOf(m *Mutation) *store.Change {
	if !k.changesOn() {
		return nil
	}
	return changeRow(m)
}

// changeRow returns m's change log row.
func changeRow(m *Mutation) *store.Change {
	ids := m.ItemIDs // reorder, delete (several for a bulk delete)
	if len(ids) == 0 {
		ids = []string{m.ItemID}
	}
	return &store.Change{
		TeamID: m.TeamID, Collection: m.Collection, Operation: string(m.Operation),
		ItemIDs: ids, CorrelationID: m.CorrelationID, Timestamp: m.Timestamp,
	}
}

// CloseStreams ends every open change stream; clients reconnect and
// resume with Last-Event-ID (on another instance, or on this one once it
// is back). A stream is a request that never finishes by itself, so
// http.Server.Shutdown would wait for it until its context ends: register
// this with srv.RegisterOnShutdown(k.CloseStreams). Streams opened later
// are served as usual.
func (k *Kit) CloseStreams() { k.hub.DropAll() }
