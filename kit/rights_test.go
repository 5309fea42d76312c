package kit_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/kittest"
)

// TestCanChange asks Records.CanChange what the change itself would
// answer, on every engine, over the tree fixtures (see seedTree): mia owns
// r1, a, a2, t1 and t2; max a1, a1x, b and t3; adam r2 and c; gina g1, g2
// and gt1 of globex.
func TestCanChange(t *testing.T) {
	t.Parallel()
	withRoles := func(cfg *kit.Config) {
		cfg.Collections = map[string]collections.Config{
			foldersKey: {Hierarchy: &collections.Hierarchy{Enabled: true, MoveRole: "admin"}},
			tasksKey:   {Sortable: &collections.Sortable{Enabled: true, ReorderRole: "member"}},
		}
	}
	cases := []struct {
		name   string
		roles  bool // hierarchy.moveRole admin, sortable.reorderRole member
		key    string
		actor  kit.Actor
		op     kit.Operation
		ids    []string // titles; "missing" names no record
		status int      // 0: allowed
		msg    string   // part of the refusal's message
		is     error    // the sentinel the refusal matches, when it has one
	}{
		{name: "a member may update and delete their own record", key: foldersKey, actor: treeMia, op: kit.OpUpdate, ids: []string{"a"}},
		{name: "a member may delete their own records", key: foldersKey, actor: treeMia, op: kit.OpDelete, ids: []string{"a", "r1", "a2"}},
		{name: "a member may stand as the creator of their own record", key: tasksKey, actor: treeMia, op: kit.OpCreate, ids: []string{"t1"}},
		{name: "an admin may change any record of the team", key: foldersKey, actor: treeAdam, op: kit.OpDelete, ids: []string{"a", "b", "r2"}},
		{name: "no ids checks the collection and the role alone", key: foldersKey, actor: treeMia, op: kit.OpUpdate},

		{name: "a teammate's record is a 403", key: foldersKey, actor: treeMia, op: kit.OpUpdate, ids: []string{"b"},
			status: 403, is: kit.ErrForbidden, msg: "a member may update only the records they own"},
		{name: "a teammate's record among one's own is a 403", key: foldersKey, actor: treeMia, op: kit.OpDelete, ids: []string{"a", "b"},
			status: 403, is: kit.ErrForbidden, msg: "a member may delete only the records they own"},
		{name: "a create of a teammate's record is a 403", key: tasksKey, actor: treeMia, op: kit.OpCreate, ids: []string{"t3"},
			status: 403, is: kit.ErrForbidden, msg: "only the record's owner, or a team admin or owner, may account for its creation"},
		{name: "another team's record is a 404", key: foldersKey, actor: treeAdam, op: kit.OpUpdate, ids: []string{"g1"},
			status: 404, is: kit.ErrNotFound, msg: "record not found"},
		{name: "a missing record is the same 404", key: foldersKey, actor: treeAdam, op: kit.OpDelete, ids: []string{"missing"},
			status: 404, is: kit.ErrNotFound, msg: "record not found"},
		{name: "the first id that fails decides: a missing one before a teammate's", key: foldersKey, actor: treeMia, op: kit.OpDelete, ids: []string{"a", "missing", "b"},
			status: 404, is: kit.ErrNotFound, msg: "record not found"},
		{name: "the first id that fails decides: a teammate's before another team's", key: foldersKey, actor: treeMia, op: kit.OpDelete, ids: []string{"b", "g1"},
			status: 403, is: kit.ErrForbidden, msg: "a member may delete only the records they own"},

		{name: "a member may move their own node", key: foldersKey, actor: treeMia, op: kit.OpMove, ids: []string{"a"}},
		{name: "a member moving a teammate's node is a 403", key: foldersKey, actor: treeMia, op: kit.OpMove, ids: []string{"b"},
			status: 403, is: kit.ErrForbidden, msg: "a member may move only the records they own"},
		{name: "a move of a list that is no tree is the move's 404", key: tasksKey, actor: treeAdam, op: kit.OpMove, ids: []string{"t1"},
			status: 404, msg: "not a tree collection"},
		{name: "moveRole admin refuses a member even their own node", roles: true, key: foldersKey, actor: treeMia, op: kit.OpMove, ids: []string{"a"},
			status: 403, is: kit.ErrForbidden, msg: "needs the admin role"},
		{name: "moveRole admin lets an admin move any node of the team", roles: true, key: foldersKey, actor: treeAdam, op: kit.OpMove, ids: []string{"b", "a1x"}},
		{name: "reorderRole member lets a member reorder a teammate's task", roles: true, key: tasksKey, actor: treeMia, op: kit.OpReorder, ids: []string{"t3"}},
		{name: "a least role still answers 404 for another team's record", roles: true, key: tasksKey, actor: treeMia, op: kit.OpReorder, ids: []string{"gt1"},
			status: 404, is: kit.ErrNotFound, msg: "record not found"},
		{name: "without a reorderRole a member reordering a teammate's task is a 403", key: tasksKey, actor: treeMia, op: kit.OpReorder, ids: []string{"t1", "t3"},
			status: 403, is: kit.ErrForbidden, msg: "a member may reorder only when every record that changes place is theirs"},
	}
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel() // each case has its own kit
				var tk *treeKit
				if tc.roles {
					tk = newTreeKit(t, e, withRoles)
				} else {
					tk = newTreeKit(t, e)
				}
				tk.seedTree(t)
				ids := make([]string, len(tc.ids))
				for i, title := range tc.ids {
					if title == "missing" {
						ids[i] = missingID
					} else {
						ids[i] = tk.id(t, title)
					}
				}
				before := kittest.TableRows(t, tk.db, foldersTable, tasksTable)
				err := tk.k.Records(tc.key).CanChange(t.Context(), tc.actor, tc.op, ids...)
				if got := treeStatus(err); got != tc.status {
					t.Fatalf("status: got %d (%v), want %d", got, err, tc.status)
				}
				if tc.status == 0 {
					return
				}
				if !strings.Contains(err.Error(), tc.msg) {
					t.Errorf("message: got %q, want it to contain %q", err, tc.msg)
				}
				if tc.is != nil && !errors.Is(err, tc.is) {
					t.Errorf("got %v, want it to match %v", err, tc.is)
				}
				if tx, after := tk.counts(); tx != 0 || after != 0 {
					t.Errorf("hooks: got %d in tx and %d after commit, want none", tx, after)
				}
				if n := kittest.RowsChanged(before, kittest.TableRows(t, tk.db, foldersTable, tasksTable)); n != 0 {
					t.Errorf("rows changed: got %d, want 0", n)
				}
			})
		}
	})
}

