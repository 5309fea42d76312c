package kit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/apierror"
	"github.com/collectionkit/kit/internal/store"
	"github.com/collectionkit/kit/teamauth"
)

// Trees and sortable collections.
//
// A collection with hierarchy.enabled is a tree: each record carries its
// parent's id (null for a root), its materialized path (the ids from the
// root down to itself, each followed by "/"), its depth (0 for a root) and
// its order among its siblings (0..n-1, no gaps). A collection with
// sortable.enabled has only the order, and all records of a team are
// siblings. kit keeps these attributes: a create may name the parent and
// goes last among its siblings; an update may not touch them (400); Move
// and Reorder change them in one transaction each, and Delete closes the
// gap it leaves. Writers of one team's tree serialize (a PostgreSQL
// advisory lock per table and team; SQLite's write lock), so concurrent
// moves never make a cycle or lose a record.

// OrderEnd, as the order of a move, puts the record after its last
// sibling. Any order at or past the number of siblings does the same.
const OrderEnd = math.MaxInt32

// MaxReorderIDs is the most records one reorder may name.
const MaxReorderIDs = 10_000

// MaxTreeNodes is the most records GET .../tree answers; a larger tree is
// read one subtree at a time (?root=) or listed with a parent filter.
const MaxTreeNodes = 10_000

// ErrHasChildren: a tree record that has children cannot be deleted (409);
// move or delete the children first.
var ErrHasChildren error = apierror.New(409, "the record has children; move or delete them first")

var (
	errNotTree    = &Error{Status: 404, Message: "not a tree collection: move and tree need hierarchy.enabled in the collection's config"}
	errNotOrdered = &Error{Status: 404, Message: "this collection has no manual order: reorder needs hierarchy.enabled or sortable.enabled in the collection's config"}
)

// OrderUpdate gives one record a new position among its siblings (the
// spec's reorder form {"updates": [{"id", "order"}]}).
type OrderUpdate struct {
	ID    string `json:"id"`
	Order int    `json:"order"`
}

// managedName is the JSON name of the attribute playing role m ("" when
// the collection has none).
func managedName(c *collections.Collection, m collections.Managed) string {
	if a, ok := c.ManagedAttribute(m); ok {
		return a.Name
	}
	return ""
}

// parentOf is rec's parent id, nil for a root (and for every record of a
// sortable collection).
func parentOf(c *collections.Collection, rec Record) *string {
	if !c.IsTree() {
		return nil
	}
	if p, ok := rec[managedName(c, collections.ManagedParent)].(string); ok {
		return &p
	}
	return nil
}

func numberOf(rec Record, name string) float64 {
	f, _ := rec[name].(float64)
	return f
}

func sameParent(a, b *string) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

func fieldError(field, msg string) error {
	return &ValidationError{Fields: map[string]string{field: msg}}
}

// lockOrder takes the team's order lock when c keeps an order.
func (k *Kit) lockOrder(ctx context.Context, tx bun.Tx, c *collections.Collection, teamID string) error {
	if !c.IsOrdered() {
		return nil
	}
	return k.store.LockOrder(ctx, tx, c, teamID)
}

// placeNew computes, inside the create transaction, where a new record of
// a tree or sortable collection goes: its parent must be a record of the
// same team (else a 400 naming the field, never a silent root), its path
// and depth follow the parent, and it goes after its last sibling.
func (k *Kit) placeNew(ctx context.Context, tx bun.Tx, c *collections.Collection, teamID string, rec Record) error {
	if !c.IsOrdered() {
		return nil
	}
	if err := k.store.LockOrder(ctx, tx, c, teamID); err != nil {
		return err
	}
	var parent *string
	if c.IsTree() {
		pName, pathName, depthName := managedName(c, collections.ManagedParent), managedName(c, collections.ManagedPath), managedName(c, collections.ManagedDepth)
		id := rec["id"].(string)
		path, depth := "/"+id+"/", 0.0
		if p, ok := rec[pName].(string); ok {
			prec, err := k.store.Get(ctx, store.InTx(tx), c, teamID, p)
			if errors.Is(err, ErrNotFound) {
				return fieldError(pName, fmt.Sprintf("refers to no %s record of this team", c.Key()))
			}
			if err != nil {
				return err
			}
			pp, ok := prec[pathName].(string)
			if !ok {
				return fmt.Errorf("kit: %s record %s has no %s", c.Key(), p, pathName)
			}
			path, depth, parent = pp+id+"/", numberOf(prec, depthName)+1, &p
		} else {
			rec[pName] = nil
		}
		rec[pathName], rec[depthName] = path, depth
	}
	next, err := k.store.NextOrder(ctx, tx, c, teamID, parent)
	if err != nil {
		return err
	}
	rec[managedName(c, collections.ManagedOrder)] = float64(next)
	return nil
}

