package kit

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/internal/store"
	"github.com/collectionkit/kit/internal/wire"
)

// MaxBatchOperations is the most operations one batch may run
// (Kit.Batch, POST .../kit-batch).
const MaxBatchOperations = 100

// A Batch runs record writes of one team in one transaction: all of
// them or none. Each operation goes through the path of its single call
// (validation, tenancy, rights, OnMutationTx listeners in the
// transaction, one change log entry per change); OnMutation listeners run
// once the batch has committed, in order, and every mutation of a batch
// shares one correlation id. Get one from Kit.Batch; its methods may be
// called only while the function given to Kit.Batch runs.
type Batch struct {
	k     *Kit
	ctx   context.Context // the write's context, with the batch's request info
	tx    bun.Tx
	done  bool  // fn returned: the transaction is gone
	actor Actor // the caller's actor, carrying the batch
	n     int   // operations so far
	// after are the batch's mutations, for OnMutation once it commits.
	after []*Mutation
}

// BatchError is the error of a batch whose operation Index (counted from
// 0) failed with Err: nothing of the batch was written. Its status is
// Err's; its data is Err's with the index added ("index").
type BatchError struct {
	Index int
	Err   error
}

func (e *BatchError) Error() string { return fmt.Sprintf("batch operation %d: %v", e.Index, e.Err) }

// Unwrap returns Err.
func (e *BatchError) Unwrap() error { return e.Err }

// HTTPStatus is Err's status.
func (e *BatchError) HTTPStatus() int { return wire.Status(e.Err) }

// ErrorData is Err's data with the operation's index.
func (e *BatchError) ErrorData() any {
	var dc wire.DataCarrier
	if errors.As(e.Err, &dc) {
		return withIndex(dc.ErrorData(), e.Index)
	}
	return withIndex(nil, e.Index)
}

// withIndex is an error's data d with the index of the batch operation
// that failed: d's members and "index", or d itself as "detail" when it
// is not an object.
func withIndex(d any, index int) map[string]any {
	data := map[string]any{"index": index}
	switch d := d.(type) {
	case map[string]any:
		for k, v := range d {
			data[k] = v
		}
	case nil:
	default:
		data["detail"] = d
	}
	return data
}

// errBatchTooLong is the error of an operation past MaxBatchOperations.
var errBatchTooLong = &Error{Status: http.StatusBadRequest, Message: fmt.Sprintf("a batch runs at most %d operations", MaxBatchOperations)}

// errBatchDone is the error of a Batch method called after its function
// returned.
var errBatchDone = errors.New("kit: the batch has ended: call its methods only inside the function given to Kit.Batch")

// Batch runs fn in one write transaction for actor: the records fn
// writes through b are committed together when fn returns nil, and none
// of them when fn or any operation fails. The first failed operation's
// error comes back as a *BatchError naming its index (errors.Is and As
// see the operation's error through it); fn's own error comes back as it
// is. fn should call b's methods and little else: on SQLite the batch is
// one write of the queue and holds the writer while fn runs.
func (k *Kit) Batch(ctx context.Context, actor Actor, fn func(b *Batch) error) error {
	if err := actor.check(); err != nil {
		return err
	}
	// Checked once, before the transaction: on SQLite a read of the
	// Directory inside the write queue's transaction could wait for it.
	if err := k.checkActor(ctx, actor); err != nil {
		return err
	}
	actor.fromAccess = true
	info, _ := RequestInfoFrom(ctx)
	if info.CorrelationID == "" {
		info.CorrelationID = NewCorrelationID()
		ctx = WithRequestInfo(ctx, info)
	}
	var b *Batch
	err := k.store.RunWrite(ctx, store.Write{}, func(ctx context.Context, tx bun.Tx) error {
		b = &Batch{k: k, ctx: ctx, tx: tx}
		b.actor = actor
		b.actor.batch = b
		b.actor.cached = nil
		defer func() { b.done = true }()
		return fn(b)
	})
	if err != nil {
		return err
	}
	for _, m := range b.after {
		k.runHooks(ctx, m)
	}
	k.changed()
	return nil
}

// op runs operation fn of the batch, counting it, and wraps its error
// with its index.
func (b *Batch) op(fn func(ctx context.Context, a Actor) error) error {
	if b.done {
		return errBatchDone
	}
	i := b.n
	b.n++
	if i >= MaxBatchOperations {
		return &BatchError{Index: i, Err: errBatchTooLong}
	}
	if err := fn(b.ctx, b.actor); err != nil {
		return &BatchError{Index: i, Err: err}
	}
	return nil
}

// Create creates a record of collection key (Records.Create).
func (b *Batch) Create(key string, data map[string]any) (rec Record, err error) {
	err = b.op(func(ctx context.Context, a Actor) error {
		rec, err = b.k.Records(key).Create(ctx, a, data)
		return err
	})
	return rec, err
}

// Update updates record id of collection key (Records.UpdateWith).
func (b *Batch) Update(key, id string, data map[string]any, opts WriteOptions) (rec Record, err error) {
	err = b.op(func(ctx context.Context, a Actor) error {
		rec, err = b.k.Records(key).UpdateWith(ctx, a, id, data, opts)
		return err
	})
	return rec, err
}

// Delete deletes record id of collection key (Records.DeleteWith).
func (b *Batch) Delete(key, id string, opts WriteOptions) error {
	return b.op(func(ctx context.Context, a Actor) error {
		return b.k.Records(key).DeleteWith(ctx, a, id, opts)
	})
}

// DeleteMany deletes records ids of collection key (Records.DeleteMany).
func (b *Batch) DeleteMany(key string, ids []string) error {
	return b.op(func(ctx context.Context, a Actor) error {
		return b.k.Records(key).DeleteMany(ctx, a, ids)
	})
}

// Move moves record id of tree collection key (Records.MoveWith).
func (b *Batch) Move(key, id string, parentID *string, order int, opts WriteOptions) (rec Record, err error) {
	err = b.op(func(ctx context.Context, a Actor) error {
		rec, err = b.k.Records(key).MoveWith(ctx, a, id, parentID, order, opts)
		return err
	})
	return rec, err
}

// Reorder sets the order of one set of siblings of collection key
// (Records.Reorder).
func (b *Batch) Reorder(key string, ids []string) error {
	return b.op(func(ctx context.Context, a Actor) error {
		return b.k.Records(key).Reorder(ctx, a, ids)
	})
}

// inBatch runs fn, a write of the actor's, in its batch's transaction
// when it has one (reporting true), instead of a transaction of its own.
func (a Actor) inBatch(ctx context.Context, fn func(ctx context.Context, tx bun.Tx) error) (bool, error) {
	if a.batch == nil {
		return false, nil
	}
	if a.batch.done {
		return true, errBatchDone
	}
	return true, fn(ctx, a.batch.tx)
}

// afterCommit runs the OnMutation listeners of m, a mutation of actor a,
// now, or once a's batch has committed.
func (k *Kit) afterCommit(ctx context.Context, a Actor, m *Mutation) {
	if a.batch != nil {
		// Kept only for a listener: an import's batch would otherwise
		// hold every record twice more until it commits.
		if k.hasAfterHooks() {
			a.batch.after = append(a.batch.after, m)
		}
		return
	}
	k.runHooks(ctx, m)
}
