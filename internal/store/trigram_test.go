package store_test

import (
	"strings"
	"testing"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/store"
	"github.com/collectionkit/kit/internal/testdb"
)

// TestPostgresSearchHasTrigramIndexesThePlannerCanUse checks that sync
// gives every searched column a GIN trigram index that can answer the
// search predicate (ILIKE '%term%'). Whether the planner prefers it to the
// team index for a given team is its call, from the table's statistics.
func TestPostgresSearchHasTrigramIndexesThePlannerCanUse(t *testing.T) {
	db := testdb.PostgresDB(t)
	reg, _, err := collections.Build([]collections.Definition{{Name: "products", Layer: "shop", Fields: []collections.Field{
		{Name: "title", Type: collections.TypeString},
		{Name: "description", Type: collections.TypeText},
		{Name: "stock", Type: collections.TypeNumber},
	}}}, collections.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := store.New(db, func() *collections.Registry { return reg })
	ctx := t.Context()
	if err := store.CreateMetaTable(ctx, db); err != nil {
		t.Fatal(err)
	}
	if err := s.Sync(ctx, reg, store.SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	var names []string
	// The subquery (OFFSET 0 keeps it apart) limits pg_get_indexdef to this
	// schema's indexes: evaluated on another test's index while that test
	// drops its schema, it fails with "could not open relation".
	if err := db.NewRaw(`SELECT indexname FROM (SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'shop_products' OFFSET 0) AS ix
		WHERE indexdef LIKE '%gin_trgm_ops%' ORDER BY indexname`).Scan(ctx, &names); err != nil {
		t.Fatal(err)
	}
	if want := []string{"tg_shop_products_description", "tg_shop_products_title"}; strings.Join(names, ",") != strings.Join(want, ",") {
		t.Fatalf("trigram indexes: got %v, want %v", names, want)
	}
	// One team holding every row: only the trigram index is selective.
	if _, err := db.ExecContext(ctx, `INSERT INTO shop_products (id, team_id, owner, title, description, created_at, updated_at, created_by, updated_by)
		SELECT 'id-' || g, 't1', 'u', 'item ' || md5(g::text), md5((g * 7)::text), now(), now(), 'u', 'u' FROM generate_series(1, 5000) AS g`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "ANALYZE shop_products"); err != nil {
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
	rows, err := conn.QueryContext(ctx, `EXPLAIN SELECT count(*) FROM shop_products WHERE title ILIKE '%c4ca4%' OR description ILIKE '%c4ca4%'`)
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
	if p := strings.Join(plan, "\n"); !strings.Contains(p, "tg_shop_products_title") {
		t.Errorf("plan: got\n%s\nwant a scan of the trigram index", p)
	}
}
