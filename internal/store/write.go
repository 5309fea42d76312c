package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
)

// maxWriteBatch bounds how many queued writes share one SQLite
// transaction.
const maxWriteBatch = 64

// RunWrite runs fn in a write transaction and returns once that
// transaction has committed (or fn's error, or the commit's).
//
// On PostgreSQL every call gets a transaction of its own.
//
// On SQLite, which allows one writer at a time, the writes of one Store go
// through one in-process queue and are committed in groups (group commit):
// while a transaction commits, the writes that arrive queue up, and the
// next transaction runs all of them, each in a savepoint of its own, and
// commits once. A write whose fn fails (an error or a panic) is rolled back
// to its savepoint and gets its error, or its panic re-raised on the
// caller's goroutine; the others in the group are not affected. Each caller
// returns only after the transaction holding its write has committed, so
// what a caller is told is durable is durable, and a mutation and its audit
// record commit together. Queued on a Go lock instead of SQLite's busy
// handler, the next group starts the moment the previous one commits.
// Writers in other processes still meet SQLite's lock and busy timeout.
//
// fn runs on the queue's goroutine with a context that carries ctx's values
// but not its cancellation: a cancelled statement would interrupt the
// shared transaction. A write whose ctx is done before its turn is dropped
// with ctx's error.
//
// w says which collection's rows fn changes, whether fn is a single
// statement, and which guard the write depends on (see Write).
func (s *Store) RunWrite(ctx context.Context, w Write, fn func(ctx context.Context, tx bun.Tx) error) error {
	if s.has(featConcurrentWrites) {
		return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			if err := s.checkGuard(ctx, tx, w.Guard); err != nil {
				return err
			}
			return fn(ctx, tx)
		})
	}
	return s.writes.run(ctx, w, fn)
}

// Write says what a write that RunWrite runs changes and what it depends
// on. The zero Write changes no collection's rows and is guarded by
// nothing.
type Write struct {
	// Collection is the collection whose rows the write changes (nil
	// when none): before the transaction commits, its search index is
	// brought up to date once SearchBacklogLimit rows wait for it (see
	// FlushSearchOver).
	Collection *collections.Collection
	// Single says that the write makes at most one write statement and
	// nothing after it can fail: such a write needs no savepoint, since
	// SQLite undoes a failed statement by itself.
	Single bool
	// Guard, when not nil, makes the write conditional on a counter (see
	// WriteGuard): the write runs only when the guard passes, checked in
	// its transaction right before it; a refused write returns
	// ErrWriteGuardRefused.
	Guard *WriteGuard
}

// QueuedWrites reports how many writes wait in the SQLite write queue
// (not yet taken into a transaction). Tests use it to build a group of
// writes deterministically.
func (s *Store) QueuedWrites() int {
	s.writes.mu.Lock()
	defer s.writes.mu.Unlock()
	return len(s.writes.queue)
}

// checkpointEvery is the least time between two background WAL
// checkpoints while the queue holds no checkpoint pin (see walpin.go): each
// one copies every page committed since the last one into the database
// file (and syncs it), a page changed by many commits in between (an
// index's upper levels, the search index's mark) once. pinnedCheckpointEvery
// is the interval while it holds one: each checkpoint then copies only the
// pages no commit changed since the one before, so the pages that every
// group changes are not copied again each time, and the work comes in
// smaller slices. Both values are measured choices (docs/decisions/0005).
// An idle database is not checkpointed again: the check runs after a group
// commits, and the queue checkpoints once more when it goes idle (release).
const (
	checkpointEvery       = 100 * time.Millisecond
	pinnedCheckpointEvery = 20 * time.Millisecond
)

// writeQueue is the SQLite group-commit queue of one Store.
type writeQueue struct {
	s *Store

	lastCkpt    atomic.Int64 // Unix nanoseconds of the last start
	ckptRunning atomic.Bool
	// walFrames is the WAL's length in frames as the last checkpoint
	// found it (see maybeCheckpoint).
	walFrames atomic.Int64
	// walRestart is walRestartFrames, or less in tests.
	walRestart int64

	mu      sync.Mutex
	queue   []*writeReq
	running bool // a drain goroutine is at work
	// conn is the connection every group's transaction runs on (nil
	// until the first group, after it broke, or once the queue has been
	// idle for writeConnLinger); only the drain goroutine uses it, and
	// Close releases it when none runs.
	conn   *bun.Conn
	linger *time.Timer // releases conn once the queue has been idle

	// drained, when not nil, is signalled (under mu) when a drain ends
	// (see waitDrain).
	drained *sync.Cond
	// ckpts counts the background checkpoints running.
	ckpts sync.WaitGroup

	// pin is the checkpoint pin (see walpin.go).
	pin walPin
}

