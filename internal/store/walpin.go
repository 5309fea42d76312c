package store

import (
	"context"
	"database/sql/driver"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/uptrace/bun"
)

// A SQLite checkpoint copies, for every page in the WAL, the page's latest
// version into the database file, but only a version that no open read
// transaction could still need: it skips a page whose latest version came
// after the oldest snapshot still read (SQLite leaves it in the WAL for the
// next checkpoint). The write queue uses that to keep its background
// checkpoints small and cheap. While writes flow it holds one pool
// connection in a read transaction, the pin, begun just after the
// previous background checkpoint; each checkpoint then copies only the
// pages that no commit changed since that one, and moves the pin to the
// present. A page every group changes (the last leaf of an index on
// creation time, the change log's, the row counts') is copied once it
// stops changing, instead of once per checkpoint, so the checkpoints can
// run five times as often (pinnedCheckpointEvery) without copying more,
// each a small slice of the work: on a server with one core, a checkpoint
// holds it for a few milliseconds rather than the 10 ms or more that Go
// lets a goroutine run before it hands the core to the requests waiting
// for it.
// The pin takes one of the pool's connections while writes flow.
//
// The pin is released before the queue's own WAL-restart checkpoint (a
// read transaction on the WAL would keep it from starting over), when
// the queue goes idle (followed by one more checkpoint, which copies what
// the pin held back) and when the Store closes, so a closed database's
// file is whole without its WAL. When no pool connection is free within
// walPinWait the queue goes on without a pin, checkpointing every
// checkpointEvery as before.

// walPinWait is how long a background checkpoint waits for a pool
// connection to pin; it runs on its own goroutine, so no request waits.
const walPinWait = 5 * time.Millisecond

// walPin is the write queue's checkpoint pin.
type walPin struct {
	// active says that background checkpoints run every
	// pinnedCheckpointEvery: the last move took a pin, and the queue has
	// not gone idle since. The restart checkpoint drops the pin without
	// clearing it: the next checkpoint, unpinned, copies only what the
	// WAL gained since, and pins again.
	active atomic.Bool

	mu      sync.Mutex
	conn    *bun.Conn // in a read transaction; nil when no pin is held
	allowed bool      // the queue is active (set by begin, cleared by an idle release)
}

// allow lets the next checkpoint pin again, once a group begins after the
// queue was idle.
func (p *walPin) allow() {
	p.mu.Lock()
	p.allowed = true
	p.mu.Unlock()
}

// drop ends the pin's read transaction and returns its connection to the
// pool; with idle, no pin is taken again until the queue begins a group.
// It reports whether a pin was held.
func (p *walPin) drop(s *Store, idle bool) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if idle {
		p.allowed = false
		p.active.Store(false)
	}
	return p.dropLocked(s)
}

func (p *walPin) dropLocked(s *Store) bool {
	if p.conn == nil {
		return false
	}
	conn := p.conn
	p.conn = nil
	if _, err := s.execOnce(context.Background(), conn, "COMMIT"); err != nil {
		// Never hand the pool a connection that may still be reading:
		// discard it.
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
	}
	_ = conn.Close()
	return true
}

// move ends the pin's read transaction, if any, and begins another at
// the WAL's present end, unless the queue is idle or the Store closed. It
// reports whether the queue went idle meanwhile (and the pin was not
// moved): the caller then checkpoints once more, since the idle release
// found this checkpoint running and could not.
func (p *walPin) move(s *Store) (idle bool) {
	p.drop(s, false) // first: on a busy pool, its connection is the one to take
	ctx, cancel := context.WithTimeout(context.Background(), walPinWait)
	conn, err := s.db.Conn(ctx) // outside p.mu: drop must not wait on the pool
	cancel()
	if err != nil {
		p.active.Store(false) // no connection free: no pin this time
		return p.isIdle()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.allowed || p.conn != nil || s.closed.Load() {
		p.active.Store(false)
		_ = conn.Close()
		return !p.allowed
	}
	ctx = context.Background()
	var n int
	if _, err = s.execOnce(ctx, conn, "BEGIN"); err == nil {
		// The read is what begins the transaction's snapshot.
		if err = s.queryRowOnce(ctx, conn, "SELECT count(*) FROM sqlite_master").Scan(&n); err != nil {
			_, _ = s.execOnce(ctx, conn, "ROLLBACK")
		}
	}
	if err != nil {
		p.active.Store(false)
		s.logger().Warn("store: WAL checkpoint pin failed; checkpoints copy every page", slog.String("err", err.Error()))
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		_ = conn.Close()
		return false
	}
	p.conn = &conn
	p.active.Store(true)
	return false
}

// isIdle reports whether the queue went idle (see drop).
func (p *walPin) isIdle() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return !p.allowed
}
