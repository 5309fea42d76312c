package store_test

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/testdb"
)

// filterDefs are products with an indexed number (weight) and an
// unindexed decimal (price).
func filterDefs() []collections.Definition {
	return []collections.Definition{{Name: "products", Layer: "shop", Fields: []collections.Field{
		{Name: "title", Type: collections.TypeString},
		{Name: "weight", Type: collections.TypeNumber, Meta: collections.FieldMeta{Index: true}},
		{Name: "price", Type: collections.TypeDecimal, Meta: collections.FieldMeta{Precision: 10, Scale: 2}},
	}}}
}

// filterRow is what a filter case needs to know of a seeded row.
type filterRow struct {
	id     string
	weight int
	price  int
}

// TestFilterPlans checks filtered lists against the seeded rows on every
// engine and, on SQLite, the plan each one runs: a count in table order
// when the planner's index would look up most of the team, the team's
// created index for a newest-first page when the matches are dense, the
// planner's index when its range is small.
func TestFilterPlans(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		f := newFixture(t, e, filterDefs()...)
		// Every list counts: the plans of the counts are the subject.
		f.s.TotalsCache = -1
		var t1 []filterRow
		for i := range 500 {
			team := "t1"
			if i%5 == 4 {
				team = "t2"
			}
			r := filterRow{weight: i % 10, price: i % 100}
			r.id = f.insert(t, f.products, team, map[string]any{"title": fmt.Sprintf("p%d", i), "weight": float64(r.weight), "price": fmt.Sprintf("%d.00", r.price)})
			if team == "t1" {
				t1 = append(t1, r)
			}
		}
		cases := []struct {
			name   string
			filter string
			match  func(filterRow) bool
			// count and page are what the SQLite plans of the count and
			// of the page must hold ("" for no check: the planner's
			// choice); notPage what the page's must not.
			count, page, notPage string
		}{
			{"an indexed range holding half the team counts in its index and walks the created index for the page",
				`{"weight":{"lt":5}}`, func(r filterRow) bool { return r.weight < 5 },
				"COVERING INDEX ix_shop_products_weight", "ix_shop_products_team_created", "TEMP B-TREE"},
			{"an unindexed condition counts in table order",
				`{"price":{"gte":"90.00"}}`, func(r filterRow) bool { return r.price >= 90 },
				"SCAN shop_products", "ix_shop_products_team_created", "TEMP B-TREE"},
			{"a wide indexed range with a narrow unindexed condition counts in table order and walks the created index",
				`{"weight":{"gte":2},"price":{"lte":"20.00"}}`, func(r filterRow) bool { return r.weight >= 2 && r.price <= 20 },
				"SCAN shop_products", "ix_shop_products_team_created", "TEMP B-TREE"},
			{"a narrow indexed equality keeps its index for the count",
				`{"weight":3,"price":{"lte":"50.00"}}`, func(r filterRow) bool { return r.weight == 3 && r.price <= 50 },
				"INDEX ix_shop_products_weight", "", ""},
		}
		for _, tc := range cases {
			var want []string
			for _, r := range slices.Backward(t1) {
				if tc.match(r) {
					want = append(want, r.id)
				}
			}
			for _, page := range []int{1, 3} {
				t.Run(fmt.Sprintf("%s (page %d of 10)", tc.name, page), func(t *testing.T) {
					params := url.Values{"filter": {tc.filter}, "page": {fmt.Sprint(page)}, "pageSize": {"10"}}
					var got []string
					var total int
					countPlan := planOf(t, f, e, "SELECT count(*)", func() {
						p := f.list(t, "t1", params)
						got, total = ids(p.Records), p.Total
					})
					pagePlan := planOf(t, f, e, "ORDER BY", func() { f.list(t, "t1", params) })
					wantPage := want[min(len(want), (page-1)*10):min(len(want), page*10)]
					if total != len(want) || !slices.Equal(got, wantPage) {
						t.Errorf("got %d %v, want %d %v", total, got, len(want), wantPage)
					}
					if e != testdb.EngineSQLite {
						return
					}
					if !strings.Contains(countPlan, tc.count) {
						t.Errorf("got count plan\n%s\nwant %s", countPlan, tc.count)
					}
					if !strings.Contains(pagePlan, tc.page) || tc.notPage != "" && strings.Contains(pagePlan, tc.notPage) {
						t.Errorf("got page plan\n%s\nwant %s and no %q", pagePlan, tc.page, tc.notPage)
					}
				})
			}
		}
	})
}
