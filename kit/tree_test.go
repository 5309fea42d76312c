package kit_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/kittest"
)

func TestTreeCreate(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		tk := newTreeKit(t, e)
		tk.seedTree(t)
		folders := tk.k.Records(foldersKey)

		t.Run("a root's path is its own id, its depth 0, its order the next among the roots", func(t *testing.T) {
			rec := tk.add(t, treeAdam, "r3", "")
			id := rec["id"].(string)
			if got, want := rec["path"], "/"+id+"/"; got != want {
				t.Errorf("path: got %v, want %v", got, want)
			}
			if got := rec["depth"]; got != 0.0 {
				t.Errorf("depth: got %v, want 0", got)
			}
			if got := rec["order"]; got != 2.0 {
				t.Errorf("order: got %v, want 2 (after r1 and r2)", got)
			}
			if got := rec["parentId"]; got != nil {
				t.Errorf("parentId: got %v, want null", got)
			}
		})
		t.Run("a child's path extends its parent's and its depth is one more", func(t *testing.T) {
			rec := tk.add(t, treeMia, "a1y", "a1x")
			want := "/" + strings.Join([]string{tk.id(t, "r1"), tk.id(t, "a"), tk.id(t, "a1"), tk.id(t, "a1x"), rec["id"].(string)}, "/") + "/"
			if got := rec["path"]; got != want {
				t.Errorf("path: got %v, want %v", got, want)
			}
			if got := rec["depth"]; got != 4.0 {
				t.Errorf("depth: got %v, want 4", got)
			}
		})
		t.Run("a new record goes after its last sibling", func(t *testing.T) {
			tk.add(t, treeMia, "a3", "a")
			if got, want := tk.children(t, "acme", "a"), []string{"a1", "a2", "a3"}; !slices.Equal(got, want) {
				t.Errorf("children of a: got %v, want %v", got, want)
			}
		})
		t.Run("the stored record is what create answered", func(t *testing.T) {
			rec := tk.add(t, treeMax, "b1", "b")
			got, err := folders.Get(t.Context(), treeMax, rec["id"].(string))
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"parentId", "path", "depth", "order"} {
				if got[k] != rec[k] {
					t.Errorf("%s: got %v stored, want %v as answered", k, got[k], rec[k])
				}
			}
		})
		t.Run("path, depth and order in the body are ignored", func(t *testing.T) {
			rec, err := folders.Create(t.Context(), treeMia, map[string]any{"title": "x", "path": "/evil/", "depth": 7, "order": 0})
			if err != nil {
				t.Fatal(err)
			}
			if rec["path"] != "/"+rec["id"].(string)+"/" || rec["depth"] != 0.0 || rec["order"] == 0.0 {
				t.Errorf("got path %v depth %v order %v, want the computed ones", rec["path"], rec["depth"], rec["order"])
			}
			tk.ids["x"] = rec["id"].(string)
		})
		t.Run("a null parent makes a root", func(t *testing.T) {
			rec, err := folders.Create(t.Context(), treeMia, map[string]any{"title": "y", "parentId": nil})
			if err != nil {
				t.Fatal(err)
			}
			if rec["depth"] != 0.0 || rec["parentId"] != nil {
				t.Errorf("got depth %v parent %v, want a root", rec["depth"], rec["parentId"])
			}
			tk.ids["y"] = rec["id"].(string)
		})
		requireTree(t, tk.db, foldersTable)

		refused := []struct {
			name   string
			parent any
			want   string
		}{
			{"a parent of another team is a 400, never a silent root", tk.id(t, "g1"), "refers to no docsFolders record of this team"},
			{"a parent that does not exist is a 400", "00000000-0000-0000-0000-000000000000", "refers to no docsFolders record of this team"},
			{"an empty parent id is a 400", "", "must be the id of a record"},
			{"a parent that is not a string is a 400", 12, "must be the id of a record"},
		}
		for _, tc := range refused {
			t.Run(tc.name, func(t *testing.T) {
				before := kittest.TableRows(t, tk.db, foldersTable)
				tk.reset()
				_, err := folders.Create(t.Context(), treeMia, map[string]any{"title": "z", "parentId": tc.parent})
				if got := treeStatus(err); got != 400 || !isFieldError(err, "parentId", tc.want) {
					t.Errorf("got %d %v, want 400 with parentId %q", got, err, tc.want)
				}
				if n := kittest.RowsChanged(before, kittest.TableRows(t, tk.db, foldersTable)); n != 0 {
					t.Errorf("rows changed: got %d, want 0", n)
				}
				if tx, after := tk.counts(); tx+after != 0 {
					t.Errorf("hooks: got %d in tx and %d after, want none", tx, after)
				}
			})
		}
	})
}