// waitDrain waits, holding q.mu again when it returns, until the running
// drain ends. The caller holds q.mu.
func (q *writeQueue) waitDrain() {
	if q.drained == nil {
		q.drained = sync.NewCond(&q.mu)
	}
	q.drained.Wait()
}

// writeConnLinger is how long the write queue keeps its connection after
// its last group when no write waits: long enough to keep it across the
// gaps of a steady write load, short enough that a pool of one connection
// (the queue's) is not held from readers for long.
const writeConnLinger = 100 * time.Millisecond

// writeReq is one queued write.
type writeReq struct {
	ctx context.Context
	c   *collections.Collection
	// single: fn makes at most one write statement, last (no savepoint).
	single bool
	// guard: the write's guard (nil: none), checked before fn runs.
	guard *WriteGuard
	fn    func(ctx context.Context, tx bun.Tx) error
	done  chan struct{}

	err      error
	panicked bool
	panicVal any
	// changes are the change log rows fn recorded (RecordChange), written
	// together for the group's successful writes just before it commits.
	changes []Change
	// counts are the row count changes fn noted (countRows), added for
	// the group's successful writes just before it commits.
	counts []countDelta
	// rows are the rows fn handed to InsertAtCommit, inserted for the
	// group's successful writes just before it commits.
	rows []CommitRows
}

// writeReqKey carries the running *writeReq in fn's context.
type writeReqKey struct{}

