package kit_test

import (
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/internal/testkit"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/kittest"
	"github.com/collectionkit/kit/teamauth"
)

// lookAlikeSKUs are seven spellings of one SKU that a reader cannot tell
// apart or would call the same. Only the first two are canonically equal
// (NFC and NFD of "é"); the others differ in case, in width (fullwidth
// "ＳＫＵ") or by an invisible code point (a zero-width space inside, a
// word joiner at the end).
var lookAlikeSKUs = []struct{ name, value string }{
	{"NFC", "SKU-caf\u00e9"},
	{"NFD", "SKU-cafe\u0301"},
	{"lower case", "sku-caf\u00e9"},
	{"upper case", "SKU-CAF\u00c9"},
	{"fullwidth letters", "\uff33\uff2b\uff35-caf\u00e9"},
	{"a zero-width space inside", "SKU\u200b-caf\u00e9"},
	{"a word joiner at the end", "SKU-caf\u00e9\u2060"},
}

// Unique fields of the uniqueness tests.
var (
	skuUnique     = collections.Field{Name: "sku", Type: collections.TypeString, Meta: collections.FieldMeta{Unique: true}}
	skuIgnoreCase = collections.Field{Name: "sku", Type: collections.TypeString, Meta: collections.FieldMeta{Unique: true, UniqueIgnoreCase: true}}
	codeUnique    = collections.Field{Name: "code", Type: collections.TypeString, Meta: collections.FieldMeta{Unique: true}}
)

// uniqueSKUMessage is the 409's field message for a taken sku.
const uniqueSKUMessage = `"fields":{"sku":"sku must be unique in the team; another record has this value"}`

// TestUniqueTextIsComparedInNFCAndOptionallyIgnoringCase checks, through
// the HTTP API on every engine, the two rules of unique text: values are
// stored in NFC, so a plain unique field refuses the NFD spelling of a
// stored NFC value (and takes the other look-alikes); with
// meta.uniqueIgnoreCase all seven look-alikes collide. Every refusal is
// the 409 a duplicate gets and writes nothing. Each rule is checked on a
// collection whose only unique index answers for itself and on one with a
// second unique field, where kit looks before writing.
func TestUniqueTextIsComparedInNFCAndOptionallyIgnoringCase(t *testing.T) {
	t.Parallel()
	testdb.Each(t, testUniqueLookAlikes)
}

func testUniqueLookAlikes(t *testing.T, e testdb.Engine) {
	rules := []struct {
		name   string
		sku    collections.Field
		status []int // per look-alike, created in order
	}{
		{"plain unique refuses only the NFD spelling", skuUnique, []int{201, 409, 201, 201, 201, 201, 201}},
		{"uniqueIgnoreCase refuses every look-alike", skuIgnoreCase, []int{201, 409, 409, 409, 409, 409, 409}},
	}
	shapes := []struct {
		name  string
		extra []collections.Field
	}{
		{"as the only unique field", nil},
		{"beside another unique field", []collections.Field{codeUnique}},
	}
	for _, rule := range rules {
		for _, shape := range shapes {
			t.Run(rule.name+" "+shape.name, func(t *testing.T) {
				t.Parallel()
				testLookAlikes(t, e, syncProducts(append([]collections.Field{rule.sku}, shape.extra...)...), rule.status)
			})
		}
	}
}