func TestTreeUpdateRefusesTheManagedFields(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		tk := newTreeKit(t, e)
		tk.seedTree(t)
		cases := []struct {
			name, key, field string
			value            any
			want             string
		}{
			{"a parentId in an update points at the move endpoint", foldersKey, "parentId", "x", "/{id}/move"},
			{"a path in an update points at the move endpoint", foldersKey, "path", "/x/", "/{id}/move"},
			{"a depth in an update points at the move endpoint", foldersKey, "depth", 3, "/{id}/move"},
			{"an order in an update points at move and reorder", foldersKey, "order", 0, "/reorder"},
			{"an order of a sortable collection points at reorder", tasksKey, "order", 0, "PATCH /teams/{team}/docs-tasks/reorder"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				id := tk.id(t, "a")
				if tc.key == tasksKey {
					id = tk.id(t, "t1")
				}
				before := kittest.TableRows(t, tk.db, foldersTable, tasksTable)
				_, err := tk.k.Records(tc.key).Update(t.Context(), treeMia, id, map[string]any{"title": "renamed", tc.field: tc.value})
				if got := treeStatus(err); got != 400 || !isFieldError(err, tc.field, tc.want) {
					t.Errorf("got %d %v, want 400 with %s mentioning %q", got, err, tc.field, tc.want)
				}
				if n := kittest.RowsChanged(before, kittest.TableRows(t, tk.db, foldersTable, tasksTable)); n != 0 {
					t.Errorf("rows changed: got %d, want 0", n)
				}
			})
		}
		t.Run("an update of the other fields keeps the tree", func(t *testing.T) {
			rec, err := tk.k.Records(foldersKey).Update(t.Context(), treeMia, tk.id(t, "a"), map[string]any{"title": "renamed"})
			if err != nil {
				t.Fatal(err)
			}
			if rec["title"] != "renamed" || rec["parentId"] != tk.id(t, "r1") || rec["depth"] != 1.0 {
				t.Errorf("got %v, want a renamed record in its place", rec)
			}
		})
	})
}

// moveCase is one move on a freshly seeded tree.
type moveCase struct {
	name   string
	actor  kit.Actor
	node   string // title
	parent string // title, "" for a root
	order  int
	status int // 0: success
	msg    string
	want   map[string][]string // parent title ("" roots) -> children in order
	depths map[string]float64  // title -> depth after
	hooks  int
}

func TestTreeMove(t *testing.T) {
	t.Parallel()
	cases := []moveCase{
		{name: "a member moves their own node under another parent, at a position", actor: treeMia, node: "a", parent: "r2", order: 0, hooks: 1,
			want:   map[string][]string{"r2": {"a", "c"}, "r1": {"b"}, "a": {"a1", "a2"}},
			depths: map[string]float64{"a": 1, "a1": 2, "a1x": 3, "a2": 2}},
		{name: "a move between subtrees of different depths rewrites every descendant's depth", actor: treeAdam, node: "a", parent: "b", order: 0, hooks: 1,
			want:   map[string][]string{"r1": {"b"}, "b": {"a"}, "a": {"a1", "a2"}, "a1": {"a1x"}},
			depths: map[string]float64{"b": 1, "a": 2, "a1": 3, "a1x": 4, "a2": 3}},
		{name: "a move up to the roots lowers every descendant's depth", actor: treeAdam, node: "a1", parent: "", order: 0, hooks: 1,
			want:   map[string][]string{"": {"a1", "r1", "r2"}, "a": {"a2"}, "a1": {"a1x"}},
			depths: map[string]float64{"a1": 0, "a1x": 1, "a2": 2}},
		{name: "an order past the end appends", actor: treeMia, node: "a", parent: "", order: 99, hooks: 1,
			want: map[string][]string{"": {"r1", "r2", "a"}, "r1": {"b"}}, depths: map[string]float64{"a": 0, "a1": 1, "a1x": 2}},
		{name: "OrderEnd appends", actor: treeAdam, node: "c", parent: "r1", order: kit.OrderEnd, hooks: 1,
			want: map[string][]string{"r1": {"a", "b", "c"}, "r2": {}}, depths: map[string]float64{"c": 1}},
		{name: "a move up within the same parent shifts the siblings between", actor: treeAdam, node: "b", parent: "r1", order: 0, hooks: 1,
			want: map[string][]string{"r1": {"b", "a"}}},
		{name: "a move down within the same parent shifts the siblings between", actor: treeMia, node: "a", parent: "r1", order: 1, hooks: 1,
			want: map[string][]string{"r1": {"b", "a"}}},
		{name: "a move to where the node already is changes nothing and fires no hook", actor: treeMia, node: "a", parent: "r1", order: 0,
			want: map[string][]string{"r1": {"a", "b"}}},
		{name: "an admin moves another member's node", actor: treeAdam, node: "a1", parent: "c", order: 0, hooks: 1,
			want: map[string][]string{"c": {"a1"}, "a": {"a2"}}, depths: map[string]float64{"a1": 2, "a1x": 3}},
		{name: "a move under the node itself is a 400", actor: treeMia, node: "a", parent: "a", status: 400, msg: "under itself"},
		{name: "a move under a child is a 400", actor: treeMia, node: "a", parent: "a2", status: 400, msg: "own descendants"},
		{name: "a move under a deeper descendant is a 400", actor: treeAdam, node: "r1", parent: "a1x", status: 400, msg: "own descendants"},
		{name: "a parent of another team is a 400", actor: treeMia, node: "a", parent: "g1", status: 400, msg: "refers to no docsFolders record of this team"},
		{name: "a negative order is a 400", actor: treeMia, node: "a", parent: "r2", order: -1, status: 400, msg: "0 or more"},
		{name: "a member cannot move another member's node of the team: 403", actor: treeMia, node: "b", parent: "r2", status: 403, msg: "a member may move only the records they own"},
		{name: "a node of another team is a 404 like a missing one", actor: treeAdam, node: "g2", parent: "", status: 404, msg: "record not found"},
		{name: "a node of another team under a parent of this team is a 404 too", actor: treeAdam, node: "g2", parent: "r1", status: 404, msg: "record not found"},
		{name: "a missing node is a 404", actor: treeAdam, node: "missing", parent: "", status: 404, msg: "record not found"},
	}
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				tk := newTreeKit(t, e)
				tk.seedTree(t)
				tk.ids["missing"] = "00000000-0000-0000-0000-000000000000"
				var parent *string
				if tc.parent != "" {
					parent = treeRef(tk.id(t, tc.parent))
				}
				before := kittest.TableRows(t, tk.db, foldersTable, tasksTable)
				rec, err := tk.k.Records(foldersKey).Move(t.Context(), tc.actor, tk.id(t, tc.node), parent, tc.order)
				if tc.status != 0 {
					if got := treeStatus(err); got != tc.status || !strings.Contains(err.Error(), tc.msg) {
						t.Errorf("got %d %v, want %d %q", got, err, tc.status, tc.msg)
					}
					if n := kittest.RowsChanged(before, kittest.TableRows(t, tk.db, foldersTable, tasksTable)); n != 0 {
						t.Errorf("rows changed: got %d, want 0", n)
					}
				} else if err != nil {
					t.Fatalf("Move: %v", err)
				} else if got := rec["parentId"]; parent == nil && got != nil || parent != nil && got != *parent {
					t.Errorf("parentId: got %v, want %v", got, treeDeref(parent))
				}
				if tx, after := tk.counts(); tx != tc.hooks || after != tc.hooks {
					t.Errorf("hooks: got %d in tx and %d after, want %d", tx, after, tc.hooks)
				}
				for parent, want := range tc.want {
					if got := tk.children(t, "acme", parent); !slices.Equal(got, want) && len(got)+len(want) > 0 {
						t.Errorf("children of %q: got %v, want %v", parent, got, want)
					}
				}
				rows := map[string]treeRow{}
				for _, n := range treeRows(t, tk.db, foldersTable) {
					rows[tk.title(n.ID)] = n
				}
				for title, want := range tc.depths {
					if got := rows[title].Depth; got != want {
						t.Errorf("depth of %s: got %v, want %v", title, got, want)
					}
				}
				requireTree(t, tk.db, foldersTable)
			})
		}
	})
}

