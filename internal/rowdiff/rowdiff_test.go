package rowdiff_test

import (
	"testing"

	"github.com/collectionkit/kit/internal/rowdiff"
	"github.com/collectionkit/kit/internal/testdb"
)

func TestCountSeesEveryRowAStepAddsRemovesOrChanges(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		tests := []struct {
			name  string
			table string // "things" has an id column, "pairs" none
			step  []string
			want  int
		}{
			{"a read changes nothing", "things", []string{`SELECT 1`}, 0},
			{"an insert adds one row", "things", []string{`INSERT INTO things (n, id) VALUES (3, 'c')`}, 1},
			{"an update of one row changes one", "things", []string{`UPDATE things SET n = 9 WHERE id = 'a'`}, 1},
			{"an update to the same value changes nothing", "things", []string{`UPDATE things SET n = 1 WHERE id = 'a'`}, 0},
			{"a delete of every row removes two", "things", []string{`DELETE FROM things`}, 2},
			{"a table without an id column is keyed by its first", "pairs", []string{`UPDATE pairs SET v = 'z' WHERE k = 'x'`}, 1},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				db := testdb.Open(t, e)
				for _, q := range []string{
					`CREATE TABLE things (n INTEGER, id TEXT PRIMARY KEY)`,
					`INSERT INTO things (n, id) VALUES (1, 'a'), (2, 'b')`,
					`CREATE TABLE pairs (k TEXT, v TEXT)`,
					`INSERT INTO pairs (k, v) VALUES ('x', 'y')`,
				} {
					if _, err := db.ExecContext(t.Context(), q); err != nil {
						t.Fatal(err)
					}
				}
				before, err := rowdiff.Tables(t.Context(), db, tt.table)
				if err != nil {
					t.Fatal(err)
				}
				if got := len(before); got == 0 {
					t.Fatalf("got %d fingerprints before the step, want the seeded rows", got)
				}
				for _, q := range tt.step {
					if _, err := db.ExecContext(t.Context(), q); err != nil {
						t.Fatal(err)
					}
				}
				after, err := rowdiff.Tables(t.Context(), db, tt.table)
				if err != nil {
					t.Fatal(err)
				}
				if got := rowdiff.Count(before, after); got != tt.want {
					t.Errorf("got %d rows changed, want %d", got, tt.want)
				}
			})
		}
	})
}

func TestTableKeysEachRowByItsID(t *testing.T) {
	db := testdb.Open(t, testdb.EngineSQLite)
	for _, q := range []string{`CREATE TABLE things (n INTEGER, id TEXT PRIMARY KEY)`, `INSERT INTO things (n, id) VALUES (1, 'a'), (1, 'b')`} {
		if _, err := db.ExecContext(t.Context(), q); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := rowdiff.Table(t.Context(), db, "things")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows["a"] == "" || rows["b"] == "" || rows["a"] == rows["b"] {
		t.Errorf("got %v, want two distinct fingerprints keyed a and b", rows)
	}
	if _, err := rowdiff.Table(t.Context(), db, "missing"); err == nil {
		t.Error("got no error for a missing table, want one")
	}
}
