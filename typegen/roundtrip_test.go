package typegen_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/collectionkit/kit/examples/kittypes"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/kittest"
	"github.com/collectionkit/kit/teamauth"
)

// TestRecordsOfARealServerRoundTripThroughTheGeneratedGoTypes creates
// records on a kit server over HTTP from the generated input types of the
// example schemas (examples/kittypes), reads them back into the record
// and response types, and checks that encoding a record again gives the
// server's JSON: every attribute, null or not, on both engines.
func TestRecordsOfARealServerRoundTripThroughTheGeneratedGoTypes(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		app := kittest.NewApp(t, kit.Config{DB: testdb.Open(t, e), Schemas: os.DirFS("../examples/schemas")})
		acme, alice := app.Team("acme"), app.User("alice")
		app.AddMember(acme, alice, teamauth.RoleOwner)
		token := app.Token(alice)
		base := "/api/teams/acme/"

		var category kittypes.Category
		status, _ := call(t, app, token, "POST", base+kittypes.ShopCategoriesAPIPath, kittypes.CategoryInput{Title: "Lamps"}, &category)
		if status != http.StatusCreated || category.ID == "" || category.Title != "Lamps" || category.Description != nil {
			t.Fatalf("create a category: got status %d and %+v, want 201 and the category", status, category)
		}

		released := time.Date(2026, 3, 1, 9, 30, 15, 123456000, time.UTC)
		stock, active, desc := int64(7), false, "A desk lamp"
		in := kittypes.ProductInput{
			Title:       "Lamp",
			Description: &desc,
			Price:       "19.9",
			Stock:       &stock,
			IsActive:    &active,
			ReleasedAt:  &released,
			Tags:        []any{"light", 3.0},
			Dimensions:  json.RawMessage(`{"heightCm":40,"colors":["red"]}`),
			Variants:    []map[string]any{{"sku": "L-1", "isDefault": true}},
			CategoryID:  &category.ID,
		}
		var created kittypes.Product
		status, createdJSON := call(t, app, token, "POST", base+kittypes.ShopProductsAPIPath, in, &created)
		if status != http.StatusCreated {
			t.Fatalf("create a product: got status %d, want 201: %s", status, createdJSON)
		}
		checks := []struct {
			what      string
			got, want any
		}{
			{"price (canonical at scale 2)", created.Price, kittypes.Decimal("19.90")},
			{"stock", *created.Stock, int64(7)},
			{"isActive", *created.IsActive, false},
			{"releasedAt", created.ReleasedAt.Equal(released), true},
			{"categoryId", *created.CategoryID, category.ID},
			{"sku (null)", created.SKU, (*string)(nil)},
			{"owner", created.Owner, alice.ID},
			{"teamId", created.TeamID, acme.ID},
			{"createdAt is set", created.CreatedAt.IsZero(), false},
		}
		for _, c := range checks {
			if !reflect.DeepEqual(c.got, c.want) {
				t.Errorf("created product: %s: got %v, want %v", c.what, c.got, c.want)
			}
		}
		roundTrips(t, "the created product", createdJSON, created)

		var one kittypes.Product
		status, oneJSON := call(t, app, token, "GET", base+kittypes.ShopProductsAPIPath+"/"+created.ID, nil, &one)
		if status != http.StatusOK {
			t.Fatalf("get the product (restful): got status %d, want 200: %s", status, oneJSON)
		}
		roundTrips(t, "the product read by id", oneJSON, one)

		q, err := kittypes.ProductQuery{PageSize: 5, Sort: []string{"-price"},
			Filter: map[string]any{"price": map[string]any{"gte": "10"}, "isActive": false}}.Values()
		if err != nil {
			t.Fatal(err)
		}
		var page kittypes.ProductResponse
		status, pageJSON := call(t, app, token, "GET", base+kittypes.ShopProductsAPIPath+"?"+q.Encode(), nil, &page)
		if status != http.StatusOK {
			t.Fatalf("list products: got status %d, want 200: %s", status, pageJSON)
		}
		if len(page.Items) != 1 || page.Items[0].ID != created.ID || page.Pagination.TotalItems != 1 || page.Pagination.PageSize != 5 {
			t.Fatalf("list products with the generated query: got %s, want the one product on a page of 5", pageJSON)
		}
		roundTrips(t, "the page of products", pageJSON, page)
	})
}

// call sends body (JSON unless nil) as token's request and decodes the
// answer into out when it is a success; it returns the status and the raw
// answer.
func call(t *testing.T, app *kittest.App, token, method, path string, body, out any) (int, []byte) {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, app.URL(path), r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode < 300 {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("decode %s %s into %T: %v\n%s", method, path, out, err, raw)
		}
	}
	return res.StatusCode, raw
}

// roundTrips checks that v, decoded from raw, encodes to the same JSON
// value: the same keys and values (dates compared as instants, since Go
// writes fewer fraction digits when they end in zeros).
func roundTrips(t *testing.T, what string, raw []byte, v any) {
	t.Helper()
	again, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var want, got any
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(again, &got); err != nil {
		t.Fatal(err)
	}
	if !sameJSON(got, want) {
		t.Errorf("%s does not round-trip through the generated types:\n got %s\nwant %s", what, again, raw)
	}
}

func sameJSON(got, want any) bool {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok || !sameJSON(gv, wv) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !sameJSON(g[i], w[i]) {
				return false
			}
		}
		return true
	case string:
		g, ok := got.(string)
		if !ok {
			return false
		}
		if g == w {
			return true
		}
		gt, err1 := time.Parse(time.RFC3339Nano, g)
		wt, err2 := time.Parse(time.RFC3339Nano, w)
		return err1 == nil && err2 == nil && gt.Equal(wt)
	}
	return reflect.DeepEqual(got, want)
}
