package store_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/internal/store"
	"github.com/collectionkit/kit/internal/testdb"
)

// auditRow is the model of the rows these tests join to logged writes;
// the table refuses a row whose N is 13.
type auditRow struct {
	bun.BaseModel `bun:"table:audit_rows"`

	ID   string    `bun:"id,pk,type:text"`
	Item string    `bun:"item,notnull,type:text"`
	At   time.Time `bun:"at,notnull"`
	N    int64     `bun:"n,notnull"`
	On   bool      `bun:"on,notnull"`
}

// joinedRun is a batchRun whose writes carry one audit row each, and
// which remembers what each row set's Done was told.
type joinedRun struct {
	batchRun
	mu   sync.Mutex
	done map[string][]error // by write name
}

// rowsOf returns the rows of write name: one row naming item, refused by
// the table when bad.
func (j *joinedRun) rowsOf(name, item string, bad bool) store.CommitRows {
	n := int64(1)
	if bad {
		n = 13
	}
	at := time.Date(2026, 11, 28, 12, 0, 0, 123456000, time.UTC)
	return store.CommitRows{Model: &[]auditRow{{ID: name, Item: item, At: at, N: n, On: true}}, Optional: true, Done: func(err error) {
		j.mu.Lock()
		defer j.mu.Unlock()
		j.done[name] = append(j.done[name], err)
	}}
}

// newJoinedRun returns a run on a fixture with the change log and the
// audit rows' table.
func newJoinedRun(t *testing.T, e testdb.Engine) *joinedRun {
	t.Helper()
	f, _ := newBatchFixture(t, e)
	ctx := t.Context()
	if _, err := f.db.NewCreateTable().Model((*auditRow)(nil)).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.ExecContext(ctx, `ALTER TABLE audit_rows ADD CONSTRAINT "not 13" CHECK (n <> 13)`); err != nil {
		t.Fatal(err)
	}
	j := &joinedRun{batchRun: batchRun{f: f}, done: map[string][]error{}}
	f.s.ObserveQueries(func(string, []any) { j.statements.Add(1) })
	return j
}

// auditItems returns the item of every audit row by row id.
func auditItems(t *testing.T, f *fixture) map[string]string {
	t.Helper()
	var rows []auditRow
	if err := f.db.NewSelect().Model(&rows).Scan(t.Context()); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range rows {
		if !r.At.Equal(time.Date(2026, 11, 28, 12, 0, 0, 123456000, time.UTC)) || r.N != 1 || !r.On {
			t.Errorf("audit row %s: got %v, %d, %v, want the values written", r.ID, r.At, r.N, r.On)
		}
		got[r.ID] = r.Item
	}
	return got
}

// checkJoined checks that the rows of exactly the writes in wrote are
// stored, each naming its record, that each of those writes' Done was
// told nil once, that the writes in refused were told an error once, and
// that no other write's Done was called.
func (j *joinedRun) checkJoined(t *testing.T, names []string, recordOf func(string) string, wrote, refused []string) {
	t.Helper()
	items := auditItems(t, j.f)
	for _, name := range names {
		item, stored := items[name]
		done := j.done[name]
		switch {
		case slices.Contains(wrote, name):
			if !stored || item != recordOf(name) {
				t.Errorf("rows of %s: got %q (stored %v), want one naming %s", name, item, stored, recordOf(name))
			}
			if len(done) != 1 || done[0] != nil {
				t.Errorf("Done of %s: got %v, want one call with nil", name, done)
			}
		case slices.Contains(refused, name):
			if stored {
				t.Errorf("rows of %s: stored, want none (the table refuses them)", name)
			}
			if len(done) != 1 || done[0] == nil || !strings.Contains(done[0].Error(), "not 13") {
				t.Errorf("Done of %s: got %v, want one call with the refusal", name, done)
			}
		default:
			if stored || len(done) != 0 {
				t.Errorf("rows of %s: got stored %v and Done %v, want neither (nothing written)", name, stored, done)
			}
		}
	}
}

