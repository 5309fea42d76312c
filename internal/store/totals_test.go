package store_test

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/store"
	"github.com/collectionkit/kit/internal/testdb"
)

// countsRun runs do and returns how many statements counted matches
// (SELECT count(*) ...) meanwhile on f's Store.
func countsRun(f *fixture, do func()) int { return countsOn(f.s, do) }

// countsOn is countsRun on Store s.
func countsOn(s *store.Store, do func()) int {
	var n atomic.Int64
	s.ObserveQueries(func(q string, _ []any) {
		if strings.HasPrefix(q, "SELECT count(*)") {
			n.Add(1)
		}
	})
	defer s.ObserveQueries(nil)
	do()
	return int(n.Load())
}

// matches counts team's rows of shop_products whose weight is at least
// 10 with SQL: the truth the filter's total must equal.
func (f *fixture) heavyCount(t *testing.T, team string) int {
	t.Helper()
	var n int
	if err := f.db.QueryRowContext(t.Context(), `SELECT count(*) FROM shop_products WHERE team_id = ? AND weight >= 10`, team).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

var heavy = url.Values{"filter": {`{"weight":{"gte":10}}`}, "pageSize": {"2"}}

// fullRecord is a product of team with every attribute InsertMany needs
// (nil for none) and the given fields.
func fullRecord(c *collections.Collection, id, team string, fields map[string]any) store.Record {
	now := time.Now().UTC().Truncate(time.Microsecond)
	rec := store.Record{}
	for _, a := range c.Attributes() {
		rec[a.Name] = nil
	}
	for k, v := range map[string]any{"id": id, "teamId": team, "owner": "u1", "createdAt": now, "updatedAt": now, "createdBy": "u1", "updatedBy": "u1"} {
		rec[k] = v
	}
	for k, v := range fields {
		rec[k] = v
	}
	return rec
}

// TestRememberedTotalsFollowEveryWrite lists a filter (its total counted
// and remembered), lists it again (remembered: no count), writes, and
// lists it once more: the total must be counted again and equal the rows.
func TestRememberedTotalsFollowEveryWrite(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		f := newFixture(t, e)
		ctx := t.Context()
		light := f.insert(t, f.products, "t1", map[string]any{"title": "light", "weight": 1.0})
		for i := range 5 {
			f.insert(t, f.products, "t1", map[string]any{"title": fmt.Sprintf("heavy %d", i), "weight": 20.0})
		}
		f.insert(t, f.products, "t2", map[string]any{"title": "other team", "weight": 30.0})
		pg := e == testdb.EnginePostgres
		seq := 0
		newID := func() string { seq++; return fmt.Sprintf("tot-%03d", seq) }
		inQueue := func(fn func(ctx context.Context, db bun.IDB) error) error {
			return f.s.RunWrite(ctx, store.Write{Collection: f.products, Single: false}, func(ctx context.Context, tx bun.Tx) error { return fn(ctx, tx) })
		}
		type writeCase struct {
			name    string
			write   func(t *testing.T) error
			changed bool // the write changes team t1's rows
		}
		cases := []writeCase{
			{"a create of the team", func(t *testing.T) error {
				return f.s.Insert(ctx, f.db, f.products, fullRecord(f.products, newID(), "t1", map[string]any{"weight": 50.0}))
			}, true},
			{"a create in a group of the write queue (on PostgreSQL, a transaction)", func(t *testing.T) error {
				return inQueue(func(ctx context.Context, db bun.IDB) error {
					return f.s.Insert(ctx, db, f.products, fullRecord(f.products, newID(), "t1", map[string]any{"weight": 60.0}))
				})
			}, true},
			{"an update that moves a record into the filter", func(t *testing.T) error {
				return inQueue(func(ctx context.Context, db bun.IDB) error {
					return f.s.Update(ctx, db, f.products, "t1", light, store.Record{"weight": 11.0})
				})
			}, true},
			{"an update outside the queue that moves it back out", func(t *testing.T) error {
				return f.s.Update(ctx, f.db, f.products, "t1", light, store.Record{"weight": 2.0})
			}, true},
			{"an update of a field the filter does not name", func(t *testing.T) error {
				return f.s.Update(ctx, f.db, f.products, "t1", light, store.Record{"title": "renamed"})
			}, true},
			{"a delete of the team", func(t *testing.T) error {
				id := newID()
				if err := f.s.Insert(ctx, f.db, f.products, fullRecord(f.products, id, "t1", map[string]any{"weight": 70.0})); err != nil {
					return err
				}
				f.list(t, "t1", heavy) // remember the total with the record
				return f.s.Delete(ctx, f.db, f.products, "t1", id)
			}, true},
			{"records loaded in bulk", func(t *testing.T) error {
				return f.s.InsertMany(ctx, f.db, f.products, []store.Record{
					fullRecord(f.products, newID(), "t1", map[string]any{"weight": 80.0}),
					fullRecord(f.products, newID(), "t1", map[string]any{"weight": 90.0}),
				})
			}, true},
			{"a create in another team", func(t *testing.T) error {
				return f.s.Insert(ctx, f.db, f.products, fullRecord(f.products, newID(), "t2", map[string]any{"weight": 50.0}))
			}, false},
			{"an update in another team", func(t *testing.T) error {
				id := newID()
				if err := f.s.Insert(ctx, f.db, f.products, fullRecord(f.products, id, "t2", map[string]any{"weight": 50.0})); err != nil {
					return err
				}
				f.list(t, "t1", heavy)
				return f.s.Update(ctx, f.db, f.products, "t2", id, store.Record{"weight": 1.0})
			}, false},
		}
		if pg {
			cases = append(cases,
				writeCase{"an update that is one statement (UpdateLogged)", func(t *testing.T) error {
					_, _, err := f.s.UpdateLogged(ctx, store.GuardOf(ctx), f.products, "t1", light, "", store.Record{"weight": 12.0}, store.Record{"weight": 12.0}, nil)
					return err
				}, true},
				writeCase{"an update that returns the record it replaced (UpdateReturningBefore)", func(t *testing.T) error {
					_, err := f.s.UpdateReturningBefore(ctx, f.db, f.products, "t1", light, "", store.Record{"weight": 3.0})
					return err
				}, true},
				writeCase{"a delete that is one statement (DeleteLogged)", func(t *testing.T) error {
					return f.s.DeleteLogged(ctx, store.GuardOf(ctx), f.products, "t1", light, nil)
				}, true},
			)
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				before := f.list(t, "t1", heavy)
				if n := countsRun(f, func() { f.list(t, "t1", heavy) }); n != 0 {
					t.Fatalf("the second list of the same filter ran %d counts, want 0 (remembered)", n)
				}
				if err := tc.write(t); err != nil {
					t.Fatalf("write: %v", err)
				}
				var after store.Page
				n := countsRun(f, func() { after = f.list(t, "t1", heavy) })
				want := f.heavyCount(t, "t1")
				if after.Total != want {
					t.Errorf("got total %d after the write, want %d (the rows; %d before)", after.Total, want, before.Total)
				}
				if tc.changed && n != 1 {
					t.Errorf("the list after the write ran %d counts, want 1", n)
				}
				if !tc.changed && n != 0 {
					t.Errorf("the list after another team's write ran %d counts, want 0 (its total still remembered)", n)
				}
				if want > 0 && len(after.Records) == 0 {
					t.Errorf("got no records with a total of %d", want)
				}
			})
		}
	})
}

