package kit_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
)

// TestRecordsRoundTripEveryFieldType stores a value of each of the eleven
// field types and reads it back through Create, Get, List and Update; null
// then clears the field.
func TestRecordsRoundTripEveryFieldType(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		k := newKitOn(t, e, specimensDef())
		r := k.Records(specimensKey)
		ctx := t.Context()

		cases := []struct {
			name       string
			field      string
			in         any
			want       any
			update     any
			wantUpdate any
		}{
			{"a string comes back byte for byte", "label",
				"Sample 'A' \"quoted\" — ünïcode \\ back%_slash ?x", "Sample 'A' \"quoted\" — ünïcode \\ back%_slash ?x",
				"renamed", "renamed"},
			{"an empty string stays empty, not null", "label", "", "", "x", "x"},
			{"a text keeps its newlines and tabs", "notes",
				"line one\nline two\ttabbed\n", "line one\nline two\ttabbed\n", strings.Repeat("long ", 2000), strings.Repeat("long ", 2000)},
			{"a number comes back as float64", "weight", 12.375, 12.375, -0.5, -0.5},
			{"a Go int number comes back as float64", "weight", 42, 42.0, int64(-7), -7.0},
			{"a decimal comes back as its canonical string", "price", "1234.5", "1234.50", "0.01", "0.01"},
			{"a decimal given as json.Number is canonical too", "price", json.Number("3.1"), "3.10", 19.99, "19.99"},
			{"a boolean keeps true and false apart from null", "isFragile", true, true, false, false},
			{"a date comes back as time.Time in UTC", "collectedAt",
				"2026-03-01T10:00:00.123456+02:00", time.Date(2026, 3, 1, 8, 0, 0, 123456000, time.UTC),
				"2026-12-31", time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC)},
			{"a json document comes back deep-equal", "attributes",
				map[string]any{"color": "red", "size": 3, "nested": map[string]any{"list": []any{1.5, "x", true, nil}, "empty": map[string]any{}}},
				map[string]any{"color": "red", "size": 3.0, "nested": map[string]any{"list": []any{1.5, "x", true, nil}, "empty": map[string]any{}}},
				[]any{"now", "an", "array", 2.0}, []any{"now", "an", "array", 2.0}},
			{"a json scalar is a json document too", "attributes", "just a string", "just a string", 7.25, 7.25},
			{"a repeater keeps its rows in order", "measurements",
				[]any{map[string]any{"label": "length", "value": 1.5}, map[string]any{"label": "width", "value": 2.0, "unit": "cm"}},
				[]any{map[string]any{"label": "length", "value": 1.5}, map[string]any{"label": "width", "value": 2.0, "unit": "cm"}},
				[]any{}, []any{}},
			{"an array keeps mixed values in order", "tags",
				[]any{"a", 2.0, true, nil, []any{"nested"}}, []any{"a", 2.0, true, nil, []any{"nested"}},
				[]any{"b"}, []any{"b"}},
			{"an image keeps its URL", "photo", "https://cdn.example.com/a%20b.png?w=100&h=50", "https://cdn.example.com/a%20b.png?w=100&h=50",
				"/uploads/b.jpg", "/uploads/b.jpg"},
			{"a file keeps its key", "report", "reports/2026/q1 report.pdf", "reports/2026/q1 report.pdf", "reports/x.pdf", "reports/x.pdf"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				created, err := r.Create(ctx, aliceA, map[string]any{tc.field: tc.in})
				if err != nil {
					t.Fatalf("Create: %v", err)
				}
				if !equalValue(created[tc.field], tc.want) {
					t.Errorf("Create returned %s: got %#v, want %#v", tc.field, created[tc.field], tc.want)
				}
				id := created["id"].(string)

				got := mustGet(t, k, specimensKey, aliceA, id)
				if !equalValue(got[tc.field], tc.want) {
					t.Errorf("Get %s: got %#v, want %#v", tc.field, got[tc.field], tc.want)
				}
				if d := diffRecords(created, pick(got, created)); d != "" {
					t.Errorf("Create's record differs from Get's: %s", d)
				}
				for _, other := range []string{"label", "notes", "weight", "price", "isFragile", "collectedAt", "attributes", "measurements", "tags", "photo", "report"} {
					if other == tc.field {
						continue
					}
					if v, ok := got[other]; !ok || v != nil {
						t.Errorf("Get %s (never set): got %#v (present %v), want nil", other, v, ok)
					}
				}

				l := mustList(t, k, specimensKey, aliceA, query("ids", id))
				if len(l.Items) != 1 {
					t.Fatalf("List ids=%s: got %d items, want 1", id, len(l.Items))
				}
				if d := diffRecords(l.Items[0], got); d != "" {
					t.Errorf("List's record differs from Get's: %s", d)
				}

				updated, err := r.Update(ctx, aliceA, id, map[string]any{tc.field: tc.update})
				if err != nil {
					t.Fatalf("Update: %v", err)
				}
				if !equalValue(updated[tc.field], tc.wantUpdate) {
					t.Errorf("Update returned %s: got %#v, want %#v", tc.field, updated[tc.field], tc.wantUpdate)
				}
				got = mustGet(t, k, specimensKey, aliceA, id)
				if !equalValue(got[tc.field], tc.wantUpdate) {
					t.Errorf("Get after update %s: got %#v, want %#v", tc.field, got[tc.field], tc.wantUpdate)
				}
				if d := diffRecords(updated, got); d != "" {
					t.Errorf("Update's record differs from Get's: %s", d)
				}
				if !got["updatedAt"].(time.Time).After(created["updatedAt"].(time.Time)) && !got["updatedAt"].(time.Time).Equal(created["updatedAt"].(time.Time)) {
					t.Errorf("updatedAt went back: got %v, created %v", got["updatedAt"], created["updatedAt"])
				}

				if _, err := r.Update(ctx, aliceA, id, map[string]any{tc.field: nil}); err != nil {
					t.Fatalf("Update to null: %v", err)
				}
				got = mustGet(t, k, specimensKey, aliceA, id)
				if v, ok := got[tc.field]; !ok || v != nil {
					t.Errorf("Get after null %s: got %#v (present %v), want nil", tc.field, v, ok)
				}
			})
		}

		t.Run("the wire form has RFC 3339 UTC dates and string decimals", func(t *testing.T) {
			rec := mustCreate(t, k, specimensKey, aliceA, map[string]any{
				"collectedAt": "2026-03-01T10:00:00+02:00", "price": "5",
			})
			b, err := json.Marshal(rec)
			if err != nil {
				t.Fatalf("json.Marshal: %v", err)
			}
			var wire map[string]any
			if err := json.Unmarshal(b, &wire); err != nil {
				t.Fatalf("unmarshal: %v", err)
			}
			if got, want := wire["collectedAt"], "2026-03-01T08:00:00Z"; got != want {
				t.Errorf("wire collectedAt: got %v, want %v", got, want)
			}
			if got, want := wire["price"], "5.00"; got != want {
				t.Errorf("wire price: got %#v, want %#v", got, want)
			}
		})

		t.Run("a value of the wrong type is refused naming the field", func(t *testing.T) {
			bad := map[string]any{
				"label": 5, "weight": "heavy", "price": "1.234", "isFragile": "yes",
				"collectedAt": "01/03/2026", "measurements": []any{"not an object"}, "tags": "not an array",
			}
			before := countRows(t, k, specimensTable)
			for field, v := range bad {
				_, err := r.Create(ctx, aliceA, map[string]any{field: v})
				ve := asValidation(t, err)
				if _, ok := ve.Fields[field]; !ok {
					t.Errorf("Create %s=%#v: got fields %v, want %s named", field, v, ve.Fields, field)
				}
			}
			if got := countRows(t, k, specimensTable); got != before {
				t.Errorf("rows after refused creates: got %d, want %d", got, before)
			}
		})
	})
}

// pick returns the entries of rec whose keys are in like.
func pick(rec, like kit.Record) kit.Record {
	out := kit.Record{}
	for k := range like {
		if v, ok := rec[k]; ok {
			out[k] = v
		}
	}
	return out
}

// TestRecordsCreateReturnsTheWholeRecord checks that Create answers with
// the record Get reads back, unset optional fields included as null, so
// the POST response and the hook's result have the shape GET has.
func TestRecordsCreateReturnsTheWholeRecord(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		k := newKitOn(t, e, specimensDef())
		created := mustCreate(t, k, specimensKey, aliceA, map[string]any{"label": "only a label"})
		got := mustGet(t, k, specimensKey, aliceA, created["id"].(string))
		if d := diffRecords(created, got); d != "" {
			t.Errorf("Create and Get disagree: %s", d)
		}
	})
}

func TestAnActorWithoutUserOrTeamIsForbiddenAndWritesNothing(t *testing.T) {
	t.Parallel()
	k := newKit(t, specimensDef())
	cases := []struct {
		name  string
		actor kit.Actor
	}{
		{"an actor without a user", kit.Actor{TeamID: aliceA.TeamID, Role: aliceA.Role}},
		{"an actor without a team", kit.Actor{UserID: aliceA.UserID, Role: aliceA.Role}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := k.Records(specimensKey).Create(t.Context(), c.actor, map[string]any{"label": "x"})
			if !errors.Is(err, kit.ErrForbidden) || kit.StatusOf(err) != 403 {
				t.Errorf("got %v (status %d), want ErrForbidden (403)", err, kit.StatusOf(err))
			}
			page, err := k.Records(specimensKey).List(t.Context(), aliceA, nil)
			if err != nil {
				t.Fatal(err)
			}
			if page.Pagination.TotalItems != 0 {
				t.Errorf("got %d records, want none written", page.Pagination.TotalItems)
			}
		})
	}
}

