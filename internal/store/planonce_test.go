package store_test

import (
	"context"
	"database/sql/driver"
	"encoding/binary"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/store"
)

// cConn is a connection to a SQLite database through SQLite's C API
// (modernc.org/sqlite/lib), which reaches what database/sql does not: a
// prepared statement's counters.
type cConn struct {
	t   testing.TB
	tls *libc.TLS
	db  uintptr
}

// openC opens uri (a SQLite URI filename) on a connection of its own,
// closed when t ends.
func openC(t testing.TB, uri string) *cConn {
	t.Helper()
	tls := libc.NewTLS()
	name, err := libc.CString(uri)
	if err != nil {
		t.Fatal(err)
	}
	defer libc.Xfree(tls, name)
	pdb := libc.Xmalloc(tls, 8)
	defer libc.Xfree(tls, pdb)
	rc := sqlite3.Xsqlite3_open_v2(tls, name, pdb, sqlite3.SQLITE_OPEN_READWRITE|sqlite3.SQLITE_OPEN_URI, 0)
	c := &cConn{t: t, tls: tls, db: loadPtr(pdb)}
	t.Cleanup(func() {
		sqlite3.Xsqlite3_close_v2(tls, c.db)
		tls.Close()
	})
	if rc != sqlite3.SQLITE_OK {
		t.Fatalf("open %s: %s", uri, c.errmsg())
	}
	return c
}

// loadPtr reads the pointer SQLite stored at p (an out parameter; a
// 64-bit address, see TestSQLiteReadsAreCompiledOnce).
func loadPtr(p uintptr) uintptr {
	return uintptr(binary.NativeEndian.Uint64(libc.GoBytes(p, 8)))
}

func (c *cConn) errmsg() string { return libc.GoString(sqlite3.Xsqlite3_errmsg(c.tls, c.db)) }

// sqliteTransient tells sqlite3_bind_text and sqlite3_bind_blob to copy
// the value (SQLITE_TRANSIENT).
const sqliteTransient = ^uintptr(0)

// recompiles prepares query once, runs it to its end three times,
// binding args afresh each time, and returns how many times SQLite
// compiled it again for the last two runs (SQLITE_STMTSTATUS_REPREPARE;
// the first run may recompile it for a schema this connection has not
// read yet): 0 when its plan reads none of its arguments.
func (c *cConn) recompiles(query string, args []any) int {
	c.t.Helper()
	q, err := libc.CString(query)
	if err != nil {
		c.t.Fatal(err)
	}
	defer libc.Xfree(c.tls, q)
	pp := libc.Xmalloc(c.tls, 8)
	defer libc.Xfree(c.tls, pp)
	if rc := sqlite3.Xsqlite3_prepare_v2(c.tls, c.db, q, -1, pp, 0); rc != sqlite3.SQLITE_OK {
		c.t.Fatalf("prepare %s: %s", query, c.errmsg())
	}
	stmt := loadPtr(pp)
	defer sqlite3.Xsqlite3_finalize(c.tls, stmt)
	for run := range 3 {
		if run == 1 {
			sqlite3.Xsqlite3_stmt_status(c.tls, stmt, sqlite3.SQLITE_STMTSTATUS_REPREPARE, 1)
		}
		sqlite3.Xsqlite3_reset(c.tls, stmt)
		for i, a := range args {
			c.bind(stmt, int32(i+1), a)
		}
		for {
			rc := sqlite3.Xsqlite3_step(c.tls, stmt)
			if rc == sqlite3.SQLITE_DONE {
				break
			}
			if rc != sqlite3.SQLITE_ROW {
				c.t.Fatalf("run %s: %s", query, c.errmsg())
			}
		}
	}
	return int(sqlite3.Xsqlite3_stmt_status(c.tls, stmt, sqlite3.SQLITE_STMTSTATUS_REPREPARE, 0))
}

