package store_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/pgopen"
	"github.com/collectionkit/kit/internal/store"
	"github.com/collectionkit/kit/internal/testdb"
)

// searchTableStore syncs shop/products with fields on a fresh PostgreSQL
// schema (skipping t without KIT_TEST_POSTGRES).
func searchTableStore(t *testing.T, fields ...collections.Field) (*bun.DB, *store.Store, *collections.Collection) {
	t.Helper()
	db := testdb.PostgresDB(t)
	s, c := syncProducts(t, db, fields...)
	return db, s, c
}

// syncProducts syncs shop/products with fields into db and returns a
// store for it.
func syncProducts(t *testing.T, db *bun.DB, fields ...collections.Field) (*store.Store, *collections.Collection) {
	t.Helper()
	reg, _, err := collections.Build([]collections.Definition{{Name: "products", Layer: "shop", Fields: fields}}, collections.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := store.New(db, func() *collections.Registry { return reg })
	if err := store.CreateMetaTable(t.Context(), db); err != nil {
		t.Fatal(err)
	}
	// Destructive: a test that removes a field means it.
	if err := s.Sync(t.Context(), reg, store.SyncOptions{Drop: true}); err != nil {
		t.Fatal(err)
	}
	c, _ := reg.Get("shopProducts")
	return s, c
}

var titleAndDescription = []collections.Field{
	{Name: "title", Type: collections.TypeString},
	{Name: "description", Type: collections.TypeText},
	{Name: "stock", Type: collections.TypeNumber},
}

// queryStrings runs q and returns its rows, each row's columns joined by
// "|".
func queryStrings(t *testing.T, db *bun.DB, q string) []string {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = v.String
		}
		out = append(out, strings.Join(parts, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPostgresSearchTableHasATrigramIndexThePlannerCanUse checks that sync
// puts the searched text of shop/products in a search table with one GIN
// trigram index that can answer the search predicate (ILIKE '%term%'), and
// leaves no trigram index on the collection table, whose updates would
// otherwise write every trigram again. Whether the planner prefers the
// index for a given team is its call, from the statistics.
func TestPostgresSearchTableHasATrigramIndexThePlannerCanUse(t *testing.T) {
	db, _, c := searchTableStore(t, titleAndDescription...)
	ctx := t.Context()
	trigram := func(table string) []string { return trigramIndexes(t, db, table) }
	if got := trigram(c.Table()); len(got) != 0 {
		t.Errorf("trigram indexes on %s: got %v, want none", c.Table(), got)
	}
	st := store.SearchTable(c.Table())
	if got, want := trigram(st), []string{"sg_shop_products_search"}; !slices.Equal(got, want) {
		t.Fatalf("trigram indexes on %s: got %v, want %v", st, got, want)
	}
	// One team holding every row: only the trigram index is selective.
	if _, err := db.ExecContext(ctx, `INSERT INTO shop_products (id, team_id, owner, title, description, created_at, updated_at, created_by, updated_by)
		SELECT 'id-' || g, 't1', 'u', 'item ' || md5(g::text), md5((g * 7)::text), now(), now(), 'u', 'u' FROM generate_series(1, 5000) AS g`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "ANALYZE "+st); err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SET enable_seqscan = off"); err != nil {
		t.Fatal(err)
	}
	rows, err := conn.QueryContext(ctx, `EXPLAIN SELECT count(*) FROM `+st+` WHERE doc ILIKE '%c4ca4%'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, line)
	}
	if p := strings.Join(plan, "\n"); !strings.Contains(p, "sg_shop_products_search") {
		t.Errorf("plan: got\n%s\nwant a scan of the trigram index", p)
	}
}

// TestPostgresSearchTableFollowsEveryWriter writes to the collection table
// with plain SQL, as another program would, and checks after each
// statement that the search table holds exactly each row's team, id,
// creation time and searched fields (joined by the unit separator, ASCII
// letters in lower case).
func TestPostgresSearchTableFollowsEveryWriter(t *testing.T) {
	db, _, c := searchTableStore(t, titleAndDescription...)
	st := store.SearchTable(c.Table())
	insert := func(values string) string {
		return `INSERT INTO shop_products (id, team_id, owner, title, description, stock, created_at, updated_at, created_by, updated_by) VALUES ` + values
	}
	row := func(id, team, title, desc string) string {
		return fmt.Sprintf("(%s, %s, 'u', %s, %s, 1, now(), now(), 'u', 'u')", id, team, title, desc)
	}
	steps := []struct{ name, sql string }{
		{"a row inserted alone is copied", insert(row("'a'", "'t1'", "'Red lamp'", "'bright'"))},
		{"the rows of one multi-row insert are all copied", insert(row("'b'", "'t1'", "'Blue chair'", "NULL") + ", " + row("'c'", "'t2'", "NULL", "NULL") + ", " + row("'d'", "'t2'", "'Desk'", "'oak'"))},
		{"a change of a searched field is copied", `UPDATE shop_products SET title = 'Green lamp' WHERE id = 'a'`},
		{"a field set to null leaves an empty part", `UPDATE shop_products SET description = NULL WHERE id = 'd'`},
		{"a change of another field leaves the text as it was", `UPDATE shop_products SET stock = 7 WHERE id = 'b'`},
		{"a row moved to another team moves", `UPDATE shop_products SET team_id = 't2' WHERE id = 'b'`},
		{"a row with a new id follows", `UPDATE shop_products SET id = 'b2' WHERE id = 'b'`},
		{"a new creation time follows", `UPDATE shop_products SET created_at = created_at - interval '1 day' WHERE id = 'd'`},
		{"an update of several rows copies each", `UPDATE shop_products SET description = 'sale ' || id`},
		{"a deleted row goes", `DELETE FROM shop_products WHERE id = 'c'`},
		{"an insert after the delete is copied", insert(row("'e'", "'t1'", "'Lamp'", "'e'"))},
		{"a truncate empties it", `TRUNCATE shop_products`},
		{"an insert after the truncate is copied", insert(row("'f'", "'t1'", "'Stool'", "'pine'"))},
	}
	for _, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			if _, err := db.ExecContext(t.Context(), step.sql); err != nil {
				t.Fatalf("%s: %v", step.sql, err)
			}
			want := queryStrings(t, db, `SELECT team_id, id, created_at, lower(coalesce(title, '') || chr(31) || coalesce(description, '')) FROM shop_products ORDER BY team_id, id`)
			got := queryStrings(t, db, `SELECT team_id, id, created_at, doc FROM `+st+` ORDER BY team_id, id`)
			if !slices.Equal(got, want) {
				t.Errorf("search table: got %q, want %q", got, want)
			}
		})
	}
}

// TestPostgresSearchMatchesTheFieldsNotTheirJoin checks searches and
// contains filters that go through the search table against the same
// queries on the fields themselves: a term never matches across two
// fields, and one that holds the separator tests the fields.
func TestPostgresSearchMatchesTheFieldsNotTheirJoin(t *testing.T) {
	db, s, c := searchTableStore(t, titleAndDescription...)
	f := &fixture{db: db, s: s, products: c}
	words := [][2]string{
		{"Red lamp", "bright ab"},
		{"cd blue", "ok"},
		{"ab", "cd"},
		{"Ärger 100%", "a_b"},
		{"unit\x1fsep", "x"},
		{"straße", ""},
		{"lamp lamp", "LAMP"},
	}
	for i, w := range words {
		team := "t1"
		if i%3 == 2 {
			team = "t2"
		}
		fields := map[string]any{"title": w[0]}
		if w[1] != "" {
			fields["description"] = w[1]
		}
		f.insert(t, c, team, fields)
	}
	f.insert(t, c, "t1", map[string]any{"title": "ab"})
	terms := []string{"lamp", "LAMP", "ab", "abcd", "b\x1fc", "t\x1fs", "ärger", "0%", "a_b", "_", "x", "straße", "nothing"}
	for _, term := range terms {
		for _, team := range []string{"t1", "t2"} {
			for _, param := range []struct{ name, key, value string }{
				{"a search", "search", term},
				{"a contains filter on title", "filter", `{"title":{"contains":` + jsonString(t, term) + `}}`},
				{"a startsWith filter on description", "filter", `{"description":{"startsWith":` + jsonString(t, term) + `}}`},
			} {
				t.Run(fmt.Sprintf("%s for %q in %s matches what the fields match", param.name, term, team), func(t *testing.T) {
					params := url.Values{param.key: {param.value}, "pageSize": {"100"}, "sort": {"createdAt"}}
					s.SetNoSearchIndex(false)
					got := f.list(t, team, params)
					s.SetNoSearchIndex(true)
					want := f.list(t, team, params)
					s.SetNoSearchIndex(false)
					if !slices.Equal(ids(got.Records), ids(want.Records)) || got.Total != want.Total {
						t.Errorf("got %d %v, want the fields' %d %v", got.Total, ids(got.Records), want.Total, ids(want.Records))
					}
				})
			}
		}
	}
	t.Run("a term that spans two fields matches nothing", func(t *testing.T) {
		if got := f.list(t, "t1", url.Values{"search": {"abcd"}}); got.Total != 0 {
			t.Errorf("got %d matches %v, want 0", got.Total, ids(got.Records))
		}
	})
	t.Run("a term with the separator matches the field that holds it", func(t *testing.T) {
		if got := f.list(t, "t1", url.Values{"search": {"t\x1fs"}}); got.Total != 1 {
			t.Errorf("got %d matches %v, want 1", got.Total, ids(got.Records))
		}
	})
}

func jsonString(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestPostgresSearchTableFollowsTheSearchedFields syncs shop/products
// again with a text field more, then with none, and checks that the
// search table is filled again with the new field's text, then dropped.
func TestPostgresSearchTableFollowsTheSearchedFields(t *testing.T) {
	db := testdb.PostgresDB(t)
	s, c := syncProducts(t, db, collections.Field{Name: "title", Type: collections.TypeString}, collections.Field{Name: "stock", Type: collections.TypeNumber})
	f := &fixture{db: db, s: s, products: c}
	f.insert(t, c, "t1", map[string]any{"title": "Lamp", "stock": 3})
	if got := f.list(t, "t1", url.Values{"search": {"lamp"}}); got.Total != 1 {
		t.Fatalf("before: got %d matches, want 1", got.Total)
	}
	s, c = syncProducts(t, db, collections.Field{Name: "title", Type: collections.TypeString}, collections.Field{Name: "notes", Type: collections.TypeText},
		collections.Field{Name: "stock", Type: collections.TypeNumber})
	f = &fixture{db: db, s: s, products: c}
	f.insert(t, c, "t1", map[string]any{"title": "Chair", "notes": "by the lamp"})
	t.Run("a field added to the search is searched in old and new rows", func(t *testing.T) {
		if _, err := db.ExecContext(t.Context(), `UPDATE shop_products SET notes = 'oak' WHERE title = 'Lamp'`); err != nil {
			t.Fatal(err)
		}
		for term, want := range map[string]int{"lamp": 2, "oak": 1, "chair": 1} {
			if got := f.list(t, "t1", url.Values{"search": {term}}); got.Total != want {
				t.Errorf("search for %q: got %d matches, want %d", term, got.Total, want)
			}
		}
	})
	syncProducts(t, db, collections.Field{Name: "stock", Type: collections.TypeNumber})
	t.Run("a collection without searched fields has no search table", func(t *testing.T) {
		got := queryStrings(t, db, `SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = '`+store.SearchTable(c.Table())+`'`)
		if !slices.Equal(got, []string{"0"}) {
			t.Errorf("search tables: got %v, want 0", got)
		}
	})
}

// TestSyncMovesPostgresSearchFromTrigramIndexesToTheSearchTable puts a
// table back as kit before the search table left it (a trigram index per
// searched field, search format 4) and checks that the next sync drops
// those indexes and fills the search table from the rows.
func TestSyncMovesPostgresSearchFromTrigramIndexesToTheSearchTable(t *testing.T) {
	db := testdb.PostgresDB(t)
	s, c := syncProducts(t, db, titleAndDescription...)
	f := &fixture{db: db, s: s, products: c}
	f.insert(t, c, "t1", map[string]any{"title": "Lamp", "description": "brass"})
	f.insert(t, c, "t1", map[string]any{"title": "Chair"})
	st := store.SearchTable(c.Table())
	ctx := t.Context()
	older := []string{
		`DROP TRIGGER st_shop_products_search_ins ON shop_products`, `DROP TRIGGER st_shop_products_search_upd ON shop_products`,
		`DROP TRIGGER st_shop_products_search_del ON shop_products`, `DROP TRIGGER st_shop_products_search_trn ON shop_products`,
		`DROP TABLE ` + st,
		`CREATE INDEX tg_shop_products_title ON shop_products USING gin (title public.gin_trgm_ops)`,
		`CREATE INDEX tg_shop_products_description ON shop_products USING gin (description public.gin_trgm_ops)`,
		// One of the host's own, which sync leaves alone.
		`CREATE INDEX my_title_trigrams ON shop_products USING gin (title public.gin_trgm_ops)`,
		`UPDATE kit_collections SET definition = replace(definition, '"searchFormat":5', '"searchFormat":4'), hash = 'older' WHERE key = 'shopProducts'`,
	}
	for _, q := range older {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if got := queryStrings(t, db, `SELECT definition LIKE '%"searchFormat":4%' FROM kit_collections WHERE key = 'shopProducts'`); !slices.Equal(got, []string{"true"}) {
		t.Fatalf("stored definition holds format 4: got %v, want true", got)
	}
	s, c = syncProducts(t, db, titleAndDescription...)
	f = &fixture{db: db, s: s, products: c}
	t.Run("kit's trigram indexes on the collection table are gone and the host's stays", func(t *testing.T) {
		got := trigramIndexes(t, db, "shop_products")
		if want := []string{"my_title_trigrams"}; !slices.Equal(got, want) {
			t.Errorf("got %v, want %v", got, want)
		}
	})
	t.Run("the search table holds every row", func(t *testing.T) {
		got := queryStrings(t, db, `SELECT doc FROM `+st+` ORDER BY doc`)
		if want := []string{"chair\x1f", "lamp\x1fbrass"}; !slices.Equal(got, want) {
			t.Errorf("got %q, want %q", got, want)
		}
	})
	t.Run("search finds the rows written before the sync", func(t *testing.T) {
		if got := f.list(t, "t1", url.Values{"search": {"brass"}}); got.Total != 1 {
			t.Errorf("got %d matches, want 1", got.Total)
		}
	})
}

// TestSyncRepairsTheSearchTriggersOfARenamedSchema renames the schema of a
// synced table: the triggers' functions still name the old schema, so a
// write fails, loudly; the next sync (an unchanged definition otherwise
// costs one read) makes them again, and writes and searches work.
func TestSyncRepairsTheSearchTriggersOfARenamedSchema(t *testing.T) {
	dsn := testdb.PostgresDSN(t)
	schema := testdb.NewSchema(t, dsn)
	ctx := t.Context()
	open := func(schema string) *bun.DB {
		db, err := pgopen.Open(ctx, dsn, pgopen.Options{SearchPath: schema, MaxOpenConns: 2})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	db := open(schema)
	syncProducts(t, db, titleAndDescription...)
	db.Close()
	renamed := schema + "_renamed"
	admin := open("public")
	if _, err := admin.ExecContext(ctx, "ALTER SCHEMA "+schema+" RENAME TO "+renamed); err != nil {
		t.Fatal(err)
	}
	// NewSchema's cleanup drops the schema by its first name.
	t.Cleanup(func() { _, _ = admin.ExecContext(context.Background(), "ALTER SCHEMA "+renamed+" RENAME TO "+schema) })
	db = open(renamed)
	insert := `INSERT INTO shop_products (id, team_id, owner, title, created_at, updated_at, created_by, updated_by) VALUES ('a', 't1', 'u', 'Lamp', now(), now(), 'u', 'u')`
	t.Run("a write before the sync fails", func(t *testing.T) {
		if _, err := db.ExecContext(ctx, insert); err == nil || !strings.Contains(err.Error(), schema) {
			t.Errorf("got %v, want an error naming the old schema", err)
		}
	})
	s, c := syncProducts(t, db, titleAndDescription...)
	t.Run("a write after the sync is searchable", func(t *testing.T) {
		if _, err := db.ExecContext(ctx, insert); err != nil {
			t.Fatal(err)
		}
		f := &fixture{db: db, s: s, products: c}
		if got := f.list(t, "t1", url.Values{"search": {"lamp"}}); got.Total != 1 {
			t.Errorf("got %d matches, want 1", got.Total)
		}
	})
}

// trigramIndexes returns the names of table's GIN trigram indexes in the
// current schema, in order. The subquery (OFFSET 0 keeps it apart) limits
// pg_get_indexdef to this schema's indexes: evaluated on another test's
// index while that test drops its schema, it fails with "could not open
// relation".
func trigramIndexes(t *testing.T, db *bun.DB, table string) []string {
	t.Helper()
	return queryStrings(t, db, `SELECT indexname FROM (SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = '`+table+`' OFFSET 0) AS ix
		WHERE indexdef LIKE '%gin_trgm_ops%' ORDER BY indexname`)
}