// TestRecordsDefaultsAndRequired checks meta.default on create and
// meta.required on create and update.
func TestRecordsDefaultsAndRequired(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		k := newKitOn(t, e, shopDefs()...)
		hooks := recordHooks(k)
		r := k.Records(productsKey)
		ctx := t.Context()

		t.Run("defaults fill the fields a create leaves out", func(t *testing.T) {
			rec := mustCreate(t, k, productsKey, aliceA, map[string]any{"title": "Plain"})
			want := map[string]any{"status": "draft", "isActive": true, "tags": []any{"new"}}
			for f, w := range want {
				if !equalValue(rec[f], w) {
					t.Errorf("Create %s: got %#v, want %#v", f, rec[f], w)
				}
			}
			got := mustGet(t, k, productsKey, aliceA, rec["id"].(string))
			for f, w := range want {
				if !equalValue(got[f], w) {
					t.Errorf("Get %s: got %#v, want %#v", f, got[f], w)
				}
			}
			if got["price"] != nil {
				t.Errorf("price without default: got %#v, want nil", got["price"])
			}
		})

		t.Run("a value given on create wins over the default", func(t *testing.T) {
			rec := mustCreate(t, k, productsKey, aliceA, map[string]any{"title": "Given", "status": "live", "isActive": false, "tags": []any{}})
			got := mustGet(t, k, productsKey, aliceA, rec["id"].(string))
			want := map[string]any{"status": "live", "isActive": false, "tags": []any{}}
			for f, w := range want {
				if !equalValue(got[f], w) {
					t.Errorf("Get %s: got %#v, want %#v", f, got[f], w)
				}
			}
		})

		t.Run("defaults are not applied on update", func(t *testing.T) {
			rec := mustCreate(t, k, productsKey, aliceA, map[string]any{"title": "Keep", "status": "live"})
			got, err := r.Update(ctx, aliceA, rec["id"].(string), map[string]any{"title": "Kept"})
			if err != nil {
				t.Fatalf("Update: %v", err)
			}
			if got["status"] != "live" {
				t.Errorf("status after update without it: got %#v, want %q", got["status"], "live")
			}
		})

		createBodies := []struct {
			name string
			body map[string]any
		}{
			{"a create without the required field is refused", map[string]any{"description": "no title"}},
			{"a create with the required field null is refused", map[string]any{"title": nil}},
			{"a create with the required field empty is refused", map[string]any{"title": ""}},
			{"a create with the required field of the wrong type is refused", map[string]any{"title": 12}},
		}
		for _, tc := range createBodies {
			t.Run(tc.name, func(t *testing.T) {
				before := countRows(t, k, productsTable)
				tx0, after0 := hooks.counts()
				rec, err := r.Create(ctx, aliceA, tc.body)
				if rec != nil {
					t.Errorf("Create returned a record %v, want nil", rec)
				}
				ve := asValidation(t, err)
				if _, ok := ve.Fields["title"]; !ok {
					t.Errorf("validation fields: got %v, want title named", ve.Fields)
				}
				if got := countRows(t, k, productsTable); got != before {
					t.Errorf("rows: got %d, want %d (nothing written)", got, before)
				}
				hooks.wantNoHooks(t, tx0, after0)
			})
		}

		existing := mustCreate(t, k, productsKey, aliceA, map[string]any{"title": "Original"})
		updateBodies := []struct {
			name string
			body map[string]any
		}{
			{"an update setting the required field to null is refused", map[string]any{"title": nil}},
			{"an update setting the required field to an empty string is refused", map[string]any{"title": ""}},
			{"an update clearing it beside a valid change is refused whole", map[string]any{"title": nil, "description": "changed"}},
		}
		for _, tc := range updateBodies {
			t.Run(tc.name, func(t *testing.T) {
				before := countRows(t, k, productsTable)
				tx0, after0 := hooks.counts()
				_, err := r.Update(ctx, aliceA, existing["id"].(string), tc.body)
				ve := asValidation(t, err)
				if _, ok := ve.Fields["title"]; !ok {
					t.Errorf("validation fields: got %v, want title named", ve.Fields)
				}
				got := mustGet(t, k, productsKey, aliceA, existing["id"].(string))
				if got["title"] != "Original" || got["description"] != nil {
					t.Errorf("record after refused update: got title %#v description %#v, want %q and nil", got["title"], got["description"], "Original")
				}
				if !equalValue(got["updatedAt"], existing["updatedAt"]) {
					t.Errorf("updatedAt moved: got %v, want %v", got["updatedAt"], existing["updatedAt"])
				}
				if got := countRows(t, k, productsTable); got != before {
					t.Errorf("rows: got %d, want %d", got, before)
				}
				hooks.wantNoHooks(t, tx0, after0)
			})
		}

		t.Run("an unknown field is refused naming it", func(t *testing.T) {
			_, err := r.Create(ctx, aliceA, map[string]any{"title": "x", "colour": "red"})
			ve := asValidation(t, err)
			if _, ok := ve.Fields["colour"]; !ok {
				t.Errorf("validation fields: got %v, want colour named", ve.Fields)
			}
		})

		t.Run("server-owned fields in a body are ignored", func(t *testing.T) {
			rec := mustCreate(t, k, productsKey, aliceA, map[string]any{
				"title": "Sneaky", "id": "chosen-id", "teamId": teamB, "owner": "mallory",
				"createdAt": "2000-01-01", "createdBy": "mallory",
			})
			if rec["id"] == "chosen-id" || rec["teamId"] != teamA || rec["owner"] != "alice" || rec["createdBy"] != "alice" {
				t.Errorf("system fields: got id %v teamId %v owner %v createdBy %v, want server values", rec["id"], rec["teamId"], rec["owner"], rec["createdBy"])
			}
			if _, err := k.Records(productsKey).Get(ctx, carolB, rec["id"].(string)); !errors.Is(err, kit.ErrNotFound) {
				t.Errorf("Get as team B: got %v, want ErrNotFound", err)
			}
		})
	})
}

// TestRecordsDecimals checks that decimals are stored exactly, compared
// numerically and limited by precision and scale.
func TestRecordsDecimals(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		k := newKitOn(t, e, shopDefs()...)
		r := k.Records(productsKey)
		ctx := t.Context()

		roundTrips := []struct {
			name, field string
			in          any
			want        string
		}{
			{"an ordinary price is exact", "price", "12345678.90", "12345678.90"},
			{"a negative cent is exact", "price", "-0.01", "-0.01"},
			{"zero keeps its scale", "price", "0.00", "0.00"},
			{"a bare zero gets its scale", "price", "0", "0.00"},
			{"negative zero is zero", "price", "-0.00", "0.00"},
			{"a short fraction is padded to the scale", "price", "7.5", "7.50"},
			{"leading zeros and a plus sign are dropped", "price", "+0007.10", "7.10"},
			{"the largest value of decimal(10,2) is exact", "price", "99999999.99", "99999999.99"},
			{"the smallest value of decimal(10,2) is exact", "price", "-99999999.99", "-99999999.99"},
			{"a float64 is read as its shortest decimal", "price", 19.99, "19.99"},
			{"38 significant digits are exact", "amount", "1234567890123456789012345678901234.5678", "1234567890123456789012345678901234.5678"},
			{"the most negative decimal(38,4) is exact", "amount", "-9999999999999999999999999999999999.9999", "-9999999999999999999999999999999999.9999"},
			{"a decimal with scale equal to precision is exact", "ratio", "0.1234", "0.1234"},
			{"a negative decimal with scale equal to precision is exact", "ratio", "-0.5", "-0.5000"},
			{"zero with scale equal to precision is exact", "ratio", "0", "0.0000"},
			{"a decimal with scale 0 is an integer string", "quantity", "123456", "123456"},
			{"a negative decimal with scale 0 is exact", "quantity", "-7", "-7"},
		}
		for _, tc := range roundTrips {
			t.Run(tc.name, func(t *testing.T) {
				rec, err := r.Create(ctx, aliceA, map[string]any{"title": "d", tc.field: tc.in})
				if err != nil {
					t.Fatalf("Create %s=%v: %v", tc.field, tc.in, err)
				}
				if rec[tc.field] != tc.want {
					t.Errorf("Create returned %s: got %#v, want %q", tc.field, rec[tc.field], tc.want)
				}
				got, err := r.Get(ctx, aliceA, rec["id"].(string))
				if err != nil {
					t.Fatalf("Get: %v", err)
				}
				if got[tc.field] != tc.want {
					t.Errorf("Get %s: got %#v, want %q", tc.field, got[tc.field], tc.want)
				}
				l := mustList(t, k, productsKey, aliceA, query("ids", rec["id"].(string)))
				if len(l.Items) != 1 || l.Items[0][tc.field] != tc.want {
					t.Errorf("List %s: got %v, want %q", tc.field, fieldValues(l.Items, tc.field), tc.want)
				}
				// An equality filter with the raw input finds it.
				f, _ := json.Marshal(map[string]any{tc.field: tc.in, "id": rec["id"]})
				if l := mustList(t, k, productsKey, aliceA, query("filter", string(f))); l.Pagination.TotalItems != 1 {
					t.Errorf("filter %s: got %d items, want 1", f, l.Pagination.TotalItems)
				}
			})
		}

		refused := []struct {
			name, field string
			in          any
		}{
			{"one integer digit too many is refused, not rounded", "price", "100000000.00"},
			{"one fraction digit too many is refused, not rounded", "price", "1.234"},
			{"an exponent is refused", "price", "1e3"},
			{"text is refused", "price", "ten"},
			{"an integer part with scale equal to precision is refused", "ratio", "1.0"},
			{"39 digits are refused", "amount", "12345678901234567890123456789012345.6789"},
			{"a fraction with scale 0 is refused", "quantity", "1.5"},
		}
		for _, tc := range refused {
			t.Run(tc.name, func(t *testing.T) {
				before := countRows(t, k, productsTable)
				_, err := r.Create(ctx, aliceA, map[string]any{"title": "d", tc.field: tc.in})
				ve := asValidation(t, err)
				if _, ok := ve.Fields[tc.field]; !ok {
					t.Errorf("validation fields: got %v, want %s named", ve.Fields, tc.field)
				}
				if got := countRows(t, k, productsTable); got != before {
					t.Errorf("rows: got %d, want %d", got, before)
				}
			})
		}

		// Sorting and filtering run in team B, which holds only these records.
		prices := []any{"9.99", "10.50", "-0.01", "-5.00", "0.00", "100.00", "-100.00", "99999999.99", "-99999999.99", nil}
		for _, p := range prices {
			mustCreate(t, k, productsKey, carolB, map[string]any{"title": fmt.Sprint("price ", p), "price": p})
		}
		ascending := []any{nil, "-99999999.99", "-100.00", "-5.00", "-0.01", "0.00", "9.99", "10.50", "100.00", "99999999.99"}
		descending := slices.Clone(ascending)
		slices.Reverse(descending)

		order := []struct {
			name   string
			params url.Values
			want   []any
		}{
			{"ascending sort is numeric, negatives first, null smallest", query("sort", "price", "pageSize", "100"), ascending},
			{"descending sort is numeric, 10.50 before 9.99", query("sort", "-price", "pageSize", "100"), descending},
			{"sortBy and sortDirection sort numerically too", query("sortBy", "price", "sortDirection", "desc", "pageSize", "100"), descending},
			{"gt 0 keeps the positive prices", query("sort", "price", "filter", `{"price":{"gt":"0"}}`), []any{"9.99", "10.50", "100.00", "99999999.99"}},
			{"lt 0 keeps the negative prices", query("sort", "price", "filter", `{"price":{"lt":"0"}}`), []any{"-99999999.99", "-100.00", "-5.00", "-0.01"}},
			{"gte and lte bound a numeric range", query("sort", "price", "filter", `{"price":{"gte":"9.99","lte":"100"}}`), []any{"9.99", "10.50", "100.00"}},
			{"gt 9.99 excludes 9.99 but keeps 10.50", query("sort", "price", "filter", `{"price":{"gt":9.99}}`), []any{"10.50", "100.00", "99999999.99"}},
			{"lt -5 is numeric below minus five", query("sort", "price", "filter", `{"price":{"lt":"-5"}}`), []any{"-99999999.99", "-100.00"}},
			{"in matches canonical values however they are written", query("sort", "price", "filter", `{"price":{"in":["10.5","-5",100]}}`), []any{"-5.00", "10.50", "100.00"}},
			{"equality matches the canonical value", query("sort", "price", "filter", `{"price":"-0.010"}`), []any{"-0.01"}},
			{"null equality finds the record without a price", query("sort", "price", "filter", `{"price":null}`), []any{nil}},
		}
		for _, tc := range order {
			t.Run(tc.name, func(t *testing.T) {
				l := mustList(t, k, productsKey, carolB, tc.params)
				if got := fieldValues(l.Items, "price"); !slices.Equal(got, tc.want) {
					t.Errorf("prices: got %v, want %v", got, tc.want)
				}
				if l.Pagination.TotalItems != len(tc.want) {
					t.Errorf("totalItems: got %d, want %d", l.Pagination.TotalItems, len(tc.want))
				}
			})
		}

		t.Run("a filter value beyond the scale is a query error", func(t *testing.T) {
			_, err := r.List(ctx, carolB, query("filter", `{"price":{"gt":"9.999"}}`))
			var qe *kit.QueryError
			if !errors.As(err, &qe) || qe.Param != "filter" {
				t.Fatalf("got %v, want *kit.QueryError for filter", err)
			}
			if got := kit.StatusOf(err); got != 400 {
				t.Errorf("status: got %d, want 400", got)
			}
		})

		t.Run("wide and all-fraction decimals sort numerically", func(t *testing.T) {
			team := kit.Actor{UserID: "dana", TeamID: "team-decimals"}
			seedActors(t, k, team)
			for _, v := range [][2]any{
				{"2", "0.5"}, {"1234567890123456789012345678901234", "-0.25"}, {"-1234567890123456789012345678901234.5", "0.0001"},
				{"10", "-0.9999"}, {"-3", "0"},
			} {
				mustCreate(t, k, productsKey, team, map[string]any{"title": "w", "amount": v[0], "ratio": v[1]})
			}
			l := mustList(t, k, productsKey, team, query("sort", "amount"))
			want := []any{"-1234567890123456789012345678901234.5000", "-3.0000", "2.0000", "10.0000", "1234567890123456789012345678901234.0000"}
			if got := fieldValues(l.Items, "amount"); !slices.Equal(got, want) {
				t.Errorf("amount ascending: got %v, want %v", got, want)
			}
			l = mustList(t, k, productsKey, team, query("sort", "-ratio"))
			want = []any{"0.5000", "0.0001", "0.0000", "-0.2500", "-0.9999"}
			if got := fieldValues(l.Items, "ratio"); !slices.Equal(got, want) {
				t.Errorf("ratio descending: got %v, want %v", got, want)
			}
			l = mustList(t, k, productsKey, team, query("sort", "ratio", "filter", `{"ratio":{"gt":"-0.5","lt":"0.001"}}`))
			want = []any{"-0.2500", "0.0000", "0.0001"}
			if got := fieldValues(l.Items, "ratio"); !slices.Equal(got, want) {
				t.Errorf("ratio between -0.5 and 0.001: got %v, want %v", got, want)
			}
		})
	})
}

