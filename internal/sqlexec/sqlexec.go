package sqlexec

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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

// Runner runs queries on one database: on the DB itself, on one of its
// transactions or on one connection taken from its pool (bun.Conn: never
// through a prepared statement, see isConn).
//
// A statement's context ends it: the driver gets the context, and a
// statement in progress when it ends stops with its error. That costs two
// goroutines per statement on SQLite (database/sql's and the driver's,
// each watching the context), so statements whose work is bounded by
// design can do without it: see Bounded.
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
	// prep counts the goroutines preparing (Close waits for them: none
	// uses the database after Close returns).
	prep sync.WaitGroup
	// unprepared is set for good once the server said that a statement
	// prepared on a connection does not exist there (see lostStatement).
	unprepared atomic.Bool
}

// New returns a Runner for db.
func New(db *bun.DB) *Runner {
	return &Runner{db: db, pg: db.Dialect().Name() == dialect.PG}
}

// boundedKey marks a context of Bounded.
type boundedKey struct{}

// Bounded returns ctx marked for statements whose work is bounded by
// design (a few dozen lookups by key, a count that stops at a limit, a
// search that an index answers with a few thousand candidates). On
// SQLite such a statement, once started, runs to its end whether or not
// ctx ends meanwhile, and the driver gets ctx without its cancellation, so
// neither database/sql nor the driver starts a goroutine to watch it. A
// statement whose ctx has already ended still fails at once with ctx's
// error. On PostgreSQL the mark changes nothing: the statement is the
// server's work, and its context's end cancels it there.
//
// The watchers matter when many statements run at once on few cores:
// every one is a goroutine that the Go scheduler must run once, and past
// its run queue's capacity the scheduler serves the overflow rarely
// (docs/decisions/0009).
func Bounded(ctx context.Context) context.Context {
	return context.WithValue(ctx, boundedKey{}, true)
}

// IsBounded reports whether ctx is marked Bounded.
func IsBounded(ctx context.Context) bool { return ctx.Value(boundedKey{}) != nil }

// detach returns the context the driver gets for a statement run under
// ctx: on SQLite, for a statement marked Bounded whose ctx can end and
// has not, ctx without its cancellation; ctx otherwise.
func (r *Runner) detach(ctx context.Context) context.Context {
	if r.pg || ctx.Done() == nil || ctx.Err() != nil || !IsBounded(ctx) {
		return ctx
	}
	return context.WithoutCancel(ctx)
}

