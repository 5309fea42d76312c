package kit

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/store"
)

// DeleteMany removes the records ids of the actor's team in one
// transaction, all or nothing: when one of them cannot be deleted, none
// is, and the answer is the one [Records.Delete] gives for that record
// (ErrNotFound for a record that is missing or of another team; a 403
// matching ErrForbidden for a record of the team that is not the actor's
// to delete; a *ConstraintError of Kind ConstraintReferenced, 409,
// for one that records outside the deletion still reference; ErrHasChildren,
// 409, for a tree node with a child that is not deleted with it). Records
// are checked in the order of ids, so the first bad one decides the answer.
//
// Repeated ids count once; no ids deletes nothing and fires no hook. At
// most Limits.MaxInValues distinct ids (100 by default); more is a
// *QueryError naming "ids" and nothing is deleted.
//
// One mutation hook fires for the whole deletion: Operation delete,
// ItemIDs the ids deleted (distinct, in the order given), Result
// {"deleted": n}. With one id the payload is the one Delete sends (ItemID
// set, BeforeData the record's last state); with several, ItemID is empty
// and BeforeData maps each id to its record's last state. In a tree,
// children are deleted before their parents, so a node may go together
// with its whole subtree; in trees and sortable collections the remaining
// siblings are renumbered 0..n-1.
func (r *Records) DeleteMany(ctx context.Context, a Actor, ids []string) error {
	started := time.Now()
	c, err := r.openForWrite(ctx, a)
	if err != nil {
		return err
	}
	ids = distinctIDs(ids)
	if len(ids) == 0 {
		return nil
	}
	if max := r.k.limits.MaxInValues; len(ids) > max {
		return &QueryError{Param: "ids", Message: fmt.Sprintf("must name at most %d ids", max)}
	}
	m := r.k.newMutation(ctx, OpDelete, c.Key(), a, started)
	single := len(ids) == 1 && r.k.singleWrite(c)
	err = r.k.runWrite(ctx, a, a.write(c, single), func(ctx context.Context, tx bun.Tx) error {
		if err := r.k.lockOrder(ctx, tx, c, a.TeamID); err != nil {
			return err
		}
		befores, err := r.k.deletableRecords(ctx, tx, c, a, ids)
		if err != nil {
			return err
		}
		for _, i := range deletionOrder(c, befores) {
			id := ids[i]
			if err := r.k.checkNoChildren(ctx, tx, c, a.TeamID, id); err != nil {
				return err
			}
			if err := r.k.store.Delete(ctx, tx, c, a.TeamID, id); err != nil {
				return err
			}
		}
		if err := r.k.closeGaps(ctx, tx, c, a.TeamID, befores); err != nil {
			return err
		}
		if err := r.k.toTrash(ctx, tx, c, a, m, started, befores...); err != nil {
			return err
		}
		m.ItemIDs = ids
		m.Result = map[string]any{"deleted": len(ids)}
		if len(ids) == 1 {
			m.ItemID, m.BeforeData = ids[0], befores[0]
		} else {
			m.BeforeData = make(map[string]any, len(ids))
			for i, id := range ids {
				m.BeforeData[id] = befores[i]
			}
		}
		return r.k.runTxHooks(ctx, tx, m)
	})
	if err != nil {
		return err
	}
	r.k.recordsGone(ctx, a, c, ids)
	r.k.afterCommit(ctx, a, m)
	return nil
}

// deletableRecords reads the records ids of the actor's team inside the
// deletion's transaction, in the order of ids, and checks each in that
// order as Delete does: a missing record (or one of another team) is
// ErrNotFound, and one of the team the actor may not delete a 403
// (ErrForbidden).
func (k *Kit) deletableRecords(ctx context.Context, tx bun.Tx, c *collections.Collection, a Actor, ids []string) ([]Record, error) {
	recs, err := k.store.GetMany(ctx, store.InTx(tx), c, a.TeamID, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]Record, len(recs))
	for _, rec := range recs {
		byID[rec["id"].(string)] = rec
	}
	out := make([]Record, len(ids))
	for i, id := range ids {
		rec, ok := byID[id]
		if !ok {
			return nil, ErrNotFound
		}
		if err := a.mayChange(OpDelete, rec); err != nil {
			return nil, err
		}
		out[i] = rec
	}
	return out, nil
}

// deletionOrder returns the indexes of recs in the order to delete them:
// as given, except that in a tree deeper nodes go first, so a node deleted
// with its children has none left when its turn comes.
func deletionOrder(c *collections.Collection, recs []Record) []int {
	order := make([]int, len(recs))
	for i := range order {
		order[i] = i
	}
	if c.IsTree() {
		depth := managedName(c, collections.ManagedDepth)
		sort.SliceStable(order, func(x, y int) bool {
			return numberOf(recs[order[x]], depth) > numberOf(recs[order[y]], depth)
		})
	}
	return order
}

// closeGaps renumbers, once per parent, the siblings the deleted records
// leave (trees and sortable collections).
func (k *Kit) closeGaps(ctx context.Context, tx bun.Tx, c *collections.Collection, teamID string, deleted []Record) error {
	if !c.IsOrdered() {
		return nil
	}
	done := map[string]bool{}
	for _, rec := range deleted {
		key := "\x00root"
		if p := parentOf(c, rec); p != nil {
			key = *p
		}
		if done[key] {
			continue
		}
		done[key] = true
		if err := k.closeGap(ctx, tx, c, teamID, rec); err != nil {
			return err
		}
	}
	return nil
}

// distinctIDs returns ids without repeats, in the order of first mention.
func distinctIDs(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
