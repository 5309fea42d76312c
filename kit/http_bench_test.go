package kit_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
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
	seed, err := testkit.SeedWorld(ctx, k, testkit.World{
		Teams: []string{"acme"},
		Users: []testkit.WorldUser{{Name: "ann", Team: "acme", Role: teamauth.RoleOwner}},
	})
	if err != nil {
		b.Fatal(err)
	}
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
