package client_test

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/collectionkit/kit/client"
	"github.com/collectionkit/kit/internal/testdb"
)

type product struct {
	ID         string `json:"id"`
	Title      string `json:"title"`
	SKU        string `json:"sku"`
	Price      string `json:"price"`
	IsActive   bool   `json:"isActive"`
	CategoryID string `json:"categoryId"`
	TeamID     string `json:"teamId"`
}

func titles(recs []client.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i], _ = r["title"].(string)
	}
	return out
}

func TestListQueries(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		s := newServer(t, e)
		cat := s.seed(t, "mia", "shopCategories", map[string]any{"title": "Tools"})
		for i, p := range []struct {
			title, price string
			active       bool
		}{{"Hammer", "12.50", true}, {"Saw", "30.00", true}, {"Drill", "99.90", false}, {"Hammer drill", "150.00", true}} {
			s.seed(t, "mia", "shopProducts", map[string]any{"title": p.title, "sku": fmt.Sprint("SKU-", i), "price": p.price, "isActive": p.active, "categoryId": cat})
		}
		s.seed(t, "gina", "shopProducts", map[string]any{"title": "Globex hammer", "price": "1.00"})
		products := s.client(t, "mia").Team("acme").Collection("shopProducts")
		for _, tc := range []struct {
			name  string
			q     client.Query
			want  []string
			total int
		}{
			{"the default query lists the team's records newest first", client.Query{}, []string{"Hammer drill", "Drill", "Saw", "Hammer"}, 4},
			{"sort orders by the given fields", client.Query{Sort: []string{"-price"}}, []string{"Hammer drill", "Drill", "Saw", "Hammer"}, 4},
			{"page and pageSize select one page", client.Query{Sort: []string{"title"}, Page: 2, PageSize: 2}, []string{"Hammer drill", "Saw"}, 4},
			{"search finds a substring in the team only", client.Query{Search: "hammer", Sort: []string{"title"}}, []string{"Hammer", "Hammer drill"}, 2},
			{"a filter with two operators on one field is a range", client.Query{Filter: client.Where("price", client.OpGte, "12.50").Lt("price", "99.90"), Sort: []string{"price"}}, []string{"Hammer", "Saw"}, 2},
			{"equality on a boolean and startsWith combine", client.Query{Filter: client.Filter{}.Eq("isActive", true).StartsWith("title", "Hammer"), Sort: []string{"title"}}, []string{"Hammer", "Hammer drill"}, 2},
			{"in lists the records with one of the values", client.Query{Filter: client.Filter{}.In("title", "Saw", "Drill"), Sort: []string{"title"}}, []string{"Drill", "Saw"}, 2},
			{"isNull finds records without a value", client.Query{Filter: client.Filter{}.Eq("categoryId", nil)}, []string{}, 0},
			{"nin and ne include the other records", client.Query{Filter: client.Filter{}.Nin("title", "Saw").Ne("title", "Drill").Contains("title", "drill")}, []string{"Hammer drill"}, 1},
		} {
			t.Run(tc.name, func(t *testing.T) {
				page, err := products.List(t.Context(), tc.q)
				if err != nil {
					t.Fatal(err)
				}
				if got := titles(page.Items); !slices.Equal(got, tc.want) {
					t.Errorf("got titles %q, want %q", got, tc.want)
				}
				if page.Pagination.TotalItems != tc.total {
					t.Errorf("got totalItems %d, want %d", page.Pagination.TotalItems, tc.total)
				}
			})
		}
		t.Run("a bad filter is a 400 naming the parameter", func(t *testing.T) {
			_, err := products.List(t.Context(), client.Query{Filter: client.Filter{}.Contains("price", "1")})
			wantStatus(t, err, http.StatusBadRequest, client.ErrBadRequest)
			var kerr *client.Error
			if errors.As(err, &kerr) && kerr.Data["param"] != "filter" {
				t.Errorf("got data %v, want param filter", kerr.Data)
			}
		})
		t.Run("typed access decodes the items into the caller's type", func(t *testing.T) {
			page, err := client.Typed[product](products).List(t.Context(), client.Query{Sort: []string{"price"}, PageSize: 1})
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Items) != 1 || page.Items[0].Title != "Hammer" || page.Items[0].Price != "12.50" || page.Items[0].CategoryID != cat {
				t.Errorf("got %+v, want the Hammer at 12.50 in category %s", page.Items, cat)
			}
			if page.Pagination.PageSize != 1 || page.Pagination.TotalPages != 4 {
				t.Errorf("got pagination %+v, want pageSize 1 of 4 pages", page.Pagination)
			}
		})
	})
}

