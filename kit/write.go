package kit

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/store"
)

// runWrite runs fn in a write transaction of the store, which decides how
// (see store.Store.RunWrite: a transaction of its own on PostgreSQL,
// group-committed in a savepoint on SQLite, where fn runs on the queue's
// goroutine with a context that keeps ctx's values but not its
// cancellation). w says which collection's rows fn changes, whether it is
// one statement (see singleWrite) and what guards it (Actor.write).
//
// A write of an actor in a batch (Kit.Batch) runs in the batch's
// transaction instead.
func (k *Kit) runWrite(ctx context.Context, a Actor, w store.Write, fn func(ctx context.Context, tx bun.Tx) error) error {
	if batched, err := a.inBatch(ctx, fn); batched {
		return err
	}
	return k.store.RunWrite(ctx, w, fn)
}

// singleWrite reports whether a create, update or delete of a record of c
// is one write statement with nothing after it that can fail: c keeps no
// order (trees and sortable collections move siblings too) and no
// OnMutationTx listener is registered (a listener writes, and may fail,
// after the record is written). The change log's row and an
// OnMutationRows listener's rows do not count: on SQLite the write queue
// inserts the rows of a group just before it commits (see
// store.RecordChange and store.InsertAtCommit).
func (k *Kit) singleWrite(c *collections.Collection) bool {
	if c.IsOrdered() || c.SoftDelete() {
		return false
	}
	k.hooksMu.RLock()
	defer k.hooksMu.RUnlock()
	return len(k.txHooks) == 0
}

// writesAlone reports whether a create, update or delete of a record of c
// may be one statement outside any transaction (store.InsertLogged,
// UpdateLogged, DeleteLogged), which also writes its row count and change
// log row (and the OnMutationRows listeners' rows, see joinedRows): on
// PostgreSQL, when singleWrite holds (no OnMutationTx listener needs a
// transaction, no siblings move). On SQLite writes are group-committed
// instead (see store.Store.RunWrite).
//
// A batch's writes never do: they run in the batch's transaction.
func (k *Kit) writesAlone(a Actor, c *collections.Collection) bool {
	return a.batch == nil && k.store.WritesAlone() && k.singleWrite(c)
}
