package kit_test

import (
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/internal/testkit"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/kittest"
	"github.com/collectionkit/kit/teamauth"
)

// stockField is the integer number field of the integer tests.
var stockField = collections.Field{Name: "stock", Type: collections.TypeNumber, Meta: collections.FieldMeta{Integer: true, Index: true}}

// TestIntegerNumbers checks meta.integer on a number field through the
// HTTP API and schema sync, on every engine: whole numbers are stored as
// integers and answered as JSON integers, anything else is refused with a
// 400 that writes nothing.
func TestIntegerNumbers(t *testing.T) {
	t.Parallel()
	testdb.Each(t, testIntegerNumbers)
}

func testIntegerNumbers(t *testing.T, e testdb.Engine) {
	t.Run("the column is an integer column", func(t *testing.T) {
		k := newKitOn(t, e, syncProducts(stockField))
		names, types := columnInfo(t, k, productsTable)
		want := "INTEGER"
		if e == testdb.EnginePostgres {
			want = "bigint"
		}
		if i := slices.Index(names, "stock"); i < 0 || types[i] != want {
			t.Errorf("stock column: got %v %v, want type %s", names, types, want)
		}
	})

	k := newKitOn(t, e, syncProducts(stockField))
	seed, err := testkit.SeedWorld(t.Context(), k, testkit.World{
		Teams: []string{"acme"},
		Users: []testkit.WorldUser{{Name: "ann", Team: "acme", Role: teamauth.RoleOwner}},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := kittest.Serve(t, k)
	send := func(t *testing.T, method, path, body string) *kittest.Response {
		t.Helper()
		ct := ""
		if body != "" {
			ct = "application/json"
		}
		return kittest.Send(t, kittest.Request{Method: method, URL: srv.URL + "/api/teams/acme/shop-products" + path,
			Token: seed.Tokens["ann"], ContentType: ct, Body: body})
	}
	for _, n := range []string{"3", "12", "-4"} {
		if r := send(t, "POST", "", `{"title":"p`+n+`","stock":`+n+`}`); r.Status != 201 {
			t.Fatalf("create stock %s: got %d, want 201: %s", n, r.Status, r.Body)
		}
	}
	target := send(t, "POST", "", `{"title":"target","stock":7}`)
	var created map[string]any
	testkit.DecodeJSON(t, target.Body, &created)
	targetID := created["id"].(string)

	bad := []struct {
		name, method, path, body, contains string
	}{
		{"a fraction in a create is a 400 naming the field", "POST", "", `{"title":"x","stock":2.5}`,
			`"stock":"must be a whole number between -9007199254740992 and 9007199254740992 (2^53)"`},
		{"a whole number past 2^53 written as an exponent is a 400", "POST", "", `{"title":"x","stock":1e300}`, `"stock"`},
		{"a JSON integer past 2^53 is a 400", "POST", "", `{"title":"x","stock":9007199254740993}`, `"stock"`},
		{"a string in a create is a 400", "POST", "", `{"title":"x","stock":"5"}`, `"stock"`},
		{"a fraction in an update is a 400 and the record keeps its value", "PATCH", "/" + targetID, `{"stock":7.5}`, `"stock"`},
		{"a fraction in a filter is a 400 naming the parameter", "GET", "?filter=" + url.QueryEscape(`{"stock":{"gte":2.5}}`), "", `filter`},
		{"a fraction in an in filter is a 400", "GET", "?filter=" + url.QueryEscape(`{"stock":{"in":[3,3.5]}}`), "", `filter`},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			before := kittest.TableRows(t, k.DB(), productsTable)
			r := send(t, tc.method, tc.path, tc.body)
			if r.Status != 400 {
				t.Fatalf("got %d, want 400: %s", r.Status, r.Body)
			}
			if !strings.Contains(r.Body, tc.contains) {
				t.Errorf("body %s does not contain %s", r.Body, tc.contains)
			}
			if n := kittest.RowsChanged(before, kittest.TableRows(t, k.DB(), productsTable)); n != 0 {
				t.Errorf("rows changed: got %d, want 0", n)
			}
		})
	}

	t.Run("whole numbers are answered as JSON integers and filter and sort as numbers", func(t *testing.T) {
		r := send(t, "GET", "?sort=stock&filter="+url.QueryEscape(`{"stock":{"gte":-4,"lt":12}}`), "")
		if r.Status != 200 {
			t.Fatalf("list: got %d, want 200: %s", r.Status, r.Body)
		}
		var page struct {
			Items []kit.Record `json:"items"`
		}
		testkit.DecodeJSON(t, r.Body, &page)
		if got, want := fieldValues(page.Items, "stock"), []any{-4.0, 3.0, 7.0}; !slices.Equal(got, want) {
			t.Errorf("stock of the page: got %v, want %v", got, want)
		}
		if !strings.Contains(r.Body, `"stock":-4,`) || strings.Contains(r.Body, `"stock":-4.0`) {
			t.Errorf("body %s: want stock written as the integer -4", r.Body)
		}
		if r := send(t, "PATCH", "/"+targetID, `{"stock":8.0}`); r.Status != 200 || !strings.Contains(r.Body, `"stock":8,`) {
			t.Errorf("update with a whole 8.0: got %d %s, want 200 and stock 8", r.Status, r.Body)
		}
	})
}