func TestTreeMoveAnswersAnotherTeamsNodeLikeAMissingOne(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		tk := newTreeKit(t, e)
		tk.seedTree(t)
		folders := tk.k.Records(foldersKey)
		_, errOther := folders.Move(t.Context(), treeAdam, tk.id(t, "g1"), nil, 0)
		_, errMissing := folders.Move(t.Context(), treeAdam, "00000000-0000-0000-0000-000000000000", nil, 0)
		if !errors.Is(errOther, kit.ErrNotFound) || !errors.Is(errMissing, kit.ErrNotFound) {
			t.Fatalf("got %v and %v, want ErrNotFound for both", errOther, errMissing)
		}
		if errOther.Error() != errMissing.Error() {
			t.Errorf("messages: got %q for another team's node and %q for a missing one, want the same", errOther, errMissing)
		}
	})
}

func TestTreeMoveAndReorderHooks(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		tk := newTreeKit(t, e)
		tk.seedTree(t)
		folders := tk.k.Records(foldersKey)

		t.Run("a move tells its node, the new parent and order, and the record before and after", func(t *testing.T) {
			tk.reset()
			rec, err := folders.Move(t.Context(), treeMia, tk.id(t, "a"), treeRef(tk.id(t, "r2")), 1)
			if err != nil {
				t.Fatal(err)
			}
			m := tk.last(t)
			if m.Operation != kit.OpMove || m.Collection != foldersKey || m.ItemID != tk.id(t, "a") {
				t.Errorf("got %s %s %s, want move of docsFolders a", m.Operation, m.Collection, m.ItemID)
			}
			if got, want := fmt.Sprint(m.Data), fmt.Sprint(map[string]any{"parentId": tk.id(t, "r2"), "order": 1.0}); got != want {
				t.Errorf("data: got %s, want %s", got, want)
			}
			if m.BeforeData["parentId"] != tk.id(t, "r1") || m.BeforeData["order"] != 0.0 {
				t.Errorf("beforeData: got parent %v order %v, want r1 and 0", m.BeforeData["parentId"], m.BeforeData["order"])
			}
			if res, ok := m.Result.(kit.Record); !ok || res["path"] != rec["path"] {
				t.Errorf("result: got %v, want the moved record", m.Result)
			}
			if m.TeamID != "acme" || m.UserID != "mia" || m.CorrelationID == "" || m.Timestamp == 0 {
				t.Errorf("got team %q user %q correlation %q timestamp %d, want them set", m.TeamID, m.UserID, m.CorrelationID, m.Timestamp)
			}
			if tx, after := tk.counts(); tx != 1 || after != 1 {
				t.Errorf("hooks: got %d in tx and %d after, want 1 and 1", tx, after)
			}
		})
		t.Run("a move to the roots tells a null parent", func(t *testing.T) {
			if _, err := folders.Move(t.Context(), treeMia, tk.id(t, "a"), nil, 0); err != nil {
				t.Fatal(err)
			}
			if m := tk.last(t); m.Data["parentId"] != nil || m.Data["order"] != 0.0 {
				t.Errorf("data: got %v, want parentId null and order 0", m.Data)
			}
		})
		t.Run("a reorder tells the ids in their new order, the old order and the parent", func(t *testing.T) {
			tk.reset()
			newOrder := []string{tk.id(t, "a1"), tk.id(t, "a2")} // a's children are a1, a2
			if err := folders.Reorder(t.Context(), treeAdam, []string{newOrder[1], newOrder[0]}); err != nil {
				t.Fatal(err)
			}
			m := tk.last(t)
			if m.Operation != kit.OpReorder || m.ItemID != tk.id(t, "a") {
				t.Errorf("got %s of %s, want reorder of a", m.Operation, m.ItemID)
			}
			if got, want := tk.titles(m.ItemIDs), []string{"a2", "a1"}; !slices.Equal(got, want) {
				t.Errorf("itemIds: got %v, want %v", got, want)
			}
			if got, want := fmt.Sprint(m.BeforeData["itemIds"]), fmt.Sprint(newOrder); got != want {
				t.Errorf("beforeData.itemIds: got %s, want %s", got, want)
			}
			if m.Data["parentId"] != tk.id(t, "a") {
				t.Errorf("data: got %v, want the parent", m.Data)
			}
		})
		t.Run("a failing transaction listener rolls a move back", func(t *testing.T) {
			tk2 := newTreeKit(t, e)
			tk2.seedTree(t)
			boom := errors.New("listener says no")
			tk2.k.OnMutationTx(func(ctx context.Context, tx bun.Tx, m *kit.Mutation) error { return boom })
			before := kittest.TableRows(t, tk2.db, foldersTable)
			if _, err := tk2.k.Records(foldersKey).Move(t.Context(), treeAdam, tk2.id(t, "a"), nil, 0); !errors.Is(err, boom) {
				t.Fatalf("got %v, want the listener's error", err)
			}
			if n := kittest.RowsChanged(before, kittest.TableRows(t, tk2.db, foldersTable)); n != 0 {
				t.Errorf("rows changed: got %d, want 0", n)
			}
		})
	})
}

