package kit_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/kit"
)

// benchNode is one row of the benchmark tree.
type benchNode struct {
	id, parent, path string
	depth, order     int
}

// benchTree builds size nodes breadth first under parent (nil: roots),
// each node with up to fanout children, the first level holding up to
// fanout nodes.
func benchTree(size, fanout int, parent *benchNode) []benchNode {
	out := make([]benchNode, 0, size)
	level := []*benchNode{parent}
	for len(out) < size {
		var next []*benchNode
		for _, p := range level {
			for o := 0; o < fanout && len(out) < size; o++ {
				n := benchNode{id: uuid.Must(uuid.NewV7()).String(), order: o}
				if p == nil {
					n.path = "/" + n.id + "/"
				} else {
					n.parent, n.path, n.depth = p.id, p.path+n.id+"/", p.depth+1
				}
				out = append(out, n)
				next = append(next, &out[len(out)-1])
			}
		}
		level = next
	}
	return out
}

// seedBenchTree writes nodes of team into the folders table with bulk
// INSERTs in one transaction.
func seedBenchTree(ctx context.Context, db *bun.DB, team string, nodes []benchNode) error {
	now := time.Now().UTC().Format("2006-01-02T15:04:05.000000Z")
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for start := 0; start < len(nodes); start += 500 {
			batch := nodes[start:min(start+500, len(nodes))]
			var b strings.Builder
			args := make([]any, 0, len(batch)*12)
			b.WriteString(`INSERT INTO ` + foldersTable + ` ("id", "team_id", "owner", "title", "parent_id", "path", "depth", "order", "created_at", "updated_at", "created_by", "updated_by") VALUES `)
			for i, n := range batch {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
				var parent any
				if n.parent != "" {
					parent = n.parent
				}
				args = append(args, n.id, team, "bench", "node", parent, n.path, n.depth, n.order, now, now, "bench", "bench")
			}
			if _, err := tx.ExecContext(ctx, b.String(), args...); err != nil {
				return err
			}
		}
		return nil
	})
}

// treeFileKit opens kit with the tree test's definitions on a SQLite file
// database of its own, closed when b ends.
func treeFileKit(b *testing.B) *kit.Kit {
	b.Helper()
	k, err := kit.New(kit.Config{SQLitePath: filepath.Join(b.TempDir(), "bench.db"), Definitions: treeDefinitions()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { k.Close() })
	seedActors(b, k, kit.Actor{UserID: "bench", TeamID: "bench-team"})
	return k
}

// BenchmarkCreateOrdered creates one record per op at the end of a
// sortable collection (docs/tasks) on a SQLite file database: the next
// order's read (NextOrder), the insert and the commit.
func BenchmarkCreateOrdered(b *testing.B) {
	ctx := context.Background()
	tasks := treeFileKit(b).Records(tasksKey)
	admin := kit.Actor{UserID: "bench", TeamID: "bench-team", Role: "admin"}
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		i++
		if _, err := tasks.Create(ctx, admin, map[string]any{"title": fmt.Sprint("task ", i)}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMoveSubtree moves a subtree of 1,000 nodes back and forth
// between two parents at different depths inside a 100,000-node tree, on
// a SQLite file database: one Move (lock, checks, sibling renumbering,
// one UPDATE rewriting 1,000 paths and depths, hooks) per op.
func BenchmarkMoveSubtree(b *testing.B) {
	ctx := context.Background()
	k := treeFileKit(b)
	team := "bench-team"
	filler := benchTree(99_000, 10, nil)   // 10 roots, depth up to 4
	from, to := &filler[10], &filler[5000] // depth 1 and depth 3
	subtreeRoot := benchNode{id: uuid.Must(uuid.NewV7()).String(), parent: from.id, path: from.path}
	subtreeRoot.path += subtreeRoot.id + "/"
	subtreeRoot.depth, subtreeRoot.order = from.depth+1, 10
	subtree := append([]benchNode{subtreeRoot}, benchTree(999, 10, &subtreeRoot)...)
	if from.depth == to.depth {
		b.Fatalf("the two parents are both at depth %d", from.depth)
	}
	if err := seedBenchTree(ctx, k.DB(), team, append(filler, subtree...)); err != nil {
		b.Fatal(err)
	}
	// Outside the timer: write the seed's WAL into the database file, and
	// one move there and back, so the timed moves do not pay for them.
	if _, err := k.DB().ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		b.Fatal(err)
	}
	admin := kit.Actor{UserID: "bench", TeamID: team, Role: "admin"}
	seedActors(b, k, admin)
	folders := k.Records(foldersKey)
	parents := []string{to.id, from.id}
	for _, p := range parents {
		if _, err := folders.Move(ctx, admin, subtreeRoot.id, &p, kit.OrderEnd); err != nil {
			b.Fatal(err)
		}
	}

	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := folders.Move(ctx, admin, subtreeRoot.id, &parents[i%2], kit.OrderEnd); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()

	recs, err := folders.Tree(ctx, admin, subtreeRoot.id)
	if err != nil {
		b.Fatal(err)
	}
	if len(recs) != 1000 {
		b.Fatalf("subtree: got %d nodes, want 1000", len(recs))
	}
	parent := parents[(b.N-1)%2]
	want := from.depth + 1
	if parent == to.id {
		want = to.depth + 1
	}
	if got := recs[0]["depth"]; got != float64(want) || recs[0]["parentId"] != parent {
		b.Fatalf("subtree root: got depth %v under %v, want %d under %s", got, recs[0]["parentId"], want, parent)
	}
	b.ReportMetric(float64(len(subtree)), "nodes/move")
}