// bind binds a (converted as database/sql converts arguments) to
// parameter i of stmt.
func (c *cConn) bind(stmt uintptr, i int32, a any) {
	c.t.Helper()
	v, err := driver.DefaultParameterConverter.ConvertValue(a)
	if err != nil {
		c.t.Fatalf("argument %d (%T): %v", i, a, err)
	}
	var rc int32
	switch v := v.(type) {
	case nil:
		rc = sqlite3.Xsqlite3_bind_null(c.tls, stmt, i)
	case int64:
		rc = sqlite3.Xsqlite3_bind_int64(c.tls, stmt, i, v)
	case float64:
		rc = sqlite3.Xsqlite3_bind_double(c.tls, stmt, i, v)
	case bool:
		n := int64(0)
		if v {
			n = 1
		}
		rc = sqlite3.Xsqlite3_bind_int64(c.tls, stmt, i, n)
	case string:
		p, err := libc.CString(v)
		if err != nil {
			c.t.Fatal(err)
		}
		defer libc.Xfree(c.tls, p)
		rc = sqlite3.Xsqlite3_bind_text(c.tls, stmt, i, p, int32(len(v)), sqliteTransient)
	case []byte:
		p, err := libc.CString(string(v))
		if err != nil {
			c.t.Fatal(err)
		}
		defer libc.Xfree(c.tls, p)
		rc = sqlite3.Xsqlite3_bind_blob(c.tls, stmt, i, p, int32(len(v)), sqliteTransient)
	default:
		c.t.Fatalf("argument %d: no binding for %T", i, v)
	}
	if rc != sqlite3.SQLITE_OK {
		c.t.Fatalf("bind argument %d: %s", i, c.errmsg())
	}
}

var planOnceSeq atomic.Int64