func TestTreeArrangeRoles(t *testing.T) {
	t.Parallel()
	withRoles := func(move, reorder string) func(*kit.Config) {
		return func(cfg *kit.Config) {
			cfg.Collections = map[string]collections.Config{
				foldersKey: {Hierarchy: &collections.Hierarchy{Enabled: true, MoveRole: move}},
				tasksKey:   {Sortable: &collections.Sortable{Enabled: true, ReorderRole: reorder}},
			}
		}
	}
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		t.Run("moveRole member lets a member move another member's node", func(t *testing.T) {
			tk := newTreeKit(t, e, withRoles("member", "member"))
			tk.seedTree(t)
			if _, err := tk.k.Records(foldersKey).Move(t.Context(), treeMia, tk.id(t, "b"), nil, 0); err != nil {
				t.Errorf("got %v, want the move allowed", err)
			}
			if err := tk.k.Records(tasksKey).Reorder(t.Context(), treeMia, []string{tk.id(t, "t3"), tk.id(t, "t1"), tk.id(t, "t2")}); err != nil {
				t.Errorf("reorder: got %v, want it allowed", err)
			}
			requireTree(t, tk.db, foldersTable)
		})
		t.Run("moveRole admin refuses a member even their own node with 403", func(t *testing.T) {
			tk := newTreeKit(t, e, withRoles("admin", "admin"))
			tk.seedTree(t)
			_, err := tk.k.Records(foldersKey).Move(t.Context(), treeMia, tk.id(t, "a"), nil, 0)
			if treeStatus(err) != 403 || !errors.Is(err, kit.ErrForbidden) {
				t.Errorf("move: got %v, want 403 ErrForbidden", err)
			}
			err = tk.k.Records(foldersKey).Reorder(t.Context(), treeMia, []string{tk.id(t, "a2"), tk.id(t, "a1")})
			if treeStatus(err) != 403 {
				t.Errorf("reorder of a tree: got %v, want 403", err)
			}
			err = tk.k.Records(tasksKey).Reorder(t.Context(), treeMia, []string{tk.id(t, "t2"), tk.id(t, "t1"), tk.id(t, "t3")})
			if treeStatus(err) != 403 {
				t.Errorf("reorder of a list: got %v, want 403", err)
			}
			if _, err := tk.k.Records(foldersKey).Move(t.Context(), treeAdam, tk.id(t, "a"), nil, 0); err != nil {
				t.Errorf("admin move: got %v, want it allowed", err)
			}
		})
	})
}

