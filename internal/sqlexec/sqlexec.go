package sqlexec

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

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

	// Hook, when set, is called around every statement the Runner runs,
	// as bun calls the query hooks of a *bun.DB: BeforeQuery before the
	// driver gets it, AfterQuery after it returns (for a query, once its
	// rows are open), with a QueryEvent whose DB is the Runner's database,
	// Query the SQL text as the driver gets it (placeholders, not values),
	// QueryTemplate the text as written, QueryArgs the driver arguments,
	// and Result and Err the outcome. bunotel's and bundebug's hooks work
	// unchanged. Set it before the Runner is used.
	Hook bun.QueryHook

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

// rebind turns kit's "?"-placeholder SQL and arguments into the driver's:
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

// before reports a statement to Observe and to Hook's BeforeQuery; it
// returns the event to finish with after (nil without a Hook).
func (r *Runner) before(ctx context.Context, template, query string, args []any) (context.Context, *bun.QueryEvent) {
	if r.Observe != nil {
		r.Observe(query, args)
	}
	if r.Hook == nil {
		return ctx, nil
	}
	ev := &bun.QueryEvent{DB: r.db, Query: query, QueryTemplate: template, QueryArgs: args, StartTime: time.Now()}
	return r.Hook.BeforeQuery(ctx, ev), ev
}

// after reports a statement's outcome to Hook's AfterQuery.
func (r *Runner) after(ctx context.Context, ev *bun.QueryEvent, res sql.Result, err error) {
	if ev == nil {
		return
	}
	ev.Result, ev.Err = res, err
	r.Hook.AfterQuery(ctx, ev)
}

// Query runs a query on db (the DB or a transaction), through a cached
// prepared statement on SQLite.
func (r *Runner) Query(ctx context.Context, db bun.IDB, query string, args ...any) (*sql.Rows, error) {
	return r.query(ctx, db, true, query, args)
}

// QueryOnce runs a query that is not worth a prepared statement (schema
// inspection, a statement run once) on db.
func (r *Runner) QueryOnce(ctx context.Context, db bun.IDB, query string, args ...any) (*sql.Rows, error) {
	return r.query(ctx, db, false, query, args)
}

func (r *Runner) query(ctx context.Context, db bun.IDB, cache bool, template string, args []any) (*sql.Rows, error) {
	query, args := r.rebind(template, args)
	ctx, ev := r.before(ctx, template, query, args)
	var rows *sql.Rows
	var err error
	if st := r.bindIf(ctx, cache, db, query); st != nil {
		rows, err = st.QueryContext(ctx, args...)
	} else {
		rows, err = handle(db).QueryContext(ctx, query, args...)
	}
	r.after(ctx, ev, nil, err)
	return rows, err
}

// Exec runs a statement on db, through a cached prepared statement on
// SQLite.
func (r *Runner) Exec(ctx context.Context, db bun.IDB, query string, args ...any) (sql.Result, error) {
	return r.exec(ctx, db, true, query, args)
}

// ExecOnce runs a statement that is not worth a prepared statement (DDL,
// savepoints, a statement run once) on db.
func (r *Runner) ExecOnce(ctx context.Context, db bun.IDB, query string, args ...any) (sql.Result, error) {
	return r.exec(ctx, db, false, query, args)
}

func (r *Runner) exec(ctx context.Context, db bun.IDB, cache bool, template string, args []any) (sql.Result, error) {
	query, args := r.rebind(template, args)
	ctx, ev := r.before(ctx, template, query, args)
	var res sql.Result
	var err error
	if st := r.bindIf(ctx, cache, db, query); st != nil {
		res, err = st.ExecContext(ctx, args...)
	} else {
		res, err = handle(db).ExecContext(ctx, query, args...)
	}
	r.after(ctx, ev, res, err)
	return res, err
}

// QueryRow runs a one-row query on db, through a cached prepared
// statement on SQLite.
func (r *Runner) QueryRow(ctx context.Context, db bun.IDB, query string, args ...any) *sql.Row {
	return r.queryRow(ctx, db, true, query, args)
}

// QueryRowOnce runs a one-row query that is not worth a prepared
// statement on db.
func (r *Runner) QueryRowOnce(ctx context.Context, db bun.IDB, query string, args ...any) *sql.Row {
	return r.queryRow(ctx, db, false, query, args)
}

func (r *Runner) queryRow(ctx context.Context, db bun.IDB, cache bool, template string, args []any) *sql.Row {
	query, args := r.rebind(template, args)
	ctx, ev := r.before(ctx, template, query, args)
	var row *sql.Row
	if st := r.bindIf(ctx, cache, db, query); st != nil {
		row = st.QueryRowContext(ctx, args...)
	} else {
		row = handle(db).QueryRowContext(ctx, query, args...)
	}
	r.after(ctx, ev, nil, row.Err())
	return row
}

// bindIf is bind when cache is set, else nil (run unprepared).
func (r *Runner) bindIf(ctx context.Context, cache bool, db bun.IDB, query string) *sql.Stmt {
	if !cache {
		return nil
	}
	return r.bind(ctx, db, query)
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