// TestRowsJoinLoggedWritesOnPostgreSQL: optional rows given to
// InsertLogged, DeleteLogged and UpdateLoggedAt are inserted in the
// write's own statement, shared by concurrent writes, only for the
// records written; a statement the server refuses because of a write's
// rows runs each write alone and that one again without its rows, which
// commits it and tells Done the refusal; an update at a version the record
// no longer has writes nothing, not even its rows.
func TestRowsJoinLoggedWritesOnPostgreSQL(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		if e != testdb.EnginePostgres {
			t.Skip("SQLite writes through its queue")
		}
		t.Run("creates that share a statement insert each one's rows with it", func(t *testing.T) {
			j := newJoinedRun(t, e)
			first, queued := []string{"a", "b"}, []string{"c", "d", "e", "f"}
			j.run(t, first, queued, func(ctx context.Context, id string) error {
				rec, ch := batchRecord(id, "")
				return j.f.s.InsertLogged(ctx, nil, j.f.products, rec, ch, j.rowsOf(id, id, false))
			}, nil, nil)
			for id, err := range j.errs {
				if err != nil {
					t.Errorf("create %s: got %v, want no error", id, err)
				}
			}
			if got := j.statements.Load(); got != 1 {
				t.Errorf("statements after the release: got %d, want 1", got)
			}
			all := append(first, queued...)
			j.checkJoined(t, all, func(id string) string { return id }, all, nil)
		})
		t.Run("a create whose rows the table refuses commits without them and tells Done", func(t *testing.T) {
			j := newJoinedRun(t, e)
			first, queued := []string{"a", "b"}, []string{"c", "d", "e", "f"}
			j.run(t, first, queued, func(ctx context.Context, id string) error {
				rec, ch := batchRecord(id, "")
				return j.f.s.InsertLogged(ctx, nil, j.f.products, rec, ch, j.rowsOf(id, id, id == "d"))
			}, nil, nil)
			for id, err := range j.errs {
				if err != nil {
					t.Errorf("create %s: got %v, want no error", id, err)
				}
			}
			// The refused batch, each create alone, and "d" again.
			if got := j.statements.Load(); got != 1+4+1 {
				t.Errorf("statements after the release: got %d, want 6", got)
			}
			if got := countOf(t, j.f.db, "shop_products"); got != 6 {
				t.Errorf("records: got %d, want 6", got)
			}
			all := append(first, queued...)
			j.checkJoined(t, all, func(id string) string { return id }, slices.DeleteFunc(slices.Clone(all), func(id string) bool { return id == "d" }), []string{"d"})
		})
		t.Run("deletes in a batch insert rows only for the records they deleted", func(t *testing.T) {
			j := newJoinedRun(t, e)
			ids := map[string]string{"none": "00000000-0000-7000-8000-000000000000"}
			for _, name := range []string{"a", "b", "c", "d", "f"} {
				ids[name] = j.f.insert(t, j.f.products, "t1", map[string]any{"title": "stored"})
			}
			first, queued := []string{"a", "b"}, []string{"c", "d", "none", "f"}
			j.run(t, first, queued, func(ctx context.Context, name string) error {
				ch := &store.Change{TeamID: "t1", Collection: "shopProducts", Operation: "delete", ItemIDs: []string{ids[name]}, CorrelationID: "corr-" + name}
				return j.f.s.DeleteLogged(ctx, nil, j.f.products, "t1", ids[name], ch, j.rowsOf(name, ids[name], false))
			}, nil, nil)
			for name, err := range j.errs {
				if want := name == "none"; errors.Is(err, store.ErrNotFound) != want || !want && err != nil {
					t.Errorf("delete %s: got %v, want not found %v", name, err, want)
				}
			}
			if got := j.statements.Load(); got != 1 {
				t.Errorf("statements after the release: got %d, want 1", got)
			}
			all := append(first, queued...)
			j.checkJoined(t, all, func(name string) string { return ids[name] }, []string{"a", "b", "c", "d", "f"}, nil)
		})
		t.Run("updates at a version write rows only for records still at it", func(t *testing.T) {
			j := newJoinedRun(t, e)
			ctx := t.Context()
			ids, versions := map[string]string{}, map[string]string{}
			for _, name := range []string{"a", "b", "c", "d", "e", "f"} {
				ids[name] = j.f.insert(t, j.f.products, "t1", map[string]any{"title": "stored"})
				before, v, err := j.f.s.GetVersioned(ctx, j.f.products, "t1", ids[name])
				if err != nil || before["title"] != "stored" || v == "" {
					t.Fatalf("GetVersioned %s: got %v, %q, %v, want the record and a version", name, before["title"], v, err)
				}
				versions[name] = v
			}
			// "d" is written after it was read: its version is stale.
			if _, err := j.f.db.ExecContext(ctx, `UPDATE shop_products SET title = 'meanwhile' WHERE id = ?`, ids["d"]); err != nil {
				t.Fatal(err)
			}
			first, queued := []string{"a", "b"}, []string{"c", "d", "e", "f"}
			var mu sync.Mutex
			befores := map[string]store.Record{}
			j.run(t, first, queued, func(ctx context.Context, name string) error {
				ch := &store.Change{TeamID: "t1", Collection: "shopProducts", Operation: "update", ItemIDs: []string{ids[name]}, CorrelationID: "corr-" + name}
				before, err := j.f.s.UpdateLoggedAt(ctx, nil, j.f.products, "t1", ids[name], versions[name], store.Record{"title": "new " + name}, ch, j.rowsOf(name, ids[name], false))
				mu.Lock()
				befores[name] = before
				mu.Unlock()
				return err
			}, nil, nil)
			for name, err := range j.errs {
				if want := name == "d"; errors.Is(err, store.ErrNotFound) != want || !want && err != nil {
					t.Errorf("update %s: got %v, want not found %v", name, err, want)
				}
				if name != "d" && befores[name]["title"] != "stored" {
					t.Errorf("update %s: got the record before as %v, want title stored", name, befores[name]["title"])
				}
			}
			if got := j.statements.Load(); got != 1 {
				t.Errorf("statements after the release: got %d, want 1", got)
			}
			var title string
			if err := j.f.db.QueryRowContext(ctx, `SELECT title FROM shop_products WHERE id = ?`, ids["d"]).Scan(&title); err != nil || title != "meanwhile" {
				t.Errorf("the stale update's record: got title %q (%v), want it left as written meanwhile", title, err)
			}
			all := append(first, queued...)
			j.checkJoined(t, all, func(name string) string { return ids[name] }, []string{"a", "b", "c", "e", "f"}, nil)
		})
	})
}

