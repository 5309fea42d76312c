package sqlexec

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// querier is what *sql.DB and *sql.Tx have in common.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// maxCachedStatements bounds the prepared statements kept per Store. List
// queries have a shape per combination of filters; past the bound, new
// shapes run unprepared.
const maxCachedStatements = 512

// Runner runs queries on one database.
type Runner struct {
	// Observe, when set, sees every query as the driver gets it (for tests
	// and debugging); set it before the Runner is used.
	Observe func(query string, args []any)

	db    *bun.DB
	pg    bool
	mu    sync.Mutex
	stmts map[string]*sql.Stmt
	// preparing holds the queries being prepared for the cache on a
	// goroutine (see stmt).
	preparing map[string]bool
	closed    bool // Close ran: prepare nothing more
}

// New returns a Runner for db.
func New(db *bun.DB) *Runner {
	return &Runner{db: db, pg: db.Dialect().Name() == dialect.PG}
}

// List is a list argument: "IN (?)" with one List expands to one
// placeholder per value.
type List []any

// Strings makes a List of strings.
func Strings(vals []string) List {
	l := make(List, len(vals))
	for i, v := range vals {
		l[i] = v
	}
	return l
}

// prepare turns kit's "?"-placeholder SQL and arguments into the driver's:
// list arguments expanded, and "?" numbered ($1, $2, ...) on PostgreSQL.
// kit's SQL holds no "?" inside literals.
func (r *Runner) rebind(query string, args []any) (string, []any) {
	hasList := false
	for _, a := range args {
		if _, ok := a.(List); ok {
			hasList = true
			break
		}
	}
	if !hasList && !r.pg {
		return query, args
	}
	var b strings.Builder
	out := make([]any, 0, len(args))
	n, ai := 0, 0
	for i := 0; i < len(query); i++ {
		if query[i] != '?' {
			b.WriteByte(query[i])
			continue
		}
		if ai >= len(args) {
			panic(fmt.Sprintf("sqlexec: more placeholders than arguments in %q", query))
		}
		vals := []any{args[ai]}
		if l, ok := args[ai].(List); ok {
			vals = l
		}
		ai++
		for j, v := range vals {
			if j > 0 {
				b.WriteString(", ")
			}
			n++
			if r.pg {
				b.WriteString("$" + strconv.Itoa(n))
			} else {
				b.WriteByte('?')
			}
			out = append(out, v)
		}
	}
	return b.String(), out
}

// handle returns the database/sql handle behind db.
func handle(db bun.IDB) querier {
	switch h := db.(type) {
	case *bun.DB:
		return h.DB
	case bun.Tx:
		return h.Tx
	case *bun.Tx:
		return h.Tx
	}
	panic(fmt.Sprintf("sqlexec: unsupported handle %T", db))
}

// stmt returns a prepared statement for query on SQLite (nil when the
// engine is PostgreSQL, whose simple protocol gains nothing from it, when
// the cache is full, or when preparing fails). The cache's lock is never
// held while preparing. Inside a transaction (inTx) a statement missing
// from the cache runs unprepared this time and is prepared on a goroutine
// of its own for the next calls: preparing in the caller would take a
// second pool connection while the transaction holds one (and may hold
// the write lock, which the goroutine neither needs nor waits for). Warm
// prepares the fixed-shape write statements ahead; this catches the
// others (an update's SET list has a shape per set of changed fields),
// which SQLite would otherwise compile on every call, triggers included.
func (r *Runner) stmt(ctx context.Context, query string, inTx bool) *sql.Stmt {
	if r.pg {
		return nil
	}
	r.mu.Lock()
	st, ok := r.stmts[query]
	full := len(r.stmts) >= maxCachedStatements
	later := !ok && inTx && !r.closed && len(r.stmts)+len(r.preparing) < maxCachedStatements && !r.preparing[query]
	if later {
		if r.preparing == nil {
			r.preparing = map[string]bool{}
		}
		r.preparing[query] = true
	}
	r.mu.Unlock()
	if later {
		go func() {
			r.stmt(context.WithoutCancel(ctx), query, false)
			r.mu.Lock()
			delete(r.preparing, query)
			r.mu.Unlock()
		}()
	}
	if ok || inTx || full {
		return st
	}
	st, err := r.db.DB.PrepareContext(ctx, query)
	if err != nil {
		return nil // run unprepared; a real error shows there
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		st.Close()
		return nil
	}
	if prev, ok := r.stmts[query]; ok {
		st.Close()
		return prev
	}
	if r.stmts == nil {
		r.stmts = map[string]*sql.Stmt{}
	}
	r.stmts[query] = st
	return st
}

// bind returns the prepared statement for query, bound to db's
// transaction when db is one (database/sql reuses the statement already
// prepared on that connection).
func (r *Runner) bind(ctx context.Context, db bun.IDB, query string) *sql.Stmt {
	var tx *sql.Tx
	switch h := db.(type) {
	case bun.Tx:
		tx = h.Tx
	case *bun.Tx:
		tx = h.Tx
	}
	st := r.stmt(ctx, query, tx != nil)
	if st == nil || tx == nil {
		return st
	}
	return tx.StmtContext(ctx, st)
}

// Prepare caches the statements of queries ahead, outside any
// transaction, so transactions find them (they never prepare themselves).
func (r *Runner) Prepare(ctx context.Context, queries ...string) {
	for _, q := range queries {
		r.stmt(ctx, q, false)
	}
}

// Query runs a query on db (the DB or a transaction).
func (r *Runner) Query(ctx context.Context, db bun.IDB, query string, args ...any) (*sql.Rows, error) {
	query, args = r.rebind(query, args)
	if r.Observe != nil {
		r.Observe(query, args)
	}
	if st := r.bind(ctx, db, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return handle(db).QueryContext(ctx, query, args...)
}

// Exec runs a statement on db.
func (r *Runner) Exec(ctx context.Context, db bun.IDB, query string, args ...any) (sql.Result, error) {
	query, args = r.rebind(query, args)
	if r.Observe != nil {
		r.Observe(query, args)
	}
	if st := r.bind(ctx, db, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return handle(db).ExecContext(ctx, query, args...)
}

// QueryRow runs a one-row query on db.
func (r *Runner) QueryRow(ctx context.Context, db bun.IDB, query string, args ...any) *sql.Row {
	query, args = r.rebind(query, args)
	if r.Observe != nil {
		r.Observe(query, args)
	}
	if st := r.bind(ctx, db, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return handle(db).QueryRowContext(ctx, query, args...)
}

// Close releases the prepared statements.
func (r *Runner) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, st := range r.stmts {
		st.Close()
	}
	r.stmts = nil
	r.closed = true
	return nil
}