// TestCanChangeRefusesBadQuestions: an unknown collection, an unknown
// operation, too many ids and an actor without user or team are errors,
// not answers.
func TestCanChangeRefusesBadQuestions(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		tk := newTreeKit(t, e)
		tk.seedTree(t)
		ctx, a := t.Context(), tk.id(t, "a")
		if err := tk.k.Records("docsNothing").CanChange(ctx, treeMia, kit.OpUpdate, a); !errors.Is(err, kit.ErrUnknownCollection) {
			t.Errorf("unknown collection: got %v, want ErrUnknownCollection", err)
		}
		if err := tk.k.Records(foldersKey).CanChange(ctx, treeMia, "rename", a); err == nil || treeStatus(err) != 500 {
			t.Errorf("unknown operation: got %v (%d), want a plain error (500)", err, treeStatus(err))
		}
		many := make([]string, 101)
		for i := range many {
			many[i] = a
		}
		var qe *kit.QueryError
		if err := tk.k.Records(foldersKey).CanChange(ctx, treeMia, kit.OpDelete, many...); !errors.As(err, &qe) || qe.Param != "ids" {
			t.Errorf("101 ids: got %v, want a *QueryError naming ids", err)
		}
		if err := tk.k.Records(foldersKey).CanChange(ctx, kit.Actor{TeamID: "acme"}, kit.OpUpdate, a); treeStatus(err) != 403 {
			t.Errorf("no user: got %v, want 403", err)
		}
	})
}
