package testdb

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/uptrace/bun"
)

// TableSnapshot fingerprints every row of tables, keyed by table and the
// row's first column (its id): compare two with SnapshotDiff to assert
// that a refused request wrote nothing.
func TableSnapshot(t testing.TB, db bun.IDB, tables ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, table := range tables {
		rows, err := db.QueryContext(t.Context(), "SELECT * FROM "+table)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(vals)
			sum := sha256.Sum256(b)
			out[table+"/"+fmt.Sprint(vals[0])] = hex.EncodeToString(sum[:])
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
	return out
}

// SnapshotDiff counts the rows added, removed or changed between two
// snapshots.
func SnapshotDiff(before, after map[string]string) int {
	n := 0
	for k, v := range before {
		if a, ok := after[k]; !ok || a != v {
			n++
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			n++
		}
	}
	return n
}