// checkNoChildren refuses to delete a tree record that has children.
func (k *Kit) checkNoChildren(ctx context.Context, tx bun.Tx, c *collections.Collection, teamID, id string) error {
	if !c.IsTree() {
		return nil
	}
	has, err := k.store.HasChildren(ctx, tx, c, teamID, id)
	if err != nil {
		return err
	}
	if has {
		return ErrHasChildren
	}
	return nil
}

// closeGap renumbers the siblings a deleted record leaves.
func (k *Kit) closeGap(ctx context.Context, tx bun.Tx, c *collections.Collection, teamID string, deleted Record) error {
	if !c.IsOrdered() {
		return nil
	}
	return k.store.Renumber(ctx, tx, c, teamID, parentOf(c, deleted), "")
}

// checkArrangeRole applies hierarchy.moveRole / sortable.reorderRole: when
// set, an actor below that role may not move or reorder at all (403).
func checkArrangeRole(c *collections.Collection, a Actor) error {
	min := c.ArrangeRole()
	if min == "" {
		return nil
	}
	role := a.Role
	if role == "" {
		role = teamauth.RoleMember
	}
	if !role.AtLeast(teamauth.Role(min)) {
		return &Error{Status: 403, Message: fmt.Sprintf("moving and reordering %s records needs the %s role", c.Key(), min), Err: ErrForbidden}
	}
	return nil
}

// Move puts record id under parentID (nil: a root) at position order among
// its new siblings (0 is first; OrderEnd, or any order at or past the
// number of siblings, is last; a negative order is a *ValidationError). The
// record's whole subtree moves with it: paths and depths of all its
// descendants are rewritten with one UPDATE, and the siblings at the old
// and the new place are renumbered so orders stay 0..n-1, all in one
// transaction that fires the move hook (ItemID; Data with the parent and
// order; BeforeData the record before; Result the record after).
//
// Who may move: by default the update rule (a member moves their own
// records, whatever the records around them; admins and owners any);
// hierarchy.moveRole sets a least role instead (403 below it). A record of
// another team, or none, is ErrNotFound; another member's record that a
// member may not move is a 403 error matching ErrForbidden. A parent
// that is not a record of the team, the record itself or one of its
// descendants is a *ValidationError (400). A move to where the record
// already is writes nothing and fires no hook.
func (r *Records) Move(ctx context.Context, a Actor, id string, parentID *string, order int) (Record, error) {
	return r.MoveWith(ctx, a, id, parentID, order, WriteOptions{})
}

// MoveWith is Move under the conditions of opts: with IfMatch, a node
// whose current ETag is not listed is a *PreconditionError
// (ErrPrecondition) and nothing moves, even a move to where it already is.
// Only the moved node's tag is checked; its subtree and siblings move with
// it as in Move (their tags change too).
func (r *Records) MoveWith(ctx context.Context, a Actor, id string, parentID *string, order int, opts WriteOptions) (Record, error) {
	started := time.Now()
	c, err := r.openForWrite(ctx, a)
	if err != nil {
		return nil, err
	}
	if !c.IsTree() {
		return nil, errNotTree
	}
	pName, pathName, depthName, orderName := managedName(c, collections.ManagedParent), managedName(c, collections.ManagedPath),
		managedName(c, collections.ManagedDepth), managedName(c, collections.ManagedOrder)
	if order < 0 {
		return nil, fieldError(orderName, "must be 0 or more (0 is first; a number past the last sibling appends)")
	}
	if err := checkArrangeRole(c, a); err != nil {
		return nil, err
	}
	mv := &moveCall{r: r, a: a, c: c, id: id, parentID: parentID, order: order, opts: opts, started: started,
		pName: pName, pathName: pathName, depthName: depthName, orderName: orderName}
	if err := r.k.runWrite(ctx, a, a.write(c, false), mv.inTx); err != nil {
		return nil, err
	}
	if mv.m != nil {
		r.k.afterCommit(ctx, a, mv.m)
	}
	return mv.result, nil
}

