package store

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/collectionkit/kit/collections"
)

func searchFixture(t *testing.T) (*Store, *collections.Collection) {
	t.Helper()
	return productsStore(t, ":memory:"+strings.ReplaceAll(t.Name(), "/", "_"))
}

// productsStore opens the SQLite database at path (closed when tb ends)
// with one collection, shop/products (title, description, stock), synced.
func productsStore(tb testing.TB, path string) (*Store, *collections.Collection) {
	tb.Helper()
	db, err := OpenSQLite(path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	reg, _, err := collections.Build([]collections.Definition{{Name: "products", Layer: "shop", Fields: []collections.Field{
		{Name: "title", Type: collections.TypeString},
		{Name: "description", Type: collections.TypeText},
		{Name: "stock", Type: collections.TypeNumber},
	}}}, collections.LoadOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	s := New(db, func() *collections.Registry { return reg })
	if err := CreateMetaTable(tb.Context(), db); err != nil {
		tb.Fatal(err)
	}
	if err := s.Sync(tb.Context(), reg, SyncOptions{}); err != nil {
		tb.Fatal(err)
	}
	c, _ := reg.Get("shopProducts")
	return s, c
}

// TestIndexedSearchReturnsExactlyWhatAScanReturns seeds words with
// accents, LIKE and GLOB wildcards and quotes into two teams, then compares
// every search through the FTS index with the same search by scan.
func TestIndexedSearchReturnsExactlyWhatAScanReturns(t *testing.T) {
	s, c := searchFixture(t)
	ctx := t.Context()
	words := []string{"Lamp", "lamp", "LAMPE", "Grüne", "GRÜNE", "ärger", "Ärger", "100%", "a_b", "axb", `say "hi"`, "x*y", "q?r", "[set]", "ñandú", "straße", "OK", "ok", "日本語テキスト"}
	rng := rand.New(rand.NewPCG(1, 2))
	now := time.Now().UTC()
	for i := range 400 {
		team := "t1"
		if i%4 == 0 {
			team = "t2"
		}
		title := words[rng.IntN(len(words))] + " " + words[rng.IntN(len(words))]
		var desc any
		if i%3 != 0 {
			desc = strings.Repeat(words[rng.IntN(len(words))]+" ", 1+rng.IntN(3))
		}
		rec := Record{"id": fmt.Sprintf("id-%04d", i), "teamId": team, "owner": "u", "title": title, "description": desc,
			"createdAt": now, "updatedAt": now, "createdBy": "u", "updatedBy": "u"}
		if err := s.Insert(ctx, s.db, c, rec); err != nil {
			t.Fatal(err)
		}
	}
	// Updates and deletes must reach the index through the log's triggers.
	if err := s.Update(ctx, s.db, c, "t1", "id-0001", Record{"title": "renamed lamp"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, s.db, c, "t1", "id-0002"); err != nil {
		t.Fatal(err)
	}
	terms := []string{"lamp", "LAMP", "amp", "ünE", "ÄRGER", "0%", "100%", "a_b", "_b", `"hi"`, `y "h`, "x*y", "q?r", "[set]", "ÑANDÚ", "STRASSE", "straße", "ok", "o", "テキスト", "本語", "nothing-like-this", "mp G"}
	// The writes above went straight to the table, so every change waits
	// in the index's log or above its mark: searches must be right before
	// the index is brought up to date, and after.
	for _, state := range []string{"with the changes in the log", "after the log is applied"} {
		if state == "after the log is applied" {
			if err := s.FlushSearch(ctx, s.db, c); err != nil {
				t.Fatal(err)
			}
			var pending int
			if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM "+quote(ftsPending(c.Table()))).Scan(&pending); err != nil {
				t.Fatal(err)
			}
			if pending != 0 {
				t.Fatalf("log entries after FlushSearch: got %d, want 0", pending)
			}
			checkFTS(t, s, c)
		}
		for _, term := range terms {
			for _, team := range []string{"t1", "t2"} {
				t.Run(fmt.Sprintf("%s in %s %s", term, team, state), func(t *testing.T) {
					q := collections.ListQuery{Page: 1, PageSize: 1000, Search: term, Sort: []collections.SortKey{{Attr: mustAttr(t, c, "id")}}}
					s.noSearchIndex = false
					indexed, err := s.List(ctx, Read{}, c, team, q)
					if err != nil {
						t.Fatal(err)
					}
					s.noSearchIndex = true
					scanned, err := s.List(ctx, Read{}, c, team, q)
					s.noSearchIndex = false
					if err != nil {
						t.Fatal(err)
					}
					if got, want := ids(indexed.Records), ids(scanned.Records); !slices.Equal(got, want) || indexed.Total != scanned.Total {
						t.Errorf("got %d %v, want the scan's %d %v", indexed.Total, got, scanned.Total, want)
					}
				})
			}
		}
	}
}

func TestSearchOfThreeOrMoreCharactersUsesTheIndex(t *testing.T) {
	s, c := searchFixture(t)
	tests := []struct {
		term    string
		indexed bool
	}{{"lamp", true}, {"amp", true}, {"am", false}, {"ärg", true}}
	for _, tt := range tests {
		t.Run(tt.term, func(t *testing.T) {
			where, args, err := s.where(c, "t1", collections.ListQuery{Page: 1, PageSize: 20, Search: tt.term}, true)
			if err != nil {
				t.Fatal(err)
			}
			plan := queryPlan(t, s, "SELECT count(*) FROM "+quote(c.Table())+" WHERE "+where, args...)
			got := strings.Contains(strings.Join(plan, "\n"), "VIRTUAL TABLE INDEX")
			if got != tt.indexed {
				t.Errorf("plan %q: got indexed %v, want %v", plan, got, tt.indexed)
			}
		})
	}
}

func mustAttr(t testing.TB, c *collections.Collection, name string) *collections.Attribute {
	t.Helper()
	a, ok := c.Attribute(name)
	if !ok {
		t.Fatalf("no attribute %q", name)
	}
	return a
}

func ids(recs []Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r["id"].(string)
	}
	return out
}

// insertTitled writes a row of team t1 with the given title.
func insertTitled(t *testing.T, s *Store, c *collections.Collection, id, title string) {
	t.Helper()
	now := time.Now().UTC()
	if err := s.Insert(t.Context(), s.db, c, Record{"id": id, "teamId": "t1", "owner": "u", "title": title,
		"createdAt": now, "updatedAt": now, "createdBy": "u", "updatedBy": "u"}); err != nil {
		t.Fatal(err)
	}
}

// flushSearch applies c's search change log.
func flushSearch(t *testing.T, s *Store, c *collections.Collection) {
	t.Helper()
	if err := s.FlushSearch(t.Context(), s.db, c); err != nil {
		t.Fatal(err)
	}
}

// searchIDs returns the ids of the rows of team t1 that a search for term
// finds, by id.
func searchIDs(t *testing.T, s *Store, c *collections.Collection, term string) []string {
	t.Helper()
	page, err := s.List(t.Context(), Read{}, c, "t1", collections.ListQuery{Page: 1, PageSize: 10, Search: term, Sort: []collections.SortKey{{Attr: mustAttr(t, c, "id")}}})
	if err != nil {
		t.Fatal(err)
	}
	return ids(page.Records)
}

// checkFTS runs FTS5's integrity-check on c's search index.
func checkFTS(t *testing.T, s *Store, c *collections.Collection) {
	t.Helper()
	fts := quote(ftsTable(c.Table()))
	if _, err := s.db.ExecContext(t.Context(), "INSERT INTO "+fts+"("+fts+") VALUES ('integrity-check')"); err != nil {
		t.Errorf("FTS integrity-check: got %v, want nil", err)
	}
}

// olderIndex turns c's search index into one an older kit made: it runs
// stmts, then rewrites c's stored definition as a kit of search format
// `format` wrote it ("" for one without a format), with a hash that
// differs, so that the next Sync brings c up to date.
func olderIndex(t *testing.T, s *Store, c *collections.Collection, format string, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		if _, err := s.db.ExecContext(t.Context(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var def string
	if err := s.db.QueryRowContext(t.Context(), "SELECT definition FROM kit_collections WHERE key = ?", c.Key()).Scan(&def); err != nil {
		t.Fatal(err)
	}
	current := fmt.Sprintf(`,"searchFormat":%d`, searchFormat)
	older := ""
	if format != "" {
		older = `,"searchFormat":` + format
	}
	if !strings.Contains(def, current) {
		t.Fatalf("stored definition %s: want it to hold %s", def, current)
	}
	def = strings.Replace(def, current, older, 1)
	if _, err := s.db.ExecContext(t.Context(), "UPDATE kit_collections SET definition = ?, hash = 'format-"+format+"' WHERE key = ?", def, c.Key()); err != nil {
		t.Fatal(err)
	}
}

// indexedMatches counts the rows c's search index matches for an FTS5
// query.
func indexedMatches(t *testing.T, s *Store, c *collections.Collection, query string) int {
	t.Helper()
	fts := quote(ftsTable(c.Table()))
	var n int
	if err := s.db.QueryRowContext(t.Context(), "SELECT count(*) FROM "+fts+" WHERE "+fts+" MATCH ?", query).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// queryPlan returns the details of SQLite's plan for query.
func queryPlan(t testing.TB, s *Store, query string, args ...any) []string {
	t.Helper()
	rows, err := s.db.QueryContext(t.Context(), "EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return plan
}

// TestSyncUpgradesASearchIndexWithoutChangeLog checks that a database whose
// search index predates the change log (triggers writing the FTS table
// directly) gets the log, its triggers and a rebuilt index at the next sync.
func TestSyncUpgradesASearchIndexWithoutChangeLog(t *testing.T) {
	s, c := searchFixture(t)
	ctx := t.Context()
	fts, table := quote(ftsTable(c.Table())), quote(c.Table())
	old := []string{
		"DROP TRIGGER " + quote(ftsTrigger(c.Table(), "ad")),
		"DROP TRIGGER " + quote(ftsTrigger(c.Table(), "au")),
		"DROP TABLE " + quote(ftsPending(c.Table())),
		"DROP TABLE " + quote(ftsMark(c.Table())),
		`CREATE TRIGGER ` + quote(ftsTrigger(c.Table(), "ai")) + ` AFTER INSERT ON ` + table + ` BEGIN INSERT INTO ` + fts + `("rowid", "title", "description") VALUES (new."rowid", new."title", new."description"); END`,
	}
	// The stored definition of a database of that time: no search format.
	olderIndex(t, s, c, "", old...)
	insertTitled(t, s, c, "id-old", "old quartz lamp")
	if err := s.Sync(ctx, s.registry(), SyncOptions{}); err != nil {
		t.Fatalf("Sync: %v", err)
	}
	var logs int
	if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE name = ?", ftsPending(c.Table())).Scan(&logs); err != nil || logs != 1 {
		t.Fatalf("change log tables after sync: got %d (%v), want 1", logs, err)
	}
	insertTitled(t, s, c, "id-new", "new quartz lamp")
	flushSearch(t, s, c)
	checkFTS(t, s, c)
	if got, want := searchIDs(t, s, c, "quartz"), []string{"id-new", "id-old"}; !slices.Equal(got, want) {
		t.Errorf("search after the upgrade: got %v, want %v", got, want)
	}
}

// TestSyncUpgradesASearchIndexThatLogsInserts checks the upgrade from the
// change log of search format 3, where a trigger logged every insert into
// a table with NOT NULL columns, to the high-water mark: at the next sync
// the trigger goes, what it logged gets into the index, the log table loses
// its constraints, the mark starts at the largest rowid, and the rows
// inserted afterwards are found before and after a flush.
func TestSyncUpgradesASearchIndexThatLogsInserts(t *testing.T) {
	s, c := searchFixture(t)
	ctx := t.Context()
	table, pending := quote(c.Table()), quote(ftsPending(c.Table()))
	insertTitled(t, s, c, "id-flushed", "flushed quartz lamp")
	flushSearch(t, s, c)
	old := []string{
		"DROP TABLE " + quote(ftsMark(c.Table())),
		"DROP TABLE " + pending,
		"CREATE TABLE " + pending + " (op TEXT NOT NULL, rid INTEGER NOT NULL)",
		`CREATE TRIGGER ` + quote(ftsTrigger(c.Table(), "ai")) + ` AFTER INSERT ON ` + table + ` BEGIN INSERT INTO ` + pending + `(op, rid) VALUES ('i', new."rowid"); END`,
	}
	olderIndex(t, s, c, "3", old...)
	insertTitled(t, s, c, "id-logged", "logged quartz lamp")
	if err := s.Sync(ctx, s.registry(), SyncOptions{}); err != nil {
		t.Fatalf("Sync: %v", err)
	}
	var triggers, logged, hwm, maxRowid int
	if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE name = ?", ftsTrigger(c.Table(), "ai")).Scan(&triggers); err != nil || triggers != 0 {
		t.Fatalf("insert triggers after sync: got %d (%v), want 0", triggers, err)
	}
	if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM "+pending).Scan(&logged); err != nil || logged != 0 {
		t.Fatalf("log entries after sync: got %d (%v), want 0", logged, err)
	}
	var logSQL string
	if err := s.db.QueryRowContext(ctx, "SELECT sql FROM sqlite_master WHERE name = ?", ftsPending(c.Table())).Scan(&logSQL); err != nil || strings.Contains(logSQL, "NOT NULL") {
		t.Fatalf("log table after sync: got %q (%v), want one without NOT NULL", logSQL, err)
	}
	if err := s.db.QueryRowContext(ctx, "SELECT hwm, (SELECT max(rowid) FROM "+table+") FROM "+quote(ftsMark(c.Table()))).Scan(&hwm, &maxRowid); err != nil || hwm != maxRowid {
		t.Fatalf("high-water mark after sync: got %d (%v), want the largest rowid %d", hwm, err, maxRowid)
	}
	if n := indexedMatches(t, s, c, "qua AND rtz"); n != 2 {
		t.Fatalf("indexed rows after sync: got %d, want 2", n)
	}
	insertTitled(t, s, c, "id-new", "new quartz lamp")
	for _, when := range []string{"before the flush", "after the flush"} {
		if when == "after the flush" {
			flushSearch(t, s, c)
		}
		if got, want := searchIDs(t, s, c, "quartz"), []string{"id-flushed", "id-logged", "id-new"}; !slices.Equal(got, want) {
			t.Errorf("search %s: got %v, want %v", when, got, want)
		}
	}
	checkFTS(t, s, c)
}

// TestIndexedSearchCountStartsFromTheIndex checks the plan of the count an
// indexed search runs: rows are fetched by rowid from the index's
// candidates, not found by walking the team's index.
func TestIndexedSearchCountStartsFromTheIndex(t *testing.T) {
	s, c := searchFixture(t)
	var count string
	var countArgs []any
	s.ObserveQueries(func(q string, args []any) {
		if strings.HasPrefix(q, "SELECT count(*)") {
			count, countArgs = q, args
		}
	})
	q := collections.ListQuery{Page: 1, PageSize: 20, Search: "lamp", Sort: []collections.SortKey{{Attr: mustAttr(t, c, "id")}}}
	if _, err := s.List(t.Context(), Read{}, c, "t1", q); err != nil {
		t.Fatal(err)
	}
	var steps []string
	for _, step := range queryPlan(t, s, count, countArgs...) {
		// The version of the team's rows, read with the count (totals.go).
		if !strings.Contains(step, "kit_row_counts") {
			steps = append(steps, step)
		}
	}
	got := strings.Join(steps, "\n")
	if !strings.Contains(got, "USING INTEGER PRIMARY KEY (rowid=?)") || strings.Contains(got, "team") {
		t.Errorf("count plan: got\n%s\nwant rowid lookups of the index's candidates, not the team's index", got)
	}
}

// TestSyncGivesTheSearchIndexKitsMergeSettings checks that a new search
// index has kit's FTS5 merge settings, and that the next sync gives them to
// an index made with FTS5's defaults (an older kit) without rebuilding it.
func TestSyncGivesTheSearchIndexKitsMergeSettings(t *testing.T) {
	s, c := searchFixture(t)
	ctx := t.Context()
	fts := ftsTable(c.Table())
	settings := func() map[string]int {
		t.Helper()
		var rows []struct {
			K string `bun:"k"`
			V int    `bun:"v"`
		}
		if err := s.db.NewRaw("SELECT k, v FROM "+quote(fts+"_config")+" WHERE k <> 'version'").Scan(ctx, &rows); err != nil {
			t.Fatal(err)
		}
		got := map[string]int{}
		for _, r := range rows {
			got[r.K] = r.V
		}
		return got
	}
	want := map[string]int{}
	for _, o := range ftsMerge {
		want[o.name] = o.value
	}
	t.Run("a new index has them", func(t *testing.T) {
		if got := settings(); !maps.Equal(got, want) {
			t.Fatalf("settings of a new index: got %v, want %v", got, want)
		}
	})
	t.Run("sync gives them to an index of an older kit and keeps its rows", func(t *testing.T) {
		insertTitled(t, s, c, "id-kept", "kept quartz lamp")
		flushSearch(t, s, c)
		olderIndex(t, s, c, "2", "DELETE FROM "+quote(fts+"_config")+" WHERE k <> 'version'")
		if got := settings(); len(got) != 0 {
			t.Fatalf("settings after the reset: got %v, want none", got)
		}
		if err := s.Sync(ctx, s.registry(), SyncOptions{}); err != nil {
			t.Fatal(err)
		}
		if got := settings(); !maps.Equal(got, want) {
			t.Fatalf("settings after sync: got %v, want %v", got, want)
		}
		if n := indexedMatches(t, s, c, "qua AND rtz"); n != 1 {
			t.Fatalf("index entries for the row written before sync: got %d, want 1", n)
		}
	})
}

// TestSearchFindsARowThatTakesTheRowidOfADeletedLastRow checks the case the
// high-water mark alone would miss: SQLite gives a new row the largest
// rowid plus one, so a row inserted after the last row was deleted gets
// that row's rowid, at or below the mark. The delete's log entry makes the
// flush index whatever row holds the rowid then.
func TestSearchFindsARowThatTakesTheRowidOfADeletedLastRow(t *testing.T) {
	for _, flushBetween := range []bool{false, true} {
		name := "without a flush between the delete and the insert"
		if flushBetween {
			name = "with a flush between the delete and the insert"
		}
		t.Run(name, func(t *testing.T) {
			s, c := searchFixture(t)
			ctx := t.Context()
			insertTitled(t, s, c, "id-first", "first amber lamp")
			insertTitled(t, s, c, "id-last", "last amber lamp")
			flushSearch(t, s, c)
			if err := s.Delete(ctx, s.db, c, "t1", "id-last"); err != nil {
				t.Fatal(err)
			}
			if flushBetween {
				flushSearch(t, s, c)
			}
			insertTitled(t, s, c, "id-again", "again cobalt vase")
			var rowid int
			if err := s.db.QueryRowContext(ctx, "SELECT rowid FROM "+quote(c.Table())+" WHERE id = 'id-again'").Scan(&rowid); err != nil || rowid != 2 {
				t.Fatalf("rowid of the new row: got %d (%v), want 2, the deleted row's", rowid, err)
			}
			for _, step := range []string{"before the flush", "after the flush"} {
				if step == "after the flush" {
					flushSearch(t, s, c)
				}
				for term, want := range map[string][]string{"cobalt": {"id-again"}, "amber": {"id-first"}} {
					if got := searchIDs(t, s, c, term); !slices.Equal(got, want) {
						t.Errorf("search %q %s: got %v, want %v", term, step, got, want)
					}
				}
			}
			checkFTS(t, s, c)
		})
	}
}

// TestFlushSearchOverWaitsForItsLimit checks the backlog a write may leave
// for a later flush: SearchBacklog counts the new rows and the logged
// changes, FlushSearchOver leaves the index alone below its limit and
// brings it up to date at the limit, and searches are right throughout.
func TestFlushSearchOverWaitsForItsLimit(t *testing.T) {
	s, c := searchFixture(t)
	ctx := t.Context()
	backlog := func(t *testing.T) int {
		t.Helper()
		n, err := s.SearchBacklog(ctx, s.db, c)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	for i := range 5 {
		insertTitled(t, s, c, fmt.Sprintf("id-%d", i), fmt.Sprintf("quartz lamp %d", i))
	}
	if err := s.Update(ctx, s.db, c, "t1", "id-1", Record{"title": "plain lamp"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, s.db, c, "t1", "id-2"); err != nil {
		t.Fatal(err)
	}
	// 5 rows above the mark, one update and one delete in the log.
	const want = 7
	steps := []struct {
		name        string
		limit       int
		wantFlushed bool
		wantBacklog int
	}{
		{"a limit above the backlog leaves the index alone", want + 1, false, want},
		{"a limit equal to the backlog flushes it", want, true, 0},
		{"an empty backlog is not flushed again", 0, false, 0},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			flushed, err := s.FlushSearchOver(ctx, s.db, c, st.limit)
			if err != nil {
				t.Fatal(err)
			}
			if flushed != st.wantFlushed {
				t.Errorf("flushed: got %v, want %v", flushed, st.wantFlushed)
			}
			if got := backlog(t); got != st.wantBacklog {
				t.Errorf("backlog: got %d, want %d", got, st.wantBacklog)
			}
			wantIndexed := map[bool]int{false: 0, true: 3}[st.wantBacklog == 0]
			if got := indexedMatches(t, s, c, `"qua"`); got != wantIndexed {
				t.Errorf("rows the index matches for qua: got %d, want %d", got, wantIndexed)
			}
			if got, want := searchIDs(t, s, c, "quartz"), []string{"id-0", "id-3", "id-4"}; !slices.Equal(got, want) {
				t.Errorf("search quartz: got %v, want %v", got, want)
			}
			checkFTS(t, s, c)
		})
	}
}
