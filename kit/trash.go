package kit

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/store"
)

// TrashConfig configures the trash of softDelete collections (see
// collections.Config.SoftDelete). The zero value is the documented
// defaults.
type TrashConfig struct {
	// Retention is how long a record stays in the trash before kit purges
	// it. Default 30 days.
	Retention time.Duration
	// PurgeInterval is how often the retention purge runs (once per
	// period across the instances sharing the database). Default 1 hour.
	PurgeInterval time.Duration
	// NoPurge turns the retention purge off: records stay in the trash
	// until they are restored or purged by hand.
	NoPurge bool
}

func (c TrashConfig) retention() time.Duration {
	if c.Retention <= 0 {
		return 30 * 24 * time.Hour
	}
	return c.Retention
}

func (c TrashConfig) interval() time.Duration {
	if c.PurgeInterval <= 0 {
		return time.Hour
	}
	return c.PurgeInterval
}

// TrashedRecord is a record in its team's trash.
type TrashedRecord struct {
	// ID is the record's id, which a restore keeps.
	ID string `json:"id"`
	// DeletedAt is when the record was moved to the trash (UTC).
	DeletedAt time.Time `json:"deletedAt"`
	// DeletedBy is the user who deleted it.
	DeletedBy string `json:"deletedBy"`
	// Record is the record's last state.
	Record Record `json:"record"`
}

// TrashPage is one page of a collection's trash, newest first.
type TrashPage struct {
	Items      []TrashedRecord `json:"items"`
	Pagination Pagination      `json:"pagination"`
}

// errNoTrash is the 404 of the trash routes of a collection without
// softDelete.
var errNoTrash = &Error{Status: http.StatusNotFound, Message: "this collection keeps no trash (its softDelete is off)", Err: ErrNotFound}

// openTrash is open for the trash of r's collection: errNoTrash when the
// collection is not softDelete.
func (r *Records) openTrash(ctx context.Context, a Actor, write bool) (*collections.Collection, error) {
	var c *collections.Collection
	var err error
	if write {
		c, err = r.openForWrite(ctx, a)
	} else {
		c, err = r.open(a)
	}
	if err == nil && !c.SoftDelete() {
		return nil, errNoTrash
	}
	return c, err
}

// trashEntry is the trash row of before, a record of c that actor a
// deletes now.
func trashEntry(c *collections.Collection, a Actor, before Record, at time.Time) (*store.TrashEntry, error) {
	raw, err := json.Marshal(before)
	if err != nil {
		return nil, fmt.Errorf("kit: encode the trashed record: %w", err)
	}
	id, _ := before["id"].(string)
	return &store.TrashEntry{Collection: c.Key(), ID: id, TeamID: a.TeamID,
		DeletedAt: at.UTC().Truncate(time.Microsecond), DeletedBy: a.UserID, Data: string(raw)}, nil
}

// toTrash moves the deleted records befores of c to the team's trash,
// through tx, the deletion's transaction (softDelete collections only).
func (k *Kit) toTrash(ctx context.Context, tx bun.Tx, c *collections.Collection, a Actor, m *Mutation, at time.Time, befores ...Record) error {
	if !c.SoftDelete() {
		return nil
	}
	for _, before := range befores {
		e, err := trashEntry(c, a, before, at)
		if err != nil {
			return err
		}
		if err := k.store.PutTrash(ctx, tx, e); err != nil {
			return err
		}
	}
	m.Trashed = true
	return nil
}

// Trash returns one page of the team's trash of the collection, newest
// first. params are page (from 1) and pageSize (at most the list limit);
// a bad one is a *QueryError naming it. Every member of the team sees its
// trash, as they see its records. A collection without softDelete has no
// trash: its Trash, Restore and Purge answer 404 (ErrNotFound).
func (r *Records) Trash(ctx context.Context, a Actor, params map[string][]string) (*TrashPage, error) {
	c, err := r.openTrash(ctx, a, false)
	if err != nil {
		return nil, err
	}
	page, size, err := r.k.pageParams(params)
	if err != nil {
		return nil, err
	}
	entries, total, err := r.k.store.ListTrash(ctx, c.Key(), a.TeamID, size, (page-1)*size)
	if err != nil {
		return nil, err
	}
	out := &TrashPage{Items: make([]TrashedRecord, 0, len(entries)), Pagination: Pagination{
		CurrentPage: page, PageSize: size, TotalItems: total, TotalPages: (total + size - 1) / size,
	}}
	for _, e := range entries {
		rec, err := decodeTrashed(e.Data)
		if err != nil {
			return nil, fmt.Errorf("kit: trash entry %s %s: %w", e.Collection, e.ID, err)
		}
		out.Items = append(out.Items, TrashedRecord{ID: e.ID, DeletedAt: e.DeletedAt.UTC(), DeletedBy: e.DeletedBy, Record: rec})
	}
	return out, nil
}

// trashPageSize is the trash list's default page size.
const trashPageSize = 20