// moveCall is one MoveWith between its steps.
type moveCall struct {
	r        *Records
	a        Actor
	c        *collections.Collection
	id       string
	parentID *string
	order    int
	opts     WriteOptions
	started  time.Time
	// the names of the managed fields
	pName, pathName, depthName, orderName string

	result Record
	m      *Mutation
}

// inTx runs the move in write transaction tx.
func (mv *moveCall) inTx(ctx context.Context, tx bun.Tx) error {
	k, c, a, id := mv.r.k, mv.c, mv.a, mv.id
	if err := k.store.LockOrder(ctx, tx, c, a.TeamID); err != nil {
		return err
	}
	node, err := k.store.GetForUpdate(ctx, tx, c, a.TeamID, id)
	if err != nil {
		return err
	}
	if c.ArrangeRole() == "" {
		if err := a.mayChange(OpMove, node); err != nil {
			return err
		}
	}
	if err := mv.opts.check(node); err != nil {
		return err
	}
	oldParent := parentOf(c, node)
	oldPath, ok := node[mv.pathName].(string)
	if !ok {
		return fmt.Errorf("kit: %s record %s has no %s", c.Key(), id, mv.pathName)
	}
	newPath, newDepth, err := mv.destination(ctx, tx, oldPath)
	if err != nil {
		return err
	}
	n, err := k.store.CountSiblings(ctx, tx, c, a.TeamID, mv.parentID, id)
	if err != nil {
		return err
	}
	target := min(mv.order, n)
	same := sameParent(oldParent, mv.parentID)
	if same && float64(target) == numberOf(node, mv.orderName) {
		mv.result = node
		return nil
	}
	set, err := mv.place(ctx, tx, target)
	if err != nil {
		return err
	}
	if !same {
		if err := k.store.Renumber(ctx, tx, c, a.TeamID, oldParent, ""); err != nil {
			return err
		}
		if _, err := k.store.MoveSubtree(ctx, tx, c, a.TeamID, oldPath, newPath, int(newDepth-numberOf(node, mv.depthName))); err != nil {
			return err
		}
	}
	if mv.result, err = k.store.Get(ctx, store.InTx(tx), c, a.TeamID, id); err != nil {
		return err
	}
	mv.m = k.newMutation(ctx, OpMove, c.Key(), a, mv.started)
	mv.m.ItemID = id
	mv.m.Data = map[string]any{mv.pName: set[mv.pName], mv.orderName: mv.result[mv.orderName]}
	mv.m.BeforeData = node
	mv.m.Result = copyRecord(mv.result)
	return k.runTxHooks(ctx, tx, mv.m)
}

// destination returns the node's path and depth under its new parent
// (the root without one); a parent that is not a record of the team, the
// node itself or one of its descendants (oldPath is the node's path) is
// a field error.
func (mv *moveCall) destination(ctx context.Context, tx bun.Tx, oldPath string) (string, float64, error) {
	if mv.parentID == nil {
		return "/" + mv.id + "/", 0, nil
	}
	if *mv.parentID == mv.id {
		return "", 0, fieldError(mv.pName, "cannot move a record under itself")
	}
	parent, err := mv.r.k.store.Get(ctx, store.InTx(tx), mv.c, mv.a.TeamID, *mv.parentID)
	if errors.Is(err, ErrNotFound) {
		return "", 0, fieldError(mv.pName, fmt.Sprintf("refers to no %s record of this team", mv.c.Key()))
	}
	if err != nil {
		return "", 0, err
	}
	pp, _ := parent[mv.pathName].(string)
	if strings.HasPrefix(pp, oldPath) {
		return "", 0, fieldError(mv.pName, "cannot move a record under one of its own descendants")
	}
	return pp + mv.id + "/", numberOf(parent, mv.depthName) + 1, nil
}

