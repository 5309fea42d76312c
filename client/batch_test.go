package client_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/collectionkit/kit/client"
	"github.com/collectionkit/kit/internal/testdb"
)

func TestBatch(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		s := newServer(t, e)
		team := s.client(t, "alice").Team("acme")
		products := team.Collection("shopProducts")
		t.Run("a batch creates records that refer to each other and answers each", func(t *testing.T) {
			b := team.Batch()
			cat := b.Create("shopCategories", map[string]any{"title": "Garden"})
			hose := b.Create("shopProducts", map[string]any{"title": "Hose", "sku": "B-HOSE", "categoryId": client.Ref(cat, "id")})
			b.Update("shopProducts", client.Ref(hose, "id"), map[string]any{"price": "12.50"}, "")
			results, err := b.Run(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if len(results) != 3 || results[0].Status != http.StatusCreated || results[2].Status != http.StatusOK {
				t.Fatalf("got %+v, want 201, 201, 200", results)
			}
			catRec, _ := results[0].Record()
			got, err := products.Item(t.Context(), mustRecord(t, results[1])["id"].(string))
			if err != nil {
				t.Fatal(err)
			}
			if got["categoryId"] != catRec["id"] || got["price"] != "12.50" {
				t.Errorf("got %v, want the new category and price 12.50", got)
			}
		})
		t.Run("a failing write names its index and nothing is written", func(t *testing.T) {
			before, err := products.List(t.Context(), client.Query{})
			if err != nil {
				t.Fatal(err)
			}
			b := team.Batch()
			b.Create("shopProducts", map[string]any{"title": "Kept?", "sku": "B-KEPT"})
			b.Delete("shopProducts", "no-such-record", "")
			_, err = b.Run(t.Context())
			var ce *client.Error
			if !errors.As(err, &ce) || ce.Status != http.StatusNotFound || ce.Data["index"] != 1.0 {
				t.Fatalf("got %v, want a 404 with index 1", err)
			}
			after, err := products.List(t.Context(), client.Query{})
			if err != nil {
				t.Fatal(err)
			}
			if after.Pagination.TotalItems != before.Pagination.TotalItems {
				t.Errorf("products: got %d, want %d", after.Pagination.TotalItems, before.Pagination.TotalItems)
			}
		})
	})
}

func mustRecord(t *testing.T, r client.BatchResult) client.Record {
	t.Helper()
	rec, err := r.Record()
	if err != nil || rec == nil {
		t.Fatalf("result body: %v (%s)", err, r.Body)
	}
	return rec
}