// testLookAlikes creates the look-alikes in order through HTTP on a fresh
// kit with def and checks each answer against status.
func testLookAlikes(t *testing.T, e testdb.Engine, def collections.Definition, status []int) {
	k := newKitOn(t, e, def)
	seed, err := testkit.SeedWorld(t.Context(), k, testkit.World{
		Teams: []string{"acme", "globex"},
		Users: []testkit.WorldUser{
			{Name: "ann", Team: "acme", Role: teamauth.RoleOwner},
			{Name: "gus", Team: "globex", Role: teamauth.RoleOwner},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := kittest.Serve(t, k)
	send := func(t *testing.T, user, team, method, path string, body any) *kittest.Response {
		t.Helper()
		var b []byte
		if body != nil {
			if b, err = json.Marshal(body); err != nil {
				t.Fatal(err)
			}
		}
		return kittest.Send(t, kittest.Request{Method: method, URL: srv.URL + "/api/teams/" + team + "/shop-products" + path,
			Token: seed.Tokens[user], ContentType: "application/json", Body: string(b)})
	}
	recordOf := func(t *testing.T, r *kittest.Response) kit.Record {
		t.Helper()
		var rec kit.Record
		testkit.DecodeJSON(t, r.Body, &rec)
		return rec
	}

	var firstID string
	for i, la := range lookAlikeSKUs {
		t.Run("creating the "+la.name+" spelling answers "+statusName(status[i]), func(t *testing.T) {
			before := kittest.TableRows(t, k.DB(), productsTable)
			r := send(t, "ann", "acme", "POST", "", map[string]any{"title": la.name, "sku": la.value})
			if r.Status != status[i] {
				t.Fatalf("got %d, want %d: %s", r.Status, status[i], r.Body)
			}
			after := kittest.TableRows(t, k.DB(), productsTable)
			if status[i] != 201 {
				if !strings.Contains(r.Body, uniqueSKUMessage) {
					t.Errorf("body %s does not contain %s", r.Body, uniqueSKUMessage)
				}
				if n := kittest.RowsChanged(before, after); n != 0 {
					t.Errorf("rows changed: got %d, want 0", n)
				}
				return
			}
			if n := kittest.RowsChanged(before, after); n != 1 {
				t.Errorf("rows changed: got %d, want 1", n)
			}
			if i == 0 {
				firstID = recordOf(t, r)["id"].(string)
			}
		})
	}
	if firstID == "" {
		t.Fatal("the NFC spelling was not created")
	}

	t.Run("the stored value is the NFC spelling", func(t *testing.T) {
		var stored string
		if err := k.DB().QueryRowContext(t.Context(), `SELECT sku FROM `+productsTable+` WHERE id = ?`, firstID).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		if stored != lookAlikeSKUs[0].value {
			t.Errorf("stored sku: got %+q, want %+q", stored, lookAlikeSKUs[0].value)
		}
	})

	t.Run("a filter in NFD finds the record stored in NFC", func(t *testing.T) {
		filter, _ := json.Marshal(map[string]any{"sku": lookAlikeSKUs[1].value})
		r := send(t, "ann", "acme", "GET", "?filter="+url.QueryEscape(string(filter)), nil)
		var page struct {
			Items []kit.Record `json:"items"`
		}
		testkit.DecodeJSON(t, r.Body, &page)
		if got := ids(page.Items); r.Status != 200 || !slices.Equal(got, []string{firstID}) {
			t.Errorf("got %d %v, want 200 [%s]", r.Status, got, firstID)
		}
	})

	t.Run("an update to the NFD spelling of another record's value is refused", func(t *testing.T) {
		other := send(t, "ann", "acme", "POST", "", map[string]any{"title": "other", "sku": "OTHER-1"})
		if other.Status != 201 {
			t.Fatalf("create: got %d, want 201: %s", other.Status, other.Body)
		}
		id := recordOf(t, other)["id"].(string)
		before := kittest.TableRows(t, k.DB(), productsTable)
		r := send(t, "ann", "acme", "PATCH", "/"+id, map[string]any{"sku": lookAlikeSKUs[1].value})
		if r.Status != 409 || !strings.Contains(r.Body, uniqueSKUMessage) {
			t.Errorf("got %d %s, want 409 with %s", r.Status, r.Body, uniqueSKUMessage)
		}
		if n := kittest.RowsChanged(before, kittest.TableRows(t, k.DB(), productsTable)); n != 0 {
			t.Errorf("rows changed: got %d, want 0", n)
		}
	})

	t.Run("another team may hold every look-alike that one team may", func(t *testing.T) {
		for i, la := range lookAlikeSKUs {
			if r := send(t, "gus", "globex", "POST", "", map[string]any{"title": la.name, "sku": la.value}); r.Status != status[i] {
				t.Errorf("%s: got %d, want %d: %s", la.name, r.Status, status[i], r.Body)
			}
		}
	})

	t.Run("a Go caller gets the same constraint error", func(t *testing.T) {
		ann := seed.Actors["ann"]
		before := kittest.TableRows(t, k.DB(), productsTable)
		_, err := k.Records(productsKey).Create(t.Context(), ann, map[string]any{"title": "go", "sku": lookAlikeSKUs[1].value})
		var ce *kit.ConstraintError
		if !errors.As(err, &ce) || ce.Kind != kit.ConstraintUnique || ce.Field != "sku" || kit.StatusOf(err) != 409 {
			t.Errorf("got %v, want a unique ConstraintError on sku (409)", err)
		}
		if n := kittest.RowsChanged(before, kittest.TableRows(t, k.DB(), productsTable)); n != 0 {
			t.Errorf("rows changed: got %d, want 0", n)
		}
	})

	t.Run("a record may change its own value to a look-alike of it", func(t *testing.T) {
		const mixed = "sKu-CaF\u00e9" // held by no record
		r := send(t, "ann", "acme", "PATCH", "/"+firstID, map[string]any{"sku": mixed})
		if r.Status != 200 {
			t.Fatalf("got %d, want 200: %s", r.Status, r.Body)
		}
		if got := recordOf(t, r)["sku"]; got != mixed {
			t.Errorf("sku: got %+q, want %+q", got, mixed)
		}
	})
}

// statusName names a status in a subtest name.
func statusName(status int) string {
	switch status {
	case 201:
		return "201 Created"
	case 409:
		return "409 Conflict"
	}
	return "an unexpected status"
}

// openProducts opens a kit on db with the products of syncProducts(f) and
// fails t when it cannot; the caller closes it.
func openProducts(t *testing.T, db *bun.DB, f collections.Field) *kit.Kit {
	t.Helper()
	k, err := openOn(db, false, categoriesDef(), syncProducts(f))
	if err != nil {
		t.Fatalf("kit.New: %v", err)
	}
	return k
}

// TestUniqueIgnoreCaseSync checks, on every engine and over stored rows,
// that turning meta.uniqueIgnoreCase on fills the unique key of every row
// and then refuses look-alikes, that turning it on over rows that collide
// under the key is a drift naming them that changes nothing, and that
// turning it off drops the key and its index.
func TestUniqueIgnoreCaseSync(t *testing.T) {
	t.Parallel()
	testdb.Each(t, testUniqueIgnoreCaseSync)
}

func testUniqueIgnoreCaseSync(t *testing.T, e testdb.Engine) {
	const keyColumn = "sku__ukey"

	t.Run("turning it on over distinct values keys every row and then refuses look-alikes", func(t *testing.T) {
		open := testdb.Shared(t, e)
		k1 := openProducts(t, open(), skuUnique)
		upper := mustCreate(t, k1, productsKey, aliceA, map[string]any{"title": "a", "sku": "SKU-1"})
		mustCreate(t, k1, productsKey, aliceA, map[string]any{"title": "b", "sku": "sku-2"})
		mustCreate(t, k1, productsKey, aliceA, map[string]any{"title": "none"})
		mustCreate(t, k1, productsKey, carolB, map[string]any{"title": "c", "sku": "sku-1"})
		k1.Close()

		k2 := mustOpenOn(t, open(), categoriesDef(), syncProducts(skuIgnoreCase))
		if !slices.Contains(columns(t, k2, productsTable), keyColumn) {
			t.Fatalf("columns: got %v, want %s", columns(t, k2, productsTable), keyColumn)
		}
		if n := indexesOn(t, k2, productsTable, "_sku_ukey"); n != 1 {
			t.Errorf("unique key indexes: got %d, want 1", n)
		}
		var key string
		if err := k2.DB().QueryRowContext(t.Context(), `SELECT `+keyColumn+` FROM `+productsTable+` WHERE id = ?`, upper["id"]).Scan(&key); err != nil {
			t.Fatal(err)
		}
		if key != "sku-1" {
			t.Errorf("key of SKU-1: got %q, want %q", key, "sku-1")
		}
		refused := []struct {
			name  string
			actor kit.Actor
			sku   string
		}{
			{"a lower-case look-alike of a stored value", aliceA, "sku-1"},
			{"a fullwidth look-alike of a stored value", aliceA, "\uff33\uff2b\uff35-2"},
			{"a look-alike within the other team", carolB, "SKU\u200b-1"},
		}
		for _, tc := range refused {
			t.Run(tc.name+" is refused", func(t *testing.T) {
				before := kittest.TableRows(t, k2.DB(), productsTable)
				_, err := k2.Records(productsKey).Create(t.Context(), tc.actor, map[string]any{"title": "x", "sku": tc.sku})
				if kit.StatusOf(err) != 409 {
					t.Errorf("got %v, want 409", err)
				}
				if n := kittest.RowsChanged(before, kittest.TableRows(t, k2.DB(), productsTable)); n != 0 {
					t.Errorf("rows changed: got %d, want 0", n)
				}
			})
		}
		mustCreate(t, k2, productsKey, carolB, map[string]any{"title": "d", "sku": "SKU-2"})
	})

	t.Run("turning it on over colliding values is a drift that names them and changes nothing", func(t *testing.T) {
		open := testdb.Shared(t, e)
		k1 := openProducts(t, open(), skuUnique)
		for _, sku := range []string{"sku-1", "\uff33\uff2b\uff35-1", "SKU-1", "SKU-2"} {
			mustCreate(t, k1, productsKey, aliceA, map[string]any{"title": sku, "sku": sku})
		}
		db := open()
		tables := []string{productsTable, "kit_collections"}
		before := kittest.TableRows(t, db, tables...)
		names1, types1 := columnInfo(t, k1, productsTable)
		k1.Close()

		k2, err := openOn(open(), false, categoriesDef(), syncProducts(skuIgnoreCase))
		if err == nil {
			k2.Close()
		}
		wantDrift(t, err, kit.DriftError{Collection: productsKey, Field: "sku", OldType: "string", NewType: "string",
			Setting: "meta.uniqueIgnoreCase", Conflict: `"SKU-1", "sku-1", "ＳＫＵ-1"`})
		if err != nil && !strings.Contains(err.Error(), `"SKU-1", "sku-1", "ＳＫＵ-1"`) {
			t.Errorf("message %q does not quote the colliding values", err.Error())
		}
		if n := kittest.RowsChanged(before, kittest.TableRows(t, db, tables...)); n != 0 {
			t.Errorf("rows changed: got %d, want 0", n)
		}
		k3 := mustOpenOn(t, open(), categoriesDef(), syncProducts(skuUnique))
		if names3, types3 := columnInfo(t, k3, productsTable); !slices.Equal(names3, names1) || !slices.Equal(types3, types1) {
			t.Errorf("columns after a refused sync: got %v %v, want %v %v", names3, types3, names1, types1)
		}
		if n := indexesOn(t, k3, productsTable, "_ukey"); n != 0 {
			t.Errorf("unique key indexes after a refused sync: got %d, want 0", n)
		}
	})

	t.Run("turning it off drops the key and its index and takes look-alikes again", func(t *testing.T) {
		open := testdb.Shared(t, e)
		k1 := openProducts(t, open(), skuIgnoreCase)
		mustCreate(t, k1, productsKey, aliceA, map[string]any{"title": "a", "sku": "SKU-1"})
		k1.Close()

		k2 := mustOpenOn(t, open(), categoriesDef(), syncProducts(skuUnique))
		if cols := columns(t, k2, productsTable); slices.Contains(cols, keyColumn) {
			t.Errorf("columns: got %v, want no %s", cols, keyColumn)
		}
		if n := indexesOn(t, k2, productsTable, "_ukey"); n != 0 {
			t.Errorf("unique key indexes: got %d, want 0", n)
		}
		mustCreate(t, k2, productsKey, aliceA, map[string]any{"title": "b", "sku": "sku-1"})
		if _, err := k2.Records(productsKey).Create(t.Context(), aliceA, map[string]any{"title": "c", "sku": "SKU-1"}); kit.StatusOf(err) != 409 {
			t.Errorf("the same value again: got %v, want 409", err)
		}
	})
}
