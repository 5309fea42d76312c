package store

import (
	"context"
	"database/sql"
	"runtime"
	"sync"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/sqlexec"
)

// Every statement of the Store runs through one sqlexec.Runner: "?"
// placeholders and driver arguments instead of bun's inlined values,
// cached prepared statements on the hot paths (query, exec, queryRow), and
// one query hook (SetQueryHook) that sees them all.

// inList is a list argument ("IN (?)").
type inList = sqlexec.List

func (s *Store) query(ctx context.Context, db bun.IDB, query string, args ...any) (*sql.Rows, error) {
	return s.run.Query(ctx, db, query, args...)
}

func (s *Store) exec(ctx context.Context, db bun.IDB, query string, args ...any) (sql.Result, error) {
	return s.run.Exec(ctx, db, query, args...)
}

func (s *Store) queryRow(ctx context.Context, db bun.IDB, query string, args ...any) *sql.Row {
	return s.run.QueryRow(ctx, db, query, args...)
}

// queryKeyed, execKeyed and queryRowKeyed run statements whose plan does
// not depend on their values (reads and writes by key, inserts): prepared
// on PostgreSQL too, where query, exec and queryRow are planned for their
// values on every call.
func (s *Store) queryKeyed(ctx context.Context, db bun.IDB, query string, args ...any) (*sql.Rows, error) {
	return s.run.QueryKeyed(ctx, db, query, args...)
}

func (s *Store) execKeyed(ctx context.Context, db bun.IDB, query string, args ...any) (sql.Result, error) {
	return s.run.ExecKeyed(ctx, db, query, args...)
}

func (s *Store) queryRowKeyed(ctx context.Context, db bun.IDB, query string, args ...any) *sql.Row {
	return s.run.QueryRowKeyed(ctx, db, query, args...)
}

// execOnce, queryOnce and queryRowOnce run statements that are not worth
// a prepared statement (DDL, schema inspection, savepoints) through the
// same runner, so the query hook sees them too.
func (s *Store) execOnce(ctx context.Context, db bun.IDB, query string, args ...any) (sql.Result, error) {
	return s.run.ExecOnce(ctx, db, query, args...)
}

func (s *Store) queryOnce(ctx context.Context, db bun.IDB, query string, args ...any) (*sql.Rows, error) {
	return s.run.QueryOnce(ctx, db, query, args...)
}

func (s *Store) queryRowOnce(ctx context.Context, db bun.IDB, query string, args ...any) *sql.Row {
	return s.run.QueryRowOnce(ctx, db, query, args...)
}

// queryStringsOnce runs query (through queryOnce) and returns its rows'
// single text column, read in full before it returns (so the caller may
// run statements on the same transaction after).
func (s *Store) queryStringsOnce(ctx context.Context, db bun.IDB, query string, args ...any) ([]string, error) {
	rows, err := s.queryOnce(ctx, db, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// Warm prepares the fixed-shape statements of every stored collection's
// record paths (get, insert, delete, exists) outside any transaction, so
// writes find them cached. On PostgreSQL it first opens the connections
// a burst of requests would (warmConns): a connection opened under load
// starts a server process while the requests already running wait for
// the CPUs (docs/decisions/0013). The pool keeps them as its MaxIdleConns and
// ConnMaxIdleTime allow.
func (s *Store) Warm(ctx context.Context, reg *collections.Registry) {
	if s.has(featWarmConns) {
		s.warmConns(ctx, reg)
	}
	for _, c := range reg.All() {
		if !c.External() {
			t := s.textsOf(c)
			s.run.Prepare(ctx, t.get, t.insert, t.delete, existsSQL(c))
			if !s.has(featSearchTable) && len(searchColumns(c)) > 0 {
				s.run.Prepare(ctx, flushSearchSQL(c)...)
			}
		}
	}
}

// warmConnCount is how many connections warmConns opens: as many as the
// search slots (each search holds one while it scans) plus GOMAXPROCS
// (the requests the CPUs serve meanwhile) plus one, leaving one of the
// pool's MaxOpenConns to the requests that run meanwhile.
func (s *Store) warmConnCount() int {
	n := s.scanSlotCount() + runtime.GOMAXPROCS(0) + 1
	if open := s.db.DB.Stats().MaxOpenConnections; open > 0 {
		n = max(1, min(n, open-1))
	}
	return n
}

// warmConns opens warmConnCount pool connections at once, reads the
// definition of every stored collection's table on each (a server
// process does so once, on first use), and returns them to the pool. A
// connection that fails is left for the pool to open later.
func (s *Store) warmConns(ctx context.Context, reg *collections.Registry) {
	n := s.warmConnCount()
	conns := make([]*sql.Conn, 0, n)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			conn, err := s.db.DB.Conn(ctx)
			if err != nil {
				return
			}
			for _, c := range reg.All() {
				if c.External() {
					continue
				}
				// The server process reads the table's and its indexes'
				// definitions once, here rather than in a request.
				if _, err := conn.ExecContext(ctx, "SELECT 1 FROM "+quote(c.Table())+` WHERE "team_id" = '' LIMIT 1`); err != nil {
					break
				}
			}
			if err := conn.PingContext(ctx); err != nil {
				conn.Close()
				return
			}
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
		})
	}
	wg.Wait()
	for _, conn := range conns {
		conn.Close() // back to the pool
	}
}

// Close waits for the writes already queued to commit, releases the
// write queue's connection and its checkpoint pin, waits for a background
// WAL checkpoint that is running, and releases the prepared statements.
// It does not close the database; once the database is closed too, a file
// database is whole without its WAL.
func (s *Store) Close() error {
	s.closed.Store(true)
	q := &s.writes
	q.mu.Lock()
	for q.running {
		q.waitDrain()
	}
	q.release() // and the pin: a checkpoint that runs now sees closed and pins nothing
	q.mu.Unlock()
	// No checkpoint starts once closed, and none is started under q.mu
	// from now on: waiting is safe.
	q.ckpts.Wait()
	return s.run.Close()
}

// SetQueryHook makes hook see every statement the Store runs (record,
// tree, search, sync, write-queue and period-claim statements), the way
// bun's query hooks see bun's own queries: the Store runs its statements
// on database/sql with driver arguments, past the *bun.DB's hooks. Set it
// before the Store is used.
func (s *Store) SetQueryHook(hook bun.QueryHook) { s.run.Hook = hook }

// ObserveQueries makes fn see every statement of the Store as the driver
// gets it, before it runs (a lighter observer than SetQueryHook, for
// tests). Set it before the Store is used.
func (s *Store) ObserveQueries(fn func(query string, args []any)) { s.run.Observe = fn }