// TestRecordsDates checks date input forms, UTC output, date sorting and
// date filters, including the createdAt metadata field.
func TestRecordsDates(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		k := newKitOn(t, e, shopDefs()...)
		r := k.Records(productsKey)
		ctx := t.Context()

		inputs := []struct {
			name string
			in   any
			want string
		}{
			{"RFC 3339 with a positive offset comes back in UTC", "2026-03-01T10:00:00+02:00", "2026-03-01T08:00:00Z"},
			{"RFC 3339 with a negative offset crosses midnight into UTC", "2026-02-28T23:30:00-05:00", "2026-03-01T04:30:00Z"},
			{"a date alone is midnight UTC", "2026-03-01", "2026-03-01T00:00:00Z"},
			{"nanoseconds are truncated to microseconds", "2026-03-01T08:00:00.123456789Z", "2026-03-01T08:00:00.123456Z"},
			{"a time.Time in another zone is stored as its UTC instant", time.Date(2026, 3, 1, 9, 0, 0, 0, time.FixedZone("CET", 3600)), "2026-03-01T08:00:00Z"},
			{"a leap day is kept", "2024-02-29", "2024-02-29T00:00:00Z"},
		}
		for _, tc := range inputs {
			t.Run(tc.name, func(t *testing.T) {
				rec := mustCreate(t, k, productsKey, aliceA, map[string]any{"title": "d", "publishedAt": tc.in})
				got := mustGet(t, k, productsKey, aliceA, rec["id"].(string))
				if want := date(t, tc.want); !equalValue(got["publishedAt"], want) {
					t.Errorf("publishedAt: got %v, want %v in UTC", got["publishedAt"], want)
				}
			})
		}

		for _, bad := range []string{"01/03/2026", "2026-13-01", "2026-03-01T10:00:00", "2026-02-30", "yesterday"} {
			t.Run(fmt.Sprintf("%q is refused naming the field", bad), func(t *testing.T) {
				_, err := r.Create(ctx, aliceA, map[string]any{"title": "d", "publishedAt": bad})
				ve := asValidation(t, err)
				if _, ok := ve.Fields["publishedAt"]; !ok {
					t.Errorf("validation fields: got %v, want publishedAt named", ve.Fields)
				}
			})
		}

		// Sorting and filters run in team B.
		seed := []struct{ title, at string }{
			{"A", "2026-01-15"},
			{"B", "2025-12-31T23:59:59Z"},
			{"C", "2026-01-15T00:00:00.000001Z"},
			{"D", "2026-01-14T23:00:00-02:00"}, // 2026-01-15T01:00:00Z
			{"E", ""},                          // no date
		}
		for _, s := range seed {
			body := map[string]any{"title": s.title}
			if s.at != "" {
				body["publishedAt"] = s.at
			}
			mustCreate(t, k, productsKey, carolB, body)
		}
		titles := func(l *kit.List) []any { return fieldValues(l.Items, "title") }
		cases := []struct {
			name   string
			params url.Values
			want   []any
		}{
			{"ascending sort is by instant, null first", query("sort", "publishedAt"), []any{"E", "B", "A", "C", "D"}},
			{"descending sort is by instant, null last", query("sort", "-publishedAt"), []any{"D", "C", "A", "B", "E"}},
			{"gte a date and lt an instant select a window", query("sort", "publishedAt", "filter", `{"publishedAt":{"gte":"2026-01-15","lt":"2026-01-15T01:00:00Z"}}`), []any{"A", "C"}},
			{"an offset in a filter is compared as an instant", query("sort", "publishedAt", "filter", `{"publishedAt":{"gte":"2026-01-15T02:00:00+01:00"}}`), []any{"D"}},
			{"lt a date excludes that day", query("sort", "publishedAt", "filter", `{"publishedAt":{"lt":"2026-01-01"}}`), []any{"B"}},
			{"equality matches the exact instant", query("filter", `{"publishedAt":"2026-01-15T00:00:00Z"}`), []any{"A"}},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				if got := titles(mustList(t, k, productsKey, carolB, tc.params)); !slices.Equal(got, tc.want) {
					t.Errorf("titles: got %v, want %v", got, tc.want)
				}
			})
		}

		t.Run("a malformed date in a filter is a query error", func(t *testing.T) {
			_, err := r.List(ctx, carolB, query("filter", `{"publishedAt":{"gte":"soon"}}`))
			var qe *kit.QueryError
			if !errors.As(err, &qe) || qe.Param != "filter" {
				t.Errorf("got %v, want *kit.QueryError for filter", err)
			}
		})

		t.Run("createdAt is set in UTC and filters and sorts by instant", func(t *testing.T) {
			team := kit.Actor{UserID: "erin", TeamID: "team-dates"}
			seedActors(t, k, team)
			var made []kit.Record
			for i := range 3 {
				rec := mustCreate(t, k, productsKey, team, map[string]any{"title": fmt.Sprint("c", i)})
				ca, ok := rec["createdAt"].(time.Time)
				if !ok || ca.Location() != time.UTC {
					t.Fatalf("createdAt: got %#v, want a UTC time.Time", rec["createdAt"])
				}
				if !equalValue(rec["updatedAt"], ca) {
					t.Errorf("updatedAt on create: got %v, want createdAt %v", rec["updatedAt"], ca)
				}
				made = append(made, rec)
				time.Sleep(2 * time.Millisecond) // distinct createdAt values
			}
			at := func(i int) string { return made[i]["createdAt"].(time.Time).Format(time.RFC3339Nano) }
			cases := []struct {
				filter string
				want   []any
			}{
				{fmt.Sprintf(`{"createdAt":{"gt":%q}}`, at(0)), []any{"c1", "c2"}},
				{fmt.Sprintf(`{"createdAt":{"lte":%q}}`, at(1)), []any{"c0", "c1"}},
				{fmt.Sprintf(`{"createdAt":%q}`, at(2)), []any{"c2"}},
				{fmt.Sprintf(`{"createdAt":{"gte":%q}}`, time.Now().Add(time.Hour).Format(time.RFC3339)), []any{}},
			}
			for _, c := range cases {
				got := titles(mustList(t, k, productsKey, team, query("sort", "createdAt", "filter", c.filter)))
				if !slices.Equal(got, c.want) {
					t.Errorf("filter %s: got %v, want %v", c.filter, got, c.want)
				}
			}
			if got, want := titles(mustList(t, k, productsKey, team, nil)), []any{"c2", "c1", "c0"}; !slices.Equal(got, want) {
				t.Errorf("default order (createdAt desc): got %v, want %v", got, want)
			}
			got := mustGet(t, k, productsKey, team, made[0]["id"].(string))
			if !equalValue(got["createdAt"], made[0]["createdAt"]) {
				t.Errorf("Get createdAt: got %v, want %v", got["createdAt"], made[0]["createdAt"])
			}
		})
	})
}

