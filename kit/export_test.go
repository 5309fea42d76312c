package kit

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/internal/store"
)

// QueuedWrites reports how many writes wait in k's SQLite write queue
// (tests use it to build a group of writes deterministically).
func QueuedWrites(k *Kit) int {
	return k.store.QueuedWrites()
}

// HoldWrites queues a write that waits until release is called, so that
// the writes started meanwhile queue up behind it and commit as one group.
// It returns once the held write runs.
func HoldWrites(k *Kit) (release func()) {
	started, unblock := make(chan struct{}), make(chan struct{})
	go func() {
		_ = k.store.RunWrite(context.Background(), store.Write{Single: true}, func(context.Context, bun.Tx) error {
			close(started)
			<-unblock
			return nil
		})
	}()
	<-started
	return func() { close(unblock) }
}

// SearchBacklog is how many rows a collection's search index may leave
// for a later flush (store.SearchBacklogLimit).
const SearchBacklog = store.SearchBacklogLimit

// SearchWaiting returns how many rows of the collection key wait for its
// search index (store.SearchBacklog).
func SearchWaiting(ctx context.Context, k *Kit, key string) (int, error) {
	c, ok := k.Collections().Get(key)
	if !ok {
		return 0, fmt.Errorf("no collection %q", key)
	}
	return k.store.SearchBacklog(ctx, k.db, c)
}

// PruneChanges runs the change log's retention now (Config.Changes'
// Retention and MaxRetained) and returns how many changes it deleted.
func PruneChanges(ctx context.Context, k *Kit) (int64, error) {
	return k.hub.Prune(ctx)
}

// ActorOfARequest returns a as kit builds it for an authorized request:
// its team and user are not looked up again before a write. Tests that
// hold SQLite's write lock on an in-memory database (HoldWrites), where a
// read waits for the writer, use it for writes they queue behind the hold.
func ActorOfARequest(a Actor) Actor {
	a.fromAccess = true
	return a
}