// TestIntegerNumbersSync checks that turning meta.integer on or off keeps a
// number field's data when every value fits, on every engine, and that
// turning it on over a fraction is a drift that changes nothing.
func TestIntegerNumbersSync(t *testing.T) {
	t.Parallel()
	testdb.Each(t, testIntegerNumbersSync)
}

func testIntegerNumbersSync(t *testing.T, e testdb.Engine) {
	plain := collections.Field{Name: "stock", Type: collections.TypeNumber, Meta: collections.FieldMeta{Index: true}}
	columnType := func(t *testing.T, k *kit.Kit) string {
		names, types := columnInfo(t, k, productsTable)
		return types[slices.Index(names, "stock")]
	}

	t.Run("turning integer on over whole numbers keeps them, and a fraction is refused after", func(t *testing.T) {
		open := testdb.Shared(t, e)
		k1, err := openOn(open(), false, categoriesDef(), syncProducts(plain))
		if err != nil {
			t.Fatal(err)
		}
		rec := mustCreate(t, k1, productsKey, aliceA, map[string]any{"title": "whole", "stock": 41})
		mustCreate(t, k1, productsKey, aliceA, map[string]any{"title": "none"})
		k1.Close()

		k2 := mustOpenOn(t, open(), categoriesDef(), syncProducts(stockField))
		if got := mustGet(t, k2, productsKey, aliceA, rec["id"].(string)); got["stock"] != 41.0 {
			t.Errorf("stock after the change: got %#v, want 41", got["stock"])
		}
		if e == testdb.EnginePostgres {
			if got := columnType(t, k2); got != "bigint" {
				t.Errorf("column type: got %q, want bigint", got)
			}
		}
		if _, err := k2.Records(productsKey).Create(t.Context(), aliceA, map[string]any{"title": "f", "stock": 1.5}); kit.StatusOf(err) != 400 {
			t.Errorf("a fraction after the change: got %v, want 400", err)
		}
		l := mustList(t, k2, productsKey, aliceA, query("filter", `{"stock":{"gt":40}}`))
		if got := ids(l.Items); !slices.Equal(got, []string{rec["id"].(string)}) {
			t.Errorf("filter after the change: got %v, want the whole record", got)
		}
	})

	t.Run("turning integer on over a fraction is a drift that changes nothing", func(t *testing.T) {
		open := testdb.Shared(t, e)
		k1, err := openOn(open(), false, categoriesDef(), syncProducts(plain))
		if err != nil {
			t.Fatal(err)
		}
		rec := mustCreate(t, k1, productsKey, aliceA, map[string]any{"title": "half", "stock": 2.5})
		_, types1 := columnInfo(t, k1, productsTable)
		k1.Close()

		k2, err := openOn(open(), false, categoriesDef(), syncProducts(stockField))
		if err == nil {
			k2.Close()
		}
		wantDrift(t, err, kit.DriftError{Collection: productsKey, Field: "stock", OldType: "number", NewType: "integer", Rows: 1, Total: 1,
			Sample: []kit.DriftValue{{ID: rec["id"].(string), Value: "2.5", Problem: "must be a whole number between -9007199254740992 and 9007199254740992 (2^53)"}}})

		k3 := mustOpenOn(t, open(), categoriesDef(), syncProducts(plain))
		if _, types3 := columnInfo(t, k3, productsTable); !slices.Equal(types3, types1) {
			t.Errorf("column types after a refused sync: got %v, want %v", types3, types1)
		}
		if got := mustGet(t, k3, productsKey, aliceA, rec["id"].(string)); got["stock"] != 2.5 {
			t.Errorf("stock after a refused sync: got %#v, want 2.5", got["stock"])
		}
	})

	t.Run("turning integer off keeps the numbers and takes fractions", func(t *testing.T) {
		open := testdb.Shared(t, e)
		k1, err := openOn(open(), false, categoriesDef(), syncProducts(stockField))
		if err != nil {
			t.Fatal(err)
		}
		rec := mustCreate(t, k1, productsKey, aliceA, map[string]any{"title": "whole", "stock": -9007199254740992})
		k1.Close()

		k2 := mustOpenOn(t, open(), categoriesDef(), syncProducts(plain))
		if got := mustGet(t, k2, productsKey, aliceA, rec["id"].(string)); got["stock"] != -9007199254740992.0 {
			t.Errorf("stock after the change: got %#v, want -2^53", got["stock"])
		}
		if e == testdb.EnginePostgres {
			if got := columnType(t, k2); got != "double precision" {
				t.Errorf("column type: got %q, want double precision", got)
			}
		}
		half := mustCreate(t, k2, productsKey, aliceA, map[string]any{"title": "half", "stock": 2.5})
		if got := mustGet(t, k2, productsKey, aliceA, half["id"].(string)); got["stock"] != 2.5 {
			t.Errorf("a fraction after the change: got %#v, want 2.5", got["stock"])
		}
		l := mustList(t, k2, productsKey, aliceA, query("sort", "stock"))
		if got := fieldValues(l.Items, "stock"); !slices.Equal(got, []any{-9007199254740992.0, 2.5}) {
			t.Errorf("sorted by stock: got %v, want [-2^53 2.5]", got)
		}
	})
}
