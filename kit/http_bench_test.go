package kit_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/testkit"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// BenchmarkHTTPGet serves GET /{id} of a restful collection through
// k.Handler() in process (no network): authentication, the authorization
// cache's version read, the record read and the answer with its ETag, one
// request per op, on a WAL file database holding 1,000 records.
func BenchmarkHTTPGet(b *testing.B) {
	k := newKitConfig(b, kit.Config{SQLitePath: tempDBPath(b), Definitions: []collections.Definition{benchProducts("restful")}})
	ctx := context.Background()
	seed := seedAnn(b, k)
	ids := make([]string, 1000)
	for i := range ids {
		rec, err := k.Records(productsKey).Create(ctx, seed.Actors["ann"], map[string]any{
			"title": fmt.Sprint("Product ", i), "description": "A sturdy thing for everyday use",
			"price": "12.34", "stock": i, "sku": fmt.Sprint("sku-", i),
		})
		if err != nil {
			b.Fatal(err)
		}
		ids[i] = rec["id"].(string)
	}
	h := k.Handler()
	reqs := make([]*http.Request, len(ids))
	for i, id := range ids {
		reqs[i] = httptest.NewRequest(http.MethodGet, "/api/teams/acme/shop-products/"+id, nil)
		reqs[i].Header.Set("Authorization", "Bearer "+seed.Tokens["ann"])
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if w := serveOnce(h, reqs[i%len(reqs)]); w.Code != http.StatusOK {
			b.Fatalf("got %d, want 200: %s", w.Code, w.Body)
		}
		i++
	}
}

// seedAnn seeds the HTTP benchmarks' world in k: team acme and its owner
// ann.
func seedAnn(b *testing.B, k *kit.Kit) testkit.Seed {
	b.Helper()
	seed, err := testkit.SeedWorld(context.Background(), k, testkit.World{
		Teams: []string{"acme"},
		Users: []testkit.WorldUser{{Name: "ann", Team: "acme", Role: teamauth.RoleOwner}},
	})
	if err != nil {
		b.Fatal(err)
	}
	return seed
}

// serveOnce serves r with h. It is a function of its own so that
// instruction counts can be limited to it:
//
//	valgrind --tool=callgrind --toggle-collect='*kit_test.serveOnce' ./kit.test -test.run '^$' -test.bench HTTPGet -test.benchtime 1000x
//
//go:noinline
func serveOnce(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// benchProducts is the HTTP benchmarks' collection shopProducts, fetched
// with the strategy fetch ("restful" or "query").
func benchProducts(fetch string) collections.Definition {
	return collections.Definition{
		Name: "products", Layer: "shop",
		Fields: []collections.Field{
			{Name: "title", Type: collections.TypeString, Meta: collections.FieldMeta{Required: true}},
			{Name: "sku", Type: collections.TypeString, Meta: collections.FieldMeta{Unique: true}},
			{Name: "description", Type: collections.TypeText},
			{Name: "price", Type: collections.TypeDecimal, Meta: collections.FieldMeta{Precision: 10, Scale: 2}},
			{Name: "stock", Type: collections.TypeNumber, Meta: collections.FieldMeta{Index: true}},
			{Name: "isActive", Type: collections.TypeBoolean},
		},
		Config: &collections.Config{FetchStrategy: fetch},
	}
}

// BenchmarkHTTPWrites serves the bench harness's writes through
// k.Handler() in process, one request per op, on a WAL file database:
// POST (a new record with every field) and PATCH (a new price and stock
// of a record among 1,000, the harness's update), and DELETE of a random
// record among 5,000, which are created again, untimed, once all are
// gone. Its allocations per op are the figure to watch: on one core,
// every byte the write path allocates is paid again by the garbage
// collector.
func BenchmarkHTTPWrites(b *testing.B) {
	for _, op := range []string{"create", "update", "delete"} {
		b.Run(op, func(b *testing.B) {
			k := newKitConfig(b, kit.Config{SQLitePath: tempDBPath(b), Definitions: []collections.Definition{benchProducts("restful")}})
			ctx := context.Background()
			seed := seedAnn(b, k)
			var ids []string
			create := func(i int) {
				rec, err := k.Records(productsKey).Create(ctx, seed.Actors["ann"], map[string]any{
					"title": fmt.Sprint("Product ", i), "description": "A sturdy thing for everyday use",
					"price": "12.34", "stock": i, "sku": fmt.Sprint("sku-", i),
				})
				if err != nil {
					b.Fatal(err)
				}
				ids = append(ids, rec["id"].(string))
			}
			seeded := 1000
			if op == "delete" {
				seeded = 5000
			}
			for i := range seeded {
				create(i)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			rng.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
			h := k.Handler()
			base := "/api/teams/acme/shop-products"
			request := func(method, path, body string) *http.Request {
				var r *http.Request
				if body == "" {
					r = httptest.NewRequest(method, path, nil)
				} else {
					r = httptest.NewRequest(method, path, strings.NewReader(body))
					r.Header.Set("Content-Type", "application/json")
				}
				r.Header.Set("Authorization", "Bearer "+seed.Tokens["ann"])
				return r
			}
			want := map[string]int{"create": http.StatusCreated, "update": http.StatusOK, "delete": http.StatusNoContent}[op]
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				var r *http.Request
				switch op {
				case "create":
					r = request(http.MethodPost, base, fmt.Sprintf(`{"title":"New %d","sku":"NEW-%08d","description":"A sturdy thing for everyday use.","price":"%d.99","stock":%d,"isActive":true}`, i, i, i%1000, i%1000))
				case "update":
					r = request(http.MethodPatch, base+"/"+ids[i%len(ids)], fmt.Sprintf(`{"price":"%d.50","stock":%d}`, 1+i%999, i%1000))
				case "delete":
					if len(ids) == 0 {
						b.StopTimer()
						for j := range seeded {
							create(i + j)
						}
						rng.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
						b.StartTimer()
					}
					r = request(http.MethodDelete, base+"/"+ids[len(ids)-1], "")
					ids = ids[:len(ids)-1]
				}
				if w := serveOnce(h, r); w.Code != want {
					b.Fatalf("got %d, want %d: %s", w.Code, want, w.Body)
				}
				i++
			}
		})
	}
}
