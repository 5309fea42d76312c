package kit_test

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/kittest"
	"github.com/collectionkit/kit/teamauth"
)

// The tree fixtures: docsFolders is a tree, docsTasks a sortable list.
const (
	foldersKey   = "docsFolders"
	foldersTable = "docs_folders"
	tasksKey     = "docsTasks"
	tasksTable   = "docs_tasks"
)

// Actors of the tree fixtures (teams and users are plain strings: the
// record API trusts the Actor).
var (
	treeMia  = kit.Actor{UserID: "mia", TeamID: "acme", Role: teamauth.RoleMember}
	treeMax  = kit.Actor{UserID: "max", TeamID: "acme", Role: teamauth.RoleMember}
	treeAdam = kit.Actor{UserID: "adam", TeamID: "acme", Role: teamauth.RoleAdmin}
	treeGina = kit.Actor{UserID: "gina", TeamID: "globex", Role: teamauth.RoleOwner}
)

func treeDefinitions() []collections.Definition {
	title := []collections.Field{{Name: "title", Type: collections.TypeString, Meta: collections.FieldMeta{Required: true}}}
	return []collections.Definition{
		{Name: "folders", Layer: "docs", Fields: title, Config: &collections.Config{Hierarchy: &collections.Hierarchy{Enabled: true}}},
		{Name: "tasks", Layer: "docs", Fields: title, Config: &collections.Config{Sortable: &collections.Sortable{Enabled: true}}},
	}
}

// treeKit is a kit with the tree fixtures, records named by title, and the
// mutations both hook phases have seen.
type treeKit struct {
	k   *kit.Kit
	db  *bun.DB
	ids map[string]string // title -> id
	*hookRecorder
}

func newTreeKit(t testing.TB, e testdb.Engine, mutate ...func(*kit.Config)) *treeKit {
	t.Helper()
	cfg := kit.Config{DB: testdb.Open(t, e), Definitions: treeDefinitions()}
	for _, m := range mutate {
		m(&cfg)
	}
	k := kittest.NewKit(t, cfg)
	seedActors(t, k, treeMia, treeMax, treeAdam, treeGina)
	return &treeKit{k: k, db: k.DB(), ids: map[string]string{}, hookRecorder: recordHooks(k)}
}

// seedTree creates, in acme:
//
//	r1 (mia)
//	  a (mia)
//	    a1 (max)
//	      a1x (max)
//	    a2 (mia)
//	  b (max)
//	r2 (adam)
//	  c (adam)
//
// and in globex g1 (gina) with child g2; then tasks t1, t2 (mia), t3
// (max) in acme and gt1 in globex. Hooks seen so far are forgotten.
func (tk *treeKit) seedTree(t testing.TB) {
	t.Helper()
	for _, n := range []struct {
		actor         kit.Actor
		title, parent string
	}{
		{treeMia, "r1", ""}, {treeMia, "a", "r1"}, {treeMax, "a1", "a"}, {treeMax, "a1x", "a1"}, {treeMia, "a2", "a"},
		{treeMax, "b", "r1"}, {treeAdam, "r2", ""}, {treeAdam, "c", "r2"}, {treeGina, "g1", ""}, {treeGina, "g2", "g1"},
	} {
		tk.add(t, n.actor, n.title, n.parent)
	}
	for _, n := range []struct {
		actor kit.Actor
		title string
	}{{treeMia, "t1"}, {treeMia, "t2"}, {treeMax, "t3"}, {treeGina, "gt1"}} {
		rec, err := tk.k.Records(tasksKey).Create(t.Context(), n.actor, map[string]any{"title": n.title})
		if err != nil {
			t.Fatalf("create task %s: %v", n.title, err)
		}
		tk.ids[n.title] = rec["id"].(string)
	}
	tk.reset()
}

// add creates folder title under the folder titled parent ("" for a root).
func (tk *treeKit) add(t testing.TB, a kit.Actor, title, parent string) kit.Record {
	t.Helper()
	body := map[string]any{"title": title}
	if parent != "" {
		body["parentId"] = tk.id(t, parent)
	}
	rec, err := tk.k.Records(foldersKey).Create(t.Context(), a, body)
	if err != nil {
		t.Fatalf("create folder %s under %q: %v", title, parent, err)
	}
	tk.ids[title] = rec["id"].(string)
	return rec
}

// id returns the id of the record titled title.
func (tk *treeKit) id(t testing.TB, title string) string {
	t.Helper()
	id, ok := tk.ids[title]
	if !ok {
		t.Fatalf("no record titled %q", title)
	}
	return id
}

// title returns the title of the record id.
func (tk *treeKit) title(id string) string {
	for title, v := range tk.ids {
		if v == id {
			return title
		}
	}
	return id
}

// titles maps ids to titles.
func (tk *treeKit) titles(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = tk.title(id)
	}
	return out
}

// treeRow is one stored tree row, read straight from the table.
type treeRow struct {
	ID, Team, Owner string
	Parent          *string
	Path            string
	Depth, Order    float64
}