func TestItemFollowsTheFetchStrategy(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		s := newServer(t, e)
		c := s.client(t, "mia")
		acme := c.Team("acme")
		ids := map[string]string{
			"shopProducts":   s.seed(t, "mia", "shopProducts", map[string]any{"title": "Lamp", "sku": "L-1", "price": "19.90"}),
			"shopCategories": s.seed(t, "mia", "shopCategories", map[string]any{"title": "Lights"}),
		}
		other := map[string]string{
			"shopProducts":   s.seed(t, "gina", "shopProducts", map[string]any{"title": "Globex lamp", "price": "1.00"}),
			"shopCategories": s.seed(t, "gina", "shopCategories", map[string]any{"title": "Globex lights"}),
		}
		want := map[string]string{"shopProducts": "Lamp", "shopCategories": "Lights"}
		for key, strategy := range map[string]string{"shopProducts": "restful", "shopCategories": "query"} {
			col := acme.Collection(key)
			t.Run("a "+strategy+" collection returns the team's record", func(t *testing.T) {
				cfg, err := c.Config(t.Context(), key)
				if err != nil {
					t.Fatal(err)
				}
				if got := cfg.FetchStrategy; (got == "restful") != (strategy == "restful") {
					t.Fatalf("got fetchStrategy %q, want %s", got, strategy)
				}
				rec, err := col.Item(t.Context(), ids[key])
				if err != nil {
					t.Fatal(err)
				}
				if rec["id"] != ids[key] || rec["title"] != want[key] {
					t.Errorf("got %v, want %s titled %s", rec, ids[key], want[key])
				}
			})
			t.Run("a "+strategy+" collection answers a missing record with ErrNotFound", func(t *testing.T) {
				_, err := col.Item(t.Context(), "01900000-0000-7000-8000-000000000000")
				wantStatus(t, err, http.StatusNotFound, client.ErrNotFound)
			})
			t.Run("a "+strategy+" collection answers another team's record with ErrNotFound", func(t *testing.T) {
				_, err := col.Item(t.Context(), other[key])
				wantStatus(t, err, http.StatusNotFound, client.ErrNotFound)
			})
		}
		t.Run("GetMany returns the team's records in the order asked", func(t *testing.T) {
			second := s.seed(t, "mia", "shopCategories", map[string]any{"title": "Lamps"})
			recs, err := acme.Collection("shopCategories").GetMany(t.Context(), second, other["shopCategories"], ids["shopCategories"])
			if err != nil {
				t.Fatal(err)
			}
			if got := titles(recs); !slices.Equal(got, []string{"Lamps", "Lights"}) {
				t.Errorf("got %q, want [Lamps Lights]", got)
			}
		})
		t.Run("an external collection answers Item through ?ids=", func(t *testing.T) {
			rec, err := acme.Collection("catalog").Item(t.Context(), ids["shopProducts"])
			if err != nil {
				t.Fatal(err)
			}
			if rec["id"] != ids["shopProducts"] || rec["title"] != "Lamp (L-1)" {
				t.Errorf("got %v, want the Lamp through the catalog's transform", rec)
			}
		})
		t.Run("an id is one path segment: a slash in it reaches no other route", func(t *testing.T) {
			_, err := acme.Collection("shopProducts").Item(t.Context(), ids["shopProducts"]+"/move")
			wantStatus(t, err, http.StatusNotFound, client.ErrNotFound)
		})
		t.Run("the team may be named by its id", func(t *testing.T) {
			rec, err := c.Team(s.ids["acme"]).Collection("shopProducts").Item(t.Context(), ids["shopProducts"])
			if err != nil || rec["title"] != "Lamp" {
				t.Errorf("got %v, %v, want the Lamp", rec, err)
			}
		})
		t.Run("an unknown registry key is ErrUnknownCollection without a request to the collection", func(t *testing.T) {
			_, err := acme.Collection("shopNothing").List(t.Context(), client.Query{})
			if !errors.Is(err, client.ErrUnknownCollection) {
				t.Errorf("got %v, want ErrUnknownCollection", err)
			}
		})
	})
}

