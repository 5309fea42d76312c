package kit_test

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/collectionkit/kit/kit"
)

// Benchmark sizes: one big team and one small one beside it.
const (
	benchRows      = 100_000
	benchOtherRows = 1_000
	benchSeeders   = 4
)

var benchStatuses = []string{"draft", "live", "archived", "review"}

// benchKit opens a Kit on a WAL file database in b.TempDir().
func benchKit(b *testing.B) *kit.Kit {
	b.Helper()
	return newKitConfig(b, kit.Config{SQLitePath: tempDBPath(b), Definitions: shopDefs()})
}

// seedBench creates rows records for actor through the record API in a
// few goroutines. Record i has title "Product <i> <word>", one of four
// statuses, a price between 0.00 and 999.99 and a unique sku.
func seedBench(b *testing.B, k *kit.Kit, a kit.Actor, rows int) {
	b.Helper()
	words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"}
	var wg sync.WaitGroup
	errs := make(chan error, benchSeeders)
	per := (rows + benchSeeders - 1) / benchSeeders
	for w := range benchSeeders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 42))
			for i := w * per; i < min(rows, (w+1)*per); i++ {
				_, err := k.Records(productsKey).Create(context.Background(), a, map[string]any{
					"title":       fmt.Sprintf("Product %06d %s", i, words[i%len(words)]),
					"description": "A sturdy thing for everyday use",
					"status":      benchStatuses[i%len(benchStatuses)],
					"price":       fmt.Sprintf("%d.%02d", r.IntN(1000), r.IntN(100)),
					"sku":         fmt.Sprintf("%s-%06d", a.TeamID, i),
				})
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatalf("seed: %v", err)
	}
}

// seededBenchKit is a Kit holding benchRows records of team A and
// benchOtherRows of team B, seeded once for the calling benchmark, then
// ANALYZEd. kit does not run ANALYZE on SQLite, but a host may (PRAGMA
// optimize does); these figures are that host's (docs/decisions/0009).
func seededBenchKit(b *testing.B) *kit.Kit {
	b.Helper()
	k := benchKit(b)
	start := time.Now()
	seedBench(b, k, aliceA, benchRows)
	seedBench(b, k, carolB, benchOtherRows)
	b.Logf("seeded %d+%d rows in %v", benchRows, benchOtherRows, time.Since(start).Round(time.Millisecond))
	if _, err := k.DB().ExecContext(context.Background(), "ANALYZE"); err != nil {
		b.Fatal(err)
	}
	return k
}

// BenchmarkCreate creates one record per op on a WAL file database.
func BenchmarkCreate(b *testing.B) {
	k := benchKit(b)
	ctx := context.Background()
	r := k.Records(productsKey)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		i++
		if _, err := r.Create(ctx, aliceA, map[string]any{
			"title": "Product", "status": "live", "price": "12.34", "sku": fmt.Sprint("sku-", i),
		}); err != nil {
			b.Fatal(err)
		}
	}
}

// benchListCases are the list requests BenchmarkList and
// BenchmarkListRawSQL compare.
var benchListCases = []struct {
	name   string
	params url.Values
	// rawWhere and rawArgs are the hand-written equivalent after
	// "team_id = ?" (the decimal bound is the stored key of 500.00).
	rawWhere string
	rawArgs  []any
	rawOrder string
}{
	{"sorted by createdAt", url.Values{}, "", nil, `"created_at" DESC, "id" DESC`},
	{"with a filter", url.Values{"filter": {`{"price":{"gte":"500"},"status":"live"}`}},
		` AND "price" >= ? AND "status" = ?`, []any{"p0000050000", "live"}, `"created_at" DESC, "id" DESC`},
	{"with a search", url.Values{"search": {"duct 0424"}},
		` AND ("title" LIKE ? ESCAPE '\' OR "description" LIKE ? ESCAPE '\' OR "status" LIKE ? ESCAPE '\' OR "sku" LIKE ? ESCAPE '\' OR "category_id" LIKE ? ESCAPE '\')`,
		[]any{"%duct 0424%", "%duct 0424%", "%duct 0424%", "%duct 0424%", "%duct 0424%"}, `"created_at" DESC, "id" DESC`},
}