// treeRows reads every row of a tree table.
func treeRows(t testing.TB, db bun.IDB, table string) []treeRow {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), `SELECT "id", "team_id", "owner", "parent_id", "path", "depth", "order" FROM `+table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []treeRow
	for rows.Next() {
		var n treeRow
		var parent, path any
		if err := rows.Scan(&n.ID, &n.Team, &n.Owner, &parent, &path, &n.Depth, &n.Order); err != nil {
			t.Fatal(err)
		}
		n.Path = fmt.Sprint(path)
		if parent != nil {
			p := fmt.Sprint(parent)
			if b, ok := parent.([]byte); ok {
				p = string(b)
			}
			n.Parent = &p
		}
		if b, ok := path.([]byte); ok {
			n.Path = string(b)
		}
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// treeProblems checks that the rows of every team form a tree: every node
// reachable from a root exactly once, every parent a node of the same
// team, every path the chain of ids from the root down to the node, every
// depth the number of ancestors, and sibling orders 0..n-1. It returns what
// is wrong.
func treeProblems(rows []treeRow) []string {
	var problems []string
	byID := map[string]treeRow{}
	children := map[string][]treeRow{} // team + "/" + parent id ("" for roots)
	for _, n := range rows {
		byID[n.ID] = n
		p := ""
		if n.Parent != nil {
			p = *n.Parent
		}
		children[n.Team+"/"+p] = append(children[n.Team+"/"+p], n)
	}
	for key, sibs := range children {
		orders := make([]float64, len(sibs))
		for i, s := range sibs {
			orders[i] = s.Order
		}
		sort.Float64s(orders)
		for i, o := range orders {
			if o != float64(i) {
				problems = append(problems, fmt.Sprintf("siblings under %s: orders %v, want 0..%d", key, orders, len(sibs)-1))
				break
			}
		}
	}
	visits := map[string]int{}
	var walk func(team, id string, chain []string)
	walk = func(team, id string, chain []string) {
		for _, kid := range children[team+"/"+id] {
			visits[kid.ID]++
			if visits[kid.ID] > 1 {
				continue
			}
			kc := append(slices.Clone(chain), kid.ID)
			if want := "/" + strings.Join(kc, "/") + "/"; kid.Path != want {
				problems = append(problems, fmt.Sprintf("node %s: path %q, want %q", kid.ID, kid.Path, want))
			}
			if want := float64(len(kc) - 1); kid.Depth != want {
				problems = append(problems, fmt.Sprintf("node %s: depth %v, want %v", kid.ID, kid.Depth, want))
			}
			walk(team, kid.ID, kc)
		}
	}
	teams := map[string]bool{}
	for _, n := range rows {
		teams[n.Team] = true
	}
	for team := range teams {
		walk(team, "", nil)
	}
	for _, n := range rows {
		switch visits[n.ID] {
		case 1:
		case 0:
			problems = append(problems, fmt.Sprintf("node %s (parent %v) is not reachable from a root", n.ID, treeDeref(n.Parent)))
		default:
			problems = append(problems, fmt.Sprintf("node %s is reachable %d times", n.ID, visits[n.ID]))
		}
		if n.Parent != nil {
			if p, ok := byID[*n.Parent]; !ok || p.Team != n.Team {
				problems = append(problems, fmt.Sprintf("node %s: parent %s is not a node of team %s", n.ID, *n.Parent, n.Team))
			}
		}
	}
	sort.Strings(problems)
	return problems
}

func treeDeref(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}

// requireTree fails t when the tree table is not a tree.
func requireTree(t testing.TB, db bun.IDB, table string) {
	t.Helper()
	if problems := treeProblems(treeRows(t, db, table)); len(problems) > 0 {
		t.Fatalf("not a tree (%d problems):\n%s", len(problems), strings.Join(problems[:min(20, len(problems))], "\n"))
	}
}

// children returns the titles of the children of the folder titled parent
// ("" for the roots) of team, in order.
func (tk *treeKit) children(t testing.TB, team, parent string) []string {
	t.Helper()
	var kids []treeRow
	for _, n := range treeRows(t, tk.db, foldersTable) {
		if n.Team != team {
			continue
		}
		if parent == "" && n.Parent == nil || parent != "" && n.Parent != nil && *n.Parent == tk.id(t, parent) {
			kids = append(kids, n)
		}
	}
	sort.Slice(kids, func(i, j int) bool { return kids[i].Order < kids[j].Order })
	out := make([]string, len(kids))
	for i, n := range kids {
		out[i] = tk.title(n.ID)
	}
	return out
}

// taskOrder returns the titles of team's tasks in order.
func (tk *treeKit) taskOrder(t testing.TB, team string) []string {
	t.Helper()
	rows, err := tk.db.QueryContext(t.Context(), `SELECT "id", "order" FROM `+tasksTable+` WHERE "team_id" = ? ORDER BY "order"`, team)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	want := 0.0
	for rows.Next() {
		var id string
		var order float64
		if err := rows.Scan(&id, &order); err != nil {
			t.Fatal(err)
		}
		if order != want {
			t.Errorf("task orders: got %v at position %v, want contiguous orders", order, want)
		}
		want++
		out = append(out, tk.title(id))
	}
	return out
}

// treeStatus is the HTTP status an error answers with.
func treeStatus(err error) int {
	if err == nil {
		return 0
	}
	return kit.StatusOf(err)
}

// isFieldError reports whether err is a 400 *ValidationError whose field
// message contains want.
func isFieldError(err error, field, want string) bool {
	var ve *kit.ValidationError
	return errors.As(err, &ve) && strings.Contains(ve.Fields[field], want)
}

func treeRef(s string) *string { return &s }