// TestRememberedTotalsSeeATransactionThatWasRunning counts a filter while
// another transaction has written a matching record and not committed:
// once it commits, the next list counts again.
func TestRememberedTotalsSeeATransactionThatWasRunning(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		var f *fixture
		if e == testdb.EngineSQLite {
			// A file in WAL mode, as kit opens one: an in-memory test
			// database keeps readers out while a transaction writes.
			db, err := store.OpenSQLite(filepath.Join(t.TempDir(), "kit.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			f = newFixtureOn(t, db)
		} else {
			f = newFixture(t, e)
		}
		ctx := t.Context()
		for i := range 3 {
			f.insert(t, f.products, "t1", map[string]any{"title": fmt.Sprintf("heavy %d", i), "weight": 20.0})
		}
		f.list(t, "t1", heavy)
		tx, err := f.db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		if err := f.s.Insert(ctx, tx, f.products, fullRecord(f.products, "running", "t1", map[string]any{"weight": 40.0})); err != nil {
			t.Fatal(err)
		}
		during := 0
		if n := countsRun(f, func() { during = f.list(t, "t1", heavy).Total }); n != 0 || during != 3 {
			t.Errorf("while the transaction runs: got total %d with %d counts, want 3 (remembered, 0 counts)", during, n)
		}
		if e == testdb.EnginePostgres {
			// Count again while it runs: the remembered total is now one
			// whose snapshot saw the transaction in progress.
			if _, err := f.db.ExecContext(ctx, `INSERT INTO kit_row_counts (table_name, team_id, n) VALUES ('shop_products', 't1', 0)`); err != nil {
				t.Fatal(err)
			}
			if got := f.list(t, "t1", heavy).Total; got != 3 {
				t.Fatalf("recounted while the transaction runs: got %d, want 3", got)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		var after int
		n := countsRun(f, func() { after = f.list(t, "t1", heavy).Total })
		if after != 4 || n != 1 {
			t.Errorf("after the commit: got total %d with %d counts, want 4 with 1", after, n)
		}
	})
}

// TestRememberedTotalsOfSearchesAndEmptyPages covers the other lists that
// remember their totals: a search, and a page past the last (whose list
// reads no row and checks the version alone).
func TestRememberedTotalsOfSearchesAndEmptyPages(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		f := newFixture(t, e)
		ids := make([]string, 4)
		for i := range ids {
			ids[i] = f.insert(t, f.products, "t1", map[string]any{"title": fmt.Sprintf("quartz lamp %d", i), "weight": 20.0})
		}
		f.insert(t, f.products, "t1", map[string]any{"title": "plain", "weight": 1.0})
		cases := []struct {
			name   string
			params url.Values
			write  func(t *testing.T)
			want   int
		}{
			{"a search after a searched field changed",
				url.Values{"search": {"quartz"}, "pageSize": {"2"}},
				func(t *testing.T) {
					if err := f.s.Update(t.Context(), f.db, f.products, "t1", ids[0], store.Record{"title": "granite lamp"}); err != nil {
						t.Fatal(err)
					}
				}, 3},
			{"a page past the last after a create",
				url.Values{"filter": {`{"weight":{"gte":10}}`}, "page": {"9"}, "pageSize": {"2"}},
				func(t *testing.T) { f.insert(t, f.products, "t1", map[string]any{"title": "another", "weight": 30.0}) }, 5},
			{"a filter with no match after a create that matches",
				url.Values{"filter": {`{"weight":{"gte":1000}}`}},
				func(t *testing.T) { f.insert(t, f.products, "t1", map[string]any{"title": "anvil", "weight": 5000.0}) }, 1},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				first := f.list(t, "t1", tc.params)
				var again store.Page
				if n := countsRun(f, func() { again = f.list(t, "t1", tc.params) }); n != 0 || again.Total != first.Total {
					t.Fatalf("the same list again: got total %d with %d counts, want %d with 0", again.Total, n, first.Total)
				}
				tc.write(t)
				if got := f.list(t, "t1", tc.params).Total; got != tc.want {
					t.Errorf("after the write: got total %d, want %d", got, tc.want)
				}
			})
		}
	})
}

