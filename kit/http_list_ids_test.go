package kit_test

import (
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/internal/testkit"
)

// TestListIDsWithOtherParameters: filter, search and sort apply to the
// records ?ids= names; page, pageSize and limit are refused.
func TestListIDsWithOtherParameters(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		w := newWorld(t, e)
		// A third acme product, so that each parameter has something to
		// leave out or reorder.
		res := w.do(t, "POST", products, "adam", "application/json", `{"title":"adam's product","sku":"ADAM-1","price":"5","stock":3}`)
		if res.status != http.StatusCreated {
			t.Fatalf("create: got %d, want 201 (%s)", res.status, res.body)
		}
		var rec map[string]any
		testkit.DecodeJSON(t, res.body, &rec)
		w.ids["adamProduct"] = rec["id"].(string)
		all := "?ids={maxProduct},{adamProduct},{miaProduct},{ginaProduct}"
		cases := []struct {
			name   string
			query  string
			status int
			want   []string // skus in order, for a 200
			param  string   // the parameter a 400 names
		}{
			{name: "ids alone answers the team's records in the order asked", query: all, status: 200, want: []string{"MAX-1", "ADAM-1", "MIA-1"}},
			{name: "a filter narrows the records named", query: all + `&filter={"price":"9.99"}`, status: 200, want: []string{"MAX-1", "MIA-1"}},
			{name: "a search narrows the records named", query: all + "&search=mia", status: 200, want: []string{"MIA-1"}},
			{name: "a sort orders the records named", query: all + "&sort=sku", status: 200, want: []string{"ADAM-1", "MAX-1", "MIA-1"}},
			{name: "sortBy and sortDirection order the records named", query: all + "&sortBy=sku&sortDirection=desc", status: 200, want: []string{"MIA-1", "MAX-1", "ADAM-1"}},
			{name: "filter, search and sort apply together", query: all + `&filter={"price":"9.99"}&search=product&sort=-sku`, status: 200, want: []string{"MIA-1", "MAX-1"}},
			{name: "a filter no record named matches answers an empty array", query: all + `&filter={"stock":99}`, status: 200, want: []string{}},
			{name: "page does not apply with ids and is a 400 naming it", query: all + "&page=2", status: 400, param: "page"},
			{name: "pageSize does not apply with ids and is a 400 naming it", query: all + "&pageSize=2", status: 400, param: "pageSize"},
			{name: "limit does not apply with ids and is a 400 naming it", query: all + "&limit=2", status: 400, param: "limit"},
			{name: "a bad filter with ids is a 400 naming filter", query: all + `&filter={"nope":1}`, status: 400, param: "filter"},
			{name: "a bad sort with ids is a 400 naming sort", query: all + "&sort=nope", status: 400, param: "sort"},
			{name: "ids given twice is a 400 naming ids", query: all + "&ids={miaProduct}", status: 400, param: "ids"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				res := w.do(t, "GET", products+tc.query, "mia", "", "")
				if res.status != tc.status {
					t.Fatalf("status: got %d, want %d (%s)", res.status, tc.status, res.body)
				}
				if tc.status != 200 {
					testkit.CheckBody(t, res.body, []string{fmt.Sprintf(`"param":%q`, tc.param)}, nil, nil)
					return
				}
				var recs []map[string]any
				testkit.DecodeJSON(t, res.body, &recs)
				got := make([]string, len(recs))
				for i, r := range recs {
					got[i], _ = r["sku"].(string)
				}
				if !slices.Equal(got, tc.want) {
					t.Errorf("skus: got %v, want %v", got, tc.want)
				}
			})
		}
	})
}