// pageParams reads page and pageSize (defaults 1 and 20, at most
// Limits.MaxPageSize).
func (k *Kit) pageParams(params map[string][]string) (page, size int, err error) {
	page, size = 1, min(trashPageSize, k.limits.MaxPageSize)
	for _, p := range []struct {
		name string
		dst  *int
		max  int
	}{{"page", &page, 1_000_000}, {"pageSize", &size, k.limits.MaxPageSize}} {
		vs := params[p.name]
		if len(vs) == 0 {
			continue
		}
		var n int
		if len(vs) > 1 || len(vs[0]) > 9 {
			return 0, 0, &QueryError{Param: p.name, Message: fmt.Sprintf("must be a whole number from 1 to %d", p.max)}
		}
		if _, serr := fmt.Sscanf(vs[0], "%d", &n); serr != nil || n < 1 || n > p.max || fmt.Sprint(n) != vs[0] {
			return 0, 0, &QueryError{Param: p.name, Message: fmt.Sprintf("must be a whole number from 1 to %d", p.max)}
		}
		*p.dst = n
	}
	return page, size, nil
}

// decodeTrashed decodes a trashed record's JSON, numbers as json.Number
// (as the HTTP API reads a body).
func decodeTrashed(data string) (Record, error) {
	dec := json.NewDecoder(strings.NewReader(data))
	dec.UseNumber()
	var rec Record
	if err := dec.Decode(&rec); err != nil {
		return nil, err
	}
	return rec, nil
}

// Restore puts record id back from the team's trash into the collection,
// with the same id, owner and creation metadata, and returns it. Its
// values go through the create's validation against the collection as it
// is now (a *ValidationError, 400, when they no longer fit) and its
// references are checked: one to a record that is gone is a
// *ValidationError naming the field (400); a unique value another record
// has taken since is a *ConstraintError (409). In a tree or sortable
// collection it goes last among its siblings. A record that is not in the
// team's trash is ErrNotFound (one of another team alike); a member may
// restore only their own records (403). Nothing is written when Restore
// fails: the record stays in the trash. The mutation is Operation
// restore, with the record's data as a create's.
func (r *Records) Restore(ctx context.Context, a Actor, id string) (Record, error) {
	started := time.Now()
	c, err := r.openTrash(ctx, a, true)
	if err != nil {
		return nil, err
	}
	m := r.k.newMutation(ctx, OpRestore, c.Key(), a, started)
	var rec Record
	err = r.k.runWrite(ctx, a, a.write(c, false), func(ctx context.Context, tx bun.Tx) error {
		e, err := r.k.store.TakeTrash(ctx, tx, c.Key(), a.TeamID, id)
		if err != nil {
			return err
		}
		before, err := decodeTrashed(e.Data)
		if err != nil {
			return fmt.Errorf("kit: trash entry %s %s: %w", e.Collection, e.ID, err)
		}
		if err := a.mayChange(OpRestore, before); err != nil {
			return err
		}
		var vals map[string]any
		if rec, vals, err = restoredRecord(c, a, before, started); err != nil {
			return err
		}
		if err := r.k.placeNew(ctx, tx, c, a.TeamID, rec); err != nil {
			return err
		}
		if err := r.k.checkWrite(ctx, tx, c, a.TeamID, "", vals); err != nil {
			return err
		}
		if err := r.k.store.Insert(ctx, tx, c, rec); err != nil {
			return err
		}
		m.ItemID, m.Data, m.Result = id, copyRecord(vals), copyRecord(rec)
		return r.k.runTxHooks(ctx, tx, m)
	})
	if err != nil {
		return nil, err
	}
	r.k.afterCommit(ctx, a, m)
	return rec, nil
}

// restoredRecord is the record to insert for before, a trashed record of
// c that actor a restores at started, and its validated values.
func restoredRecord(c *collections.Collection, a Actor, before Record, started time.Time) (Record, map[string]any, error) {
	body := make(map[string]any, len(before))
	for _, at := range c.Attributes() {
		v, ok := before[at.Name]
		if !ok || at.System && at.Managed != collections.ManagedParent {
			continue
		}
		body[at.Name] = v
	}
	vals, err := c.ValidateCreate(body)
	if err != nil {
		return nil, nil, err
	}
	owner, _ := before["owner"].(string)
	rec := Record{"id": before["id"], "teamId": a.TeamID, "owner": owner}
	if c.UseMetadata() {
		now := started.UTC().Truncate(time.Microsecond)
		rec["createdAt"], rec["createdBy"] = now, a.UserID
		if s, ok := before["createdAt"].(string); ok {
			if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
				rec["createdAt"] = t.UTC()
			}
		}
		if s, ok := before["createdBy"].(string); ok {
			rec["createdBy"] = s
		}
		rec["updatedAt"], rec["updatedBy"] = now, a.UserID
	}
	for k, v := range vals {
		rec[k] = v
	}
	for _, at := range c.Attributes() {
		if _, ok := rec[at.Name]; !ok {
			rec[at.Name] = nil
		}
	}
	return rec, vals, nil
}