func TestMutations(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		s := newServer(t, e)
		products := client.Typed[product](s.client(t, "mia").Team("acme").Collection("shopProducts"))
		var created product
		t.Run("Create returns the stored record", func(t *testing.T) {
			var err error
			created, err = products.Create(t.Context(), map[string]any{"title": "Lamp", "sku": "L-1", "price": 19.9})
			if err != nil {
				t.Fatal(err)
			}
			if created.ID == "" || created.Price != "19.90" || created.TeamID != s.ids["acme"] {
				t.Errorf("got %+v, want an id, price 19.90 and team acme", created)
			}
		})
		t.Run("Update changes only the given fields", func(t *testing.T) {
			got, err := products.Update(t.Context(), created.ID, map[string]any{"price": "21.00"})
			if err != nil {
				t.Fatal(err)
			}
			if got.Price != "21.00" || got.Title != "Lamp" || got.SKU != "L-1" {
				t.Errorf("got %+v, want the Lamp L-1 at 21.00", got)
			}
		})
		t.Run("Update with a refused If-Match is ErrPrecondition", func(t *testing.T) {
			_, err := products.Update(t.Context(), created.ID, map[string]any{"price": "1.00"}, client.IfMatch(`"stale"`))
			wantStatus(t, err, http.StatusPreconditionFailed, client.ErrPrecondition)
		})
		t.Run("a second record with the same unique value is ErrConflict naming the field", func(t *testing.T) {
			_, err := products.Create(t.Context(), map[string]any{"title": "Other", "sku": "L-1"})
			wantStatus(t, err, http.StatusConflict, client.ErrConflict)
			var kerr *client.Error
			if errors.As(err, &kerr) && kerr.Fields()["sku"] == "" {
				t.Errorf("got data %v, want fields.sku", kerr.Data)
			}
		})
		t.Run("Delete of one id deletes the record", func(t *testing.T) {
			if err := products.Delete(t.Context(), created.ID); err != nil {
				t.Fatal(err)
			}
			_, err := products.Item(t.Context(), created.ID)
			wantStatus(t, err, http.StatusNotFound, client.ErrNotFound)
		})
		t.Run("Delete of no ids sends nothing and succeeds", func(t *testing.T) {
			if err := products.Delete(t.Context()); err != nil {
				t.Errorf("got %v, want nil", err)
			}
		})
	})
}

// sentRequests is a transport that records the method and URL of every
// request it passes on.
type sentRequests struct {
	mu   sync.Mutex
	sent []string
}

func (s *sentRequests) RoundTrip(r *http.Request) (*http.Response, error) {
	s.mu.Lock()
	s.sent = append(s.sent, r.Method+" "+r.URL.RequestURI())
	s.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}

// TestBulkDelete: Delete of several ids is one DELETE ?ids= request, and
// all or nothing: one id that cannot go deletes none and the error is the
// one that record's single delete gives.
func TestBulkDelete(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		cases := []struct {
			name   string
			key    string
			bad    func(t *testing.T, s *server) string // the id that cannot go ("" for none)
			status int
			want   error
		}{
			{name: "several ids are deleted with one request", key: "appNotes"},
			{name: "another team's record among them deletes none and is ErrNotFound", key: "appNotes", status: http.StatusNotFound, want: client.ErrNotFound,
				bad: func(t *testing.T, s *server) string {
					return s.seed(t, "gina", "appNotes", map[string]any{"body": "globex"})
				}},
			{name: "a missing record among them deletes none and is ErrNotFound", key: "appNotes", status: http.StatusNotFound, want: client.ErrNotFound,
				bad: func(*testing.T, *server) string { return "00000000-0000-0000-0000-000000000000" }},
			{name: "a referenced record among them deletes none and is ErrConflict", key: "shopCategories", status: http.StatusConflict, want: client.ErrConflict,
				bad: func(t *testing.T, s *server) string {
					cat := s.seed(t, "mia", "shopCategories", map[string]any{"title": "Used"})
					s.seed(t, "mia", "shopProducts", map[string]any{"title": "User", "categoryId": cat})
					return cat
				}},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				s := newServer(t, e)
				sent := &sentRequests{}
				col := s.client(t, "mia", client.WithHTTPClient(&http.Client{Transport: sent})).Team("acme").Collection(tc.key)
				field := map[string]string{"appNotes": "body", "shopCategories": "title"}[tc.key]
				a := s.seed(t, "mia", tc.key, map[string]any{field: "a"})
				b := s.seed(t, "mia", tc.key, map[string]any{field: "b"})
				keep := s.seed(t, "mia", tc.key, map[string]any{field: "keep"})
				ids := []string{a, b}
				if tc.bad != nil {
					ids = []string{a, tc.bad(t, s), b}
				}
				err := col.Delete(t.Context(), ids...)
				if tc.want == nil && err != nil {
					t.Fatalf("got %v, want nil", err)
				}
				if tc.want != nil {
					wantStatus(t, err, tc.status, tc.want)
				}
				if want := "DELETE /api/teams/acme/" + map[string]string{"appNotes": "app-notes", "shopCategories": "shop-categories"}[tc.key] + "?ids=" + strings.Join(ids, "%2C"); len(sent.sent) == 0 || sent.sent[len(sent.sent)-1] != want {
					t.Errorf("requests: got %v, want the last one %q", sent.sent, want)
				}
				left, err := col.GetMany(t.Context(), a, b, keep)
				if err != nil {
					t.Fatal(err)
				}
				want := []string{a, b, keep}
				if tc.want == nil {
					want = []string{keep}
				}
				var got []string
				for _, r := range left {
					got = append(got, r["id"].(string))
				}
				if !slices.Equal(got, want) {
					t.Errorf("records left: got %v, want %v", got, want)
				}
			})
		}
	})
}

