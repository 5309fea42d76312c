package store_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/store"
	"github.com/collectionkit/kit/internal/testdb"
)

// seedPlanRows writes n products of team t1 (and n/4 of t2) whose titles
// carry "Jackdaw" in every 50th row, "jigsaw" in every other row and
// "YONDER" in nine rows of ten, and whose notes carry "yonder" in every
// 7th row, then flushes the search index of t1's writes half-way, so that
// some rows wait in its log or above its mark.
func seedPlanRows(t *testing.T, f *fixture, n int) {
	t.Helper()
	for i := range n + n/4 {
		team := "t1"
		if i%5 == 4 {
			team = "t2"
		}
		title := fmt.Sprintf("item %d", i)
		if i%50 == 3 {
			title += " Jackdaw"
		}
		if i%2 == 0 {
			title += " jigsaw"
		}
		if i%10 != 0 {
			title += " YONDER"
		}
		fields := map[string]any{"title": title, "sku": fmt.Sprintf("SKU-%05d", i)}
		if i%7 == 0 {
			fields["notes"] = "over yonder"
		}
		f.insert(t, f.products, team, fields)
		if i == n/2 {
			if err := f.s.FlushSearch(t.Context(), f.db, f.products); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// scanPage is a plain scan of t1's products for term (a case-insensitive
// substring of title, notes or sku, ASCII folding): the total and the ids
// of the page, newest first (or oldest first with asc).
func scanPage(t *testing.T, f *fixture, e testdb.Engine, term string, page, size int, asc bool) (int, []string) {
	t.Helper()
	like, dir := "LIKE", "DESC"
	if e == testdb.EnginePostgres {
		like = "ILIKE"
	}
	if asc {
		dir = "ASC"
	}
	pat := "%" + term + "%"
	where := ` FROM shop_products WHERE team_id = ? AND (title ` + like + ` ? OR notes ` + like + ` ? OR sku ` + like + ` ?)`
	var total int
	if err := f.db.QueryRowContext(t.Context(), "SELECT count(*)"+where, "t1", pat, pat, pat).Scan(&total); err != nil {
		t.Fatal(err)
	}
	rows, err := f.db.QueryContext(t.Context(), "SELECT id"+where+" ORDER BY created_at "+dir+", id "+dir+" LIMIT ? OFFSET ?",
		"t1", pat, pat, pat, size, (page-1)*size)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	ids := []string{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return total, ids
}

// TestSearchPlansReturnWhatAPlainScanReturns checks rare, common and very
// short terms, on pages near and far, in both created orders, against a
// plain scan, with the plan thresholds lowered so that 300 rows reach the
// index plan, the index plan that walks the team's rows for its page, and
// both scans.
func TestSearchPlansReturnWhatAPlainScanReturns(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		f := newFixture(t, e)
		f.s.SetRareCandidates(5)
		seedPlanRows(t, f, 300)
		terms := []string{"jackdaw", "JACKDAW", "jigsaw", "yonder", "Yon", "ond", "yo", "j", "sku-0", "nothing here"}
		for _, term := range terms {
			for _, p := range []struct {
				page, size int
				asc        bool
			}{{1, 20, false}, {2, 20, false}, {7, 10, false}, {1, 20, true}, {40, 5, false}} {
				name := fmt.Sprintf("a search for %q, page %d of %d, ascending %v, is the scan's", term, p.page, p.size, p.asc)
				t.Run(name, func(t *testing.T) {
					params := url.Values{"search": {term}, "page": {fmt.Sprint(p.page)}, "pageSize": {fmt.Sprint(p.size)}}
					if p.asc {
						params.Set("sort", "createdAt")
					}
					got := f.list(t, "t1", params)
					wantTotal, wantIDs := scanPage(t, f, e, term, p.page, p.size, p.asc)
					if gotIDs := ids(got.Records); got.Total != wantTotal || !slices.Equal(gotIDs, wantIDs) {
						t.Errorf("got %d %v, want %d %v", got.Total, gotIDs, wantTotal, wantIDs)
					}
				})
			}
		}
	})
}

func ids(recs []store.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r["id"].(string)
	}
	return out
}

// TestSearchPlanFollowsTheCandidatesAndTheTeamsShare checks the plan
// chosen by the index's candidate count and the team's sampled share
// (SQLite; PostgreSQL's planner keeps statistics of its own).
func TestSearchPlanFollowsTheCandidatesAndTheTeamsShare(t *testing.T) {
	f := newFixture(t, testdb.EngineSQLite)
	f.s.SetRareCandidates(10)
	seedPlanRows(t, f, 300) // 375 rows, t1 holds 4/5
	if err := f.s.FlushSearch(t.Context(), f.db, f.products); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		team, term string
		want       store.SearchPlan
	}{
		{"t1", "jackdaw", store.SearchPlan{Index: true}},                  // 8 candidates: rare
		{"t1", "m 35", store.SearchPlan{Index: true, Heavy: true}},        // 11: over 10, under a quarter of the table
		{"t1", "jigsaw", store.SearchPlan{TableOrder: true, Heavy: true}}, // half the rows: scan the table
		{"t1", "yonder", store.SearchPlan{TableOrder: true, Heavy: true}}, // nine rows in ten
		{"t1", "yo", store.SearchPlan{TableOrder: true, Heavy: true}},     // too short for the index
		{"t2", "m 35", store.SearchPlan{Index: true, Heavy: true}},        // 11, under a quarter of t2's scan (75 rows)
		{"t2", "yonder", store.SearchPlan{Heavy: true}},                   // t2 holds a fifth: scan through its index
		{"nobody", "yonder", store.SearchPlan{Heavy: true}},               // no rows at all
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("a search of %s for %q plans %+v", tt.team, tt.term, tt.want), func(t *testing.T) {
			got, err := f.s.PlanSearch(t.Context(), f.db, f.products, tt.team, tt.term)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// searchQuery is the list query of ?search=term on f's products.
func searchQuery(t *testing.T, f *fixture, term string) collections.ListQuery {
	t.Helper()
	q, err := f.products.ParseListQuery(url.Values{"search": {term}}, collections.QueryLimits{})
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// TestAHeavySearchWaitsForAScanSlot holds the only slot and checks that a
// common-term search waits for it until its context ends, and that a rare
// one does not wait.
func TestAHeavySearchWaitsForAScanSlot(t *testing.T) {
	f := newFixture(t, testdb.EngineSQLite)
	f.s.SetRareCandidates(5)
	f.s.SearchScans = 1
	seedPlanRows(t, f, 100)
	if err := f.s.FlushSearch(t.Context(), f.db, f.products); err != nil {
		t.Fatal(err)
	}
	release, err := f.s.AcquireScan(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error)
	common := searchQuery(t, f, "yonder") // t.Fatal belongs to the test's goroutine
	go func() {
		_, err := f.s.List(ctx, store.Read{}, f.products, "t1", common)
		done <- err
	}()
	if _, err := f.s.List(t.Context(), store.Read{}, f.products, "t1", searchQuery(t, f, "jackdaw")); err != nil {
		t.Errorf("rare search while the slot is held: got %v, want nil", err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("common search while the slot is held: got %v, want context.Canceled", err)
	}
	release()
	if _, err := f.s.List(t.Context(), store.Read{}, f.products, "t1", searchQuery(t, f, "yonder")); err != nil {
		t.Errorf("common search once the slot is free: got %v, want nil", err)
	}
}

// TestEveryPostgreSQLSearchWaitsForAScanSlot holds the only slot on
// PostgreSQL and checks that a search, rare or common, waits for it until
// its context ends (the server's planner chooses the plan, so every
// search takes a slot), that a list without a search does not wait, and
// that the search runs once the slot is free.
func TestEveryPostgreSQLSearchWaitsForAScanSlot(t *testing.T) {
	f := newFixture(t, testdb.EnginePostgres)
	f.s.SearchScans = 1
	seedPlanRows(t, f, 100)
	release, err := f.s.AcquireScan(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.List(t.Context(), store.Read{}, f.products, "t1", searchQuery(t, f, "")); err != nil {
		t.Errorf("list without a search while the slot is held: got %v, want nil", err)
	}
	for _, term := range []string{"jackdaw", "yonder"} {
		t.Run(fmt.Sprintf("a search for %q waits while the slot is held", term), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
			defer cancel()
			if _, err := f.s.List(ctx, store.Read{}, f.products, "t1", searchQuery(t, f, term)); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("got %v, want context.DeadlineExceeded", err)
			}
		})
	}
	release()
	if _, err := f.s.List(t.Context(), store.Read{}, f.products, "t1", searchQuery(t, f, "yonder")); err != nil {
		t.Errorf("search once the slot is free: got %v, want nil", err)
	}
}

// TestAPostgreSQLSearchThatSharesTheScanSlotsRunsWithoutParallelWorkers
// reads max_parallel_workers_per_gather inside the count's and the page's
// own statements (a version probe's column): a search that runs alone, or
// in the caller's transaction, keeps the connection's setting; one that
// runs while another search holds a slot runs both statements with 0, and
// the connection has its setting back afterwards.
func TestAPostgreSQLSearchThatSharesTheScanSlotsRunsWithoutParallelWorkers(t *testing.T) {
	f := newFixture(t, testdb.EnginePostgres)
	f.s.SearchScans = 2
	seedPlanRows(t, f, 100)
	// One connection, with a setting of its own that the test can tell
	// from the server's.
	f.db.DB.SetMaxOpenConns(1)
	if _, err := f.db.ExecContext(t.Context(), "SET max_parallel_workers_per_gather = 3"); err != nil {
		t.Fatal(err)
	}
	setting := func() string {
		t.Helper()
		var v string
		if err := f.db.QueryRowContext(t.Context(), "SHOW max_parallel_workers_per_gather").Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	const column = "(SELECT current_setting('max_parallel_workers_per_gather')::bigint)"
	tests := []struct {
		name      string
		otherSlot bool // another search holds a slot
		callerTx  bool // List runs in the caller's transaction
		want      int64
	}{
		{"a search alone keeps the connection's setting", false, false, 3},
		{"a search beside another runs without parallel workers", true, false, 0},
		{"a search beside another in the caller's transaction keeps the caller's setting", true, true, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.otherSlot {
				release, err := f.s.AcquireScan(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				defer release()
			}
			// A search that opened a transaction of its own beside the
			// caller's would wait for the pool's only connection.
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			probe := store.NewVersionProbe(subquery(column))
			r := store.Read{Probe: probe}
			if tt.callerTx {
				tx, err := f.db.BeginTx(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer tx.Rollback()
				r.Tx = tx
			}
			page, err := f.s.List(ctx, r, f.products, "t1", searchQuery(t, f, "yonder"))
			if err != nil {
				t.Fatalf("List: %v", err)
			}
			if page.Total == 0 || len(page.Records) == 0 {
				t.Fatalf("got %d matches and %d records, want some of each", page.Total, len(page.Records))
			}
			if got, ok := probe.Value(); !ok || got != tt.want {
				t.Errorf("max_parallel_workers_per_gather in the count and the page: got %d (one value: %v), want %d", got, ok, tt.want)
			}
		})
		if got := setting(); got != "3" {
			t.Errorf("after %s: the connection's setting is %s, want 3", tt.name, got)
		}
	}
}

// TestTheDefaultScanSlotsFollowTheCPUsAndThePool checks SearchScans'
// zero value: on SQLite half the CPUs Go uses, at least one; on
// PostgreSQL the CPUs, at least two and at most half the pool's open
// connections (of a pool of 8, of 2, and of an unlimited one).
func TestTheDefaultScanSlotsFollowTheCPUsAndThePool(t *testing.T) {
	cpus := runtime.GOMAXPROCS(0)
	tests := []struct {
		engine testdb.Engine
		pool   int // MaxOpenConns; -1 keeps the test pool's 8
		name   string
		want   int
	}{
		{testdb.EngineSQLite, -1, "any pool", max(1, cpus/2)},
		{testdb.EnginePostgres, -1, "the test pool of 8", min(max(2, cpus), 4)},
		{testdb.EnginePostgres, 2, "a pool of 2", 1},
		{testdb.EnginePostgres, 0, "an unlimited pool", max(2, cpus)},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s with %s opens %d slots", tt.engine, tt.name, tt.want), func(t *testing.T) {
			f := newFixture(t, tt.engine)
			if tt.pool >= 0 {
				f.db.DB.SetMaxOpenConns(tt.pool)
			}
			var releases []func()
			defer func() {
				for _, r := range releases {
					r()
				}
			}()
			for range tt.want {
				ctx, cancel := context.WithTimeout(t.Context(), time.Second)
				release, err := f.s.AcquireScan(ctx)
				cancel()
				if err != nil {
					t.Fatalf("got %v taking slot %d of %d, want nil", err, len(releases)+1, tt.want)
				}
				releases = append(releases, release)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
			defer cancel()
			if _, err := f.s.AcquireScan(ctx); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("got %v taking slot %d, want context.DeadlineExceeded", err, tt.want+1)
			}
		})
	}
}

// TestASearchAmongIDsFindsTheNamedMatches checks that a search narrowed
// to ids (which skips the plan) finds exactly the named rows that match,
// on both engines, for rare, common and short terms.
func TestASearchAmongIDsFindsTheNamedMatches(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		f := newFixture(t, e)
		f.s.SetRareCandidates(5)
		seedPlanRows(t, f, 100)
		all := f.list(t, "t1", url.Values{"pageSize": {"100"}})
		named := ids(all.Records)[:12]
		for _, term := range []string{"jackdaw", "yonder", "yo", "nothing here"} {
			t.Run(fmt.Sprintf("a search for %q among 12 ids finds the named rows that match", term), func(t *testing.T) {
				q := searchQuery(t, f, term)
				q.IDs = named
				got, err := f.s.List(t.Context(), store.Read{}, f.products, "t1", q)
				if err != nil {
					t.Fatal(err)
				}
				_, scanned := scanPage(t, f, e, term, 1, 100, false)
				var want []string
				for _, id := range scanned {
					if slices.Contains(named, id) {
						want = append(want, id)
					}
				}
				if gotIDs := ids(got.Records); got.Total != len(want) || !slices.Equal(gotIDs, append([]string{}, want...)) {
					t.Errorf("got %d %v, want %d %v", got.Total, gotIDs, len(want), want)
				}
			})
		}
	})
}

// TestWhichSearchStatementsWatchTheirContext lists t1's
// products on SQLite with a rare term (the index answers with a few
// candidates), a common one (a scan in a slot) and no term, and checks
// which statements ran with a watch on their context: none of the rare
// search's, the common search's page and count but not its plan's probes,
// and every statement of the plain list (sqlexec.Bounded).
func TestWhichSearchStatementsWatchTheirContext(t *testing.T) {
	f := newFixture(t, testdb.EngineSQLite)
	log := &queryLog{}
	f.s.SetQueryHook(log)
	f.s.SetRareCandidates(5)
	seedPlanRows(t, f, 100)
	if err := f.s.FlushSearch(t.Context(), f.db, f.products); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		term        string
		wantBounded bool // some statements bounded
		wantWatched bool // some statements watched
	}{
		{"a rare term's search runs every statement bounded", "jackdaw", true, false},
		{"a common term's search runs its probes bounded and its page and count watched", "yonder", true, true},
		{"a list without a search runs every statement watched", "", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			log.take()
			if _, err := f.s.List(ctx, store.Read{}, f.products, "t1", searchQuery(t, f, tt.term)); err != nil {
				t.Fatal(err)
			}
			bounded, watched := 0, 0
			for _, st := range log.take() {
				if st.bounded {
					bounded++
				} else {
					watched++
				}
			}
			if (bounded > 0) != tt.wantBounded || (watched > 0) != tt.wantWatched {
				t.Errorf("got %d statements bounded and %d watched, want bounded %v and watched %v", bounded, watched, tt.wantBounded, tt.wantWatched)
			}
		})
	}
}