// List is a list argument: "IN (?)" with one List expands to one
// placeholder per value, and "IN (+?)" to "+?" per value.
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
		plus := i > 0 && query[i-1] == '+'
		for j, v := range vals {
			if j > 0 {
				b.WriteString(", ")
				if plus {
					b.WriteByte('+')
				}
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

// txOf returns the database/sql transaction behind db, or nil when db is
// not a transaction.
func txOf(db bun.IDB) *sql.Tx {
	switch h := db.(type) {
	case bun.Tx:
		return h.Tx
	case *bun.Tx:
		return h.Tx
	}
	return nil
}

// isConn reports whether db is one connection taken from the pool: its
// statements run on it, never through the DB's prepared statements
// (which would run on any connection of the pool).
func isConn(db bun.IDB) bool {
	switch db.(type) {
	case bun.Conn, *bun.Conn:
		return true
	}
	return false
}

// inTx reports whether db is a transaction.
func inTx(db bun.IDB) bool { return txOf(db) != nil }

// lostStatement reports whether err is PostgreSQL's "prepared statement
// does not exist" (SQLSTATE 26000), which a connection pooler that hands
// each transaction a server connection of its own (PgBouncer in
// transaction mode without max_prepared_statements) causes: the statement
// was prepared on another server connection. The Runner then closes its
// prepared statements and prepares none for good (pgx keys a connection's
// prepared statements by their SQL text, so the text would find the lost
// statement again until it is closed). A statement that met the error
// outside a transaction runs again unprepared; inside one it fails (the
// server aborted the transaction) and the statements after it run
// unprepared.
func (r *Runner) lostStatement(err error) bool {
	if err == nil {
		return false // before coded, which escapes: no allocation per statement
	}
	var coded interface{ SQLState() string }
	if !errors.As(err, &coded) || coded.SQLState() != "26000" {
		return false
	}
	if r.unprepared.CompareAndSwap(false, true) {
		r.mu.Lock()
		stmts := r.stmts
		r.stmts = nil
		r.mu.Unlock()
		for _, st := range stmts {
			st.Close()
		}
	}
	return true
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
	case bun.Conn:
		return h.Conn
	case *bun.Conn:
		return h.Conn
	}
	panic(fmt.Sprintf("sqlexec: unsupported handle %T", db))
}

// stmt returns a prepared statement for query (nil when the cache is
// full, when preparing fails, or on PostgreSQL when the statement is not
// keyed: see QueryKeyed). The cache's lock is never
// held while preparing. Inside a transaction (inTx) a statement missing
// from the cache runs unprepared this time and is prepared on a goroutine
// of its own for the next calls: preparing in the caller would take a
// second pool connection while the transaction holds one (and may hold
// the write lock, which the goroutine neither needs nor waits for). Warm
// prepares the fixed-shape write statements ahead; this catches the
// others (an update's SET list has a shape per set of changed fields),
// which SQLite would otherwise compile on every call, triggers included.
func (r *Runner) stmt(ctx context.Context, query string, inTx, keyed bool) *sql.Stmt {
	if (r.pg && !keyed) || r.unprepared.Load() {
		return nil
	}
	r.mu.Lock()
	st, ok := r.stmts[query]
	full := len(r.stmts) >= maxCachedStatements || r.closed
	later := !ok && inTx && !r.closed && len(r.stmts)+len(r.preparing) < maxCachedStatements && !r.preparing[query]
	if later {
		if r.preparing == nil {
			r.preparing = map[string]bool{}
		}
		r.preparing[query] = true
		r.prep.Add(1)
	}
	r.mu.Unlock()
	if later {
		go func() {
			defer r.prep.Done()
			r.stmt(context.WithoutCancel(ctx), query, false, keyed)
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
	if r.closed || r.unprepared.Load() {
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
func (r *Runner) bind(ctx context.Context, db bun.IDB, query string, keyed bool) *sql.Stmt {
	tx := txOf(db)
	st := r.stmt(ctx, query, tx != nil, keyed)
	if st == nil || tx == nil {
		return st
	}
	return tx.StmtContext(ctx, st)
}

// Prepare caches the statements of keyed queries (see QueryKeyed) ahead,
// outside any transaction, so transactions find them (they never prepare
// themselves). The queries have "?" placeholders and no List argument.
func (r *Runner) Prepare(ctx context.Context, queries ...string) {
	for _, q := range queries {
		q, _ = r.rebind(q, make([]any, strings.Count(q, "?")))
		r.stmt(ctx, q, false, true)
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
// prepared statement on SQLite; on PostgreSQL it is planned afresh for
// its values on every call (lists, filters, searches, ranges: their best
// plan depends on the values).
func (r *Runner) Query(ctx context.Context, db bun.IDB, query string, args ...any) (*sql.Rows, error) {
	return r.query(ctx, db, modeCached, query, args)
}

// QueryKeyed runs a query whose best plan does not depend on its argument
// values (a read by primary or unique key) on db, through a cached prepared statement on both engines, so
// that PostgreSQL can skip planning it on every call.
func (r *Runner) QueryKeyed(ctx context.Context, db bun.IDB, query string, args ...any) (*sql.Rows, error) {
	return r.query(ctx, db, modeKeyed, query, args)
}

// QueryOnce runs a query that is not worth a prepared statement (schema
// inspection, a statement run once) on db.
func (r *Runner) QueryOnce(ctx context.Context, db bun.IDB, query string, args ...any) (*sql.Rows, error) {
	return r.query(ctx, db, modeOnce, query, args)
}

func (r *Runner) query(ctx context.Context, db bun.IDB, m mode, template string, args []any) (*sql.Rows, error) {
	query, args := r.rebind(template, args)
	ctx, ev := r.before(ctx, template, query, args)
	dctx := r.detach(ctx)
	var rows *sql.Rows
	var err error
	if st := r.bindIf(dctx, m, db, query); st != nil {
		rows, err = st.QueryContext(dctx, args...)
		if r.lostStatement(err) && !inTx(db) {
			rows, err = handle(db).QueryContext(dctx, query, args...)
		}
	} else {
		rows, err = handle(db).QueryContext(dctx, query, args...)
	}
	r.after(ctx, ev, nil, err)
	return rows, err
}

// Exec runs a statement on db, through a cached prepared statement on
// SQLite; on PostgreSQL it is planned afresh on every call (see Query).
func (r *Runner) Exec(ctx context.Context, db bun.IDB, query string, args ...any) (sql.Result, error) {
	return r.exec(ctx, db, modeCached, query, args)
}

// ExecKeyed runs a statement whose best plan does not depend on its
// argument values (an insert, or a write by primary or unique key) on db,
// through a cached prepared statement on both engines (see QueryKeyed).
func (r *Runner) ExecKeyed(ctx context.Context, db bun.IDB, query string, args ...any) (sql.Result, error) {
	return r.exec(ctx, db, modeKeyed, query, args)
}

// ExecOnce runs a statement that is not worth a prepared statement (DDL,
// savepoints, a statement run once) on db.
func (r *Runner) ExecOnce(ctx context.Context, db bun.IDB, query string, args ...any) (sql.Result, error) {
	return r.exec(ctx, db, modeOnce, query, args)
}

func (r *Runner) exec(ctx context.Context, db bun.IDB, m mode, template string, args []any) (sql.Result, error) {
	query, args := r.rebind(template, args)
	ctx, ev := r.before(ctx, template, query, args)
	dctx := r.detach(ctx)
	var res sql.Result
	var err error
	if st := r.bindIf(dctx, m, db, query); st != nil {
		res, err = st.ExecContext(dctx, args...)
		if r.lostStatement(err) && !inTx(db) {
			res, err = handle(db).ExecContext(dctx, query, args...)
		}
	} else {
		res, err = handle(db).ExecContext(dctx, query, args...)
	}
	r.after(ctx, ev, res, err)
	return res, err
}

// QueryRow runs a one-row query on db, through a cached prepared
// statement on SQLite; on PostgreSQL it is planned afresh on every call
// (see Query).
func (r *Runner) QueryRow(ctx context.Context, db bun.IDB, query string, args ...any) *sql.Row {
	return r.queryRow(ctx, db, modeCached, query, args)
}

// QueryRowKeyed runs a one-row query whose best plan does not depend on
// its argument values on db, through a cached prepared statement on both
// engines (see QueryKeyed).
func (r *Runner) QueryRowKeyed(ctx context.Context, db bun.IDB, query string, args ...any) *sql.Row {
	return r.queryRow(ctx, db, modeKeyed, query, args)
}

// QueryRowOnce runs a one-row query that is not worth a prepared
// statement on db.
func (r *Runner) QueryRowOnce(ctx context.Context, db bun.IDB, query string, args ...any) *sql.Row {
	return r.queryRow(ctx, db, modeOnce, query, args)
}

func (r *Runner) queryRow(ctx context.Context, db bun.IDB, m mode, template string, args []any) *sql.Row {
	query, args := r.rebind(template, args)
	ctx, ev := r.before(ctx, template, query, args)
	dctx := r.detach(ctx)
	var row *sql.Row
	if st := r.bindIf(dctx, m, db, query); st != nil {
		row = st.QueryRowContext(dctx, args...)
		if r.lostStatement(row.Err()) && !inTx(db) {
			row = handle(db).QueryRowContext(dctx, query, args...)
		}
	} else {
		row = handle(db).QueryRowContext(dctx, query, args...)
	}
	r.after(ctx, ev, nil, row.Err())
	return row
}

// mode says whether and where a statement is prepared.
type mode int

const (
	modeOnce   mode = iota // never prepared
	modeCached             // prepared on SQLite, planned per call on PostgreSQL
	modeKeyed              // prepared on both engines
)

// bindIf is bind for the cached and keyed modes, else nil (run
// unprepared).
func (r *Runner) bindIf(ctx context.Context, m mode, db bun.IDB, query string) *sql.Stmt {
	if m == modeOnce || isConn(db) {
		return nil
	}
	return r.bind(ctx, db, query, m == modeKeyed)
}

// Close waits for the statements being prepared on the side, then
// releases the prepared statements; the Runner prepares nothing more and
// no longer uses the database on its own.
func (r *Runner) Close() error {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.prep.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, st := range r.stmts {
		st.Close()
	}
	r.stmts = nil
	r.closed = true
	return nil
}
