package kit_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
)

// queryFixture is a kit with shopDefs and eight products of team A
// (weights 1 to 8, every other one "live", titles "p1".."p8") and one of
// team B.
func queryFixture(t *testing.T, e testdb.Engine) (*kit.Kit, *collections.Collection) {
	t.Helper()
	k := newKitOn(t, e, shopDefs()...)
	for i := 1; i <= 8; i++ {
		status := "draft"
		if i%2 == 0 {
			status = "live"
		}
		mustCreate(t, k, productsKey, aliceA, map[string]any{"title": fmt.Sprintf("p%d", i), "weight": i, "status": status, "price": fmt.Sprintf("%d.50", i)})
	}
	mustCreate(t, k, productsKey, carolB, map[string]any{"title": "p1 of team B", "weight": 1})
	c, ok := k.Collections().Get(productsKey)
	if !ok {
		t.Fatalf("no collection %s", productsKey)
	}
	return k, c
}

// attr returns c's attribute name or fails t.
func attr(t *testing.T, c *collections.Collection, name string) *collections.Attribute {
	t.Helper()
	a, ok := c.Attribute(name)
	if !ok {
		t.Fatalf("no attribute %q", name)
	}
	return a
}

func titles(l *kit.List) []string {
	var out []string
	for _, r := range l.Items {
		out = append(out, r["title"].(string))
	}
	return out
}

func TestRecordsQueryAnswersAsListDoes(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		k, c := queryFixture(t, e)
		ctx := context.Background()
		products := k.Records(productsKey)
		tests := []struct {
			name   string
			query  collections.ListQuery
			params url.Values
			want   []string // titles, in order
		}{
			{"the zero query is the default page, newest first", collections.ListQuery{}, nil,
				[]string{"p8", "p7", "p6", "p5", "p4", "p3", "p2", "p1"}},
			{"a filter on an indexed field, sorted by a number descending",
				collections.ListQuery{Filter: []collections.Condition{{Attr: attr(t, c, "status"), Op: collections.OpEq, Value: "live"}},
					Sort: []collections.SortKey{{Attr: attr(t, c, "weight"), Desc: true}}},
				url.Values{"filter": {`{"status":"live"}`}, "sort": {"-weight"}},
				[]string{"p8", "p6", "p4", "p2"}},
			{"a Go int compared with a number field, and a page",
				collections.ListQuery{Page: 2, PageSize: 2, Filter: []collections.Condition{{Attr: attr(t, c, "weight"), Op: collections.OpGt, Value: 3}},
					Sort: []collections.SortKey{{Attr: attr(t, c, "weight")}}},
				url.Values{"page": {"2"}, "pageSize": {"2"}, "filter": {`{"weight":{"gt":3}}`}, "sort": {"weight"}},
				[]string{"p6", "p7"}},
			{"in with a []string and a decimal given as a float",
				collections.ListQuery{Filter: []collections.Condition{
					{Attr: attr(t, c, "title"), Op: collections.OpIn, Value: []string{"p1", "p3", "p5"}},
					{Attr: attr(t, c, "price"), Op: collections.OpGte, Value: 3.5}},
					Sort: []collections.SortKey{{Attr: attr(t, c, "title")}}},
				url.Values{"filter": {`{"title":{"in":["p1","p3","p5"]},"price":{"gte":"3.5"}}`}, "sort": {"title"}},
				[]string{"p3", "p5"}},
			{"a search", collections.ListQuery{Search: "  P7 "}, url.Values{"search": {"P7"}}, []string{"p7"}},
			{"eq nil is a null test", collections.ListQuery{Filter: []collections.Condition{{Attr: attr(t, c, "sku"), Op: collections.OpEq, Value: nil}},
				PageSize: 3}, url.Values{"filter": {`{"sku":null}`}, "pageSize": {"3"}}, []string{"p8", "p7", "p6"}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, err := products.Query(ctx, aliceA, tt.query)
				if err != nil {
					t.Fatalf("Query: %v", err)
				}
				want, err := products.List(ctx, aliceA, tt.params)
				if err != nil {
					t.Fatalf("List: %v", err)
				}
				if !slices.Equal(titles(got), tt.want) {
					t.Errorf("Query titles: got %v, want %v", titles(got), tt.want)
				}
				if !slices.Equal(titles(want), tt.want) {
					t.Errorf("List titles: got %v, want %v", titles(want), tt.want)
				}
				if got.Pagination != want.Pagination {
					t.Errorf("pagination: got %+v, want List's %+v", got.Pagination, want.Pagination)
				}
			})
		}
		t.Run("another team's actor sees only its own records", func(t *testing.T) {
			got, err := products.Query(ctx, carolB, collections.ListQuery{})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(titles(got), []string{"p1 of team B"}) {
				t.Errorf("got %v, want [p1 of team B]", titles(got))
			}
		})
	})
}

