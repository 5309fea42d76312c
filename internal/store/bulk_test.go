package store_test

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/internal/store"
	"github.com/collectionkit/kit/internal/testdb"
)

// TestInsertManyStoresWhatInsertStores loads the same records once with
// Insert, one call each, and once with InsertMany, and compares every
// column of every row (sort keys included), the row counts and the
// answers of lists and searches.
func TestInsertManyStoresWhatInsertStores(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		ctx := t.Context()
		// More than two statements' worth, the last one short, two teams.
		const n = 1203
		base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		titles := []string{"Élan lamp", "élan chair", "Zebra rug", "apple crate", "Ångström scale"}
		recs := func(f *fixture) []store.Record {
			out := make([]store.Record, n)
			for i := range out {
				team := "t1"
				if i%5 == 0 {
					team = "t2"
				}
				at := base.Add(time.Duration(i) * time.Microsecond)
				rec := store.Record{"id": fmt.Sprintf("bulk-%05d", i), "teamId": team, "owner": "u1",
					"createdAt": at, "updatedAt": at, "createdBy": "u1", "updatedBy": "u1"}
				for _, a := range f.products.Attributes() {
					if _, ok := rec[a.Name]; !ok {
						rec[a.Name] = nil
					}
				}
				rec["title"] = fmt.Sprintf("%s %d", titles[i%len(titles)], i)
				rec["sku"] = fmt.Sprintf("SKU-%05d", i)
				rec["price"] = fmt.Sprintf("%d.%02d", i%1000, i%100)
				rec["weight"] = float64(i % 7)
				rec["isActive"] = i%2 == 0
				if i%3 == 0 {
					rec["notes"] = "a note with the marker word quokka"
				}
				out[i] = rec
			}
			return out
		}
		one, many := newFixture(t, e), newFixture(t, e)
		for _, rec := range recs(one) {
			if err := one.s.Insert(ctx, one.db, one.products, rec); err != nil {
				t.Fatalf("Insert: %v", err)
			}
		}
		if err := many.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			return many.s.InsertMany(ctx, tx, many.products, recs(many))
		}); err != nil {
			t.Fatalf("InsertMany: %v", err)
		}
		for _, f := range []*fixture{one, many} {
			if err := f.s.FlushSearch(ctx, f.db, f.products); err != nil {
				t.Fatal(err)
			}
		}
		t.Run("every column of every row is the same", func(t *testing.T) {
			got, want := dumpRows(t, many.db, "SELECT * FROM shop_products ORDER BY id"), dumpRows(t, one.db, "SELECT * FROM shop_products ORDER BY id")
			if len(got) != n || !slices.Equal(got, want) {
				t.Errorf("rows: got %d, want %d equal to Insert's; first got %q, want %q", len(got), len(want), first(got), first(want))
			}
		})
		t.Run("the row counts are the same", func(t *testing.T) {
			q := "SELECT table_name, team_id, sum(n) FROM kit_row_counts GROUP BY table_name, team_id ORDER BY 1, 2"
			if got, want := dumpRows(t, many.db, q), dumpRows(t, one.db, q); !slices.Equal(got, want) {
				t.Errorf("row counts: got %q, want %q", got, want)
			}
		})
		for _, params := range []url.Values{
			{"pageSize": {"50"}},
			{"pageSize": {"50"}, "sort": {"title"}},
			{"pageSize": {"50"}, "sort": {"-title"}, "page": {"3"}},
			{"pageSize": {"50"}, "search": {"quokka"}},
			{"pageSize": {"50"}, "search": {"élan"}},
		} {
			for _, team := range []string{"t1", "t2"} {
				t.Run(fmt.Sprintf("a list of team %s with %s answers the same", team, params.Encode()), func(t *testing.T) {
					got, want := many.list(t, team, params), one.list(t, team, params)
					if got.Total != want.Total || !slices.Equal(values(got.Records, "id"), values(want.Records, "id")) {
						t.Errorf("got total %d ids %v, want total %d ids %v", got.Total, values(got.Records, "id"), want.Total, values(want.Records, "id"))
					}
				})
			}
		}
	})
}

// dumpRows runs q and returns each row's values printed.
func dumpRows(t *testing.T, db *bun.DB, q string) []string {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	vals, ptrs := make([]any, len(cols)), make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var out []string
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				v = string(b)
			}
			parts[i] = fmt.Sprintf("%s=%v", cols[i], v)
		}
		out = append(out, strings.Join(parts, " "))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func first(rows []string) string {
	if len(rows) == 0 {
		return ""
	}
	return rows[0]
}
