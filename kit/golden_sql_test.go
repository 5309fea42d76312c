package kit_test

import (
	"context"
	"flag"
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
)

// statementLog is a bun.QueryHook (kit.Config.QueryHook) that keeps the
// statements it sees while recording.
type statementLog struct {
	mu        sync.Mutex
	recording bool
	got       []string
}

func (l *statementLog) BeforeQuery(ctx context.Context, e *bun.QueryEvent) context.Context {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.recording && !background(e.Query) {
		l.got = append(l.got, e.Query)
	}
	return ctx
}

func (l *statementLog) AfterQuery(context.Context, *bun.QueryEvent) {}

// record runs fn and returns the statements it ran, in order.
func (l *statementLog) record(fn func() error) ([]string, error) {
	l.mu.Lock()
	l.recording, l.got = true, nil
	l.mu.Unlock()
	err := fn()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.recording = false
	return l.got, err
}

// background reports whether q is one of the statements kit runs on its
// own schedule (the change log's reader, periodic claims, WAL
// checkpoints), which may fall inside a recording.
func background(q string) bool {
	for _, s := range []string{"FROM kit_changes WHERE id >", "MAX(id)", "pg_snapshot_xmin", "kit_periodic", "wal_checkpoint", "kit_changes_pruned", "BEGIN", "COMMIT", "ROLLBACK"} {
		if strings.Contains(q, s) {
			return true
		}
	}
	return false
}

// The PostgreSQL suites run in a schema of their own, which some
// statements name; UUIDs and times are arguments, never in the text.
var schemaName = regexp.MustCompile(`"kit_test_[a-z0-9_]+"\.`)

// TestGoldenSQL runs each statement shape of the record service (the
// list of each search plan, filter operators, sorts, ids and totals; get;
// create, update, delete and bulk delete; tree move and reorder) through
// kit's Go API on each engine, and compares the statements they ran with
// testdata/golden-sql/<engine>/<case>.sql, so that a reviewer sees every
// change to the SQL kit runs in a diff. Run with -update to rewrite the
// files (the PostgreSQL ones need KIT_TEST_POSTGRES). Each case runs on a
// Kit of its own, seeded the same way, so a case's statements do not
// depend on the cases before it.
func TestGoldenSQL(t *testing.T) {
	type env struct {
		k     *kit.Kit
		ids   []string // the seeded products, in creation order
		cats  []string
		nodes map[string]string // tree and list records by title
	}
	list := func(params string) func(context.Context, *env) error {
		return func(ctx context.Context, e *env) error {
			v, err := url.ParseQuery(params)
			if err != nil {
				return err
			}
			_, err = e.k.Records(productsKey).List(ctx, adminA, v)
			return err
		}
	}
	cases := []struct {
		name string
		run  func(context.Context, *env) error
	}{
		{"get", func(ctx context.Context, e *env) error {
			_, err := e.k.Records(productsKey).Get(ctx, adminA, e.ids[3])
			return err
		}},
		{"list-first-page", list("")},
		{"list-later-page", list("page=2&pageSize=5")},
		{"list-sort-by-title", list("sort=title")},
		{"list-sort-by-price-descending", list("sort=-price")},
		{"list-by-ids", func(ctx context.Context, e *env) error {
			_, err := e.k.Records(productsKey).List(ctx, adminA, url.Values{"ids": {e.ids[1] + "," + e.ids[4] + "," + e.ids[7]}})
			return err
		}},
		{"list-filter-equal-on-an-indexed-field", list(`filter={"status":{"eq":"live"}}`)},
		{"list-filter-comparisons", list(`filter={"weight":{"gte":2,"lt":9}}`)},
		{"list-filter-not-equal", list(`filter={"status":{"ne":"live"}}`)},
		{"list-filter-in-and-not-in", list(`filter={"status":{"in":["live","draft"]},"sku":{"nin":["sku-1"]}}`)},
		{"list-filter-contains-and-starts-with", list(`filter={"title":{"contains":"amp"},"description":{"startsWith":"No"}}`)},
		{"list-filter-is-null", list(`filter={"publishedAt":{"isNull":true}}`)},
		{"list-filter-text-range", list(`filter={"title":{"gt":"Lamp 1"}}`)},
		{"list-filter-twice-uses-the-remembered-total", func(ctx context.Context, e *env) error {
			for range 2 {
				if err := list(`filter={"weight":{"gt":3}}`)(ctx, e); err != nil {
					return err
				}
			}
			return nil
		}},
		{"list-search-for-a-rare-term", list("search=quartz")},
		{"list-search-for-a-common-term", list("search=lamp")},
		{"list-search-for-a-short-term", list("search=la")},
		{"list-search-with-a-filter", list(`search=lamp&filter={"status":{"eq":"live"}}`)},
		{"list-search-with-unicode-case", list("search=%C3%A4rger")},
		{"create", func(ctx context.Context, e *env) error {
			_, err := e.k.Records(productsKey).Create(ctx, adminA, map[string]any{"title": "New", "sku": "sku-new", "price": "9.50", "categoryId": e.cats[0]})
			return err
		}},
		{"update", func(ctx context.Context, e *env) error {
			_, err := e.k.Records(productsKey).Update(ctx, adminA, e.ids[2], map[string]any{"title": "Renamed", "weight": 4.5})
			return err
		}},
		{"update-with-if-match", func(ctx context.Context, e *env) error {
			rec, err := e.k.Records(productsKey).Get(ctx, adminA, e.ids[2])
			if err != nil {
				return err
			}
			_, err = e.k.Records(productsKey).UpdateWith(ctx, adminA, e.ids[2], map[string]any{"title": "Renamed"}, kit.WriteOptions{IfMatch: []string{kit.ETag(rec)}})
			return err
		}},
		{"update-of-a-unique-field", func(ctx context.Context, e *env) error {
			_, err := e.k.Records(productsKey).Update(ctx, adminA, e.ids[2], map[string]any{"sku": "sku-changed"})
			return err
		}},
		{"delete", func(ctx context.Context, e *env) error {
			return e.k.Records(productsKey).Delete(ctx, adminA, e.ids[5])
		}},
		{"delete-of-a-referenced-record", func(ctx context.Context, e *env) error {
			err := e.k.Records(categoriesKey).Delete(ctx, adminA, e.cats[0])
			if err == nil {
				return fmt.Errorf("the delete of a referenced category succeeded")
			}
			return nil
		}},
		{"bulk-delete", func(ctx context.Context, e *env) error {
			return e.k.Records(productsKey).DeleteMany(ctx, adminA, []string{e.ids[6], e.ids[8], e.ids[9]})
		}},
		{"tree-move", func(ctx context.Context, e *env) error {
			parent := e.nodes["Guides"]
			_, err := e.k.Records(foldersKey).Move(ctx, treeAdam, e.nodes["Setup"], &parent, 0)
			return err
		}},
		{"tree-move-to-the-root", func(ctx context.Context, e *env) error {
			_, err := e.k.Records(foldersKey).Move(ctx, treeAdam, e.nodes["Install"], nil, 1)
			return err
		}},
		{"reorder", func(ctx context.Context, e *env) error {
			return e.k.Records(tasksKey).Reorder(ctx, treeAdam, []string{e.nodes["Third"], e.nodes["First"], e.nodes["Second"]})
		}},
	}
	testdb.Each(t, func(t *testing.T, engine testdb.Engine) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				log := &statementLog{}
				defs := append(shopDefs(), treeDefinitions()...)
				k := newKitConfig(t, kit.Config{DB: testdb.Open(t, engine), Definitions: defs, QueryHook: log})
				seedActors(t, k, treeAdam)
				e := &env{k: k, nodes: map[string]string{}}
				seedGolden(t, e.k, &e.ids, &e.cats, e.nodes)
				got, err := log.record(func() error { return c.run(t.Context(), e) })
				if err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				var b strings.Builder
				for _, q := range got {
					b.WriteString(strings.TrimSpace(schemaName.ReplaceAllString(q, `"<schema>".`)) + ";\n\n")
				}
				testdb.CheckGolden(t, filepath.Join("testdata", "golden-sql", string(engine), c.name+".sql"), b.String(), *updateGolden,
					"the statements of "+c.name, "go test ./kit -run TestGoldenSQL -update")
			})
		}
	})
}