// TestRowsThatCannotJoinALoggedWrite: rows that are not optional, or of a
// model whose fields bun would write differently from a plain value, are
// refused before anything is written; on SQLite no rows join a statement.
func TestRowsThatCannotJoinALoggedWrite(t *testing.T) {
	type jsonRow struct {
		bun.BaseModel `bun:"table:audit_rows"`
		ID            string         `bun:"id,pk"`
		Meta          map[string]any `bun:"meta,type:jsonb"`
	}
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		if e != testdb.EnginePostgres {
			f := newFixture(t, e)
			if f.s.JoinsRows([]store.CommitRows{{Model: &[]auditRow{{ID: "x"}}, Optional: true}}) {
				t.Error("JoinsRows on SQLite: got true, want false")
			}
			return
		}
		cases := []struct {
			name string
			rows store.CommitRows
		}{
			{name: "required rows", rows: store.CommitRows{Model: &[]auditRow{{ID: "x", Item: "x"}}}},
			{name: "rows with a JSON field", rows: store.CommitRows{Model: &[]jsonRow{{ID: "x"}}, Optional: true}},
		}
		for i, c := range cases {
			t.Run(c.name+" are refused and nothing is written", func(t *testing.T) {
				j := newJoinedRun(t, e)
				if j.f.s.JoinsRows([]store.CommitRows{c.rows}) {
					t.Error("JoinsRows: got true, want false")
				}
				rec, ch := batchRecord(fmt.Sprintf("refused-%d", i), "")
				if err := j.f.s.InsertLogged(t.Context(), nil, j.f.products, rec, ch, c.rows); err == nil {
					t.Error("InsertLogged: got no error, want one")
				}
				if got := countOf(t, j.f.db, "shop_products"); got != 0 {
					t.Errorf("records: got %d, want 0", got)
				}
			})
		}
	})
}

// TestConcurrentVersionedReadsOnPostgreSQLShareAStatement: GetVersioned
// calls that arrive while the collection's statements' slots are taken
// wait and then go together in one statement, each with its own record
// and version (the one the record has), or ErrNotFound for a record its
// team does not have.
func TestConcurrentVersionedReadsOnPostgreSQLShareAStatement(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		if e != testdb.EnginePostgres {
			t.Skip("SQLite reads do not share statements")
		}
		f, _ := newBatchFixture(t, e)
		ctx := t.Context()
		ids := map[string]string{"none": "00000000-0000-7000-8000-000000000000"}
		for _, name := range []string{"a", "b", "c", "d", "f"} {
			ids[name] = f.insert(t, f.products, "t1", map[string]any{"title": "title " + name})
		}
		ids["other"] = f.insert(t, f.products, "t2", map[string]any{"title": "title other"})
		b := &batchRun{f: f, lockMode: "ACCESS EXCLUSIVE"}
		f.s.ObserveQueries(func(string, []any) { b.statements.Add(1) })
		var mu sync.Mutex
		got, versions := map[string]store.Record{}, map[string]string{}
		first, queued := []string{"a", "b"}, []string{"c", "d", "none", "other"}
		b.run(t, first, queued, func(ctx context.Context, name string) error {
			rec, v, err := f.s.GetVersioned(ctx, f.products, "t1", ids[name])
			mu.Lock()
			got[name], versions[name] = rec, v
			mu.Unlock()
			return err
		}, nil, nil)
		if n := b.statements.Load(); n != 1 {
			t.Errorf("statements after the release: got %d, want 1", n)
		}
		for _, name := range append(first, queued...) {
			err := b.errs[name]
			if name == "none" || name == "other" {
				if !errors.Is(err, store.ErrNotFound) {
					t.Errorf("read of %s: got %v, want ErrNotFound", name, err)
				}
				continue
			}
			var xmin string
			if err := f.db.QueryRowContext(ctx, `SELECT CAST(xmin AS TEXT) FROM shop_products WHERE id = ?`, ids[name]).Scan(&xmin); err != nil {
				t.Fatal(err)
			}
			if err != nil || got[name]["id"] != ids[name] || got[name]["title"] != "title "+name || versions[name] != xmin {
				t.Errorf("read of %s: got %v, %v, version %q, %v, want its record at version %q", name, got[name]["id"], got[name]["title"], versions[name], err, xmin)
			}
		}
	})
}
