package kit_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/kittest"
)

func TestDeleteMany(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		cases := []struct {
			name     string
			key      string
			actor    kit.Actor
			nodes    []string
			status   int
			parent   string   // whose children to look at after ("" with tasks)
			want     []string // those children (or tasks) after, in order
			itemIDs  []string // the hook's itemIds, when one fires
			rows     int
			children bool // the error is ErrHasChildren
		}{
			{name: "a node listed before its subtree is deleted with it, children first", key: foldersKey, actor: treeAdam,
				nodes: []string{"a", "a1", "a1x", "a2"}, parent: "r1", want: []string{"b"}, itemIDs: []string{"a", "a1", "a1x", "a2"}, rows: 5},
			{name: "a node with a child that is not deleted with it is a 409 and nothing is deleted", key: foldersKey, actor: treeAdam,
				nodes: []string{"a1x", "a"}, status: 409, children: true, parent: "r1", want: []string{"a", "b"}},
			{name: "siblings of several parents are renumbered", key: foldersKey, actor: treeAdam,
				nodes: []string{"c", "a1x", "c2"}, parent: "r2", want: []string{"c1"}, itemIDs: []string{"c", "a1x", "c2"}, rows: 4},
			{name: "a member's own node with another member's deletes nothing and is a 403", key: foldersKey, actor: treeMia,
				nodes: []string{"a2", "b"}, status: 403, parent: "r1", want: []string{"a", "b"}},
			{name: "another team's node among the team's deletes nothing", key: foldersKey, actor: treeAdam,
				nodes: []string{"c1", "g2"}, status: 404, parent: "r2", want: []string{"c", "c1", "c2"}},
			{name: "deleting tasks renumbers the list", key: tasksKey, actor: treeMia,
				nodes: []string{"t2", "t1"}, want: []string{"t3"}, itemIDs: []string{"t2", "t1"}, rows: 3},
			{name: "a repeated id counts once", key: tasksKey, actor: treeMia,
				nodes: []string{"t1", "t1"}, want: []string{"t2", "t3"}, itemIDs: []string{"t1"}, rows: 3},
			{name: "no ids deletes nothing and fires no hook", key: tasksKey, actor: treeMia,
				want: []string{"t1", "t2", "t3"}},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				tk := newTreeKit(t, e)
				tk.seedTree(t)
				tk.add(t, treeAdam, "c1", "r2")
				tk.add(t, treeAdam, "c2", "r2")
				tk.reset()
				ids := make([]string, len(tc.nodes))
				for i, n := range tc.nodes {
					ids[i] = tk.id(t, n)
				}
				before := kittest.TableRows(t, tk.db, foldersTable, tasksTable)
				err := tk.k.Records(tc.key).DeleteMany(t.Context(), tc.actor, ids)
				if got := treeStatus(err); got != tc.status {
					t.Errorf("status: got %d (%v), want %d", got, err, tc.status)
				}
				if tc.children && !errors.Is(err, kit.ErrHasChildren) {
					t.Errorf("got %v, want ErrHasChildren", err)
				}
				if n := kittest.RowsChanged(before, kittest.TableRows(t, tk.db, foldersTable, tasksTable)); n != tc.rows {
					t.Errorf("rows changed: got %d, want %d", n, tc.rows)
				}
				var got []string
				if tc.key == tasksKey {
					got = tk.taskOrder(t, "acme")
				} else {
					got = tk.children(t, "acme", tc.parent)
				}
				if !slices.Equal(got, tc.want) && len(got)+len(tc.want) > 0 {
					t.Errorf("after: got %v, want %v", got, tc.want)
				}
				wantHooks := 0
				if tc.itemIDs != nil {
					wantHooks = 1
				}
				if tx, after := tk.counts(); tx != wantHooks || after != wantHooks {
					t.Fatalf("hooks: got %d in tx and %d after, want %d", tx, after, wantHooks)
				}
				if wantHooks == 1 {
					if got := tk.titles(tk.last(t).ItemIDs); !slices.Equal(got, tc.itemIDs) {
						t.Errorf("itemIds: got %v, want %v", got, tc.itemIDs)
					}
				}
				requireTree(t, tk.db, foldersTable)
			})
		}

		t.Run("one id gives the payload a single delete gives", func(t *testing.T) {
			tk := newTreeKit(t, e)
			tk.seedTree(t)
			if err := tk.k.Records(tasksKey).DeleteMany(t.Context(), treeMia, []string{tk.id(t, "t1")}); err != nil {
				t.Fatal(err)
			}
			m := tk.last(t)
			if m.ItemID != tk.id(t, "t1") || !slices.Equal(m.ItemIDs, []string{tk.id(t, "t1")}) || m.BeforeData["title"] != "t1" {
				t.Errorf("payload: got itemId %q itemIds %v beforeData %v, want t1's id, [t1's id] and t1's record", m.ItemID, m.ItemIDs, m.BeforeData)
			}
		})

		t.Run("more ids than Limits.MaxInValues is a QueryError naming ids and deletes nothing", func(t *testing.T) {
			tk := newTreeKit(t, e)
			tk.seedTree(t)
			ids := []string{tk.id(t, "t1")}
			for i := range 100 {
				ids = append(ids, fmt.Sprintf("no-such-id-%d", i))
			}
			before := kittest.TableRows(t, tk.db, tasksTable)
			err := tk.k.Records(tasksKey).DeleteMany(t.Context(), treeAdam, ids)
			var qe *kit.QueryError
			if !errors.As(err, &qe) || qe.Param != "ids" {
				t.Errorf("got %v, want a QueryError naming ids", err)
			}
			if n := kittest.RowsChanged(before, kittest.TableRows(t, tk.db, tasksTable)); n != 0 {
				t.Errorf("rows changed: got %d, want 0", n)
			}
		})
	})
}