func TestRecordsQueryAcceptsAttributesOfAnEarlierRegistry(t *testing.T) {
	k, c := queryFixture(t, testdb.EngineSQLite)
	weight := attr(t, c, "weight")
	if err := k.Register(context.Background(), specimensDef()); err != nil {
		t.Fatal(err)
	}
	if now, _ := k.Collections().Get(productsKey); now == c {
		t.Fatal("got the same collection after Register, want a new registry")
	}
	got, err := k.Records(productsKey).Query(context.Background(), aliceA, collections.ListQuery{
		Filter: []collections.Condition{{Attr: weight, Op: collections.OpLte, Value: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(titles(got), []string{"p2", "p1"}) {
		t.Errorf("got %v, want [p2 p1]", titles(got))
	}
}

func TestRecordsQueryRefusesABadQuery(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		k, c := queryFixture(t, e)
		other := newKit(t, specimensDef())
		foreign, _ := other.Collections().Get(specimensKey)
		collected := attr(t, foreign, "collectedAt")
		long := strings.Repeat("x", 257)
		ids := make([]string, 101)
		for i := range ids {
			ids[i] = fmt.Sprintf("id-%d", i)
		}
		cond := func(name string, op collections.Op, v any) []collections.Condition {
			return []collections.Condition{{Attr: attr(t, c, name), Op: op, Value: v}}
		}
		tests := []struct {
			name         string
			query        collections.ListQuery
			param, error string
		}{
			{"a negative page", collections.ListQuery{Page: -1}, "page", "invalid page: must be a whole number of at least 1"},
			{"a page past the last allowed", collections.ListQuery{Page: 1_000_001}, "page", "invalid page: must be at most 1000000"},
			{"a negative page size", collections.ListQuery{PageSize: -5}, "pageSize", "invalid pageSize: must be a whole number of at least 1"},
			{"a page size over the limit", collections.ListQuery{PageSize: 101}, "pageSize", "invalid pageSize: must be at most 100"},
			{"a search over the limit", collections.ListQuery{Search: long}, "search", "invalid search: must be at most 256 bytes"},
			{"a search with a NUL", collections.ListQuery{Search: "a\x00b"}, "search", "invalid search: must not contain NUL bytes"},
			{"a sort key without an attribute", collections.ListQuery{Sort: []collections.SortKey{{}}}, "sort", "invalid sort: a sort key names no attribute"},
			{"a sort on an attribute of another collection", collections.ListQuery{Sort: []collections.SortKey{{Attr: collected}}}, "sort", `invalid sort: unknown field "collectedAt"`},
			{"a sort on a json field", collections.ListQuery{Sort: []collections.SortKey{{Attr: attr(t, c, "tags")}}}, "sort", `invalid sort: field "tags" (array) cannot be sorted`},
			{"the same sort key twice", collections.ListQuery{Sort: []collections.SortKey{{Attr: attr(t, c, "title")}, {Attr: attr(t, c, "title"), Desc: true}}}, "sort", `invalid sort: names "title" twice`},
			{"five sort keys", collections.ListQuery{Sort: []collections.SortKey{{Attr: attr(t, c, "title")}, {Attr: attr(t, c, "weight")}, {Attr: attr(t, c, "price")}, {Attr: attr(t, c, "status")}, {Attr: attr(t, c, "sku")}}}, "sort", "invalid sort: takes at most 4 keys"},
			{"a condition without an attribute", collections.ListQuery{Filter: []collections.Condition{{Op: collections.OpEq, Value: "x"}}}, "filter", "invalid filter: a condition names no attribute"},
			{"a condition on an attribute of another collection", collections.ListQuery{Filter: []collections.Condition{{Attr: collected, Op: collections.OpIsNull, Value: true}}}, "filter", `invalid filter: unknown field "collectedAt"`},
			{"an operator that does not apply", collections.ListQuery{Filter: cond("isActive", collections.OpGt, true)}, "filter", `invalid filter: operator "gt" does not apply to boolean field "isActive"`},
			{"an unknown operator", collections.ListQuery{Filter: cond("title", "like", "x")}, "filter", `invalid filter: unknown operator "like" on field "title"`},
			{"a string for a number", collections.ListQuery{Filter: cond("weight", collections.OpEq, "heavy")}, "filter", `invalid filter: eq on "weight": value must be a number`},
			{"in without a slice", collections.ListQuery{Filter: cond("title", collections.OpIn, "p1")}, "filter", `invalid filter: in on "title" takes a non-empty array`},
			{"in with an empty slice", collections.ListQuery{Filter: cond("title", collections.OpIn, []string{})}, "filter", `invalid filter: in on "title" takes a non-empty array`},
			{"isNull with a string", collections.ListQuery{Filter: cond("sku", collections.OpIsNull, "yes")}, "filter", `invalid filter: isNull on "sku" takes true or false`},
			{"51 conditions", collections.ListQuery{Filter: slices.Repeat(cond("weight", collections.OpGt, 0), 51)}, "filter", "invalid filter: has 51 conditions; at most 50 are allowed"},
			{"an empty id list", collections.ListQuery{IDs: []string{}}, "ids", "invalid ids: must name at least one id"},
			{"an empty id", collections.ListQuery{IDs: []string{"a", " "}}, "ids", "invalid ids: must be a comma-separated list of ids without empty entries"},
			{"an id with a comma", collections.ListQuery{IDs: []string{"a,b"}}, "ids", "invalid ids: holds an id with a comma"},
			{"101 ids", collections.ListQuery{IDs: ids}, "ids", "invalid ids: must name at most 100 ids"},
		}
		for _, tt := range tests {
			t.Run(tt.name+" is a QueryError naming "+tt.param, func(t *testing.T) {
				got, err := k.Records(productsKey).Query(context.Background(), aliceA, tt.query)
				if got != nil {
					t.Errorf("got a list of %d records with the error, want none", len(got.Items))
				}
				var qe *kit.QueryError
				if !errors.As(err, &qe) || !errors.Is(err, collections.ErrBadQuery) {
					t.Fatalf("got error %v, want a *QueryError", err)
				}
				if qe.Param != tt.param || err.Error() != tt.error {
					t.Errorf("got param %q and error %q, want %q and %q", qe.Param, err, tt.param, tt.error)
				}
			})
		}
		t.Run("an unknown collection is ErrUnknownCollection", func(t *testing.T) {
			if _, err := k.Records("shopNothing").Query(context.Background(), aliceA, collections.ListQuery{}); !errors.Is(err, kit.ErrUnknownCollection) {
				t.Errorf("got error %v, want ErrUnknownCollection", err)
			}
		})
		t.Run("an actor without a team is refused", func(t *testing.T) {
			if _, err := k.Records(productsKey).Query(context.Background(), kit.Actor{UserID: "alice"}, collections.ListQuery{}); err == nil {
				t.Error("got no error, want the actor refused")
			}
		})
	})
}