func TestTreeReorder(t *testing.T) {
	t.Parallel()
	type reorderCase struct {
		name    string
		key     string
		actor   kit.Actor
		ids     []string // titles; nil with updates
		updates []kit.OrderUpdate
		status  int
		msg     string
		parent  string   // whose children to check ("" roots); tasks when key is tasksKey
		want    []string // order after
		hooks   int
	}
	up := func(title string, order int) kit.OrderUpdate { return kit.OrderUpdate{ID: title, Order: order} }
	cases := []reorderCase{
		{name: "ids in a new order renumber the siblings", key: foldersKey, actor: treeAdam, ids: []string{"c3", "c1", "c4", "c2", "c"},
			parent: "r2", want: []string{"c3", "c1", "c4", "c2", "c"}, hooks: 1},
		{name: "the roots reorder with the ids of every root", key: foldersKey, actor: treeAdam, ids: []string{"r2", "r1"},
			parent: "", want: []string{"r2", "r1"}, hooks: 1},
		{name: "the same order changes nothing and fires no hook", key: foldersKey, actor: treeMia, ids: []string{"a1", "a2"},
			parent: "a", want: []string{"a1", "a2"}},
		{name: "a non-sibling fails the whole reorder and changes nothing", key: foldersKey, actor: treeAdam, ids: []string{"a2", "a1", "b"},
			status: 400, msg: `is not a sibling`, parent: "a", want: []string{"a1", "a2"}},
		{name: "an id of another team fails with 400 and changes nothing", key: foldersKey, actor: treeAdam, ids: []string{"r2", "r1", "g1"},
			status: 400, msg: `is not a sibling`, parent: "", want: []string{"r1", "r2"}},
		{name: "another team's id first fails with 400", key: foldersKey, actor: treeAdam, ids: []string{"g1", "r1", "r2"},
			status: 400, msg: `is not a docsFolders record of this team`, parent: "", want: []string{"r1", "r2"}},
		{name: "a sibling left out fails the ids form", key: foldersKey, actor: treeAdam, ids: []string{"c2", "c"},
			status: 400, msg: "must name every sibling", parent: "r2", want: []string{"c", "c1", "c2", "c3", "c4"}},
		{name: "an id named twice fails", key: foldersKey, actor: treeAdam, ids: []string{"r2", "r2", "r1"},
			status: 400, msg: "twice", parent: "", want: []string{"r1", "r2"}},
		{name: "no ids fail", key: foldersKey, actor: treeAdam, ids: []string{},
			status: 400, msg: "at least one", parent: "", want: []string{"r1", "r2"}},
		{name: "an update puts its record first, the rest keep their order", key: foldersKey, actor: treeAdam, updates: []kit.OrderUpdate{up("c4", 0)},
			parent: "r2", want: []string{"c4", "c", "c1", "c2", "c3"}, hooks: 1},
		{name: "an update past the end puts its record last", key: foldersKey, actor: treeAdam, updates: []kit.OrderUpdate{up("c", 9)},
			parent: "r2", want: []string{"c1", "c2", "c3", "c4", "c"}, hooks: 1},
		{name: "several updates land at their positions", key: foldersKey, actor: treeAdam, updates: []kit.OrderUpdate{up("c3", 0), up("c", 2)},
			parent: "r2", want: []string{"c3", "c1", "c", "c2", "c4"}, hooks: 1},
		{name: "an update naming a non-sibling changes nothing", key: foldersKey, actor: treeAdam, updates: []kit.OrderUpdate{up("c", 1), up("a", 0)},
			status: 400, msg: "is not a sibling", parent: "r2", want: []string{"c", "c1", "c2", "c3", "c4"}},
		{name: "two updates asking for one order fail", key: foldersKey, actor: treeAdam, updates: []kit.OrderUpdate{up("c", 1), up("c1", 1)},
			status: 400, msg: "both ask for order 1", parent: "r2", want: []string{"c", "c1", "c2", "c3", "c4"}},
		{name: "a negative order in an update fails", key: foldersKey, actor: treeAdam, updates: []kit.OrderUpdate{up("c", -1)},
			status: 400, msg: "0 or more", parent: "r2", want: []string{"c", "c1", "c2", "c3", "c4"}},
		{name: "a member may reorder when every record that moves is theirs", key: tasksKey, actor: treeMia, ids: []string{"t2", "t1", "t3"},
			want: []string{"t2", "t1", "t3"}, hooks: 1},
		{name: "a member may not move another member's record: 403", key: tasksKey, actor: treeMia, ids: []string{"t3", "t1", "t2"},
			status: 403, msg: "every record that changes place is theirs", want: []string{"t1", "t2", "t3"}},
		{name: "a member may not reorder the children of a node when another member's child moves", key: foldersKey, actor: treeMia, ids: []string{"b", "a"},
			status: 403, msg: "theirs", parent: "r1", want: []string{"a", "b"}},
		{name: "an admin reorders every record of a sortable collection", key: tasksKey, actor: treeAdam, ids: []string{"t3", "t2", "t1"},
			want: []string{"t3", "t2", "t1"}, hooks: 1},
		{name: "the updates form works on a sortable collection", key: tasksKey, actor: treeAdam, updates: []kit.OrderUpdate{up("t3", 0)},
			want: []string{"t3", "t1", "t2"}, hooks: 1},
		{name: "a task of another team fails the reorder", key: tasksKey, actor: treeAdam, ids: []string{"t1", "t2", "t3", "gt1"},
			status: 400, msg: "is not a sibling", want: []string{"t1", "t2", "t3"}},
	}
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				tk := newTreeKit(t, e)
				tk.seedTree(t)
				for _, title := range []string{"c1", "c2", "c3", "c4"} {
					tk.add(t, treeAdam, title, "r2")
				}
				tk.reset()
				before := kittest.TableRows(t, tk.db, foldersTable, tasksTable)
				recs := tk.k.Records(tc.key)
				var err error
				if tc.updates != nil {
					ups := make([]kit.OrderUpdate, len(tc.updates))
					for i, u := range tc.updates {
						ups[i] = kit.OrderUpdate{ID: tk.id(t, u.ID), Order: u.Order}
					}
					err = recs.ReorderUpdates(t.Context(), tc.actor, ups)
				} else {
					ids := make([]string, len(tc.ids))
					for i, title := range tc.ids {
						ids[i] = tk.id(t, title)
					}
					err = recs.Reorder(t.Context(), tc.actor, ids)
				}
				if tc.status != 0 {
					if got := treeStatus(err); got != tc.status || !strings.Contains(err.Error(), tc.msg) {
						t.Errorf("got %d %v, want %d %q", got, err, tc.status, tc.msg)
					}
					if n := kittest.RowsChanged(before, kittest.TableRows(t, tk.db, foldersTable, tasksTable)); n != 0 {
						t.Errorf("rows changed: got %d, want 0", n)
					}
				} else if err != nil {
					t.Fatalf("reorder: %v", err)
				}
				var got []string
				if tc.key == tasksKey {
					got = tk.taskOrder(t, "acme")
				} else {
					got = tk.children(t, "acme", tc.parent)
				}
				if !slices.Equal(got, tc.want) {
					t.Errorf("order after: got %v, want %v", got, tc.want)
				}
				if tx, after := tk.counts(); tx != tc.hooks || after != tc.hooks {
					t.Errorf("hooks: got %d in tx and %d after, want %d", tx, after, tc.hooks)
				}
				requireTree(t, tk.db, foldersTable)
			})
		}
		t.Run("a collection without a manual order answers 404", func(t *testing.T) {
			tk := newTreeKit(t, e, func(cfg *kit.Config) {
				cfg.Definitions = append(cfg.Definitions, collections.Definition{Name: "labels", Layer: "docs",
					Fields: []collections.Field{{Name: "title", Type: collections.TypeString}}})
			})
			err := tk.k.Records("docsLabels").Reorder(t.Context(), treeAdam, []string{"x"})
			if treeStatus(err) != 404 || !strings.Contains(err.Error(), "no manual order") {
				t.Errorf("got %v, want 404 no manual order", err)
			}
			if _, err := tk.k.Records(tasksKey).Move(t.Context(), treeAdam, "x", nil, 0); treeStatus(err) != 404 {
				t.Errorf("move of a sortable record: got %v, want 404 not a tree", err)
			}
		})
	})
}

