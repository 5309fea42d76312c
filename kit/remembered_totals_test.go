package kit_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
)

// TestFilteredTotalsFollowWritesOfAnotherInstance lists a filter and a
// search on instance B over HTTP (their totals remembered by B), writes
// through instance A on the same database, and lists again on B: every
// total must be the rows' count, whichever instance wrote.
func TestFilteredTotalsFollowWritesOfAnotherInstance(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		w := newCachedWriteWorld(t, e)
		ctx := t.Context()
		recs := w.a.Records("shopProducts")
		admin := w.actor
		list := func(t *testing.T, params url.Values) int {
			t.Helper()
			req, _ := http.NewRequestWithContext(ctx, "GET", w.server.URL+"/api/teams/"+w.seed.IDs["acme"]+"/shop-products?"+params.Encode(), http.NoBody)
			req.Header.Set("Authorization", "Bearer "+w.token)
			res, err := w.server.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			if res.StatusCode != http.StatusOK {
				t.Fatalf("GET %v: got status %d, want 200", params, res.StatusCode)
			}
			var body struct {
				Items      []kit.Record `json:"items"`
				Pagination struct {
					TotalItems int `json:"totalItems"`
				} `json:"pagination"`
			}
			if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
				t.Fatal(err)
			}
			return body.Pagination.TotalItems
		}
		live := url.Values{"filter": {`{"status":"live"}`}}
		lamps := url.Values{"search": {"lamp"}}
		truth := func(t *testing.T, params url.Values) int {
			t.Helper()
			l, err := recs.List(ctx, admin, params)
			if err != nil {
				t.Fatal(err)
			}
			return l.Pagination.TotalItems
		}
		var made string
		cases := []struct {
			name  string
			write func(t *testing.T)
			want  map[string]int // live, lamps
		}{
			{"a create through A", func(t *testing.T) {
				rec, err := recs.Create(ctx, admin, map[string]any{"title": "Desk lamp", "status": "live"})
				if err != nil {
					t.Fatal(err)
				}
				made = rec["id"].(string)
			}, map[string]int{"live": 2, "lamps": 2}},
			{"an update through A out of the filter and the search", func(t *testing.T) {
				if _, err := recs.Update(ctx, admin, made, map[string]any{"title": "Desk", "status": "draft"}); err != nil {
					t.Fatal(err)
				}
			}, map[string]int{"live": 1, "lamps": 1}},
			{"an update through A back into both", func(t *testing.T) {
				if _, err := recs.Update(ctx, admin, made, map[string]any{"title": "Desk lamp", "status": "live"}); err != nil {
					t.Fatal(err)
				}
			}, map[string]int{"live": 2, "lamps": 2}},
			{"a delete through A", func(t *testing.T) {
				if err := recs.Delete(ctx, admin, made); err != nil {
					t.Fatal(err)
				}
			}, map[string]int{"live": 1, "lamps": 1}},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				list(t, live)
				list(t, lamps)
				tc.write(t)
				for name, params := range map[string]url.Values{"live": live, "lamps": lamps} {
					if got, want := list(t, params), tc.want[name]; got != want {
						t.Errorf("%s on B: got totalItems %d, want %d", name, got, want)
					}
					if got, want := truth(t, params), tc.want[name]; got != want {
						t.Errorf("%s on A: got totalItems %d, want %d", name, got, want)
					}
				}
			})
		}
	})
}
