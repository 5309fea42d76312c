package kit_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/store"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
)

// idsBenchRows are the sizes of the team BenchmarkHTTPIDs reads from.
var idsBenchRows = []int{1_000, 100_000}

// BenchmarkHTTPIDs serves GET .../{collection}?ids=<n ids> through
// k.Handler() in process, n = 1 and 100 distinct ids drawn at random from a team
// of 1,000 and of 100,000 records, on a SQLite WAL file and (with
// KIT_TEST_POSTGRES) on PostgreSQL: authentication, the records' read by
// primary key and the JSON array, one request per op. Read by primary key,
// a request costs the same at both sizes; a plan that walked the team
// would cost a hundred times more at the larger. The records are written
// in bulk with kit's storage code (store.Insert) to keep the setup short.
func BenchmarkHTTPIDs(b *testing.B) {
	for _, e := range []testdb.Engine{testdb.EngineSQLite, testdb.EnginePostgres} {
		for _, rows := range idsBenchRows {
			b.Run(fmt.Sprintf("%s/%d rows", e, rows), func(b *testing.B) {
				benchIDs(b, e, rows)
			})
		}
	}
}

// benchIDs is BenchmarkHTTPIDs on engine e with a team of rows records.
func benchIDs(b *testing.B, e testdb.Engine, rows int) {
	cfg := kit.Config{SQLitePath: tempDBPath(b), Definitions: []collections.Definition{benchProducts("query")}}
	if e == testdb.EnginePostgres {
		cfg.SQLitePath, cfg.DB = "", testdb.PostgresDB(b)
	}
	k := newKitConfig(b, cfg)
	seed := seedAnn(b, k)
	ids := bulkProducts(b, k, seed.Actors["ann"], rows)
	h := k.Handler()
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 100} {
		b.Run(fmt.Sprintf("%d ids", n), func(b *testing.B) {
			reqs := make([]*http.Request, 256)
			for i := range reqs {
				// n distinct ids, so that both sizes answer n records.
				pick := make([]string, 0, n)
				seen := make(map[int]bool, n)
				for len(pick) < n {
					if j := r.IntN(len(ids)); !seen[j] {
						seen[j] = true
						pick = append(pick, ids[j])
					}
				}
				reqs[i] = httptest.NewRequest(http.MethodGet, "/api/teams/acme/shop-products?ids="+url.QueryEscape(strings.Join(pick, ",")), nil)
				reqs[i].Header.Set("Authorization", "Bearer "+seed.Tokens["ann"])
			}
			b.ReportAllocs()
			i := 0
			cpu0 := processCPU()
			for b.Loop() {
				if w := serveOnce(h, reqs[i%len(reqs)]); w.Code != http.StatusOK {
					b.Fatalf("got %d, want 200: %s", w.Code, w.Body)
				}
				i++
			}
			// This process's CPU (not PostgreSQL's): steadier than the
			// wall time on a loaded machine.
			b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}

// bulkProducts writes n products of a's team with kit's storage code in
// transactions of 10,000 and returns their ids.
func bulkProducts(b *testing.B, k *kit.Kit, a kit.Actor, n int) []string {
	b.Helper()
	ctx := context.Background()
	reg := k.Collections()
	c, ok := reg.Get(productsKey)
	if !ok {
		b.Fatalf("no collection %s", productsKey)
	}
	s := store.New(k.DB(), func() *collections.Registry { return reg })
	defer s.Close()
	ids := make([]string, n)
	base := time.Now().UTC().Add(-time.Duration(n) * time.Microsecond)
	for start := 0; start < n; start += 10_000 {
		err := k.DB().RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			for i := start; i < min(start+10_000, n); i++ {
				vals, err := c.ValidateCreate(map[string]any{
					"title": fmt.Sprint("Product ", i), "sku": fmt.Sprint("sku-", i),
					"description": "A sturdy thing for everyday use, made to last",
					"price":       "12.34", "stock": float64(i % 1000), "isActive": i%2 == 0,
				})
				if err != nil {
					return err
				}
				at := base.Add(time.Duration(i) * time.Microsecond)
				ids[i] = uuid.Must(uuid.NewV7()).String()
				rec := store.Record{"id": ids[i], "teamId": a.TeamID, "owner": a.UserID,
					"createdAt": at, "updatedAt": at, "createdBy": a.UserID, "updatedBy": a.UserID}
				for k, v := range vals {
					rec[k] = v
				}
				for _, attr := range c.Attributes() {
					if _, ok := rec[attr.Name]; !ok {
						rec[attr.Name] = nil
					}
				}
				if err := s.Insert(ctx, tx, c, rec); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	if err := s.FlushSearch(ctx, k.DB(), c); err != nil {
		b.Fatal(err)
	}
	if !isPostgres(k) {
		// As the bench harness does after seeding: the reads find the
		// rows in the database file, not in the WAL.
		if _, err := k.DB().ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
			b.Fatal(err)
		}
	}
	return ids
}