// TestRecordsSearch checks that search and the contains and startsWith
// filters are case-insensitive substring matches in which % and _ are
// plain characters.
func TestRecordsSearch(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		k := newKitOn(t, e, shopDefs()...)
		seed := []struct{ title, description string }{
			{"100% Cotton Shirt", ""},
			{"a_b widget", ""},
			{"axb widget", ""},
			{"Mixed CASE Name", "Lorem ipsum Dolor"},
			{`back\slash tool`, ""},
			{"plain thing", "fifty percent"},
			{"Crème Brûlée", ""},
			{"Éclair", "au CAFÉ"},
			{"Ärger*?[x]", ""},
			{"Ärgerlich", ""},
		}
		for _, s := range seed {
			body := map[string]any{"title": s.title}
			if s.description != "" {
				body["description"] = s.description
			}
			mustCreate(t, k, productsKey, aliceA, body)
		}
		// Team B's look-alike must never show up in team A's results.
		mustCreate(t, k, productsKey, carolB, map[string]any{"title": "100% wool a_b"})

		cases := []struct {
			name   string
			params url.Values
			want   []string
		}{
			{"search 0% finds 100% literally", query("search", "0%"), []string{"100% Cotton Shirt"}},
			{"search % alone matches only a literal percent sign", query("search", "%"), []string{"100% Cotton Shirt"}},
			{"search a_b finds a_b but not axb", query("search", "a_b"), []string{"a_b widget"}},
			{"search _ alone matches only a literal underscore", query("search", "_"), []string{"a_b widget"}},
			{"search ignores case", query("search", "A_B WIDGET"), []string{"a_b widget"}},
			{"search matches across words in mixed case", query("search", "mixed case"), []string{"Mixed CASE Name"}},
			{"search looks in text fields", query("search", "DOLOR"), []string{"Mixed CASE Name"}},
			{"search finds every substring match", query("search", "widget"), []string{"a_b widget", "axb widget"}},
			{"a backslash in a search is literal", query("search", `k\s`), []string{`back\slash tool`}},
			{"a lone backslash is literal", query("search", `\`), []string{`back\slash tool`}},
			{"a search is trimmed", query("search", "  cotton  "), []string{"100% Cotton Shirt"}},
			{"a search without a match is empty", query("search", "no such thing"), nil},
			{"an empty search lists everything", query("search", ""), []string{"100% Cotton Shirt", "a_b widget", "axb widget", "Mixed CASE Name", `back\slash tool`, "plain thing", "Crème Brûlée", "Éclair", "Ärger*?[x]", "Ärgerlich"}},
			{"search ignores the case of accented letters", query("search", "CRÈME BRÛLÉE"), []string{"Crème Brûlée"}},
			{"search ignores the case of accented letters in text fields", query("search", "café"), []string{"Éclair"}},
			{"search with accented letters keeps * ? and [ literal", query("search", "ärger*?["), []string{"Ärger*?[x]"}},
			{"search with accented letters does not treat * as a wildcard", query("search", "ärger*"), []string{"Ärger*?[x]"}},
			{"search with accented letters does not treat ? as a wildcard", query("search", "ä?ger"), nil},
			{"search with accented letters keeps % and _ literal", query("search", "é_"), nil},
			{"contains ignores the case of accented letters", query("filter", `{"title":{"contains":"BRÛL"}}`), []string{"Crème Brûlée"}},
			{"startsWith ignores the case of accented letters", query("filter", `{"title":{"startsWith":"é"}}`), []string{"Éclair"}},
			{"startsWith with accented letters anchors at the start", query("filter", `{"title":{"startsWith":"rger"}}`), nil},
			{"contains a_b is literal", query("filter", `{"title":{"contains":"a_b"}}`), []string{"a_b widget"}},
			{"contains 0% is literal", query("filter", `{"title":{"contains":"0%"}}`), []string{"100% Cotton Shirt"}},
			{"contains ignores case", query("filter", `{"title":{"contains":"COTTON"}}`), []string{"100% Cotton Shirt"}},
			{"contains on a text field works", query("filter", `{"description":{"contains":"percent"}}`), []string{"plain thing"}},
			{"startsWith 100% is literal", query("filter", `{"title":{"startsWith":"100%"}}`), []string{"100% Cotton Shirt"}},
			{"startsWith ignores case and keeps _ literal", query("filter", `{"title":{"startsWith":"A_"}}`), []string{"a_b widget"}},
			{"startsWith a% matches nothing", query("filter", `{"title":{"startsWith":"a%"}}`), nil},
			{"startsWith % matches nothing", query("filter", `{"title":{"startsWith":"%"}}`), nil},
			{"startsWith anchors at the start", query("filter", `{"title":{"startsWith":"widget"}}`), nil},
			{"search and a filter combine", query("search", "widget", "filter", `{"title":{"startsWith":"ax"}}`), []string{"axb widget"}},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				tc.params.Set("sort", "createdAt")
				l := mustList(t, k, productsKey, aliceA, tc.params)
				var got []string
				for _, it := range l.Items {
					got = append(got, it["title"].(string))
				}
				if !slices.Equal(got, tc.want) {
					t.Errorf("titles: got %q, want %q", got, tc.want)
				}
				if l.Pagination.TotalItems != len(tc.want) {
					t.Errorf("totalItems: got %d, want %d", l.Pagination.TotalItems, len(tc.want))
				}
			})
		}
	})
}

// decimalFields are the fields compared as numbers by sortedBy.
var decimalFields = map[string]bool{"price": true, "amount": true, "ratio": true, "quantity": true}

// compareField compares two values of field the way the database sorts
// them: null smallest, decimals numerically, strings bytewise.
func compareField(field string, a, b any) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	switch x := a.(type) {
	case string:
		y := b.(string)
		if decimalFields[field] {
			rx, _ := new(big.Rat).SetString(x)
			ry, _ := new(big.Rat).SetString(y)
			return rx.Cmp(ry)
		}
		return strings.Compare(x, y)
	case float64:
		y := b.(float64)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	case bool:
		y := b.(bool)
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	case time.Time:
		return x.Compare(b.(time.Time))
	}
	panic(fmt.Sprintf("compareField: %T", a))
}

// sortKeys parses a sort parameter and appends the id tiebreaker the way
// lists do (in the direction of the last key).
func sortKeys(sortParam string) (fields []string, desc []bool) {
	for _, p := range strings.Split(sortParam, ",") {
		fields = append(fields, strings.TrimPrefix(p, "-"))
		desc = append(desc, strings.HasPrefix(p, "-"))
	}
	if fields[len(fields)-1] != "id" {
		fields = append(fields, "id")
		desc = append(desc, desc[len(desc)-1])
	}
	return fields, desc
}

// inOrder reports the first index i where recs[i] sorts before recs[i-1]
// by sortParam, or -1.
func inOrder(recs []kit.Record, sortParam string) int {
	fields, desc := sortKeys(sortParam)
	for i := 1; i < len(recs); i++ {
		for j, f := range fields {
			c := compareField(f, recs[i-1][f], recs[i][f])
			if desc[j] {
				c = -c
			}
			if c < 0 {
				break
			}
			if c > 0 {
				return i
			}
		}
	}
	return -1
}

// TestRecordsPagination walks every page of lists sorted by fields full of
// duplicates and checks that pages never overlap and cover every record.
func TestRecordsPagination(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		k := newKitOn(t, e, shopDefs()...)
		r := k.Records(productsKey)
		ctx := t.Context()

		const n = 23
		statuses := []string{"draft", "live", "archived"}
		prices := []any{"10.00", "9.50", nil, "10.00"}
		var created []string
		for i := range n {
			rec := mustCreate(t, k, productsKey, aliceA, map[string]any{
				"title":    fmt.Sprintf("Product %02d", i%7),
				"status":   statuses[i%3],
				"price":    prices[i%4],
				"weight":   float64(i % 5),
				"isActive": i%2 == 0,
			})
			created = append(created, rec["id"].(string))
		}
		var otherTeam []string
		for i := range 3 {
			otherTeam = append(otherTeam, mustCreate(t, k, productsKey, carolB, map[string]any{"title": fmt.Sprint("B", i), "status": "live"})["id"].(string))
		}

		t.Run("the default list is page 1 of 20, newest first", func(t *testing.T) {
			l := mustList(t, k, productsKey, aliceA, nil)
			want := kit.Pagination{CurrentPage: 1, PageSize: 20, TotalItems: n, TotalPages: 2, SortBy: "createdAt", SortDirection: "desc"}
			if l.Pagination != want {
				t.Errorf("pagination: got %+v, want %+v", l.Pagination, want)
			}
			newest := slices.Clone(created)
			slices.Reverse(newest)
			if got := ids(l.Items); !slices.Equal(got, newest[:20]) {
				t.Errorf("ids: got %v, want the 20 newest %v", got, newest[:20])
			}
			l = mustList(t, k, productsKey, aliceA, query("page", "2"))
			if got := ids(l.Items); !slices.Equal(got, newest[20:]) {
				t.Errorf("page 2 ids: got %v, want %v", got, newest[20:])
			}
		})

		walks := []struct {
			name     string
			sort     string
			pageSize int
		}{
			{"pages sorted by a field with many duplicates never overlap", "status", 5},
			{"pages sorted descending by duplicates never overlap", "-status", 4},
			{"pages sorted by a decimal with duplicates and nulls never overlap", "price", 3},
			{"pages sorted by a boolean never overlap", "isActive", 6},
			{"pages sorted by two keys never overlap", "-price,title", 5},
			{"pages sorted by four keys never overlap", "status,-price,weight,title", 2},
			{"pages of one record cover every record", "-isActive,weight", 1},
			{"pages sorted by id never overlap", "-id", 7},
		}
		for _, w := range walks {
			t.Run(w.name, func(t *testing.T) {
				whole := mustList(t, k, productsKey, aliceA, query("sort", w.sort, "pageSize", "100"))
				if i := inOrder(whole.Items, w.sort); i >= 0 {
					t.Errorf("one-page list out of order at %d for sort %s", i, w.sort)
				}
				wantPages := (n + w.pageSize - 1) / w.pageSize
				var walked []kit.Record
				for page := 1; page <= wantPages; page++ {
					l := mustList(t, k, productsKey, aliceA, query("sort", w.sort, "pageSize", fmt.Sprint(w.pageSize), "page", fmt.Sprint(page)))
					if l.Pagination.TotalItems != n || l.Pagination.TotalPages != wantPages || l.Pagination.CurrentPage != page || l.Pagination.PageSize != w.pageSize {
						t.Errorf("page %d pagination: got %+v, want totalItems %d totalPages %d", page, l.Pagination, n, wantPages)
					}
					wantLen := w.pageSize
					if page == wantPages {
						wantLen = n - (wantPages-1)*w.pageSize
					}
					if len(l.Items) != wantLen {
						t.Errorf("page %d: got %d items, want %d", page, len(l.Items), wantLen)
					}
					walked = append(walked, l.Items...)
				}
				seen := map[string]int{}
				for _, id := range ids(walked) {
					seen[id]++
				}
				for _, id := range created {
					if seen[id] != 1 {
						t.Errorf("record %s: seen %d times across pages, want 1", id, seen[id])
					}
				}
				if len(walked) != n {
					t.Errorf("records across pages: got %d, want %d", len(walked), n)
				}
				if !slices.Equal(ids(walked), ids(whole.Items)) {
					t.Errorf("paged order differs from the one-page order:\n got %v\nwant %v", ids(walked), ids(whole.Items))
				}
				first, _ := sortKeys(w.sort)
				l := mustList(t, k, productsKey, aliceA, query("sort", w.sort))
				wantDir := "asc"
				if strings.HasPrefix(w.sort, "-") {
					wantDir = "desc"
				}
				if l.Pagination.SortBy != first[0] || l.Pagination.SortDirection != wantDir {
					t.Errorf("sortBy/sortDirection: got %q %q, want %q %q", l.Pagination.SortBy, l.Pagination.SortDirection, first[0], wantDir)
				}
			})
		}

		t.Run("a page past the end is empty but keeps the counts", func(t *testing.T) {
			l := mustList(t, k, productsKey, aliceA, query("page", "9", "pageSize", "5"))
			if len(l.Items) != 0 || l.Items == nil {
				t.Errorf("items: got %v, want an empty non-nil slice", l.Items)
			}
			if l.Pagination.TotalItems != n || l.Pagination.TotalPages != 5 || l.Pagination.CurrentPage != 9 {
				t.Errorf("pagination: got %+v, want totalItems %d totalPages 5 currentPage 9", l.Pagination, n)
			}
		})

		t.Run("limit is an alias of pageSize", func(t *testing.T) {
			l := mustList(t, k, productsKey, aliceA, query("limit", "4"))
			if len(l.Items) != 4 || l.Pagination.PageSize != 4 || l.Pagination.TotalPages != 6 {
				t.Errorf("got %d items, pagination %+v; want 4 items, pageSize 4, totalPages 6", len(l.Items), l.Pagination)
			}
		})

		t.Run("ids returns only those ids of the team", func(t *testing.T) {
			want := []string{created[3], created[7], created[11]}
			l := mustList(t, k, productsKey, aliceA, query("ids", strings.Join(append(slices.Clone(want), otherTeam[0], "no-such-id"), ","), "sort", "id"))
			got := ids(l.Items)
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("ids: got %v, want %v", got, want)
			}
			if l.Pagination.TotalItems != 3 {
				t.Errorf("totalItems: got %d, want 3", l.Pagination.TotalItems)
			}
		})

		t.Run("GetMany returns the team's records in the order asked", func(t *testing.T) {
			ask := []string{created[5], otherTeam[1], "no-such-id", created[0]}
			recs, err := r.GetMany(ctx, aliceA, ask)
			if err != nil {
				t.Fatalf("GetMany: %v", err)
			}
			if got, want := ids(recs), []string{created[5], created[0]}; !slices.Equal(got, want) {
				t.Errorf("GetMany ids: got %v, want %v", got, want)
			}
		})

		t.Run("a collection's defaultPagination sets the default page size and sort", func(t *testing.T) {
			def := productsDef()
			def.Config = &collections.Config{DefaultPagination: &collections.Pagination{PageSize: 5, SortBy: "title", SortDirection: "asc"}}
			k2 := newKitOn(t, e, categoriesDef(), def)
			for _, title := range []string{"c", "a", "d", "b", "f", "e", "g"} {
				mustCreate(t, k2, productsKey, aliceA, map[string]any{"title": title})
			}
			l := mustList(t, k2, productsKey, aliceA, nil)
			want := kit.Pagination{CurrentPage: 1, PageSize: 5, TotalItems: 7, TotalPages: 2, SortBy: "title", SortDirection: "asc"}
			if l.Pagination != want {
				t.Errorf("pagination: got %+v, want %+v", l.Pagination, want)
			}
			if got := fieldValues(l.Items, "title"); !slices.Equal(got, []any{"a", "b", "c", "d", "e"}) {
				t.Errorf("titles: got %v, want a to e", got)
			}
			l = mustList(t, k2, productsKey, aliceA, query("sortDirection", "desc"))
			if got := fieldValues(l.Items, "title"); !slices.Equal(got, []any{"g", "f", "e", "d", "c"}) {
				t.Errorf("titles with sortDirection desc: got %v, want g to c", got)
			}
		})

		badParams := []struct {
			name   string
			params url.Values
			param  string
		}{
			{"five sort keys are refused", query("sort", "status,price,weight,title,isActive"), "sort"},
			{"a sort on an unknown field is refused", query("sort", "colour"), "sort"},
			{"a sort on a json field is refused", query("sort", "tags"), "sort"},
			{"a page size over the limit is refused", query("pageSize", "101"), "pageSize"},
			{"page 0 is refused", query("page", "0"), "page"},
			{"a filter that is not an object is refused", query("filter", `["price"]`), "filter"},
			{"a filter on an unknown field is refused", query("filter", `{"colour":"red"}`), "filter"},
			{"an operator that does not fit the type is refused", query("filter", `{"isActive":{"gt":true}}`), "filter"},
			{"an empty id in ids is refused", query("ids", "a,,b"), "ids"},
		}
		for _, tc := range badParams {
			t.Run(tc.name, func(t *testing.T) {
				_, err := r.List(ctx, aliceA, tc.params)
				var qe *kit.QueryError
				if !errors.As(err, &qe) {
					t.Fatalf("got %v, want *kit.QueryError", err)
				}
				if qe.Param != tc.param {
					t.Errorf("param: got %q, want %q", qe.Param, tc.param)
				}
				if got := kit.StatusOf(err); got != 400 {
					t.Errorf("status: got %d, want 400", got)
				}
			})
		}
	})
}

// TestRecordsReferences checks that a reference names a record of the same
// team and that a referenced record cannot be deleted.
func TestRecordsReferences(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		k := newKitOn(t, e, shopDefs()...)
		hooks := recordHooks(k)
		r := k.Records(productsKey)
		cats := k.Records(categoriesKey)
		ctx := t.Context()

		catA := mustCreate(t, k, categoriesKey, aliceA, map[string]any{"name": "Shirts"})["id"].(string)
		catA2 := mustCreate(t, k, categoriesKey, aliceA, map[string]any{"name": "Hats"})["id"].(string)
		catB := mustCreate(t, k, categoriesKey, carolB, map[string]any{"name": "B's"})["id"].(string)

		product := mustCreate(t, k, productsKey, aliceA, map[string]any{"title": "Tee", "categoryId": catA})
		pid := product["id"].(string)
		if product["categoryId"] != catA {
			t.Fatalf("categoryId: got %v, want %v", product["categoryId"], catA)
		}

		t.Run("a reference to a record of the same team is stored", func(t *testing.T) {
			got, err := r.Update(ctx, aliceA, pid, map[string]any{"categoryId": catA2})
			if err != nil {
				t.Fatalf("Update: %v", err)
			}
			if got["categoryId"] != catA2 {
				t.Errorf("categoryId: got %v, want %v", got["categoryId"], catA2)
			}
			if _, err := r.Update(ctx, aliceA, pid, map[string]any{"categoryId": catA}); err != nil {
				t.Fatalf("Update back: %v", err)
			}
		})

		badRefs := []struct {
			name, ref string
		}{
			{"a reference to another team's record is refused", catB},
			{"a reference to no record is refused", "no-such-category"},
			{"a reference to a record of another collection is refused", pid},
		}
		for _, tc := range badRefs {
			t.Run(tc.name+" on create", func(t *testing.T) {
				before := countRows(t, k, productsTable)
				tx0, after0 := hooks.counts()
				_, err := r.Create(ctx, aliceA, map[string]any{"title": "Bad", "categoryId": tc.ref})
				ve := asValidation(t, err)
				if _, ok := ve.Fields["categoryId"]; !ok {
					t.Errorf("validation fields: got %v, want categoryId named", ve.Fields)
				}
				if got := countRows(t, k, productsTable); got != before {
					t.Errorf("rows: got %d, want %d", got, before)
				}
				hooks.wantNoHooks(t, tx0, after0)
			})
			t.Run(tc.name+" on update", func(t *testing.T) {
				tx0, after0 := hooks.counts()
				_, err := r.Update(ctx, aliceA, pid, map[string]any{"categoryId": tc.ref, "title": "Changed"})
				ve := asValidation(t, err)
				if _, ok := ve.Fields["categoryId"]; !ok {
					t.Errorf("validation fields: got %v, want categoryId named", ve.Fields)
				}
				got := mustGet(t, k, productsKey, aliceA, pid)
				if got["categoryId"] != catA || got["title"] != "Tee" {
					t.Errorf("record after refused update: got categoryId %v title %v, want %v and Tee", got["categoryId"], got["title"], catA)
				}
				hooks.wantNoHooks(t, tx0, after0)
			})
		}

		t.Run("an empty reference is stored as null", func(t *testing.T) {
			rec := mustCreate(t, k, productsKey, aliceA, map[string]any{"title": "No category", "categoryId": ""})
			if v, ok := rec["categoryId"]; !ok || v != nil {
				t.Errorf("categoryId: got %#v, want nil", v)
			}
		})

		t.Run("deleting a referenced record fails and writes nothing", func(t *testing.T) {
			before := countRows(t, k, categoriesTable)
			tx0, after0 := hooks.counts()
			err := cats.Delete(ctx, adminA, catA)
			var ce *kit.ConstraintError
			if !errors.As(err, &ce) {
				t.Fatalf("Delete: got %v (%T), want *kit.ConstraintError", err, err)
			}
			if got := kit.StatusOf(err); got != 409 {
				t.Errorf("status: got %d, want 409", got)
			}
			if ce != nil && ce.Kind != kit.ConstraintReferenced {
				t.Errorf("kind: got %q, want %q", ce.Kind, kit.ConstraintReferenced)
			}
			if got := countRows(t, k, categoriesTable); got != before {
				t.Errorf("category rows: got %d, want %d", got, before)
			}
			if _, err := cats.Get(ctx, aliceA, catA); err != nil {
				t.Errorf("Get referenced category after refused delete: %v", err)
			}
			if got := mustGet(t, k, productsKey, aliceA, pid); got["categoryId"] != catA {
				t.Errorf("product categoryId: got %v, want %v", got["categoryId"], catA)
			}
			hooks.wantNoHooks(t, tx0, after0)
		})

		t.Run("a record no longer referenced can be deleted", func(t *testing.T) {
			if _, err := r.Update(ctx, aliceA, pid, map[string]any{"categoryId": nil}); err != nil {
				t.Fatalf("Update: %v", err)
			}
			if err := cats.Delete(ctx, aliceA, catA); err != nil {
				t.Fatalf("Delete: %v", err)
			}
			if _, err := cats.Get(ctx, aliceA, catA); !errors.Is(err, kit.ErrNotFound) {
				t.Errorf("Get deleted: got %v, want ErrNotFound", err)
			}
		})

		t.Run("a filter by reference finds the referring records", func(t *testing.T) {
			mustCreate(t, k, productsKey, aliceA, map[string]any{"title": "Cap", "categoryId": catA2})
			l := mustList(t, k, productsKey, aliceA, query("filter", fmt.Sprintf(`{"categoryId":%q}`, catA2)))
			if got := fieldValues(l.Items, "title"); !slices.Equal(got, []any{"Cap"}) {
				t.Errorf("titles: got %v, want [Cap]", got)
			}
		})
	})
}

// TestRecordsUniquePerTeam checks meta.unique: unique within a team,
// free across teams.
func TestRecordsUniquePerTeam(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		k := newKitOn(t, e, shopDefs()...)
		hooks := recordHooks(k)
		r := k.Records(productsKey)
		ctx := t.Context()

		first := mustCreate(t, k, productsKey, aliceA, map[string]any{"title": "One", "sku": "SKU-1"})

		t.Run("the same value in another team is fine", func(t *testing.T) {
			mustCreate(t, k, productsKey, carolB, map[string]any{"title": "One in B", "sku": "SKU-1"})
		})

		wantConflict := func(t *testing.T, err error) {
			t.Helper()
			var ce *kit.ConstraintError
			if !errors.As(err, &ce) {
				t.Fatalf("got %v (%T), want *kit.ConstraintError", err, err)
			}
			if ce.Field != "sku" {
				t.Errorf("Field: got %q, want %q", ce.Field, "sku")
			}
			if ce.Kind != "unique" {
				t.Errorf("Kind: got %q, want unique", ce.Kind)
			}
			if got := kit.StatusOf(err); got != 409 {
				t.Errorf("status: got %d, want 409", got)
			}
		}

		t.Run("the same value twice in one team is a 409 naming the field", func(t *testing.T) {
			before := countRows(t, k, productsTable)
			tx0, after0 := hooks.counts()
			_, err := r.Create(ctx, bobA, map[string]any{"title": "Two", "sku": "SKU-1"})
			wantConflict(t, err)
			if got := countRows(t, k, productsTable); got != before {
				t.Errorf("rows: got %d, want %d", got, before)
			}
			hooks.wantNoHooks(t, tx0, after0)
		})

		t.Run("updating another record to a taken value is a 409", func(t *testing.T) {
			other := mustCreate(t, k, productsKey, aliceA, map[string]any{"title": "Other", "sku": "SKU-2"})
			tx0, after0 := hooks.counts()
			_, err := r.Update(ctx, aliceA, other["id"].(string), map[string]any{"sku": "SKU-1"})
			wantConflict(t, err)
			if got := mustGet(t, k, productsKey, aliceA, other["id"].(string)); got["sku"] != "SKU-2" {
				t.Errorf("sku after refused update: got %v, want SKU-2", got["sku"])
			}
			hooks.wantNoHooks(t, tx0, after0)
		})

		t.Run("a record may keep its own value", func(t *testing.T) {
			if _, err := r.Update(ctx, aliceA, first["id"].(string), map[string]any{"sku": "SKU-1", "title": "One again"}); err != nil {
				t.Fatalf("Update: %v", err)
			}
		})

		t.Run("a freed value can be taken again", func(t *testing.T) {
			if _, err := r.Update(ctx, aliceA, first["id"].(string), map[string]any{"sku": "SKU-9"}); err != nil {
				t.Fatalf("Update: %v", err)
			}
			mustCreate(t, k, productsKey, bobA, map[string]any{"title": "Reuse", "sku": "SKU-1"})
		})

		t.Run("many records may leave a unique field null", func(t *testing.T) {
			for i := range 3 {
				mustCreate(t, k, productsKey, aliceA, map[string]any{"title": fmt.Sprint("no sku ", i)})
			}
		})

		t.Run("uniqueness is exact, not case-folded", func(t *testing.T) {
			mustCreate(t, k, productsKey, aliceA, map[string]any{"title": "lower", "sku": "sku-1"})
		})
	})
}

// TestRecordsTenancy checks that a team never sees or touches another
// team's records and that members touch only their own.
func TestRecordsTenancy(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		k := newKitOn(t, e, shopDefs()...)
		hooks := recordHooks(k)
		r := k.Records(productsKey)
		ctx := t.Context()

		secret := mustCreate(t, k, productsKey, aliceA, map[string]any{"title": "Team A secret", "sku": "A-1"})
		sid := secret["id"].(string)
		mustCreate(t, k, productsKey, carolB, map[string]any{"title": "Team B own"})

		unchanged := func(t *testing.T) {
			t.Helper()
			got := mustGet(t, k, productsKey, aliceA, sid)
			if got["title"] != "Team A secret" || !equalValue(got["updatedAt"], secret["updatedAt"]) || got["updatedBy"] != "alice" {
				t.Errorf("record changed: got title %v updatedAt %v updatedBy %v", got["title"], got["updatedAt"], got["updatedBy"])
			}
		}

		for _, other := range []kit.Actor{carolB, adminB, {UserID: "alice", TeamID: teamB, Role: "owner"}} {
			name := fmt.Sprintf("team B %s %s", other.Role, other.UserID)
			t.Run(name+" gets not found", func(t *testing.T) {
				if _, err := r.Get(ctx, other, sid); !errors.Is(err, kit.ErrNotFound) {
					t.Errorf("Get: got %v, want ErrNotFound", err)
				}
				if got := kit.StatusOf(kit.ErrNotFound); got != 404 {
					t.Errorf("StatusOf(ErrNotFound): got %d, want 404", got)
				}
			})
			t.Run(name+" gets nothing from GetMany", func(t *testing.T) {
				recs, err := r.GetMany(ctx, other, []string{sid})
				if err != nil || len(recs) != 0 {
					t.Errorf("GetMany: got %v, %v; want no records", ids(recs), err)
				}
			})
			t.Run(name+" never lists it", func(t *testing.T) {
				for _, p := range []url.Values{
					nil,
					query("ids", sid),
					query("filter", fmt.Sprintf(`{"id":%q}`, sid)),
					query("filter", `{"sku":"A-1"}`),
					query("search", "secret"),
					query("filter", fmt.Sprintf(`{"teamId":%q}`, teamA)),
				} {
					l := mustList(t, k, productsKey, other, p)
					if slices.Contains(ids(l.Items), sid) {
						t.Errorf("List %v: shows team A's record", p)
					}
					for _, it := range l.Items {
						if it["teamId"] != teamB {
							t.Errorf("List %v: shows a record of team %v", p, it["teamId"])
						}
					}
				}
			})
			t.Run(name+" cannot update it", func(t *testing.T) {
				tx0, after0 := hooks.counts()
				_, err := r.Update(ctx, other, sid, map[string]any{"title": "stolen"})
				if !errors.Is(err, kit.ErrNotFound) {
					t.Errorf("Update: got %v, want ErrNotFound", err)
				}
				unchanged(t)
				hooks.wantNoHooks(t, tx0, after0)
			})
			t.Run(name+" cannot update it with an empty body either", func(t *testing.T) {
				if _, err := r.Update(ctx, other, sid, map[string]any{}); !errors.Is(err, kit.ErrNotFound) {
					t.Errorf("Update: got %v, want ErrNotFound", err)
				}
			})
			t.Run(name+" cannot delete it", func(t *testing.T) {
				tx0, after0 := hooks.counts()
				if err := r.Delete(ctx, other, sid); !errors.Is(err, kit.ErrNotFound) {
					t.Errorf("Delete: got %v, want ErrNotFound", err)
				}
				unchanged(t)
				hooks.wantNoHooks(t, tx0, after0)
			})
		}

		t.Run("a unique value of team A does not leak through team B's conflict", func(t *testing.T) {
			mustCreate(t, k, productsKey, carolB, map[string]any{"title": "B copy", "sku": "A-1"})
		})

		t.Run("another member gets forbidden on update and delete", func(t *testing.T) {
			tx0, after0 := hooks.counts()
			if _, err := r.Update(ctx, bobA, sid, map[string]any{"title": "bob was here"}); !errors.Is(err, kit.ErrForbidden) || kit.StatusOf(err) != 403 {
				t.Errorf("Update: got %v (%d), want ErrForbidden (403)", err, kit.StatusOf(err))
			}
			if err := r.Delete(ctx, bobA, sid); !errors.Is(err, kit.ErrForbidden) || kit.StatusOf(err) != 403 {
				t.Errorf("Delete: got %v (%d), want ErrForbidden (403)", err, kit.StatusOf(err))
			}
			noRole := kit.Actor{UserID: "nobody", TeamID: teamA}
			if err := r.Delete(ctx, noRole, sid); !errors.Is(err, kit.ErrForbidden) {
				t.Errorf("Delete with no role: got %v, want ErrForbidden", err)
			}
			unchanged(t)
			hooks.wantNoHooks(t, tx0, after0)
		})

		t.Run("another member may still read it", func(t *testing.T) {
			if got := mustGet(t, k, productsKey, bobA, sid); got["title"] != "Team A secret" {
				t.Errorf("Get as bob: got title %v", got["title"])
			}
		})

		t.Run("an actor without user or team is refused", func(t *testing.T) {
			for _, a := range []kit.Actor{{TeamID: teamA}, {UserID: "alice"}} {
				if _, err := r.Get(ctx, a, sid); kit.StatusOf(err) != 403 {
					t.Errorf("Get as %+v: got %v (status %d), want 403", a, err, kit.StatusOf(err))
				}
				if _, err := r.Create(ctx, a, map[string]any{"title": "x"}); kit.StatusOf(err) != 403 {
					t.Errorf("Create as %+v: got %v (status %d), want 403", a, err, kit.StatusOf(err))
				}
			}
		})

		t.Run("the owner of a record may update and delete it", func(t *testing.T) {
			mine := mustCreate(t, k, productsKey, bobA, map[string]any{"title": "bob's"})
			got, err := r.Update(ctx, bobA, mine["id"].(string), map[string]any{"title": "bob's own"})
			if err != nil || got["title"] != "bob's own" {
				t.Fatalf("Update own: got %v, %v", got["title"], err)
			}
			if err := r.Delete(ctx, bobA, mine["id"].(string)); err != nil {
				t.Fatalf("Delete own: %v", err)
			}
		})

		for _, a := range []kit.Actor{adminA, ownerA} {
			t.Run(fmt.Sprintf("a team %s may update and delete any record of the team", a.Role), func(t *testing.T) {
				rec := mustCreate(t, k, productsKey, aliceA, map[string]any{"title": "alice's"})
				id := rec["id"].(string)
				got, err := r.Update(ctx, a, id, map[string]any{"title": "edited by " + string(a.Role)})
				if err != nil {
					t.Fatalf("Update: %v", err)
				}
				if got["updatedBy"] != a.UserID || got["owner"] != "alice" || got["createdBy"] != "alice" {
					t.Errorf("after update: got updatedBy %v owner %v createdBy %v, want %v, alice, alice", got["updatedBy"], got["owner"], got["createdBy"], a.UserID)
				}
				if err := r.Delete(ctx, a, id); err != nil {
					t.Fatalf("Delete: %v", err)
				}
				if _, err := r.Get(ctx, aliceA, id); !errors.Is(err, kit.ErrNotFound) {
					t.Errorf("Get deleted: got %v, want ErrNotFound", err)
				}
			})
		}

		t.Run("team B's counts never include team A", func(t *testing.T) {
			lA := mustList(t, k, productsKey, aliceA, nil)
			lB := mustList(t, k, productsKey, carolB, nil)
			total := countRows(t, k, productsTable)
			if lA.Pagination.TotalItems+lB.Pagination.TotalItems != total {
				t.Errorf("team totals %d + %d, want the table's %d rows", lA.Pagination.TotalItems, lB.Pagination.TotalItems, total)
			}
		})

		t.Run("a deleted record is not found by anyone", func(t *testing.T) {
			if err := r.Delete(ctx, aliceA, sid); err != nil {
				t.Fatalf("Delete: %v", err)
			}
			if err := r.Delete(ctx, aliceA, sid); !errors.Is(err, kit.ErrNotFound) {
				t.Errorf("second Delete: got %v, want ErrNotFound", err)
			}
			if _, err := r.Update(ctx, adminA, sid, map[string]any{"title": "x"}); !errors.Is(err, kit.ErrNotFound) {
				t.Errorf("Update deleted: got %v, want ErrNotFound", err)
			}
		})

		t.Run("a closed kit answers ErrClosed", func(t *testing.T) {
			k2 := newKitOn(t, e, shopDefs()...)
			if err := k2.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			if _, err := k2.Records(productsKey).Get(ctx, aliceA, sid); !errors.Is(err, kit.ErrClosed) || kit.StatusOf(err) != 503 {
				t.Errorf("Get after Close: got %v (status %d), want ErrClosed (503)", err, kit.StatusOf(err))
			}
			if err := k2.Close(); err != nil {
				t.Errorf("second Close: got %v, want nil", err)
			}
		})

		t.Run("an unknown collection is ErrUnknownCollection", func(t *testing.T) {
			_, err := k.Records("shopNothing").Get(ctx, aliceA, sid)
			if !errors.Is(err, kit.ErrUnknownCollection) || kit.StatusOf(err) != 404 {
				t.Errorf("got %v (status %d), want ErrUnknownCollection (404)", err, kit.StatusOf(err))
			}
		})
	})
}

// TestRecordsMutationHook checks the kit:mutation payloads and the two
// hook phases.
func TestRecordsMutationHook(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		k := newKitOn(t, e, shopDefs()...)
		hooks := recordHooks(k)
		r := k.Records(productsKey)
		ctx := t.Context()

		checkCommon := func(t *testing.T, m kit.Mutation, op kit.Operation, start time.Time) {
			t.Helper()
			if m.Operation != op {
				t.Errorf("operation: got %q, want %q", m.Operation, op)
			}
			if m.Collection != productsKey {
				t.Errorf("collection: got %q, want %q", m.Collection, productsKey)
			}
			if m.CorrelationID == "" {
				t.Error("correlationId: got empty, want a generated id")
			}
			if lo, hi := start.UnixMilli(), time.Now().UnixMilli(); m.Timestamp < lo || m.Timestamp > hi {
				t.Errorf("timestamp: got %d, want ms between %d and %d", m.Timestamp, lo, hi)
			}
			if m.TeamID != teamA || m.UserID != "alice" {
				t.Errorf("team/user: got %q/%q, want %q/alice", m.TeamID, m.UserID, teamA)
			}
		}

		var id string
		t.Run("create carries data, result and itemId", func(t *testing.T) {
			start := time.Now()
			rec, err := r.Create(ctx, aliceA, map[string]any{"title": "Hooked", "price": "5"})
			if err != nil {
				t.Fatalf("Create: %v", err)
			}
			id = rec["id"].(string)
			m := hooks.last(t)
			checkCommon(t, m, kit.OpCreate, start)
			if m.ItemID != id {
				t.Errorf("itemId: got %q, want %q", m.ItemID, id)
			}
			if m.Data["title"] != "Hooked" || m.Data["price"] != "5.00" || m.Data["status"] != "draft" {
				t.Errorf("data: got %v, want the canonical created fields with defaults", m.Data)
			}
			if _, ok := m.Data["id"]; ok {
				t.Errorf("data: got id %v, want only the body fields", m.Data["id"])
			}
			res, ok := m.Result.(kit.Record)
			if !ok || res["id"] != id || res["teamId"] != teamA || res["owner"] != "alice" {
				t.Errorf("result: got %#v, want the stored record", m.Result)
			}
			if m.Updates != nil || m.BeforeData != nil || m.ItemIDs != nil {
				t.Errorf("create carries updates %v beforeData %v itemIds %v, want none", m.Updates, m.BeforeData, m.ItemIDs)
			}
			b, err := json.Marshal(m)
			if err != nil {
				t.Fatalf("marshal mutation: %v", err)
			}
			var wire map[string]any
			_ = json.Unmarshal(b, &wire)
			for _, key := range []string{"operation", "collection", "itemId", "data", "result", "correlationId", "timestamp"} {
				if _, ok := wire[key]; !ok {
					t.Errorf("JSON payload lacks %q: %s", key, b)
				}
			}
		})

		t.Run("update carries updates, beforeData and result", func(t *testing.T) {
			start := time.Now()
			if _, err := r.Update(ctx, aliceA, id, map[string]any{"title": "Rehooked", "price": "6.5"}); err != nil {
				t.Fatalf("Update: %v", err)
			}
			m := hooks.last(t)
			checkCommon(t, m, kit.OpUpdate, start)
			if m.ItemID != id {
				t.Errorf("itemId: got %q, want %q", m.ItemID, id)
			}
			want := map[string]any{"title": "Rehooked", "price": "6.50"}
			if !equalValue(m.Updates, want) {
				t.Errorf("updates: got %v, want %v", m.Updates, want)
			}
			if m.BeforeData["title"] != "Hooked" || m.BeforeData["price"] != "5.00" {
				t.Errorf("beforeData: got %v, want the record before the update", m.BeforeData)
			}
			res, ok := m.Result.(kit.Record)
			if !ok || res["title"] != "Rehooked" || res["price"] != "6.50" || res["status"] != "draft" {
				t.Errorf("result: got %#v, want the whole updated record", m.Result)
			}
		})

		t.Run("an update with an empty body fires no hook", func(t *testing.T) {
			tx0, after0 := hooks.counts()
			rec, err := r.Update(ctx, aliceA, id, map[string]any{})
			if err != nil {
				t.Fatalf("Update: %v", err)
			}
			if rec["title"] != "Rehooked" {
				t.Errorf("result: got title %v, want Rehooked", rec["title"])
			}
			if _, err := r.Update(ctx, aliceA, id, map[string]any{"updatedAt": "2000-01-01", "owner": "x"}); err != nil {
				t.Fatalf("Update with only server-owned fields: %v", err)
			}
			hooks.wantNoHooks(t, tx0, after0)
		})

		t.Run("the correlation id comes from WithRequestInfo", func(t *testing.T) {
			rctx := kit.WithRequestInfo(ctx, kit.RequestInfo{CorrelationID: "corr-123", Method: "POST", Path: "/x"})
			if _, err := r.Create(rctx, aliceA, map[string]any{"title": "Correlated"}); err != nil {
				t.Fatalf("Create: %v", err)
			}
			m := hooks.last(t)
			if m.CorrelationID != "corr-123" {
				t.Errorf("correlationId: got %q, want corr-123", m.CorrelationID)
			}
			if m.Request.Method != "POST" || m.Request.Path != "/x" {
				t.Errorf("request: got %+v, want the given request info", m.Request)
			}
			hooks.mu.Lock()
			txm := hooks.tx[len(hooks.tx)-1]
			hooks.mu.Unlock()
			if txm.CorrelationID != "corr-123" {
				t.Errorf("in-transaction correlationId: got %q, want corr-123", txm.CorrelationID)
			}
		})

		t.Run("two mutations without request info get different correlation ids", func(t *testing.T) {
			mustCreate(t, k, productsKey, aliceA, map[string]any{"title": "c1"})
			c1 := hooks.last(t).CorrelationID
			mustCreate(t, k, productsKey, aliceA, map[string]any{"title": "c2"})
			if c2 := hooks.last(t).CorrelationID; c1 == c2 {
				t.Errorf("correlation ids: got %q twice, want distinct", c1)
			}
		})

		t.Run("delete carries itemIds and beforeData", func(t *testing.T) {
			start := time.Now()
			if err := r.Delete(ctx, aliceA, id); err != nil {
				t.Fatalf("Delete: %v", err)
			}
			m := hooks.last(t)
			checkCommon(t, m, kit.OpDelete, start)
			if !slices.Equal(m.ItemIDs, []string{id}) {
				t.Errorf("itemIds: got %v, want [%s]", m.ItemIDs, id)
			}
			if m.BeforeData["title"] != "Rehooked" {
				t.Errorf("beforeData: got %v, want the deleted record", m.BeforeData)
			}
		})

		t.Run("both phases see every mutation once", func(t *testing.T) {
			tx, after := hooks.counts()
			if tx != after || tx != 6 {
				t.Errorf("hook calls: got tx %d after %d, want 6 each (4 creates, 1 update, 1 delete)", tx, after)
			}
		})

		boom := errors.New("audit store down")
		t.Run("an OnMutationTx error rolls a create back and comes back", func(t *testing.T) {
			hooks.setFailTx(boom)
			defer hooks.setFailTx(nil)
			before := countRows(t, k, productsTable)
			_, after0 := hooks.counts()
			_, err := r.Create(ctx, aliceA, map[string]any{"title": "Rolled back", "sku": "RB-1"})
			if !errors.Is(err, boom) {
				t.Fatalf("Create: got %v, want the hook's error", err)
			}
			if got := countRows(t, k, productsTable); got != before {
				t.Errorf("rows: got %d, want %d (rolled back)", got, before)
			}
			if l := mustList(t, k, productsKey, aliceA, query("search", "Rolled back")); l.Pagination.TotalItems != 0 {
				t.Errorf("rolled-back record listed: %v", ids(l.Items))
			}
			if _, after := hooks.counts(); after != after0 {
				t.Errorf("OnMutation after a rollback: got %d calls, want %d", after, after0)
			}
			hooks.setFailTx(nil)
			mustCreate(t, k, productsKey, aliceA, map[string]any{"title": "Retry", "sku": "RB-1"}) // the unique value was freed
		})

		t.Run("an OnMutationTx error rolls an update and a delete back", func(t *testing.T) {
			rec := mustCreate(t, k, productsKey, aliceA, map[string]any{"title": "Stays"})
			rid := rec["id"].(string)
			hooks.setFailTx(boom)
			defer hooks.setFailTx(nil)
			if _, err := r.Update(ctx, aliceA, rid, map[string]any{"title": "Gone"}); !errors.Is(err, boom) {
				t.Errorf("Update: got %v, want the hook's error", err)
			}
			if err := r.Delete(ctx, aliceA, rid); !errors.Is(err, boom) {
				t.Errorf("Delete: got %v, want the hook's error", err)
			}
			if got := mustGet(t, k, productsKey, aliceA, rid); got["title"] != "Stays" {
				t.Errorf("title: got %v, want Stays", got["title"])
			}
		})

		t.Run("an OnMutationTx hook writes in the same transaction", func(t *testing.T) {
			k2 := newKitOn(t, e, shopDefs()...)
			if _, err := k2.DB().ExecContext(ctx, `CREATE TABLE audit_rows (item_id TEXT)`); err != nil {
				t.Fatal(err)
			}
			fail := false
			k2.OnMutationTx(func(ctx context.Context, tx bun.Tx, m *kit.Mutation) error {
				if _, err := tx.ExecContext(ctx, `INSERT INTO audit_rows (item_id) VALUES (?)`, m.ItemID); err != nil {
					return err
				}
				if fail {
					return boom
				}
				return nil
			})
			mustCreate(t, k2, productsKey, aliceA, map[string]any{"title": "audited"})
			fail = true
			if _, err := k2.Records(productsKey).Create(ctx, aliceA, map[string]any{"title": "not audited"}); !errors.Is(err, boom) {
				t.Fatalf("Create: got %v, want the hook's error", err)
			}
			if got := countRows(t, k2, "audit_rows"); got != 1 {
				t.Errorf("audit rows: got %d, want 1 (the failed mutation's row rolled back with it)", got)
			}
		})

		t.Run("an OnMutation panic is recovered and the request succeeds", func(t *testing.T) {
			var logged strings.Builder
			var mu sync.Mutex
			logger := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
				mu.Lock()
				defer mu.Unlock()
				return logged.Write(p)
			}), nil))
			k3 := newKitConfig(t, kit.Config{DB: testdb.Open(t, e), Definitions: shopDefs(), Logger: logger})
			var after int
			k3.OnMutation(func(context.Context, kit.Mutation) { panic("listener bug") })
			k3.OnMutation(func(context.Context, kit.Mutation) { after++ })
			rec, err := k3.Records(productsKey).Create(ctx, aliceA, map[string]any{"title": "survives"})
			if err != nil {
				t.Fatalf("Create: %v", err)
			}
			if _, err := k3.Records(productsKey).Get(ctx, aliceA, rec["id"].(string)); err != nil {
				t.Errorf("Get: %v", err)
			}
			if after != 1 {
				t.Errorf("listener after the panicking one: got %d calls, want 1", after)
			}
			mu.Lock()
			defer mu.Unlock()
			if !strings.Contains(logged.String(), "listener bug") {
				t.Errorf("log: got %q, want the panic logged", logged.String())
			}
		})
	})
}

// writerFunc adapts a function to io.Writer.
type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestRecordsUpdateToTheStoredValuesWritesNothing checks that an update
// whose values equal the stored ones is a no-op: no write (updatedAt
// unchanged) and no hook in either phase.
func TestRecordsUpdateToTheStoredValuesWritesNothing(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		k := newKitOn(t, e, specimensDef())
		created := mustCreate(t, k, specimensKey, aliceA, map[string]any{"label": "same"})
		hooks := recordHooks(k)
		got, err := k.Records(specimensKey).Update(t.Context(), aliceA, created["id"].(string), map[string]any{"label": "same"})
		if err != nil {
			t.Fatal(err)
		}
		if got["updatedAt"] != created["updatedAt"] {
			t.Errorf("updatedAt: got %v, want unchanged %v", got["updatedAt"], created["updatedAt"])
		}
		if tx, after := hooks.counts(); tx != 0 || after != 0 {
			t.Errorf("hooks: got %d in tx and %d after commit, want none", tx, after)
		}
	})
}

// TestRecordsStringOrderIsTheSameOnEveryEngine checks that string sorts
// and string range filters compare by code point (SQLite's BINARY order
// of UTF-8 text) on every engine, whatever collation the PostgreSQL
// database was created with: upper case before lower case, accented
// letters after z.
func TestRecordsStringOrderIsTheSameOnEveryEngine(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		k := newKitOn(t, e, shopDefs()...)
		for _, title := range []string{"b", "B", "a", "A", "é", "E", "z", "Z-1", "a b", "ab"} {
			mustCreate(t, k, productsKey, aliceA, map[string]any{"title": title})
		}
		cases := []struct {
			name   string
			params url.Values
			want   []any
		}{
			{"ascending sort ignores case and accents, code point breaking ties", query("sort", "title"),
				[]any{"A", "a", "a b", "ab", "B", "b", "E", "é", "z", "Z-1"}},
			{"descending sort is its exact reverse", query("sort", "-title"),
				[]any{"Z-1", "z", "é", "E", "b", "B", "ab", "a b", "a", "A"}},
			{"gt compares in the same order", query("sort", "title", "filter", `{"title":{"gt":"Z"}}`),
				[]any{"z", "Z-1"}},
			{"lt compares in the same order", query("sort", "title", "filter", `{"title":{"lt":"a"}}`),
				[]any{"A"}},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				if got := fieldValues(mustList(t, k, productsKey, aliceA, tc.params).Items, "title"); !slices.Equal(got, tc.want) {
					t.Errorf("titles: got %q, want %q", got, tc.want)
				}
			})
		}
	})
}

// TestRecordsUpdateKeepsEveryRule checks an update without listeners on
// plain fields: the change comes back as stored, an equal value writes
// nothing, a member changes only their own records, other teams' and
// missing records are not found, and a taken unique value is refused
// naming the field, with nothing written whenever the update is refused.
func TestRecordsUpdateKeepsEveryRule(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		k := newKitOn(t, e, shopDefs()...)
		ctx := t.Context()
		published := time.Date(2026, 3, 4, 5, 6, 7, 890000000, time.UTC)
		tests := []struct {
			name      string
			actor     kit.Actor
			missing   bool
			changes   map[string]any
			wantErr   func(error) bool
			wantWrite bool
		}{
			{"the owner's change is written and comes back as stored", aliceA, false,
				map[string]any{"title": "renamed", "price": "12.5", "weight": 3.25, "isActive": false, "publishedAt": published.Format(time.RFC3339Nano)}, nil, true},
			{"an admin changes a member's record", adminA, false, map[string]any{"status": "live"}, nil, true},
			{"values equal to the stored ones write nothing", aliceA, false, map[string]any{"title": "first", "sku": "A"}, nil, false},
			{"another member's record is forbidden", bobA, false, map[string]any{"title": "taken over"},
				func(err error) bool { return errors.Is(err, kit.ErrForbidden) && kit.StatusOf(err) == 403 }, false},
			{"another team's record is not found", carolB, false, map[string]any{"title": "taken over"},
				func(err error) bool { return errors.Is(err, kit.ErrNotFound) }, false},
			{"a missing record is not found", aliceA, true, map[string]any{"title": "ghost"},
				func(err error) bool { return errors.Is(err, kit.ErrNotFound) }, false},
			{"a taken value of the only unique field is refused naming it", aliceA, false, map[string]any{"sku": "B"},
				func(err error) bool {
					var ce *kit.ConstraintError
					return errors.As(err, &ce) && ce.Field == "sku" && kit.StatusOf(err) == 409
				}, false},
		}
		mustCreate(t, k, productsKey, aliceA, map[string]any{"title": "other", "sku": "B"})
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				created := mustCreate(t, k, productsKey, aliceA, map[string]any{"title": "first", "sku": "A", "price": "1.00"})
				id := created["id"].(string)
				defer func() {
					if err := k.Records(productsKey).Delete(ctx, adminA, created["id"].(string)); err != nil {
						t.Fatal(err)
					}
				}()
				if tt.missing {
					id = "00000000-0000-7000-8000-000000000000"
				}
				time.Sleep(2 * time.Microsecond) // so a write moves updatedAt
				got, err := k.Records(productsKey).Update(ctx, tt.actor, id, tt.changes)
				stored, gerr := k.Records(productsKey).Get(ctx, adminA, created["id"].(string))
				if gerr != nil {
					t.Fatal(gerr)
				}
				if tt.wantErr != nil {
					if !tt.wantErr(err) {
						t.Fatalf("got error %v, want the refusal", err)
					}
				} else if err != nil {
					t.Fatal(err)
				} else {
					for f, v := range stored {
						if !equalValue(got[f], v) {
							t.Errorf("returned %s: got %v, want the stored %v", f, got[f], v)
						}
					}
				}
				if moved := !equalValue(stored["updatedAt"], created["updatedAt"]); moved != tt.wantWrite {
					t.Errorf("updatedAt moved: got %v, want %v", moved, tt.wantWrite)
				}
				if !tt.wantWrite {
					for f, v := range created {
						if !equalValue(stored[f], v) {
							t.Errorf("stored %s: got %v, want unchanged %v", f, stored[f], v)
						}
					}
				}
			})
		}
	})
}