// place puts the node at target among its new siblings and returns what
// it set on the node. The new siblings without the node are 0..n-1; the
// node, at target - 0.5, sorts just before the one at target; renumbering
// puts it there and shifts the rest.
func (mv *moveCall) place(ctx context.Context, tx bun.Tx, target int) (Record, error) {
	k, c, a := mv.r.k, mv.c, mv.a
	if err := k.store.Renumber(ctx, tx, c, a.TeamID, mv.parentID, mv.id); err != nil {
		return nil, err
	}
	set := Record{mv.pName: nil, mv.orderName: float64(target) - 0.5}
	if mv.parentID != nil {
		set[mv.pName] = *mv.parentID
	}
	if c.UseMetadata() {
		set["updatedAt"] = mv.started.UTC().Truncate(time.Microsecond)
		set["updatedBy"] = a.UserID
	}
	if err := k.store.Update(ctx, tx, c, a.TeamID, mv.id, set); err != nil {
		return nil, err
	}
	return set, k.store.Renumber(ctx, tx, c, a.TeamID, mv.parentID, "")
}

// Reorder sets the order of one set of siblings: ids are all the children
// of one parent (a tree), or all the records of the team (a sortable
// collection), in their new order. Any id that is not one of those
// siblings in the actor's team, a sibling left out, or an id named twice
// fails the whole reorder with a *ValidationError (400) and changes
// nothing. One transaction; the reorder hook gets ItemIDs in the new
// order, ItemID the parent (trees; empty for roots and sortable
// collections) and BeforeData {"itemIds": the old order}.
//
// Who may reorder: by default a member only when every record whose
// position changes is theirs (else ErrForbidden, 403: the records are the
// team's, visible to the member, so there is nothing to hide); admins and
// owners always. hierarchy.moveRole or sortable.reorderRole set a least
// role instead. A reorder that changes nothing writes nothing and fires no
// hook.
func (r *Records) Reorder(ctx context.Context, a Actor, ids []string) error {
	_, err := r.reorder(ctx, a, ids, nil)
	return err
}

// ReorderUpdates moves some siblings to new positions: each update puts
// its record at that position (0 is first; past the end is last, in the
// updates' order), and the siblings not named keep their relative order
// around them. All the records named must be siblings of one parent in the
// actor's team, named once, with distinct non-negative orders; otherwise
// nothing changes (400). The rules of Reorder apply otherwise.
func (r *Records) ReorderUpdates(ctx context.Context, a Actor, updates []OrderUpdate) error {
	if updates == nil {
		updates = []OrderUpdate{}
	}
	_, err := r.reorder(ctx, a, nil, updates)
	return err
}

// reorder runs Reorder (updates nil) or ReorderUpdates and returns the
// siblings in their new order.
func (r *Records) reorder(ctx context.Context, a Actor, ids []string, updates []OrderUpdate) ([]Record, error) {
	started := time.Now()
	c, err := r.openForWrite(ctx, a)
	if err != nil {
		return nil, err
	}
	if !c.IsOrdered() {
		return nil, errNotOrdered
	}
	field, listed, err := reorderInput(ids, updates)
	if err != nil {
		return nil, err
	}
	if err := checkArrangeRole(c, a); err != nil {
		return nil, err
	}
	orderName := managedName(c, collections.ManagedOrder)
	var result []Record
	var m *Mutation
	err = r.k.runWrite(ctx, a, a.write(c, false), func(ctx context.Context, tx bun.Tx) error {
		if err := r.k.store.LockOrder(ctx, tx, c, a.TeamID); err != nil {
			return err
		}
		parent, byID, oldIDs, err := r.siblingsOf(ctx, tx, c, a, field, listed)
		if err != nil {
			return err
		}
		var newIDs []string
		if updates == nil {
			if len(ids) != len(oldIDs) {
				return fieldError(field, fmt.Sprintf("must name every sibling in its new order: %d of %d are missing", len(oldIDs)-len(ids), len(oldIDs)))
			}
			newIDs = ids
		} else {
			newIDs = applyUpdates(oldIDs, updates)
		}
		changed := map[string]int{}
		for i, id := range newIDs {
			if numberOf(byID[id], orderName) != float64(i) || byID[id][orderName] == nil {
				changed[id] = i
			}
		}
		result = make([]Record, len(newIDs))
		for i, id := range newIDs {
			result[i] = copyRecord(byID[id])
			result[i][orderName] = float64(i)
		}
		if len(changed) == 0 {
			return nil
		}
		if c.ArrangeRole() == "" && !a.Role.AtLeast(teamauth.RoleAdmin) {
			for id := range changed {
				if byID[id]["owner"] != a.UserID {
					return errMayNot(OpReorder)
				}
			}
		}
		if err := r.k.store.SetOrders(ctx, tx, c, a.TeamID, changed); err != nil {
			return err
		}
		m = r.k.newMutation(ctx, OpReorder, c.Key(), a, started)
		m.ItemIDs = append([]string(nil), newIDs...)
		m.BeforeData = map[string]any{"itemIds": oldIDs}
		if c.IsTree() {
			pName := managedName(c, collections.ManagedParent)
			m.Data = map[string]any{pName: nil}
			if parent != nil {
				m.ItemID, m.Data[pName] = *parent, *parent
			}
		}
		return r.k.runTxHooks(ctx, tx, m)
	})
	if err != nil {
		return nil, err
	}
	if m != nil {
		r.k.afterCommit(ctx, a, m)
	}
	return result, nil
}