// Purge removes record id from the team's trash for good. A record that
// is not in the team's trash is ErrNotFound (one of another team alike);
// a member may purge only their own records (403). The mutation is
// Operation purge, with ItemIDs and BeforeData as a delete's.
func (r *Records) Purge(ctx context.Context, a Actor, id string) error {
	started := time.Now()
	c, err := r.openTrash(ctx, a, true)
	if err != nil {
		return err
	}
	m := r.k.newMutation(ctx, OpPurge, c.Key(), a, started)
	err = r.k.runWrite(ctx, a, a.write(c, false), func(ctx context.Context, tx bun.Tx) error {
		e, err := r.k.store.TakeTrash(ctx, tx, c.Key(), a.TeamID, id)
		if err != nil {
			return err
		}
		before, err := decodeTrashed(e.Data)
		if err != nil {
			return fmt.Errorf("kit: trash entry %s %s: %w", e.Collection, e.ID, err)
		}
		if err := a.mayChange(OpPurge, before); err != nil {
			return err
		}
		m.ItemID, m.ItemIDs, m.BeforeData = id, []string{id}, before
		m.Result = map[string]any{"purged": 1}
		return r.k.runTxHooks(ctx, tx, m)
	})
	if err != nil {
		return err
	}
	r.k.afterCommit(ctx, a, m)
	return nil
}

// purgeBatch is how many trash entries one retention transaction purges.
const purgeBatch = 500

// PurgeExpiredTrash purges every team's trash entries deleted before
// cutoff, in transactions of at most 500 entries, and returns how many it
// purged. Each transaction's entries are one purge mutation per team and
// collection, with no user (UserID empty), so the audit trail and the
// change log record them. The retention loop calls it with now minus
// Config.Trash.Retention.
func (k *Kit) PurgeExpiredTrash(ctx context.Context, cutoff time.Time) (int, error) {
	total := 0
	for {
		var ms []*Mutation
		err := k.store.RunWrite(ctx, store.Write{}, func(ctx context.Context, tx bun.Tx) error {
			ms = nil
			entries, err := k.store.TakeExpiredTrash(ctx, tx, cutoff, purgeBatch)
			if err != nil {
				return err
			}
			ms, err = k.purgeMutations(ctx, entries)
			if err != nil {
				return err
			}
			for _, m := range ms {
				if err := k.runTxHooks(ctx, tx, m); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return total, err
		}
		n := 0
		for _, m := range ms {
			n += len(m.ItemIDs)
			k.runHooks(ctx, m)
		}
		total += n
		if n < purgeBatch {
			return total, nil
		}
	}
}

// purgeMutations groups expired entries into one purge mutation per team
// and collection.
func (k *Kit) purgeMutations(ctx context.Context, entries []store.TrashEntry) ([]*Mutation, error) {
	var out []*Mutation
	byKey := map[[2]string]*Mutation{}
	for _, e := range entries {
		key := [2]string{e.TeamID, e.Collection}
		m := byKey[key]
		if m == nil {
			m = k.newMutation(ctx, OpPurge, e.Collection, Actor{TeamID: e.TeamID}, time.Now())
			m.BeforeData = map[string]any{}
			byKey[key] = m
			out = append(out, m)
		}
		before, err := decodeTrashed(e.Data)
		if err != nil {
			return nil, fmt.Errorf("kit: trash entry %s %s: %w", e.Collection, e.ID, err)
		}
		m.ItemIDs = append(m.ItemIDs, e.ID)
		m.BeforeData[e.ID] = before
	}
	for _, m := range out {
		m.Result = map[string]any{"purged": len(m.ItemIDs)}
		if len(m.ItemIDs) == 1 {
			m.ItemID, m.BeforeData = m.ItemIDs[0], m.BeforeData[m.ItemIDs[0]].(Record)
		}
	}
	return out, nil
}

// startTrashRetention starts the retention purge loop unless
// Config.Trash.NoPurge: every PurgeInterval, once per period across the
// instances, it purges the entries older than Retention. It stops when
// the Kit closes.
func (k *Kit) startTrashRetention() {
	if k.cfg.Trash.NoPurge {
		return
	}
	k.every("kit:trash:purge", k.cfg.Trash.interval(), k.runTrashRetention)
}

// runTrashRetention is one claimed tick of the retention loop.
func (k *Kit) runTrashRetention(ctx context.Context) {
	n, err := k.PurgeExpiredTrash(ctx, time.Now().Add(-k.cfg.Trash.retention()))
	if err != nil && ctx.Err() == nil {
		k.logger.Error("kit: trash retention", slog.String("err", err.Error()))
		return
	}
	if n > 0 {
		k.logger.Info("kit: trash retention purged records", slog.Int("purged", n))
	}
}