func TestTrees(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		s := newServer(t, e)
		folders := s.client(t, "alice").Team("acme").Collection("docsFolders")
		ctx := t.Context()
		ids := map[string]string{}
		for _, f := range []struct{ title, parent string }{{"A", ""}, {"B", ""}, {"A1", "A"}, {"A2", "A"}} {
			data := map[string]any{"title": f.title}
			if f.parent != "" {
				data["parentId"] = ids[f.parent]
			}
			rec, err := folders.Create(ctx, data)
			if err != nil {
				t.Fatal(err)
			}
			ids[f.title] = rec["id"].(string)
		}
		tree := func(t *testing.T, root string) []string {
			t.Helper()
			recs, err := folders.Tree(ctx, root)
			if err != nil {
				t.Fatal(err)
			}
			return titles(recs)
		}
		t.Run("Tree lists depth first with siblings in order", func(t *testing.T) {
			if got, want := tree(t, ""), []string{"A", "A1", "A2", "B"}; !slices.Equal(got, want) {
				t.Errorf("got %q, want %q", got, want)
			}
		})
		t.Run("Tree of a root lists its subtree", func(t *testing.T) {
			if got, want := tree(t, ids["A"]), []string{"A", "A1", "A2"}; !slices.Equal(got, want) {
				t.Errorf("got %q, want %q", got, want)
			}
		})
		t.Run("Move places a node under a new parent at a position", func(t *testing.T) {
			rec, err := folders.Move(ctx, ids["A2"], ids["B"], 0)
			if err != nil {
				t.Fatal(err)
			}
			if rec["parentId"] != ids["B"] {
				t.Errorf("got parentId %v, want %s", rec["parentId"], ids["B"])
			}
			if got, want := tree(t, ""), []string{"A", "A1", "B", "A2"}; !slices.Equal(got, want) {
				t.Errorf("got %q, want %q", got, want)
			}
		})
		t.Run("Move to no parent and OrderEnd appends a root", func(t *testing.T) {
			if _, err := folders.Move(ctx, ids["A1"], "", client.OrderEnd); err != nil {
				t.Fatal(err)
			}
			if got, want := tree(t, ""), []string{"A", "B", "A2", "A1"}; !slices.Equal(got, want) {
				t.Errorf("got %q, want %q", got, want)
			}
		})
		t.Run("Reorder puts the siblings in the order given", func(t *testing.T) {
			if _, err := folders.Reorder(ctx, ids["A1"], ids["B"], ids["A"]); err != nil {
				t.Fatal(err)
			}
			if got, want := tree(t, ""), []string{"A1", "B", "A2", "A"}; !slices.Equal(got, want) {
				t.Errorf("got %q, want %q", got, want)
			}
		})
		t.Run("ReorderUpdates places one sibling and keeps the others in order", func(t *testing.T) {
			if _, err := folders.ReorderUpdates(ctx, client.OrderUpdate{ID: ids["A"], Order: 0}); err != nil {
				t.Fatal(err)
			}
			if got, want := tree(t, ""), []string{"A", "A1", "B", "A2"}; !slices.Equal(got, want) {
				t.Errorf("got %q, want %q", got, want)
			}
		})
		t.Run("a move under the node itself is a 400", func(t *testing.T) {
			_, err := folders.Move(ctx, ids["B"], ids["A2"], 0)
			wantStatus(t, err, http.StatusBadRequest, client.ErrBadRequest)
		})
	})
}

func TestSuperAdminItem(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		s := newServer(t, e)
		id := s.seed(t, "gina", "shopCategories", map[string]any{"title": "Gadgets"})
		for _, collection := range []string{"shopCategories", "shop-categories"} {
			t.Run("a global admin reads any team's record by "+collection, func(t *testing.T) {
				rec, err := s.client(t, "root").SuperAdmin().Item(t.Context(), collection, id)
				if err != nil {
					t.Fatal(err)
				}
				if rec["title"] != "Gadgets" || rec["teamId"] != s.ids["globex"] {
					t.Errorf("got %v, want Gadgets of globex", rec)
				}
			})
		}
		t.Run("a team owner without the global role is ErrForbidden", func(t *testing.T) {
			_, err := s.client(t, "gina").SuperAdmin().Item(t.Context(), "shopCategories", id)
			wantStatus(t, err, http.StatusForbidden, client.ErrForbidden)
		})
	})
}
