package store_test

import (
	"context"
	"testing"

	"github.com/collectionkit/kit/internal/store"
	"github.com/collectionkit/kit/internal/testdb"
)

// TestRecordReadsLeaveTheDriverNoDeclaredTypeToLookUp runs every kind of
// record read on SQLite, runs each statement that returned records again
// and checks that none of its columns has a declared type: the driver
// looks the declared type up (a C call and a string) for every TEXT value
// of every row it reads, and kit, which decodes its values itself, reads
// the columns as expressions so that there is none to look up.
func TestRecordReadsLeaveTheDriverNoDeclaredTypeToLookUp(t *testing.T) {
	f := newFixture(t, testdb.EngineSQLite)
	log := &queryLog{}
	f.s.SetQueryHook(log)
	seedPlanRows(t, f, 40)
	if err := f.s.FlushSearch(t.Context(), f.db, f.products); err != nil {
		t.Fatal(err)
	}
	page, err := f.s.List(t.Context(), store.Read{}, f.products, "t1", searchQuery(t, f, ""))
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Records) < 3 {
		t.Fatalf("got %d records in the first page, want at least 3", len(page.Records))
	}
	ids := []string{page.Records[0]["id"].(string), page.Records[1]["id"].(string), page.Records[2]["id"].(string)}
	attrs := len(f.products.Attributes())
	tests := []struct {
		name string
		read func(ctx context.Context) error
	}{
		{"a get reads no declared type", func(ctx context.Context) error {
			_, err := f.s.Get(ctx, store.Read{}, f.products, "t1", ids[0])
			return err
		}},
		{"a read by ids reads no declared type", func(ctx context.Context) error {
			_, err := f.s.GetMany(ctx, store.Read{}, f.products, "t1", ids)
			return err
		}},
		{"a list page reads no declared type", func(ctx context.Context) error {
			_, err := f.s.List(ctx, store.Read{}, f.products, "t1", searchQuery(t, f, ""))
			return err
		}},
		{"a search the index answers reads no declared type", func(ctx context.Context) error {
			_, err := f.s.List(ctx, store.Read{}, f.products, "t1", searchQuery(t, f, "jackdaw"))
			return err
		}},
		{"a search for a common term reads no declared type", func(ctx context.Context) error {
			_, err := f.s.List(ctx, store.Read{}, f.products, "t1", searchQuery(t, f, "yonder"))
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log.take()
			if err := tt.read(t.Context()); err != nil {
				t.Fatal(err)
			}
			checked := 0
			for _, st := range log.take() {
				rows, err := f.db.DB.QueryContext(t.Context(), st.sql, st.args...)
				if err != nil {
					t.Fatalf("%s: %v", st.sql, err)
				}
				types, err := rows.ColumnTypes()
				rows.Close()
				if err != nil {
					t.Fatal(err)
				}
				if len(types) < attrs {
					continue // not a statement that returns records
				}
				checked++
				for _, ct := range types {
					if got := ct.DatabaseTypeName(); got != "" {
						t.Errorf("column %s of %s: got declared type %q, want none", ct.Name(), st.sql, got)
					}
				}
			}
			if checked == 0 {
				t.Errorf("got no statement returning records, want at least one")
			}
		})
	}
}