// TestRememberedTotalsAreForgottenBySync: a sync of a changed definition
// may change stored values (it fills sort keys, managed columns, a
// changed type), so it marks every team's rows changed, for this Store
// and for others on the same database.
func TestRememberedTotalsAreForgottenBySync(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		f := newFixture(t, e)
		for i := range 3 {
			f.insert(t, f.products, "t1", map[string]any{"title": fmt.Sprintf("heavy %d", i), "weight": 20.0})
		}
		other := store.New(f.db, func() *collections.Registry { return f.reg })
		q, err := f.products.ParseListQuery(heavy, collections.QueryLimits{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := other.List(t.Context(), store.Read{}, f.products, "t1", q); err != nil {
			t.Fatal(err)
		}
		f.list(t, "t1", heavy)
		defs := storeDefs()
		defs[1].Fields = append(defs[1].Fields, collections.Field{Name: "color", Type: collections.TypeString})
		reg, _, err := collections.Build(defs, collections.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := f.s.Sync(t.Context(), reg, store.SyncOptions{}); err != nil {
			t.Fatal(err)
		}
		if n := countsRun(f, func() { f.list(t, "t1", heavy) }); n != 1 {
			t.Errorf("the syncing Store ran %d counts after the sync, want 1", n)
		}
		n := countsOn(other, func() {
			if _, err := other.List(t.Context(), store.Read{}, f.products, "t1", q); err != nil {
				t.Fatal(err)
			}
		})
		if n != 1 {
			t.Errorf("another Store on the database ran %d counts after the sync, want 1", n)
		}
	})
}

// TestRememberedTotalsNeverGoBack lists a filter from several goroutines
// while others create matching records: creates only add, so each
// reader's totals must never decrease, and once the writers stop the
// total must equal the rows. A total remembered from before a commit and
// used after it would go back.
func TestRememberedTotalsNeverGoBack(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		f := newFixture(t, e)
		ctx := t.Context()
		q, err := f.products.ParseListQuery(heavy, collections.QueryLimits{})
		if err != nil {
			t.Fatal(err)
		}
		var stop atomic.Bool
		var wg sync.WaitGroup
		var seq atomic.Int64
		errs := make(chan error, 16)
		for w := range 3 {
			wg.Go(func() {
				for !stop.Load() {
					id := fmt.Sprintf("w%d-%05d", w, seq.Add(1))
					write := func(ctx context.Context, db bun.IDB) error {
						return f.s.Insert(ctx, db, f.products, fullRecord(f.products, id, "t1", map[string]any{"weight": 20.0}))
					}
					var err error
					if w == 0 {
						err = write(ctx, f.db)
					} else {
						err = f.s.RunWrite(ctx, store.Write{Collection: f.products, Single: true}, func(ctx context.Context, tx bun.Tx) error { return write(ctx, tx) })
					}
					if err != nil {
						errs <- err
						return
					}
				}
			})
		}
		for r := range 4 {
			wg.Go(func() {
				last := 0
				for !stop.Load() {
					p, err := f.s.List(ctx, store.Read{}, f.products, "t1", q)
					if err != nil {
						errs <- err
						return
					}
					if p.Total < last {
						errs <- fmt.Errorf("reader %d: got total %d after %d", r, p.Total, last)
						return
					}
					last = p.Total
				}
			})
		}
		time.Sleep(time.Second)
		stop.Store(true)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		if got, want := f.list(t, "t1", heavy).Total, f.heavyCount(t, "t1"); got != want || want == 0 {
			t.Errorf("after the writes: got total %d, want %d (the rows, more than 0)", got, want)
		}
	})
}

