package store_test

import (
	"context"
	"regexp"
	"testing"

	"github.com/collectionkit/kit/internal/store"
	"github.com/collectionkit/kit/internal/testdb"
)

// boundLimit matches a LIMIT whose bound value SQLite's planner reads;
// anyLimit any LIMIT.
var (
	boundLimit = regexp.MustCompile(`(?i)\bLIMIT\s+\?`)
	anyLimit   = regexp.MustCompile(`(?i)\bLIMIT\b`)
)

// TestSQLiteStatementsKeepTheirLimitFromThePlanner runs the statements of
// kit that take a LIMIT (a list page, a search through the index and its
// probes, the change log's reads) on SQLite and checks that none binds
// its LIMIT where the planner reads it: SQLite plans such a statement
// with the bound value and compiles it again every time the argument is
// bound, which made each call of a cached list page statement a compile.
func TestSQLiteStatementsKeepTheirLimitFromThePlanner(t *testing.T) {
	f := newFixture(t, testdb.EngineSQLite)
	if err := store.CreateChangesTable(t.Context(), f.db); err != nil {
		t.Fatal(err)
	}
	log := &statementLog{}
	f.s.SetQueryHook(log)
	f.s.SetRareCandidates(5)
	seedPlanRows(t, f, 40)
	if err := f.s.FlushSearch(t.Context(), f.db, f.products); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		run  func(ctx context.Context) error
	}{
		{"a list page binds no LIMIT the planner reads", func(ctx context.Context) error {
			_, err := f.s.List(ctx, f.db, f.products, "t1", searchQuery(t, f, ""))
			return err
		}},
		{"a search through the index binds no LIMIT the planner reads", func(ctx context.Context) error {
			_, err := f.s.List(ctx, f.db, f.products, "t1", searchQuery(t, f, "jackdaw"))
			return err
		}},
		{"a common search binds no LIMIT the planner reads", func(ctx context.Context) error {
			_, err := f.s.List(ctx, f.db, f.products, "t1", searchQuery(t, f, "yonder"))
			return err
		}},
		{"the change log's reads bind no LIMIT the planner reads", func(ctx context.Context) error {
			if _, err := f.s.NextChanges(ctx, &store.ChangeCursor{}, 10); err != nil {
				return err
			}
			_, err := f.s.ChangesAfter(ctx, "t1", 0, 100, 10)
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log.take()
			if err := tt.run(t.Context()); err != nil {
				t.Fatal(err)
			}
			limited := 0
			for _, st := range log.take() {
				if boundLimit.MatchString(st.query) {
					t.Errorf("got %s, want its LIMIT's argument hidden from the planner (+?)", st.query)
				}
				if anyLimit.MatchString(st.query) {
					limited++
				}
			}
			if limited == 0 {
				t.Errorf("got no statement with a LIMIT, want at least one")
			}
		})
	}
}
