package client_test

import (
	"math"
	"testing"
	"time"

	"github.com/collectionkit/kit/client"
)

func TestFilterJSON(t *testing.T) {
	base := client.Where("price", client.OpGte, "10")
	for _, tc := range []struct {
		name   string
		filter client.Filter
		want   string
	}{
		{"no conditions is an empty object", client.Filter{}, `{}`},
		{"one condition is the field's operator object", base, `{"price":{"gte":"10"}}`},
		{"two operators on one field share its object, sorted", base.Lt("price", "20"), `{"price":{"gte":"10","lt":"20"}}`},
		{"fields are sorted", base.Eq("isActive", true), `{"isActive":{"eq":true},"price":{"gte":"10"}}`},
		{"extending a filter leaves the original as it was", func() client.Filter { base.Eq("title", "x"); return base }(), `{"price":{"gte":"10"}}`},
		{"the same operator again replaces the value", base.Gte("price", "11"), `{"price":{"gte":"11"}}`},
		{"Eq nil is isNull true", client.Filter{}.Eq("categoryId", nil), `{"categoryId":{"isNull":true}}`},
		{"Ne nil is isNull false", client.Filter{}.Ne("categoryId", nil), `{"categoryId":{"isNull":false}}`},
		{"in and nin take arrays", client.Filter{}.In("sku", "a", "b").Nin("title", "c"), `{"sku":{"in":["a","b"]},"title":{"nin":["c"]}}`},
		{"text operators", client.Filter{}.Contains("title", "am").StartsWith("sku", "L-"), `{"sku":{"startsWith":"L-"},"title":{"contains":"am"}}`},
		{"dates encode as RFC 3339", client.Filter{}.Gt("createdAt", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)).Lte("updatedAt", "2026-02-01"), `{"createdAt":{"gt":"2026-01-02T03:04:05Z"},"updatedAt":{"lte":"2026-02-01"}}`},
		{"IsNull", client.Filter{}.IsNull("releasedAt", false), `{"releasedAt":{"isNull":false}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.filter.String(); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestQueryValues(t *testing.T) {
	t.Run("every parameter in kit's names", func(t *testing.T) {
		v, err := client.Query{Page: 2, PageSize: 10, Search: "lamp", Sort: []string{"-price", "title"}, Filter: client.Filter{}.Eq("isActive", true)}.Values()
		if err != nil {
			t.Fatal(err)
		}
		want := "filter=%7B%22isActive%22%3A%7B%22eq%22%3Atrue%7D%7D&page=2&pageSize=10&search=lamp&sort=-price%2Ctitle"
		if got := v.Encode(); got != want {
			t.Errorf("got %s, want %s", got, want)
		}
	})
	t.Run("the zero query has no parameters", func(t *testing.T) {
		v, err := client.Query{}.Values()
		if err != nil || len(v) != 0 {
			t.Errorf("got %v, %v, want no parameters", v, err)
		}
	})
	t.Run("a value JSON cannot encode is an error, not a dropped filter", func(t *testing.T) {
		if _, err := (client.Query{Filter: client.Filter{}.Eq("stock", math.NaN())}).Values(); err == nil {
			t.Errorf("got no error, want one")
		}
	})
}
