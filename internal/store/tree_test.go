package store_test

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/sqlexec"
	"github.com/collectionkit/kit/internal/store"
	"github.com/collectionkit/kit/internal/testdb"
)

// queryLog is a query hook (Store.SetQueryHook) that keeps the statements
// a Store runs: their text and arguments as the driver gets them (for
// EXPLAIN or to run them again), and whether their context was marked
// sqlexec.Bounded.
type queryLog struct {
	mu      sync.Mutex
	queries []loggedQuery
}

type loggedQuery struct {
	sql     string
	args    []any
	bounded bool
}

func (l *queryLog) BeforeQuery(ctx context.Context, e *bun.QueryEvent) context.Context {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.queries = append(l.queries, loggedQuery{e.Query, slices.Clone(e.QueryArgs), sqlexec.IsBounded(ctx)})
	return ctx
}

func (l *queryLog) AfterQuery(context.Context, *bun.QueryEvent) {}

// take returns the statements since the last call and forgets them.
func (l *queryLog) take() []loggedQuery {
	l.mu.Lock()
	defer l.mu.Unlock()
	q := l.queries
	l.queries = nil
	return q
}

func (l *queryLog) last() loggedQuery {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.queries[len(l.queries)-1]
}

// lastWith returns the last query whose SQL contains part (a list's page
// query may be followed by a compaction of the row counts).
func (l *queryLog) lastWith(part string) loggedQuery {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := len(l.queries) - 1; i >= 0; i-- {
		if strings.Contains(l.queries[i].sql, part) {
			return l.queries[i]
		}
	}
	return loggedQuery{}
}

// treeStore is a synced store with one tree collection, docs/folders.
type treeStore struct {
	db  *bun.DB
	s   *store.Store
	c   *collections.Collection
	log *queryLog
}

func newTreeStore(t *testing.T, e testdb.Engine) *treeStore {
	t.Helper()
	db := testdb.Open(t, e)
	reg, _, err := collections.Build([]collections.Definition{{Name: "folders", Layer: "docs",
		Fields: []collections.Field{{Name: "title", Type: collections.TypeString}},
		Config: &collections.Config{Hierarchy: &collections.Hierarchy{Enabled: true}}}}, collections.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := store.New(db, func() *collections.Registry { return reg })
	if err := s.Sync(t.Context(), reg, store.SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	c, _ := reg.Get("docsFolders")
	log := &queryLog{}
	s.SetQueryHook(log)
	return &treeStore{db: db, s: s, c: c, log: log}
}

// put stores node id of team with its parent, path, depth and order as
// given (consistent or not: the store functions are tested on their own).
func (ts *treeStore) put(t *testing.T, team, id string, parent any, path string, depth, order float64) {
	t.Helper()
	now := time.Now().UTC().Truncate(time.Microsecond)
	rec := store.Record{"id": id, "teamId": team, "owner": "u", "title": id, "parentId": parent, "path": path, "depth": depth, "order": order,
		"createdAt": now, "updatedAt": now, "createdBy": "u", "updatedBy": "u"}
	if err := ts.s.Insert(t.Context(), ts.db, ts.c, rec); err != nil {
		t.Fatal(err)
	}
}

// state returns id -> "path depth order" of team's records.
func (ts *treeStore) state(t *testing.T, team string) map[string]string {
	t.Helper()
	recs, err := ts.s.Subtree(t.Context(), ts.db, ts.c, team, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, r := range recs {
		out[r["id"].(string)] = fmt.Sprintf("%v %v %v", r["path"], r["depth"], r["order"])
	}
	return out
}

func TestMoveSubtreeRewritesExactlyThePrefix(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		ts := newTreeStore(t, e)
		// Ids chosen so that their paths share prefixes with /a/ and sort
		// just around its range: "a-" and "a." sort before "a/", "a0" and
		// "ab" after "a0" (the range's end).
		for _, n := range []struct {
			id, parent, path string
			depth            float64
		}{
			{"a", "", "/a/", 0}, {"x", "a", "/a/x/", 1}, {"y", "x", "/a/x/y/", 2},
			{"a-", "", "/a-/", 0}, {"a.", "", "/a./", 0}, {"a0", "", "/a0/", 0}, {"ab", "", "/ab/", 0}, {"z", "ab", "/ab/z/", 1},
			{"t", "", "/t/", 0}, {"u", "t", "/t/u/", 1},
		} {
			var parent any
			if n.parent != "" {
				parent = n.parent
			}
			ts.put(t, "acme", n.id, parent, n.path, n.depth, 0)
		}
		ts.put(t, "globex", "g", nil, "/a/", 0, 0) // another team, the same path
		n, err := ts.s.MoveSubtree(t.Context(), ts.db, ts.c, "acme", "/a/", "/t/u/a/", 2)
		if err != nil {
			t.Fatal(err)
		}
		if n != 3 {
			t.Errorf("rows rewritten: got %d, want 3 (a, x, y)", n)
		}
		want := map[string]string{
			"a": "/t/u/a/ 2 0", "x": "/t/u/a/x/ 3 0", "y": "/t/u/a/x/y/ 4 0",
			"a-": "/a-/ 0 0", "a.": "/a./ 0 0", "a0": "/a0/ 0 0", "ab": "/ab/ 0 0", "z": "/ab/z/ 1 0", "t": "/t/ 0 0", "u": "/t/u/ 1 0",
		}
		got := ts.state(t, "acme")
		for id, w := range want {
			if got[id] != w {
				t.Errorf("%s: got %q, want %q", id, got[id], w)
			}
		}
		if g := ts.state(t, "globex")["g"]; g != "/a/ 0 0" {
			t.Errorf("another team's record: got %q, want it untouched", g)
		}
		sub, err := ts.s.Subtree(t.Context(), ts.db, ts.c, "acme", "t", 0)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range sub {
			ids = append(ids, r["id"].(string))
		}
		sort.Strings(ids)
		if want := []string{"a", "t", "u", "x", "y"}; !slices.Equal(ids, want) {
			t.Errorf("subtree of t: got %v, want %v", ids, want)
		}
		if sub, _ := ts.s.Subtree(t.Context(), ts.db, ts.c, "acme", "g", 0); len(sub) != 0 {
			t.Errorf("subtree of another team's record: got %d records, want none", len(sub))
		}
	})
}

func TestRenumberMakesOrdersContiguous(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		ts := newTreeStore(t, e)
		ts.put(t, "acme", "p", nil, "/p/", 0, 0)
		for _, n := range []struct {
			id    string
			order float64
		}{{"c1", 0}, {"c2", 5}, {"c3", 7}, {"c4", 2}, {"c5", 2}, {"c6", 3.5}} {
			ts.put(t, "acme", n.id, "p", "/p/"+n.id+"/", 1, n.order)
		}
		ts.put(t, "acme", "q", nil, "/q/", 0, 9) // a root: not a sibling
		if err := ts.s.Renumber(t.Context(), ts.db, ts.c, "acme", strRef("p"), "c3"); err != nil {
			t.Fatal(err)
		}
		got := ts.state(t, "acme")
		want := map[string]string{"c1": "0", "c4": "1", "c5": "2", "c6": "3", "c2": "4", "c3": "7", "q": "9", "p": "0"}
		for id, w := range want {
			if o := got[id][strings.LastIndex(got[id], " ")+1:]; o != w {
				t.Errorf("order of %s: got %s, want %s", id, o, w)
			}
		}
		next, err := ts.s.NextOrder(t.Context(), ts.db, ts.c, "acme", strRef("p"))
		if err != nil || next != 8 {
			t.Errorf("next order: got %d, %v, want 8 (after c3 at 7)", next, err)
		}
		if n, err := ts.s.CountSiblings(t.Context(), ts.db, ts.c, "acme", strRef("p"), "c3"); err != nil || n != 5 {
			t.Errorf("siblings but c3: got %d, %v, want 5", n, err)
		}
		if has, err := ts.s.HasChildren(t.Context(), ts.db, ts.c, "acme", "p"); err != nil || !has {
			t.Errorf("p has children: got %v, %v, want true", has, err)
		}
		if has, err := ts.s.HasChildren(t.Context(), ts.db, ts.c, "globex", "p"); err != nil || has {
			t.Errorf("p has children in another team: got %v, %v, want false", has, err)
		}
	})
}