func TestTreeDelete(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		cases := []struct {
			name   string
			key    string
			actor  kit.Actor
			node   string
			status int
			parent string
			want   []string
			hooks  int
			rows   int
		}{
			{name: "a node with children is refused with 409 and kept", key: foldersKey, actor: treeMia, node: "a", status: 409,
				parent: "r1", want: []string{"a", "b"}},
			{name: "a leaf is deleted and its later siblings move up", key: foldersKey, actor: treeMax, node: "a1x", parent: "a1", want: []string{}, hooks: 1, rows: 1},
			{name: "deleting a first child renumbers the others", key: foldersKey, actor: treeAdam, node: "c", parent: "r2", want: []string{"c1", "c2"}, hooks: 1, rows: 3},
			{name: "a member cannot delete another member's node: 403", key: foldersKey, actor: treeMia, node: "c", status: 403, parent: "r2", want: []string{"c", "c1", "c2"}},
			{name: "deleting a task renumbers the list", key: tasksKey, actor: treeMia, node: "t1", want: []string{"t2", "t3"}, hooks: 1, rows: 3},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				tk := newTreeKit(t, e)
				tk.seedTree(t)
				tk.add(t, treeAdam, "c1", "r2")
				tk.add(t, treeAdam, "c2", "r2")
				tk.reset()
				before := kittest.TableRows(t, tk.db, foldersTable, tasksTable)
				err := tk.k.Records(tc.key).Delete(t.Context(), tc.actor, tk.id(t, tc.node))
				if got := treeStatus(err); got != tc.status {
					t.Errorf("status: got %d (%v), want %d", got, err, tc.status)
				}
				if tc.status == 409 && !errors.Is(err, kit.ErrHasChildren) {
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
					t.Errorf("siblings after: got %v, want %v", got, tc.want)
				}
				if tx, after := tk.counts(); tx != tc.hooks || after != tc.hooks {
					t.Errorf("hooks: got %d in tx and %d after, want %d", tx, after, tc.hooks)
				}
				requireTree(t, tk.db, foldersTable)
			})
		}
	})
}