// TestSQLiteReadsAreCompiledOnce runs every kind of read kit caches as a
// prepared statement on SQLite (list pages with filters and searches,
// lookups, a tree's reads, the change log's reads), without statistics and after ANALYZE,
// then runs each SELECT it sent twice through one prepared statement and
// checks that SQLite did not compile it again when its arguments were
// bound anew. SQLite's planner reads some bound values (a LIMIT's, a LIKE
// or GLOB pattern, and with ANALYZE's STAT4 samples the value compared with
// an indexed column) and then marks the statement to be planned again on
// every bind: a cached statement would be compiled on every call.
func TestSQLiteReadsAreCompiledOnce(t *testing.T) {
	if strconv.IntSize != 64 {
		t.Skip("reads SQLite's out parameters as 64-bit addresses")
	}
	name := fmt.Sprintf("planonce-%d", planOnceSeq.Add(1))
	db, err := store.OpenSQLite(":memory:" + name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	folders := collections.Definition{Name: "folders", Layer: "docs",
		Fields: []collections.Field{{Name: "title", Type: collections.TypeString}},
		Config: &collections.Config{Hierarchy: &collections.Hierarchy{Enabled: true}}}
	f := newFixtureOn(t, db, append(storeDefs(), folders)...)
	tree, _ := f.reg.Get("docsFolders")
	ctx := t.Context()
	if err := store.CreateChangesTable(ctx, f.db); err != nil {
		t.Fatal(err)
	}
	log := &queryLog{}
	f.s.SetQueryHook(log)
	f.s.SetRareCandidates(5)
	seedPlanRows(t, f, 40)
	cat := f.insert(t, f.cats, "t1", map[string]any{"name": "Tools"})
	unused := f.insert(t, f.cats, "t1", map[string]any{"name": "Unused"})
	prod := f.insert(t, f.products, "t1", map[string]any{"title": "Hammer", "sku": "HAM-1", "categoryId": cat, "weight": 2.5})
	if err := f.s.FlushSearch(ctx, f.db, f.products); err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		team, id, parent, path, depth := "t1", fmt.Sprintf("n%02d", i), any(nil), fmt.Sprintf("/n%02d/", i), 0.0
		if i%3 != 0 {
			parent, path, depth = fmt.Sprintf("n%02d", i-i%3), fmt.Sprintf("/n%02d/n%02d/", i-i%3, i), 1
		}
		if i%5 == 4 {
			team = "t2"
		}
		now := time.Now().UTC().Truncate(time.Microsecond)
		if err := f.s.Insert(ctx, f.db, tree, store.Record{"id": id, "teamId": team, "owner": "u1", "title": id,
			"parentId": parent, "path": path, "depth": depth, "order": float64(i),
			"createdAt": now, "updatedAt": now, "createdBy": "u1", "updatedBy": "u1"}); err != nil {
			t.Fatal(err)
		}
	}
	c := openC(t, strings.SplitN(store.SQLiteDSN(":memory:"+name), "&", 2)[0])

	list := func(params url.Values) func(ctx context.Context) error {
		return func(ctx context.Context) error {
			q, err := f.products.ParseListQuery(params, collections.QueryLimits{})
			if err != nil {
				return err
			}
			_, err = f.s.List(ctx, store.Read{}, f.products, "t1", q)
			return err
		}
	}
	filter := func(js string) url.Values { return url.Values{"filter": {js}} }
	sku, _ := f.products.Attribute("sku")
	tests := []struct {
		name string
		run  func(ctx context.Context) error
	}{
		{"a list page newest first", list(url.Values{})},
		{"a list page sorted by a text field", list(url.Values{"sort": {"sku"}})},
		{"a filter on an indexed field's value", list(filter(`{"categoryId":"` + cat + `"}`))},
		{"a filter on an indexed field's list of values", list(filter(`{"categoryId":{"in":["` + cat + `","` + unused + `"]}}`))},
		{"a filter on a text range", list(filter(`{"sku":{"gte":"SKU-00010"}}`))},
		{"a filter on a number range and an inequality", list(filter(`{"weight":{"gt":1},"sku":{"ne":"x"}}`))},
		{"a filter on a field's start", list(filter(`{"title":{"startsWith":"item 1"}}`))},
		{"a search through the index", list(url.Values{"search": {"jackdaw"}})},
		{"a common search", list(url.Values{"search": {"yonder"}})},
		{"a short search", list(url.Values{"search": {"m"}})},
		{"a search and a filter", list(url.Values{"search": {"jackdaw"}, "filter": {`{"sku":{"gte":"SKU-00003"}}`}})},
		{"a search with non-ASCII letters", list(url.Values{"search": {"Ünïcode"}})},
		{"a read by id", func(ctx context.Context) error {
			_, err := f.s.Get(ctx, store.Read{}, f.products, "t1", prod)
			return err
		}},
		{"a read by ids", func(ctx context.Context) error {
			_, err := f.s.GetMany(ctx, store.Read{}, f.products, "t1", []string{prod, "nope", cat})
			return err
		}},
		{"a uniqueness check", func(ctx context.Context) error {
			_, err := f.s.Taken(ctx, f.db, f.products, sku, "t1", prod, "HAM-1")
			return err
		}},
		{"the references check before a delete", func(ctx context.Context) error {
			return f.s.Delete(ctx, f.db, f.cats, "t2", unused)
		}},
		{"a tree's reads of siblings and children", func(ctx context.Context) error {
			root := "n00"
			if _, err := f.s.NextOrder(ctx, f.db, tree, "t1", &root); err != nil {
				return err
			}
			if _, err := f.s.NextOrder(ctx, f.db, tree, "t1", nil); err != nil {
				return err
			}
			if _, err := f.s.CountSiblings(ctx, f.db, tree, "t1", &root, "n01"); err != nil {
				return err
			}
			if _, err := f.s.Siblings(ctx, f.db, tree, "t1", &root); err != nil {
				return err
			}
			_, err := f.s.HasChildren(ctx, f.db, tree, "t1", root)
			return err
		}},
		{"a tree's subtree", func(ctx context.Context) error {
			_, err := f.s.Subtree(ctx, f.db, tree, "t1", "n03", 10)
			return err
		}},
		{"the change log's reads", func(ctx context.Context) error {
			if _, err := f.s.NextChanges(ctx, &store.ChangeCursor{}, 10); err != nil {
				return err
			}
			_, err := f.s.ChangesAfter(ctx, "t1", 0, 100, 10)
			return err
		}},
	}
	for _, stats := range []string{"without statistics", "after ANALYZE"} {
		if stats == "after ANALYZE" {
			if _, err := f.db.ExecContext(ctx, "ANALYZE"); err != nil {
				t.Fatal(err)
			}
		}
		for _, tt := range tests {
			t.Run(stats+"/"+tt.name, func(t *testing.T) {
				log.take()
				if err := tt.run(t.Context()); err != nil && !errors.Is(err, store.ErrNotFound) {
					t.Fatal(err)
				}
				reads := 0
				seen := map[string]bool{}
				for _, st := range log.take() {
					q := strings.TrimSpace(st.sql)
					if seen[q] || !(strings.HasPrefix(q, "SELECT") || strings.HasPrefix(q, "WITH")) || strings.Contains(q, "RETURNING") {
						continue
					}
					seen[q] = true
					reads++
					if n := c.recompiles(q, st.args); n != 0 {
						t.Errorf("got %d compiles after binding its arguments again, want 0: %s", n, q)
					}
				}
				if reads == 0 {
					t.Errorf("got no read, want at least one")
				}
			})
		}
	}
}