func (q *writeQueue) run(ctx context.Context, w Write, fn func(ctx context.Context, tx bun.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	req := &writeReq{ctx: ctx, c: w.Collection, single: w.Single, guard: w.Guard, fn: fn, done: make(chan struct{})}
	q.mu.Lock()
	q.queue = append(q.queue, req)
	if !q.running {
		q.running = true
		go q.drain()
	}
	q.mu.Unlock()

	select {
	case <-req.done:
	case <-ctx.Done():
		// Leave the queue if the write has not been taken yet; once taken
		// it runs to the end of its transaction and its outcome stands.
		q.mu.Lock()
		for i, r := range q.queue {
			if r == req {
				q.queue = append(q.queue[:i], q.queue[i+1:]...)
				q.mu.Unlock()
				return ctx.Err()
			}
		}
		q.mu.Unlock()
		<-req.done
	}
	if req.panicked {
		panic(req.panicVal)
	}
	return req.err
}

// drain runs the queued writes in groups until the queue is empty.
func (q *writeQueue) drain() {
	for {
		// Let the goroutines that are ready to run (requests on their way
		// to the queue) queue up first, so that they join this group
		// instead of each waiting for a transaction of its own. A few
		// yields, not one: a request the network poller wakes meanwhile
		// gets its turn too. With nothing else to run, a yield returns at
		// once.
		for range drainYields {
			runtime.Gosched()
		}
		q.mu.Lock()
		n := min(len(q.queue), maxWriteBatch)
		if n == 0 {
			q.running = false
			q.idle()
			if q.drained != nil {
				q.drained.Broadcast()
			}
			q.mu.Unlock()
			return
		}
		batch := make([]*writeReq, n)
		copy(batch, q.queue)
		// Move the rest to the front and clear the slots left behind: the
		// backing array must not keep the writes taken (and all that their
		// functions hold, an import's rows say) alive until it is reused.
		left := copy(q.queue, q.queue[n:])
		clear(q.queue[left:])
		q.queue = q.queue[:left]
		q.mu.Unlock()

		rest := q.commit(batch)
		q.maybeCheckpoint()
		if len(rest) > 0 {
			// The transaction broke before these ran: put them back first
			// in line for the next one.
			q.mu.Lock()
			q.queue = append(rest, q.queue...)
			q.mu.Unlock()
		}
	}
}

// drainYields is how many times the queue yields before it takes a group
// (see drain).
const drainYields = 3

// maybeCheckpoint starts a passive WAL checkpoint on a goroutine of its
// own when none runs and the last started checkpointEvery ago or more.
// A passive checkpoint copies committed pages to the database file (and
// syncs it) without blocking writers or readers, so the writes after this
// group go on meanwhile; in SQLite's default, the commit that fills the
// WAL past 1,000 pages checkpoints before it returns, and its whole group
// would wait for the disk.
//
// A checkpoint that runs beside writes never finishes the WAL (the groups
// committed meanwhile are after its end), and SQLite starts the WAL over
// only when a write begins after a checkpoint copied all of it: under a
// steady stream of writes the file would grow without end (about 13 KB per
// create), each commit extending it. So once the last checkpoint found
// the WAL longer than walRestartFrames, the queue's goroutine checkpoints
// between two groups itself, with no write running, which copies the rest
// (what the background checkpoints left, at most checkpointEvery of
// writes); the next group then starts the WAL over, unless a reader still
// reads from it (the next time, then), and journal_size_limit trims the
// file (see sqlitePragmas).
func (q *writeQueue) maybeCheckpoint() {
	if !q.s.CheckpointWAL || q.ckptRunning.Load() || q.s.closed.Load() {
		return
	}
	restart := int64(walRestartFrames)
	if q.walRestart > 0 {
		restart = q.walRestart
	}
	if q.walFrames.Load() > restart && q.conn != nil && q.ckptRunning.CompareAndSwap(false, true) {
		// A pinned read would keep the WAL from starting over.
		q.pin.drop(q.s, false)
		q.checkpoint(q.conn.QueryRowContext(context.Background(), checkpointSQL), true)
		q.ckptRunning.Store(false)
		return
	}
	every := checkpointEvery
	if q.pin.active.Load() {
		every = pinnedCheckpointEvery
	}
	now := time.Now().UnixNano()
	if now-q.lastCkpt.Load() < int64(every) || !q.ckptRunning.CompareAndSwap(false, true) {
		return
	}
	q.lastCkpt.Store(now)
	q.background(true)
}

// background runs a passive checkpoint on a goroutine of its own; the
// caller has set ckptRunning, which it clears when done. With pin, the
// checkpoint then moves the pin (see walpin.go), and checkpoints once
// more if the queue went idle meanwhile: the idle release found this one
// running and could not.
func (q *writeQueue) background(pin bool) {
	q.ckpts.Add(1)
	go func() {
		defer q.ckpts.Done()
		defer q.ckptRunning.Store(false)
		q.passiveCheckpoint()
		if pin && q.pin.move(q.s) && !q.s.closed.Load() {
			q.passiveCheckpoint()
		}
	}()
}

// passiveCheckpoint runs a background checkpoint on a pool connection.
func (q *writeQueue) passiveCheckpoint() {
	q.checkpoint(q.s.queryRowOnce(context.Background(), q.s.db, checkpointSQL), false)
}

// walRestartFrames is the WAL length, in frames (pages), past which the
// write queue finishes a checkpoint itself so that the WAL starts over
// (see maybeCheckpoint): 64 MiB at SQLite's default page size, the file
// size journal_size_limit keeps. The queue's checkpoint holds the writes
// while it copies what the background checkpoints left and syncs the
// database file; a longer WAL means fewer such pauses.
const walRestartFrames = 16384

const checkpointSQL = "PRAGMA wal_checkpoint(PASSIVE)"

// checkpoint notes the WAL's length from row, a checkpoint's result. A
// checkpoint that ran alone (between groups) and copied the whole WAL
// notes 0: the next group starts the WAL over, and the next checkpoint
// between groups would copy nothing but still sync the file. One that ran
// beside writes may report the whole WAL copied too, but only up to its
// own start; its length stands.
func (q *writeQueue) checkpoint(row *sql.Row, alone bool) {
	var busy, frames, copied int64
	err := row.Scan(&busy, &frames, &copied)
	if err != nil {
		if !q.s.closed.Load() {
			q.s.logger().Warn("store: WAL checkpoint failed; the next one retries", slog.String("err", err.Error()))
		}
		return
	}
	if alone && copied >= frames {
		frames = 0
	}
	q.walFrames.Store(frames)
}

// commit runs batch in one transaction and reports each write's outcome,
// except for the writes it returns: those did not run because the
// transaction broke first, and go back to the queue.
func (q *writeQueue) commit(batch []*writeReq) (rest []*writeReq) {
	tx, err := q.begin(context.WithoutCancel(batch[0].ctx))
	if err != nil {
		for _, r := range batch {
			r.err = err
		}
		finishWrites(batch)
		return nil
	}
	g := &group{q: q, tx: tx, grouped: len(batch) > 1, seen: guardReads{}}
	for i, r := range batch {
		if rest, stop := g.run(batch, i, r); stop {
			return rest
		}
	}
	if len(g.ok) > 0 {
		q.commitGroup(tx, g.ok)
	} else {
		_ = tx.Rollback()
	}
	finishWrites(g.ran)
	return nil
}

// finishWrites tells the writers of reqs that their writes are done.
func finishWrites(reqs []*writeReq) {
	for _, r := range reqs {
		close(r.done)
	}
}

// group is one transaction of the write queue while its writes run.
type group struct {
	q       *writeQueue
	tx      bun.Tx
	grouped bool // more than one write: each but a single statement in a savepoint
	ran     []*writeReq
	ok      []*writeReq // the writes that succeeded
	seen    guardReads
}

// run runs batch[i], r, in the group's transaction. stop says that the
// transaction broke: the writes that ran are finished, and rest (the
// writes that did not run) goes back to the queue.
func (g *group) run(batch []*writeReq, i int, r *writeReq) (rest []*writeReq, stop bool) {
	q, tx := g.q, g.tx
	if err := r.ctx.Err(); err != nil {
		r.err = err
		g.ran = append(g.ran, r)
		return nil, false
	}
	ctx := context.WithValue(context.WithoutCancel(r.ctx), writeReqKey{}, r)
	if !q.check(ctx, tx, r, g.seen) {
		g.ran = append(g.ran, r)
		return nil, false
	}
	// In a group, a write gets a savepoint so that its failure undoes
	// only its own changes; a single-statement write needs none.
	sp := g.grouped && !r.single
	if sp {
		if _, err := q.s.execOnce(ctx, tx, "SAVEPOINT kit_write"); err != nil {
			// The transaction is no longer usable: what ran is lost, what
			// did not run goes back to the queue, unless nothing ran (a
			// savepoint that cannot be made at all fails the group
			// instead of looping).
			q.fail(tx, g.ok, err)
			if len(g.ran) == 0 {
				for _, r := range batch[i:] {
					r.err = err
				}
				finishWrites(batch[i:])
				return nil, true
			}
			finishWrites(g.ran)
			return batch[i:], true
		}
	}
	q.call(ctx, tx, r)
	g.ran = append(g.ran, r)
	if !r.single {
		clear(g.seen) // fn may have changed a guarded counter
	}
	if err := g.settle(ctx, r, sp); err != nil {
		q.fail(tx, g.ok, err)
		finishWrites(g.ran)
		return batch[i+1:], true
	}
	return nil, false
}

// settle ends write r (sp: in a savepoint) after it ran: it keeps it
// among the group's successful writes, or undoes it. An error means the
// transaction broke.
func (g *group) settle(ctx context.Context, r *writeReq, sp bool) error {
	var after *AfterWriteError
	switch {
	case (r.panicked || errors.As(r.err, &after)) && g.grouped && !sp:
		// A panic may have come after the write, and an *AfterWriteError
		// did: without a savepoint the group cannot keep the rest and
		// drop this one.
		return ErrGroupAborted
	case sp && (r.err != nil || r.panicked):
		if err := g.q.rollbackTo(ctx, g.tx); err != nil {
			return fmt.Errorf("store: write transaction aborted: %w", errors.Join(r.err, err))
		}
	case sp:
		g.ok = append(g.ok, r)
		if _, err := g.q.s.execOnce(ctx, g.tx, "RELEASE kit_write"); err != nil {
			return err
		}
	case r.err == nil && !r.panicked:
		g.ok = append(g.ok, r)
	case g.grouped && !r.panicked:
		// A failed single statement undid itself, unless its failure
		// ended the whole transaction (a full disk, an I/O error): the
		// group's next writes would then commit one by one.
		if lost := g.q.transactionLost(ctx, g.tx); lost != nil {
			return fmt.Errorf("store: write transaction lost: %w", errors.Join(r.err, lost))
		}
	}
	return nil
}

// commitGroup writes the change log rows and row counts of the group's
// successful writes ok, brings the search index up to date, commits, and
// hands the changes over (Committed).
func (q *writeQueue) commitGroup(tx bun.Tx, ok []*writeReq) {
	ctx := context.WithoutCancel(ok[0].ctx)
	if err := q.insertCommitRows(ctx, tx, ok); err != nil {
		q.fail(tx, ok, err)
	} else if err := q.s.insertChanges(ctx, tx, ok); err != nil {
		q.fail(tx, ok, err)
	} else if err := q.s.applyCounts(ctx, tx, ok); err != nil {
		q.fail(tx, ok, err)
	} else if err := q.flushSearch(tx, ok); err != nil {
		q.fail(tx, ok, err)
	} else if err := tx.Commit(); err != nil {
		for _, r := range ok {
			r.err = err
		}
	} else if q.s.Committed != nil {
		var changes []Change
		for _, r := range ok {
			changes = append(changes, r.changes...)
		}
		if len(changes) > 0 {
			q.s.Committed(changes)
		}
	}
}

// begin starts a group's transaction on the queue's own connection,
// taking one from the pool the first time. Every group runs on the same
// connection so that its page cache stays warm: in WAL mode a connection
// empties its page cache when it starts a transaction after another
// connection committed, so groups spread over the pool's connections
// would read the B-tree pages they change afresh in every group
// (docs/decisions/0004). The queue keeps the
// connection between groups (see idle). A connection that fails to begin
// is closed, and the next group takes another.
func (q *writeQueue) begin(ctx context.Context) (bun.Tx, error) {
	if q.conn == nil {
		conn, err := q.s.db.Conn(ctx)
		if err != nil {
			return bun.Tx{}, err
		}
		q.conn = &conn
		q.pin.allow()
	}
	tx, err := q.conn.BeginTx(ctx, nil)
	if err != nil {
		q.conn.Close()
		q.conn = nil
	}
	return tx, err
}

// idle keeps the queue's connection for writeConnLinger after the queue
// emptied, or releases it at once when the Store is closed or the pool
// holds one connection only. The caller holds q.mu, and no drain runs.
func (q *writeQueue) idle() {
	if q.conn == nil {
		return
	}
	if q.s.closed.Load() || q.s.db.Stats().MaxOpenConnections == 1 {
		q.release()
		return
	}
	if q.linger == nil {
		q.linger = time.AfterFunc(writeConnLinger, func() {
			q.mu.Lock()
			defer q.mu.Unlock()
			if !q.running {
				q.release()
			}
		})
		return
	}
	q.linger.Reset(writeConnLinger)
}

// release returns the queue's connection to the pool. The caller holds
// q.mu, and no drain runs.
func (q *writeQueue) release() {
	if q.conn != nil {
		q.conn.Close()
		q.conn = nil
	}
	if q.pin.drop(q.s, true) && q.s.CheckpointWAL && !q.s.closed.Load() && q.ckptRunning.CompareAndSwap(false, true) {
		// Copy what the pin held back, so that an idle database's file
		// is as current as without one.
		q.background(false)
	}
}

// SearchBacklogLimit is how many rows of a collection may wait for its search
// index (in the index's change log or above its high-water mark, see
// store.FlushSearch) before a group commit brings the index up to date.
// A search takes the waiting rows as candidates and tests them the way a
// scan does, so its results do not depend on when the index is flushed;
// the limit only bounds that extra work (a few hundred row tests per
// search, well under a millisecond).
//
// Flushing in batches instead of in every group is what makes the index
// affordable: FTS5 writes each flush as a new segment and later merges
// segments, and both costs grow with the number of segments, not rows
// (docs/decisions/0006).
const SearchBacklogLimit = 256

// flushSearch flushes the search index of each collection that the
// successful writes changed whose backlog reached SearchBacklogLimit.
func (q *writeQueue) flushSearch(tx bun.Tx, ok []*writeReq) error {
	var done []*collections.Collection
	for _, r := range ok {
		if r.c == nil || slices.Contains(done, r.c) {
			continue
		}
		done = append(done, r.c)
		if _, err := q.s.FlushSearchOver(context.WithoutCancel(r.ctx), tx, r.c, SearchBacklogLimit); err != nil {
			return err
		}
	}
	return nil
}

// fail rolls tx back and gives err to the writes that had succeeded in it.
func (q *writeQueue) fail(tx bun.Tx, ok []*writeReq, err error) {
	_ = tx.Rollback()
	for _, r := range ok {
		r.err = err
	}
}

// call runs r's fn, catching a panic for the caller's goroutine to
// re-raise.
func (q *writeQueue) call(ctx context.Context, tx bun.Tx, r *writeReq) {
	defer func() {
		if p := recover(); p != nil {
			r.panicked, r.panicVal = true, p
			q.s.logger().ErrorContext(ctx, "store: write panicked; rolled back, re-raised in the caller",
				slog.String("panic", fmt.Sprint(p)), slog.String("stack", string(debug.Stack())))
		}
	}()
	r.err = r.fn(ctx, tx)
}

// rollbackTo undoes the current write's savepoint and leaves it.
func (q *writeQueue) rollbackTo(ctx context.Context, tx bun.Tx) error {
	return q.rollbackToName(ctx, tx, "kit_write")
}

// rollbackToName undoes the savepoint name and leaves it.
func (q *writeQueue) rollbackToName(ctx context.Context, tx bun.Tx, name string) error {
	if _, err := q.s.execOnce(ctx, tx, "ROLLBACK TO "+name); err != nil {
		return err
	}
	_, err := q.s.execOnce(ctx, tx, "RELEASE "+name)
	return err
}