// seedGolden writes the records every golden case starts from: three
// categories, twelve products with varied fields, a tree of four folders
// and a list of three tasks.
func seedGolden(t *testing.T, k *kit.Kit, ids, cats *[]string, nodes map[string]string) {
	t.Helper()
	ctx := t.Context()
	for i := range 3 {
		rec := mustCreate(t, k, categoriesKey, adminA, map[string]any{"name": fmt.Sprintf("Category %d", i)})
		*cats = append(*cats, rec["id"].(string))
	}
	statuses := []string{"live", "draft", "archived"}
	for i := range 12 {
		data := map[string]any{
			"title":       fmt.Sprintf("Lamp %d", i),
			"description": fmt.Sprintf("Note %d", i),
			"status":      statuses[i%3],
			"sku":         fmt.Sprintf("sku-%d", i),
			"price":       fmt.Sprintf("%d.25", i),
			"weight":      float64(i),
			"categoryId":  (*cats)[i%3],
		}
		if i == 4 {
			data["title"] = "Quartz lamp"
		}
		rec := mustCreate(t, k, productsKey, adminA, data)
		*ids = append(*ids, rec["id"].(string))
	}
	folder := func(title string, parent *string) string {
		data := map[string]any{"title": title}
		if parent != nil {
			data["parentId"] = *parent
		}
		rec, err := k.Records(foldersKey).Create(ctx, treeAdam, data)
		if err != nil {
			t.Fatal(err)
		}
		nodes[title] = rec["id"].(string)
		return nodes[title]
	}
	guides := folder("Guides", nil)
	setup := folder("Setup", nil)
	folder("Install", &setup)
	folder("Usage", &guides)
	for _, title := range []string{"First", "Second", "Third"} {
		rec, err := k.Records(tasksKey).Create(ctx, treeAdam, map[string]any{"title": title})
		if err != nil {
			t.Fatal(err)
		}
		nodes[title] = rec["id"].(string)
	}
}

var updateGolden = flag.Bool("update", false, "rewrite the golden files under testdata/ with what the code produces now")
