package events_test

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/events"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/internal/testkit"
)

// TestListCollectionNameOfARemovedOrSharedName covers the collectionName
// forms that depend on more than the registry: a key whose collection is
// gone but whose events remain, and a name two collections share.
func TestListCollectionNameOfARemovedOrSharedName(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		w := listWorld(t, e)
		ctx := context.Background()
		// {e3} and {g1} as if their collections had since been removed.
		for id, key := range map[string]string{w.ids["e3"]: "retiredThings", w.ids["g1"]: "globexOnly"} {
			if _, err := w.k.DB().NewUpdate().Table("kit_events").Set("collection_name = ?", key).Where("id = ?", id).Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
		ids := func(t *testing.T, body string) []string {
			var page listBody
			testkit.DecodeJSON(t, body, &page)
			var out []string
			for _, ev := range page.Items {
				out = append(out, ev.ID)
			}
			return out
		}
		list := func(name string) response {
			return w.do(t, "GET", "/api/teams/acme/kit-events?collectionName="+url.QueryEscape(name), "mia", "")
		}

		t.Run("the key of a removed collection still finds the team's events", func(t *testing.T) {
			res := list("retiredThings")
			if res.status != 200 || !slices.Equal(ids(t, res.body), []string{w.ids["e3"]}) {
				t.Errorf("got %d %s, want 200 with {e3}", res.status, res.body)
			}
		})
		t.Run("another team's removed key is a 400 for this team", func(t *testing.T) {
			res := list("globexOnly")
			want := `{"status":400,"statusText":"Bad Request","message":"invalid collectionName: \"globexOnly\" names no collection: give a registry key (shopCategories), an apiPath (shop-categories) or the name of one collection (categories)","data":{"param":"collectionName"}}`
			if res.status != 400 || res.body != want+"\n" && res.body != want {
				t.Errorf("got %d %s, want 400 %s", res.status, res.body, want)
			}
		})

		if err := w.k.Register(ctx, collections.Definition{Name: "products", Layer: "legacy", Fields: []collections.Field{
			{Name: "title", Type: collections.TypeString},
		}}); err != nil {
			t.Fatal(err)
		}
		t.Run("a name two collections share is a 400 naming their keys", func(t *testing.T) {
			res := list("products")
			want := `"message":"invalid collectionName: \"products\" is the name of 2 collections (legacyProducts, shopProducts): give a registry key or an apiPath"`
			if res.status != 400 || !strings.Contains(res.body, want) || !strings.Contains(res.body, `"param":"collectionName"`) {
				t.Errorf("got %d %s, want 400 with %s", res.status, res.body, want)
			}
		})
		for _, name := range []string{"shopProducts", "shop-products"} {
			t.Run(name+" still names one of them", func(t *testing.T) {
				res := list(name)
				if got := ids(t, res.body); res.status != 200 || !slices.Equal(got, []string{w.ids["e5"], w.ids["e4"], w.ids["e2"], w.ids["e1"]}) {
					t.Errorf("got %d %v, want 200 with e5 e4 e2 e1", res.status, got)
				}
			})
		}
		t.Run("the Go API resolves the same forms", func(t *testing.T) {
			for name, want := range map[string]int{"shopProducts": 4, "shop-products": 4, "notes": 0, "retiredThings": 1} {
				page, err := w.tr.Events(ctx, w.ids["acme"], events.Query{CollectionName: name})
				if err != nil || page.Pagination.TotalItems != want {
					t.Errorf("Events(collectionName %q): got %v, %v; want %d events", name, page, err, want)
				}
			}
			if _, err := w.tr.Events(ctx, w.ids["acme"], events.Query{CollectionName: "products"}); err == nil {
				t.Error("Events(collectionName \"products\"): got no error, want the ambiguous name refused")
			}
		})
	})
}
