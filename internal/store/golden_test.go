package store_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/store"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/uptrace/bun"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/ with what the code produces now")

// ddlPrefixes are the statements of schema sync kept in the golden files:
// what it creates and changes, not what it reads or records.
var ddlPrefixes = []string{"CREATE TABLE", "CREATE INDEX", "CREATE UNIQUE INDEX", "CREATE VIRTUAL TABLE", "CREATE TRIGGER", "CREATE OR REPLACE FUNCTION", "ALTER ", "DROP ", "INSERT INTO", "TRUNCATE"}

// TestGoldenSchemaDDL syncs each example schemas folder into an empty
// database per engine and compares the DDL that sync runs with
// testdata/golden/<folder>.<engine>.sql, so a reviewer sees every change
// to the generated schema in a diff. Run with -update to rewrite the files
// (the PostgreSQL ones need KIT_TEST_POSTGRES; the trigram indexes in them
// assume pg_trgm can be had, as in CI).
func TestGoldenSchemaDDL(t *testing.T) {
	folders := []struct{ name, dir string }{
		{"examples-schemas", "../../examples/schemas"},
		{"examples-basic", "../../examples/basic/schemas"},
		{"unique-keys", "testdata/schemas"},
	}
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		for _, f := range folders {
			t.Run(f.name, func(t *testing.T) {
				reg, _, err := collections.Load(os.DirFS(f.dir), collections.LoadOptions{})
				if err != nil {
					t.Fatal(err)
				}
				s := store.New(testdb.Open(t, e), func() *collections.Registry { return reg })
				var mu sync.Mutex
				var b strings.Builder
				s.ObserveQueries(func(q string, _ []any) {
					if strings.Contains(q, "kit_collections") {
						return
					}
					for _, p := range ddlPrefixes {
						if strings.HasPrefix(q, p) {
							mu.Lock()
							b.WriteString(q + ";\n\n")
							mu.Unlock()
							return
						}
					}
				})
				if err := s.Sync(t.Context(), reg, store.SyncOptions{}); err != nil {
					t.Fatal(err)
				}
				got := b.String()
				if e == testdb.EnginePostgres {
					// Each test has a schema of its own, which the search
					// table's triggers name.
					var schema string
					if err := s.DB().QueryRowContext(t.Context(), "SELECT current_schema()").Scan(&schema); err != nil {
						t.Fatal(err)
					}
					got = strings.ReplaceAll(got, `"`+schema+`".`, `"<schema>".`)
				}
				testdb.CheckGolden(t, filepath.Join("testdata", "golden", f.name+"."+string(e)+".sql"), got, *update,
					"schema sync DDL", "go test ./internal/store -run Golden -update")
			})
		}
	})
}

// TestGoldenChangeLogSQL records the change log's statements per engine
// (a change recorded in a write, the log's end, the changes after a
// position, a prune) and compares them with
// testdata/golden/change-log.<engine>.sql, as TestGoldenSchemaDDL does for
// the schema. The record service's statements are kept the same way in
// kit/testdata/golden-sql.
func TestGoldenChangeLogSQL(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		f := newFixture(t, e)
		if err := store.CreateChangesTable(t.Context(), f.db); err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var b strings.Builder
		last := ""
		f.s.ObserveQueries(func(q string, _ []any) {
			mu.Lock()
			defer mu.Unlock()
			// ChangeHead polls until running transactions end: a
			// repeated statement is kept once.
			if q = strings.TrimSpace(q); q != last {
				b.WriteString(q + ";\n\n")
				last = q
			}
		})
		ctx := t.Context()
		ch := store.Change{TeamID: "t1", Collection: "shopProducts", Operation: "create", ItemIDs: []string{"a"}, CorrelationID: "c", Timestamp: 1}
		if err := f.s.RunWrite(ctx, store.Write{}, func(ctx context.Context, tx bun.Tx) error { return f.s.RecordChange(ctx, tx, ch) }); err != nil {
			t.Fatal(err)
		}
		if _, err := f.s.ChangeHead(ctx, time.Millisecond); err != nil {
			t.Fatal(err)
		}
		var cur store.ChangeCursor
		if _, err := f.s.NextChanges(ctx, &cur, 100); err != nil {
			t.Fatal(err)
		}
		if _, err := f.s.PruneChanges(ctx, time.Unix(0, 0), 10); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		got := b.String()
		mu.Unlock()
		testdb.CheckGolden(t, filepath.Join("testdata", "golden", "change-log."+string(e)+".sql"), got, *update,
			"the change log's statements", "go test ./internal/store -run Golden -update")
	})
}