// siblingsOf reads the siblings of listed[0] (by id, and their ids in
// their order) and its parent, in tx; a listed id that is not one of
// them is a field error of field.
func (r *Records) siblingsOf(ctx context.Context, tx bun.Tx, c *collections.Collection, a Actor, field string, listed []string) (*string, map[string]Record, []string, error) {
	first, err := r.k.store.Get(ctx, store.InTx(tx), c, a.TeamID, listed[0])
	if errors.Is(err, ErrNotFound) {
		return nil, nil, nil, fieldError(field, fmt.Sprintf("%q is not a %s record of this team", listed[0], c.Key()))
	}
	if err != nil {
		return nil, nil, nil, err
	}
	parent := parentOf(c, first)
	sibs, err := r.k.store.Siblings(ctx, tx, c, a.TeamID, parent)
	if err != nil {
		return nil, nil, nil, err
	}
	byID := make(map[string]Record, len(sibs))
	oldIDs := make([]string, len(sibs))
	for i, s := range sibs {
		oldIDs[i] = s["id"].(string)
		byID[oldIDs[i]] = s
	}
	for _, id := range listed {
		if byID[id] == nil {
			return nil, nil, nil, fieldError(field, fmt.Sprintf("%q is not a sibling of %q in this team: every record must have the same parent", id, listed[0]))
		}
	}
	return parent, byID, oldIDs, nil
}

// reorderInput checks the shape of a reorder: the field it came in ("ids"
// or "updates") and the ids it names, each once.
func reorderInput(ids []string, updates []OrderUpdate) (string, []string, error) {
	field, listed := "ids", ids
	if updates != nil {
		field, listed = "updates", make([]string, len(updates))
		for i, u := range updates {
			listed[i] = u.ID
		}
	}
	if len(listed) == 0 {
		return field, nil, fieldError(field, "must name at least one record")
	}
	if len(listed) > MaxReorderIDs {
		return field, nil, fieldError(field, fmt.Sprintf("must name at most %d records", MaxReorderIDs))
	}
	seen := make(map[string]bool, len(listed))
	orders := map[int]string{}
	for i, id := range listed {
		if id == "" || len(id) > 128 || strings.IndexByte(id, 0) >= 0 {
			return field, nil, fieldError(field, fmt.Sprintf("entry %d is not a record id", i+1))
		}
		if seen[id] {
			return field, nil, fieldError(field, fmt.Sprintf("names %q twice", id))
		}
		seen[id] = true
		if updates != nil {
			o := updates[i].Order
			if o < 0 {
				return field, nil, fieldError(field, fmt.Sprintf("the order of %q must be 0 or more", id))
			}
			if other, dup := orders[o]; dup {
				return field, nil, fieldError(field, fmt.Sprintf("%q and %q both ask for order %d", other, id, o))
			}
			orders[o] = id
		}
	}
	return field, listed, nil
}

