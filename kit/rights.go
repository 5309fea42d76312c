package kit

import (
	"context"
	"fmt"
)

// CanChange reports, as an error, whether the actor could now make the
// change op to the records ids of its team, by the rules the record API
// applies to that change, without writing anything. Add-ons use it to
// accept an account of a change (the events add-on's manual events) only
// from a caller who could have made the change.
//
// It returns nil when the actor may; otherwise the error the change itself
// would answer with, for the first id (in the order given) that fails:
//
//   - ErrNotFound (404) for an id that is no record of the actor's team: a
//     record of another team answers exactly like a missing one;
//   - a 403 error matching ErrForbidden for a record of the team the actor
//     may not change: by default a member changes only the records they
//     own, team admins and owners any; for OpMove and OpReorder,
//     hierarchy.moveRole or sortable.reorderRole, when set, is a least
//     role instead (any record of the team at or above it, none below);
//   - ErrUnknownCollection, and for OpMove on a collection that is no tree
//     or OpReorder on one without a manual order the 404 error Move and
//     Reorder answer with.
//
// op is OpCreate (may the actor stand as the creator of an existing
// record: it is theirs, or they are a team admin or owner), OpUpdate,
// OpDelete, OpMove or OpReorder (may the actor change the place of each
// record); another op is an error. Only rights are checked, not what the
// change would write (validation, references, a tree node's children). No
// ids checks the collection and the role alone. More than Limits.MaxInValues ids is a *QueryError naming
// "ids". The answer holds when it is given: a later change to a record or
// a membership can turn it.
func (r *Records) CanChange(ctx context.Context, a Actor, op Operation, ids ...string) error {
	c, err := r.open(a)
	if err != nil {
		return err
	}
	byRole := false // a least role decides, not the owner
	switch op {
	case OpCreate, OpUpdate, OpDelete:
	case OpMove, OpReorder:
		if op == OpMove && !c.IsTree() {
			return errNotTree
		}
		if op == OpReorder && !c.IsOrdered() {
			return errNotOrdered
		}
		if err := checkArrangeRole(c, a); err != nil {
			return err
		}
		byRole = c.ArrangeRole() != ""
	default:
		return fmt.Errorf("kit: CanChange: unknown operation %q", op)
	}
	if len(ids) == 0 {
		return nil
	}
	if max := r.k.limits.MaxInValues; len(ids) > max {
		return &QueryError{Param: "ids", Message: fmt.Sprintf("must name at most %d ids", max)}
	}
	recs, err := r.k.store.GetMany(ctx, a.read(), c, a.TeamID, ids)
	if err != nil {
		return err
	}
	byID := make(map[string]Record, len(recs))
	for _, rec := range recs {
		id, _ := rec["id"].(string)
		byID[id] = rec
	}
	for _, id := range ids {
		rec, ok := byID[id]
		if !ok {
			return ErrNotFound
		}
		if byRole {
			continue
		}
		if err := a.mayChange(op, rec); err != nil {
			return err
		}
	}
	return nil
}