// TestPostgresVersionChecksCompactTheDeltaRows: updates leave delta rows
// of 0; a remembered total's check that finds many compacts them, as the
// unfiltered total's read does, and the totals stay exact.
func TestPostgresVersionChecksCompactTheDeltaRows(t *testing.T) {
	f := newFixture(t, testdb.EnginePostgres)
	ctx := t.Context()
	id := f.insert(t, f.products, "t1", map[string]any{"title": "p", "weight": 20.0})
	f.list(t, "t1", heavy)
	for i := range 80 {
		if err := f.s.Update(ctx, f.db, f.products, "t1", id, store.Record{"title": fmt.Sprintf("p%d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	deltaRows := func() int {
		var n int
		if err := f.db.QueryRowContext(ctx, `SELECT count(*) FROM kit_row_counts WHERE table_name = 'shop_products' AND team_id = 't1'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if got := deltaRows(); got < 80 {
		t.Fatalf("got %d delta rows after 80 updates, want at least 80", got)
	}
	if got := f.list(t, "t1", heavy).Total; got != 1 {
		t.Fatalf("got total %d, want 1", got)
	}
	if got := f.list(t, "t1", heavy).Total; got != 1 {
		t.Fatalf("got total %d, want 1", got)
	}
	if got := deltaRows(); got != 1 {
		t.Errorf("got %d delta rows after the check, want 1 (compacted)", got)
	}
	f.wantTotals(t, "t1")
}

// TestTotalsCacheOff: a negative TotalsCache remembers nothing.
func TestTotalsCacheOff(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		f := newFixture(t, e)
		f.s.TotalsCache = -1
		f.insert(t, f.products, "t1", map[string]any{"title": "p", "weight": 20.0})
		f.list(t, "t1", heavy)
		if n := countsRun(f, func() { f.list(t, "t1", heavy) }); n != 1 {
			t.Errorf("got %d counts for the second list, want 1", n)
		}
	})
}

// TestListsThatFindTheirTotalChangedShareOneCount: lists of one query
// whose remembered total a write made stale, all under way when they find
// out, wait for one count instead of each running its own: one that
// started after all of them, so its total is as new as theirs would be.
func TestListsThatFindTheirTotalChangedShareOneCount(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		f := newFixture(t, e)
		for i := range 5 {
			f.insert(t, f.products, "t1", map[string]any{"title": fmt.Sprintf("heavy %d", i), "weight": 20.0})
		}
		f.list(t, "t1", heavy)
		f.insert(t, f.products, "t1", map[string]any{"title": "one more", "weight": 30.0})
		const lists = 4
		var arrived, counts atomic.Int64
		f.s.ObserveQueries(func(q string, _ []any) {
			switch {
			case strings.HasPrefix(q, "SELECT count(*)"):
				counts.Add(1)
			case strings.Contains(q, "ORDER BY") && strings.Contains(q, "kit_row_counts"):
				// Every list reads its page and finds the total stale
				// before any of them counts.
				arrived.Add(1)
				for deadline := time.Now().Add(5 * time.Second); arrived.Load() < lists && time.Now().Before(deadline); {
					time.Sleep(time.Millisecond)
				}
			}
		})
		defer f.s.ObserveQueries(nil)
		q, err := f.products.ParseListQuery(heavy, collections.QueryLimits{})
		if err != nil {
			t.Fatal(err)
		}
		totals := make([]int, lists)
		errs := make([]error, lists)
		var wg sync.WaitGroup
		for i := range lists {
			wg.Go(func() {
				p, err := f.s.List(t.Context(), store.Read{}, f.products, "t1", q)
				totals[i], errs[i] = p.Total, err
			})
		}
		wg.Wait()
		for i := range lists {
			if errs[i] != nil || totals[i] != 6 {
				t.Errorf("list %d: got total %d (%v), want 6", i, totals[i], errs[i])
			}
		}
		if arrived.Load() != lists {
			t.Fatalf("%d lists read their page with the check, want %d", arrived.Load(), lists)
		}
		if got := counts.Load(); got != 1 {
			t.Errorf("got %d counts for %d lists, want 1", got, lists)
		}
	})
}