func TestTreeRead(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		tk := newTreeKit(t, e)
		tk.seedTree(t)
		// Orders that differ from creation order: the read must sort.
		if err := tk.k.Records(foldersKey).Reorder(t.Context(), treeAdam, []string{tk.id(t, "r2"), tk.id(t, "r1")}); err != nil {
			t.Fatal(err)
		}
		if err := tk.k.Records(foldersKey).Reorder(t.Context(), treeAdam, []string{tk.id(t, "a2"), tk.id(t, "a1")}); err != nil {
			t.Fatal(err)
		}
		folders := tk.k.Records(foldersKey)
		cases := []struct {
			name   string
			actor  kit.Actor
			root   string
			want   []string
			depths []float64
			err    error
		}{
			{name: "the whole tree comes depth first, siblings by order", actor: treeMia, want: []string{"r2", "c", "r1", "a", "a2", "a1", "a1x", "b"},
				depths: []float64{0, 1, 0, 1, 2, 2, 3, 1}},
			{name: "a subtree starts with its root", actor: treeMia, root: "a", want: []string{"a", "a2", "a1", "a1x"}, depths: []float64{1, 2, 2, 3}},
			{name: "a leaf's subtree is the leaf", actor: treeMia, root: "a1x", want: []string{"a1x"}, depths: []float64{3}},
			{name: "another team sees only its tree", actor: treeGina, want: []string{"g1", "g2"}, depths: []float64{0, 1}},
			{name: "a root of another team is not found", actor: treeMia, root: "g1", err: kit.ErrNotFound},
			{name: "a missing root is not found", actor: treeMia, root: "missing", err: kit.ErrNotFound},
		}
		tk.ids["missing"] = "00000000-0000-0000-0000-000000000000"
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				root := ""
				if tc.root != "" {
					root = tk.id(t, tc.root)
				}
				recs, err := folders.Tree(t.Context(), tc.actor, root)
				if tc.err != nil {
					if !errors.Is(err, tc.err) {
						t.Errorf("got %v, want %v", err, tc.err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				var depths []float64
				for _, r := range recs {
					got = append(got, tk.title(r["id"].(string)))
					depths = append(depths, r["depth"].(float64))
				}
				if !slices.Equal(got, tc.want) || !slices.Equal(depths, tc.depths) {
					t.Errorf("got %v with depths %v, want %v with depths %v", got, depths, tc.want, tc.depths)
				}
			})
		}
		t.Run("a sortable list defaults to order ascending", func(t *testing.T) {
			if err := tk.k.Records(tasksKey).Reorder(t.Context(), treeAdam, []string{tk.id(t, "t2"), tk.id(t, "t3"), tk.id(t, "t1")}); err != nil {
				t.Fatal(err)
			}
			list, err := tk.k.Records(tasksKey).List(t.Context(), treeMia, url.Values{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range list.Items {
				got = append(got, tk.title(r["id"].(string)))
			}
			if want := []string{"t2", "t3", "t1"}; !slices.Equal(got, want) || list.Pagination.SortBy != "order" || list.Pagination.SortDirection != "asc" {
				t.Errorf("got %v sorted by %s %s, want %v by order asc", got, list.Pagination.SortBy, list.Pagination.SortDirection, want)
			}
		})
		t.Run("a tree list filtered by parent gives the children in order", func(t *testing.T) {
			list, err := folders.List(t.Context(), treeMia, url.Values{"filter": {`{"parentId":"` + tk.id(t, "a") + `"}`}})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range list.Items {
				got = append(got, tk.title(r["id"].(string)))
			}
			if want := []string{"a2", "a1"}; !slices.Equal(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
		})
		t.Run("the roots are the records with a null parent", func(t *testing.T) {
			list, err := folders.List(t.Context(), treeMia, url.Values{"filter": {`{"parentId":null}`}, "sort": {"-order"}})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range list.Items {
				got = append(got, tk.title(r["id"].(string)))
			}
			if want := []string{"r1", "r2"}; !slices.Equal(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
		})
		t.Run("a subtree is a prefix filter on the path", func(t *testing.T) {
			a, _ := folders.Get(t.Context(), treeMia, tk.id(t, "a"))
			list, err := folders.List(t.Context(), treeMia, url.Values{"filter": {`{"path":{"startsWith":"` + a["path"].(string) + `"}}`}})
			if err != nil {
				t.Fatal(err)
			}
			if list.Pagination.TotalItems != 4 {
				t.Errorf("got %d records, want 4 (a, a1, a1x, a2)", list.Pagination.TotalItems)
			}
		})
	})
}

// TestTreeConcurrentMoves runs 20 goroutines of random moves on a 500-node
// tree; afterwards it must still be a tree.
func TestTreeConcurrentMoves(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		tk := newTreeKit(t, e)
		rng := rand.New(rand.NewPCG(7, 11))
		var ids []string
		for i := range 500 {
			parent := ""
			if i >= 10 {
				parent = ids[rng.IntN(len(ids))]
			}
			body := map[string]any{"title": fmt.Sprintf("n%d", i)}
			if parent != "" {
				body["parentId"] = parent
			}
			rec, err := tk.k.Records(foldersKey).Create(t.Context(), treeAdam, body)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, rec["id"].(string))
		}
		requireTree(t, tk.db, foldersTable)
		tk.reset()

		const workers, movesEach = 20, 5
		var wg sync.WaitGroup
		var mu sync.Mutex
		moved, refused := 0, 0
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := rand.New(rand.NewPCG(uint64(w), 99))
				for range movesEach {
					id := ids[r.IntN(len(ids))]
					var parent *string
					if r.IntN(10) > 0 {
						parent = &ids[r.IntN(len(ids))]
					}
					_, err := tk.k.Records(foldersKey).Move(t.Context(), treeAdam, id, parent, r.IntN(6))
					mu.Lock()
					switch {
					case err == nil:
						moved++
					case treeStatus(err) == 400:
						refused++ // under itself or a descendant
					default:
						t.Errorf("move: %v", err)
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		t.Logf("%d moves, %d refused as cycles", moved, refused)
		rows := treeRows(t, tk.db, foldersTable)
		if len(rows) != 500 {
			t.Errorf("nodes: got %d, want 500", len(rows))
		}
		requireTree(t, tk.db, foldersTable)
		if tx, after := tk.counts(); tx > moved || after > moved || moved+refused != workers*movesEach {
			t.Errorf("hooks: got %d in tx and %d after for %d moves (%d refused), want at most one per move", tx, after, moved, refused)
		}
	})
}

// TestTreeEnabledOnAnExistingCollection turns hierarchy and sortable on
// for collections that already have records: sync adds the columns and
// every record becomes a root, numbered in creation order.
func TestTreeEnabledOnAnExistingCollection(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		open := testdb.Shared(t, e)
		plain := func(name string) collections.Definition {
			return collections.Definition{Name: name, Layer: "docs", Fields: []collections.Field{{Name: "title", Type: collections.TypeString}}}
		}
		k1, err := kit.New(kit.Config{DB: open(), Definitions: []collections.Definition{plain("folders"), plain("tasks")}})
		if err != nil {
			t.Fatal(err)
		}
		seedActors(t, k1, kit.Actor{UserID: "u", TeamID: "acme"}, kit.Actor{UserID: "u", TeamID: "globex"})
		var folderIDs, taskIDs []string
		for _, team := range []string{"acme", "globex"} {
			for i := range 3 {
				a := kit.Actor{UserID: "u", TeamID: team}
				f, err := k1.Records(foldersKey).Create(t.Context(), a, map[string]any{"title": fmt.Sprint(i)})
				if err != nil {
					t.Fatal(err)
				}
				tk, err := k1.Records(tasksKey).Create(t.Context(), a, map[string]any{"title": fmt.Sprint(i)})
				if err != nil {
					t.Fatal(err)
				}
				if team == "acme" {
					folderIDs, taskIDs = append(folderIDs, f["id"].(string)), append(taskIDs, tk["id"].(string))
				}
			}
		}
		k1.Close()

		k2, err := kit.New(kit.Config{DB: open(), Definitions: treeDefinitions()})
		if err != nil {
			t.Fatalf("kit.New with hierarchy and sortable on: %v", err)
		}
		defer k2.Close()
		requireTree(t, k2.DB(), foldersTable)
		acme := kit.Actor{UserID: "u", TeamID: "acme", Role: "admin"}
		tree, err := k2.Records(foldersKey).Tree(t.Context(), acme, "")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range tree {
			got = append(got, r["id"].(string))
		}
		if !slices.Equal(got, folderIDs) {
			t.Errorf("roots: got %v, want %v (creation order)", got, folderIDs)
		}
		list, err := k2.Records(tasksKey).List(t.Context(), acme, url.Values{})
		if err != nil {
			t.Fatal(err)
		}
		got = nil
		for i, r := range list.Items {
			got = append(got, r["id"].(string))
			if r["order"] != float64(i) {
				t.Errorf("task %d: order %v, want %d", i, r["order"], i)
			}
		}
		if !slices.Equal(got, taskIDs) {
			t.Errorf("tasks: got %v, want %v (creation order)", got, taskIDs)
		}
		// The tree works on the filled columns.
		if _, err := k2.Records(foldersKey).Move(t.Context(), acme, folderIDs[0], &folderIDs[1], 0); err != nil {
			t.Fatal(err)
		}
		requireTree(t, k2.DB(), foldersTable)
	})
}