func strRef(s string) *string { return &s }

// TestTreeQueriesUseTheTeamFirstIndexes checks the indexes sync creates for
// a tree and that a subtree read and a subtree move are index range scans
// on (team_id, path), not table scans.
func TestTreeQueriesUseTheTeamFirstIndexes(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		ts := newTreeStore(t, e)
		ctx := t.Context()
		var indexes []string
		var err error
		if e == testdb.EnginePostgres {
			err = ts.db.NewRaw("SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'docs_folders'").Scan(ctx, &indexes)
		} else {
			err = ts.db.NewRaw("SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'docs_folders' AND sql IS NOT NULL").Scan(ctx, &indexes)
		}
		if err != nil {
			t.Fatal(err)
		}
		all := strings.NewReplacer(`"`, "", " ", "").Replace(strings.Join(indexes, "\n"))
		for _, want := range []string{"ix_docs_folders_tree_parent", "(team_id,parent_id,order)", "ix_docs_folders_tree_path", "(team_id,path)"} {
			if !strings.Contains(all, want) {
				t.Errorf("indexes: got\n%s\nwant one with %s", all, want)
			}
		}
		for i := range 200 {
			id := fmt.Sprintf("n%03d", i)
			ts.put(t, "acme", id, nil, "/"+id+"/", 0, float64(i))
		}
		if _, err := ts.s.Subtree(ctx, ts.db, ts.c, "acme", "n007", 0); err != nil {
			t.Fatal(err)
		}
		read := ts.log.last()
		if _, err := ts.s.MoveSubtree(ctx, ts.db, ts.c, "acme", "/n007/", "/n008/n007/", 1); err != nil {
			t.Fatal(err)
		}
		move := ts.log.lastWith("substr(") // the statement after it marks the team's rows changed (totals.go)
		for name, q := range map[string]loggedQuery{"subtree read": read, "subtree move": move} {
			plan := testdb.Explain(t, ts.db, []string{"enable_seqscan"}, q.sql, q.args...)
			if !strings.Contains(plan, "ix_docs_folders_tree_path") {
				t.Errorf("%s: plan\n%s\nwant it to use ix_docs_folders_tree_path (query %s %v)", name, plan, q.sql, q.args)
			}
		}
	})
}