// applyUpdates returns the new order of the siblings oldIDs: each updated
// record at its position, the others in their old relative order filling
// the remaining places; positions past the end go last, in order.
func applyUpdates(oldIDs []string, updates []OrderUpdate) []string {
	moved := append([]OrderUpdate(nil), updates...)
	sort.Slice(moved, func(i, j int) bool { return moved[i].Order < moved[j].Order })
	named := make(map[string]bool, len(moved))
	for _, u := range moved {
		named[u.ID] = true
	}
	rest := make([]string, 0, len(oldIDs))
	for _, id := range oldIDs {
		if !named[id] {
			rest = append(rest, id)
		}
	}
	out := make([]string, 0, len(oldIDs))
	for i := 0; i < len(oldIDs); i++ {
		if len(moved) > 0 && (moved[0].Order <= i || len(rest) == 0) {
			out = append(out, moved[0].ID)
			moved = moved[1:]
			continue
		}
		out = append(out, rest[0])
		rest = rest[1:]
	}
	return out
}

// Tree returns the actor's team's tree as a flat list in depth-first
// order, siblings by order, so a client renders it without sorting (each
// record carries its depth): the whole tree when rootID is empty, else
// the subtree of record rootID, itself first (ErrNotFound when it is not a
// record of the team). It reads one indexed range (the path prefix) and
// orders in Go.
func (r *Records) Tree(ctx context.Context, a Actor, rootID string) ([]Record, error) {
	return r.tree(ctx, a, rootID, 0)
}

var errTreeTooLarge = &Error{Status: 400, Message: fmt.Sprintf("the tree has more than %d records: read one subtree with ?root=<id>, or list children with filter={\"parentId\":...}", MaxTreeNodes),
	Data: map[string]any{"limit": MaxTreeNodes}}

func (r *Records) tree(ctx context.Context, a Actor, rootID string, limit int) ([]Record, error) {
	c, err := r.open(a)
	if err != nil {
		return nil, err
	}
	if !c.IsTree() {
		return nil, errNotTree
	}
	fetch := 0
	if limit > 0 {
		fetch = limit + 1
	}
	recs, err := r.k.store.Subtree(ctx, r.k.db, c, a.TeamID, rootID, fetch)
	if err != nil {
		return nil, err
	}
	if limit > 0 && len(recs) > limit {
		return nil, errTreeTooLarge
	}
	if rootID != "" && len(recs) == 0 {
		return nil, ErrNotFound
	}
	return depthFirst(c, recs, rootID), nil
}

// depthFirst orders a tree's records depth first, siblings by order then
// id, from rootID (or from every root). Records it cannot reach, which
// consistent data never has, come last in path order rather than never.
func depthFirst(c *collections.Collection, recs []Record, rootID string) []Record {
	orderName, pathName := managedName(c, collections.ManagedOrder), managedName(c, collections.ManagedPath)
	children := map[string][]Record{}
	var roots []Record
	for _, rec := range recs {
		id := rec["id"].(string)
		switch p := parentOf(c, rec); {
		case rootID != "" && id == rootID, rootID == "" && p == nil:
			roots = append(roots, rec)
		case p != nil:
			children[*p] = append(children[*p], rec)
		}
	}
	bySiblingOrder := func(s []Record) {
		sort.SliceStable(s, func(i, j int) bool {
			oi, oj := numberOf(s[i], orderName), numberOf(s[j], orderName)
			if oi != oj {
				return oi < oj
			}
			return s[i]["id"].(string) < s[j]["id"].(string)
		})
	}
	bySiblingOrder(roots)
	out := make([]Record, 0, len(recs))
	seen := make(map[string]bool, len(recs))
	stack := make([]Record, 0, 64)
	for i := len(roots) - 1; i >= 0; i-- {
		stack = append(stack, roots[i])
	}
	for len(stack) > 0 {
		rec := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		id := rec["id"].(string)
		if seen[id] {
			continue
		}
		seen[id] = true
		out = append(out, rec)
		kids := children[id]
		bySiblingOrder(kids)
		for i := len(kids) - 1; i >= 0; i-- {
			stack = append(stack, kids[i])
		}
	}
	if len(out) < len(recs) {
		var lost []Record
		for _, rec := range recs {
			if !seen[rec["id"].(string)] {
				lost = append(lost, rec)
			}
		}
		sort.SliceStable(lost, func(i, j int) bool {
			pi, _ := lost[i][pathName].(string)
			pj, _ := lost[j][pathName].(string)
			return pi < pj
		})
		out = append(out, lost...)
	}
	return out
}