// BenchmarkList lists a page of 20 among 100,000 records of one team
// (beside 1,000 of another) through the record API.
func BenchmarkList(b *testing.B) {
	k := seededBenchKit(b)
	ctx := context.Background()
	r := k.Records(productsKey)
	for _, tc := range benchListCases {
		b.Run(tc.name, func(b *testing.B) {
			params := url.Values{"pageSize": {"20"}}
			for key, v := range tc.params {
				params[key] = v
			}
			l, err := r.List(ctx, aliceA, params)
			if err != nil {
				b.Fatal(err)
			}
			if len(l.Items) == 0 {
				b.Fatalf("%s: empty page", tc.name)
			}
			b.ReportMetric(float64(l.Pagination.TotalItems), "matches")
			b.ReportAllocs()
			for b.Loop() {
				if _, err := r.List(ctx, aliceA, params); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// rawProduct is the hand-written scan target of BenchmarkListRawSQL: the
// same columns the record API reads.
type rawProduct struct {
	ID, TeamID, Owner                          string
	Title, Description, Status, SKU            sql.NullString
	Price, Amount, Ratio, Quantity             sql.NullString
	Weight                                     sql.NullFloat64
	IsActive                                   sql.NullInt64
	PublishedAt, Tags, CategoryID              sql.NullString
	CreatedAt, UpdatedAt, CreatedBy, UpdatedBy string
}

// BenchmarkListRawSQL runs the SQL BenchmarkList amounts to (a count and
// a page of 20) by hand through database/sql with bound parameters on the
// same kind of database, as the baseline for the record API's overhead.
func BenchmarkListRawSQL(b *testing.B) {
	k := seededBenchKit(b)
	db := k.DB().DB
	ctx := context.Background()
	const cols = `"id", "team_id", "owner", "title", "description", "status", "sku", "price", "amount", "ratio", "quantity", "weight", "is_active", "published_at", "tags", "category_id", "created_at", "updated_at", "created_by", "updated_by"`
	for _, tc := range benchListCases {
		b.Run(tc.name, func(b *testing.B) {
			countQ := `SELECT count(*) FROM "shop_products" WHERE "team_id" = ?` + tc.rawWhere
			pageQ := `SELECT ` + cols + ` FROM "shop_products" WHERE "team_id" = ?` + tc.rawWhere + ` ORDER BY ` + tc.rawOrder + ` LIMIT 20 OFFSET 0`
			args := append([]any{teamA}, tc.rawArgs...)
			run := func() (int, []rawProduct) {
				var total int
				if err := db.QueryRowContext(ctx, countQ, args...).Scan(&total); err != nil {
					b.Fatal(err)
				}
				rows, err := db.QueryContext(ctx, pageQ, args...)
				if err != nil {
					b.Fatal(err)
				}
				defer rows.Close()
				out := make([]rawProduct, 0, 20)
				for rows.Next() {
					var p rawProduct
					if err := rows.Scan(&p.ID, &p.TeamID, &p.Owner, &p.Title, &p.Description, &p.Status, &p.SKU,
						&p.Price, &p.Amount, &p.Ratio, &p.Quantity, &p.Weight, &p.IsActive, &p.PublishedAt, &p.Tags,
						&p.CategoryID, &p.CreatedAt, &p.UpdatedAt, &p.CreatedBy, &p.UpdatedBy); err != nil {
						b.Fatal(err)
					}
					out = append(out, p)
				}
				if err := rows.Err(); err != nil {
					b.Fatal(err)
				}
				return total, out
			}
			total, page := run()
			if len(page) == 0 {
				b.Fatalf("%s: empty page", tc.name)
			}
			// The baseline must answer what the record API answers.
			params := url.Values{"pageSize": {"20"}}
			for key, v := range tc.params {
				params[key] = v
			}
			l, err := k.Records(productsKey).List(ctx, aliceA, params)
			if err != nil {
				b.Fatal(err)
			}
			if l.Pagination.TotalItems != total || len(l.Items) != len(page) || l.Items[0]["id"] != page[0].ID {
				b.Fatalf("%s: raw SQL answers %d rows (first %s), the record API %d (first %v)", tc.name, total, page[0].ID, l.Pagination.TotalItems, l.Items[0]["id"])
			}
			b.ReportMetric(float64(total), "matches")
			b.ReportAllocs()
			for b.Loop() {
				run()
			}
		})
	}
}
