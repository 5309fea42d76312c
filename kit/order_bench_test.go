package kit_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/collectionkit/kit/kit"
)

// BenchmarkCreateOrdered creates one record per op at the end of a
// sortable collection (docs/tasks) on a SQLite file database: the next
// order's read (NextOrder), the insert and the commit.
func BenchmarkCreateOrdered(b *testing.B) {
	ctx := context.Background()
	k, err := kit.New(kit.Config{SQLitePath: filepath.Join(b.TempDir(), "bench.db"), Definitions: treeDefinitions()})
	if err != nil {
		b.Fatal(err)
	}
	defer k.Close()
	admin := kit.Actor{UserID: "bench", TeamID: "bench-team", Role: "admin"}
	tasks := k.Records(tasksKey)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		i++
		if _, err := tasks.Create(ctx, admin, map[string]any{"title": fmt.Sprint("task ", i)}); err != nil {
			b.Fatal(err)
		}
	}
}
