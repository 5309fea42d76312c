package kit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/store"
	"github.com/collectionkit/kit/teamauth"
)

// Record is one stored record, keyed by JSON field name. Decimals are
// strings, dates time.Time (RFC 3339 UTC in JSON).
type Record = map[string]any

// Actor is who acts, and in which team: the same facts the HTTP API gets
// from authentication and the route. A Go caller's actor must name a team
// (by id) and a user that exist in Config.Directory before it writes
// (teamauth.ErrTeamNotFound, teamauth.ErrUserNotFound otherwise); its
// Role is trusted as given.
type Actor struct {
	// UserID is the acting user; it becomes owner, createdBy, updatedBy.
	UserID string
	// TeamID is the team whose records are read and written.
	TeamID string
	// Role is the user's membership role in TeamID. Members may update and
	// delete only their own records; admins and owners any record of the
	// team. Empty means member.
	Role teamauth.Role

	// fromAccess: kit built the actor from a request's authorization (a
	// member of an existing team); a Go caller's actor is checked before
	// it writes (see Kit.checkActor).
	fromAccess bool
	// cached, when not nil: the request was authorized from the accounts
	// cache, and its reads and writes confirm that authorization (see
	// cached_access.go).
	cached *cachedCheck
	// batch, when not nil: the actor's writes run in the batch's
	// transaction (Kit.Batch).
	batch *Batch
}

// read is where the actor's record reads run: the Store's own pool,
// feeding the cached authorization's probe when there is one.
func (a Actor) read() store.Read {
	if a.cached == nil {
		return store.Read{}
	}
	return store.Read{Probe: a.cached.probe}
}

// write is the store.Write of a write of the actor's rows of c: single
// says it is one statement (see Kit.singleWrite); the cached
// authorization's guard, when there is one, makes it conditional.
func (a Actor) write(c *collections.Collection, single bool) store.Write {
	return store.Write{Collection: c, Single: single, Guard: a.guard()}
}

// guard is the cached authorization's write guard, or nil.
func (a Actor) guard() *store.WriteGuard {
	if a.cached == nil {
		return nil
	}
	return a.cached.guard
}

func (a Actor) check() error {
	if a.UserID == "" || a.TeamID == "" {
		return &Error{Status: 403, Message: "the actor needs a UserID and a TeamID", Err: ErrForbidden}
	}
	return nil
}

// canWrite reports whether the actor may update or delete rec.
func (a Actor) canWrite(rec Record) bool {
	if a.Role.AtLeast(teamauth.RoleAdmin) {
		return true
	}
	owner, _ := rec["owner"].(string)
	return owner == a.UserID
}

// mayChange returns nil when the actor may op rec (see canWrite), else a
// 403 error matching ErrForbidden. Call it only with a record of the
// actor's team: the actor can read it, so refusing it reveals nothing.
func (a Actor) mayChange(op Operation, rec Record) error {
	if a.canWrite(rec) {
		return nil
	}
	return errMayNot(op)
}

// errMayNot is the 403 a member gets for op on another member's record.
func errMayNot(op Operation) error {
	msg := fmt.Sprintf("a member may %s only the records they own; team admins and owners may %s any", op, op)
	switch op {
	case OpCreate:
		msg = "only the record's owner, or a team admin or owner, may account for its creation"
	case OpReorder:
		msg = "a member may reorder only when every record that changes place is theirs"
	}
	return &Error{Status: 403, Message: msg, Err: ErrForbidden}
}

// Records is the Go record API of one collection: the same validation,
// tenancy rules and mutation hooks as the HTTP API.
type Records struct {
	k   *Kit
	key string
}

// Records returns the record API of the collection registered under key
// ("shopProducts"). Its methods return ErrUnknownCollection when no such
// collection is registered.
func (k *Kit) Records(key string) *Records { return &Records{k: k, key: key} }

// open returns r's collection for the actor a: ErrUnknownCollection (or
// ErrClosed) when there is none, a 403 *Error for an actor without user
// or team.
func (r *Records) open(a Actor) (*collections.Collection, error) {
	c, err := r.k.collection(r.key)
	if err != nil {
		return nil, err
	}
	if err := a.check(); err != nil {
		return nil, err
	}
	return c, nil
}

// openForWrite is open for a write: a Go caller's actor must name a team
// (by id, not slug) and a user that exist in the Directory, so that no
// record is written into a team nobody has; otherwise the error is
// teamauth.ErrTeamNotFound or teamauth.ErrUserNotFound (404), and nothing
// is written. A pair found is not looked up again for actorCheckTTL.
func (r *Records) openForWrite(ctx context.Context, a Actor) (*collections.Collection, error) {
	c, err := r.open(a)
	if err != nil {
		return nil, err
	}
	if err := r.k.checkActor(ctx, a); err != nil {
		return nil, err
	}
	return c, nil
}

// checkActor checks that a Go caller's actor names a team (by id) and a
// user of the Directory (see openForWrite); an actor kit built from a
// request's authorization needs no check.
func (k *Kit) checkActor(ctx context.Context, a Actor) error {
	if a.fromAccess || k.actors.recent(a.TeamID, a.UserID) {
		return nil
	}
	dir := k.cfg.Directory
	team, err := dir.Team(ctx, a.TeamID)
	if err != nil {
		return err
	}
	if team.ID != a.TeamID {
		return fmt.Errorf("kit: the actor's TeamID %q is a slug, not the team's id: %w", a.TeamID, teamauth.ErrTeamNotFound)
	}
	if _, err := dir.User(ctx, a.UserID); err != nil {
		return err
	}
	k.actors.found(a.TeamID, a.UserID)
	return nil
}

// actorCheckTTL is how long a Go caller's actor found in the Directory is
// not looked up again: a burst of writes as one actor costs one lookup.
const actorCheckTTL = time.Minute

// checkedActors remembers the (team, user) pairs of Go callers' actors
// found in the Directory, each for actorCheckTTL; at most 4,096 at once
// (all are forgotten when more would be kept).
type checkedActors struct {
	mu sync.Mutex
	at map[[2]string]time.Time // pair -> when found
}

// recent reports whether the pair was found less than actorCheckTTL ago.
func (c *checkedActors) recent(teamID, userID string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	when, ok := c.at[[2]string{teamID, userID}]
	return ok && time.Since(when) < actorCheckTTL
}

// found remembers that the pair was found now.
func (c *checkedActors) found(teamID, userID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at == nil || len(c.at) >= 4096 {
		c.at = map[[2]string]time.Time{}
	}
	c.at[[2]string{teamID, userID}] = time.Now()
}

// Pagination is the pagination data of a list.
type Pagination struct {
	CurrentPage   int    `json:"currentPage"`
	PageSize      int    `json:"pageSize"`
	TotalItems    int    `json:"totalItems"`
	TotalPages    int    `json:"totalPages"`
	SortBy        string `json:"sortBy,omitempty"`
	SortDirection string `json:"sortDirection,omitempty"`
}

// List is one page of records with its pagination data.
type List struct {
	Items      []Record   `json:"items"`
	Pagination Pagination `json:"pagination"`
}

// List returns one page of the actor's team's records. params are the
// HTTP list parameters: page, pageSize (or limit), search, sort (or sortBy
// and sortDirection), filter and ids. A bad parameter is a *QueryError
// naming it.
func (r *Records) List(ctx context.Context, a Actor, params url.Values) (*List, error) {
	c, err := r.open(a)
	if err != nil {
		return nil, err
	}
	q, err := c.ParseListQuery(params, r.k.limits)
	if err != nil {
		return nil, err
	}
	return r.listChecked(ctx, a, c, q)
}

// listChecked runs q, a checked list query of c, for the actor's team.
func (r *Records) listChecked(ctx context.Context, a Actor, c *collections.Collection, q collections.ListQuery) (*List, error) {
	page, err := r.k.store.List(ctx, a.read(), c, a.TeamID, q)
	if err != nil {
		return nil, err
	}
	by, dir := q.SortBy()
	return &List{Items: page.Records, Pagination: Pagination{
		CurrentPage: q.Page, PageSize: q.PageSize, TotalItems: page.Total,
		TotalPages: (page.Total + q.PageSize - 1) / q.PageSize, SortBy: by, SortDirection: dir,
	}}, nil
}

// Get returns record id of the actor's team, or ErrNotFound.
func (r *Records) Get(ctx context.Context, a Actor, id string) (Record, error) {
	c, err := r.open(a)
	if err != nil {
		return nil, err
	}
	return r.k.store.Get(ctx, a.read(), c, a.TeamID, id)
}

// GetMany returns the records of the actor's team among ids, in the order
// of ids; ids of other teams or of no record are left out. At most
// Limits.MaxInValues ids.
func (r *Records) GetMany(ctx context.Context, a Actor, ids []string) ([]Record, error) {
	c, err := r.open(a)
	if err != nil {
		return nil, err
	}
	if max := r.k.limits.MaxInValues; len(ids) > max {
		return nil, &QueryError{Param: "ids", Message: fmt.Sprintf("must name at most %d ids", max)}
	}
	return r.k.store.GetMany(ctx, a.read(), c, a.TeamID, ids)
}

// Create validates data, stores it as a new record of the actor's team and
// returns the stored record. Auto-generated fields in data are ignored.
func (r *Records) Create(ctx context.Context, a Actor, data map[string]any) (Record, error) {
	return r.create(ctx, a, data, "")
}

// create is Create of a record whose id is given (a new UUIDv7 when
// empty): an upload names its blobs after the record before it exists.
func (r *Records) create(ctx context.Context, a Actor, data map[string]any, newID string) (Record, error) {
	started := time.Now()
	c, err := r.openForWrite(ctx, a)
	if err != nil {
		return nil, err
	}
	vals, err := c.ValidateCreate(data)
	if err != nil {
		return nil, err
	}
	if newID == "" {
		id, err := uuid.NewV7()
		if err != nil {
			return nil, fmt.Errorf("kit: new id: %w", err)
		}
		newID = id.String()
	}
	rec := Record{"id": newID, "teamId": a.TeamID, "owner": a.UserID}
	if c.UseMetadata() {
		now := started.UTC().Truncate(time.Microsecond)
		rec["createdAt"], rec["updatedAt"] = now, now
		rec["createdBy"], rec["updatedBy"] = a.UserID, a.UserID
	}
	for k, v := range vals {
		rec[k] = v
	}
	// The same shape as Get: every attribute, null when unset.
	for _, at := range c.Attributes() {
		if _, ok := rec[at.Name]; !ok {
			rec[at.Name] = nil
		}
	}
	m := r.k.newMutation(ctx, OpCreate, c.Key(), a, started)
	if r.k.writesAlone(a, c) && !r.k.needsWriteCheck(c, vals) {
		// One statement: the record, its count, its change row and the
		// listeners' rows.
		m.ItemID, m.Data, m.Result = rec["id"].(string), copyRecord(vals), copyRecord(rec)
		rows, ok, err := r.k.joinedRows(ctx, m)
		if err != nil {
			return nil, err
		}
		if ok {
			if err := r.k.store.InsertLogged(ctx, a.guard(), c, rec, r.k.changeOf(m), rows...); err != nil {
				return nil, err
			}
			r.k.afterCommit(ctx, a, m)
			return rec, nil
		}
	}
	err = r.k.runWrite(ctx, a, a.write(c, r.k.singleWrite(c)), func(ctx context.Context, tx bun.Tx) error {
		// Trees and sortable collections: the parent is checked and the
		// path, depth and order computed (the record goes last).
		if err := r.k.placeNew(ctx, tx, c, a.TeamID, rec); err != nil {
			return err
		}
		if err := r.k.checkWrite(ctx, tx, c, a.TeamID, "", vals); err != nil {
			return err
		}
		if err := r.k.store.Insert(ctx, tx, c, rec); err != nil {
			return err
		}
		m.ItemID, m.Data, m.Result = rec["id"].(string), copyRecord(vals), copyRecord(rec)
		return r.k.runTxHooks(ctx, tx, m)
	})
	if err != nil {
		return nil, err
	}
	r.k.afterCommit(ctx, a, m)
	return rec, nil
}

// Update applies a partial update to record id and returns the stored
// record. A record of another team, or none, is ErrNotFound (404). A
// member may update only records they own: another member's record of
// the team is a 403 error matching ErrForbidden. Nothing is written in
// either case. An update that changes nothing (an empty body, or only values
// equal to the stored ones) writes nothing and fires no hook.
func (r *Records) Update(ctx context.Context, a Actor, id string, data map[string]any) (Record, error) {
	return r.UpdateWith(ctx, a, id, data, WriteOptions{})
}

// UpdateWith is Update under the conditions of opts: with IfMatch, a
// record whose current ETag is not listed is a *PreconditionError
// (ErrPrecondition) and nothing is written, even when data changes
// nothing. The ETag of the answer is ETag(record).
func (r *Records) UpdateWith(ctx context.Context, a Actor, id string, data map[string]any, opts WriteOptions) (Record, error) {
	started := time.Now()
	c, err := r.openForWrite(ctx, a)
	if err != nil {
		return nil, err
	}
	changes, err := c.ValidateUpdate(data)
	if err != nil {
		return nil, err
	}
	u := &updateCall{r: r, a: a, c: c, id: id, opts: opts, started: started, changes: changes, owner: a.UserID}
	if a.Role.AtLeast(teamauth.RoleAdmin) {
		u.owner = "" // a member writes only their own records
	}
	// On PostgreSQL, when nothing has to be checked against the record
	// before it is written (no If-Match, no reference or unique lookup),
	// the update writes and returns the record it replaced in one
	// statement, instead of a read and then a write; what the read would
	// have decided is decided on the returned record, and undone (the
	// transaction rolls back) when the update changes nothing.
	u.oneStatement = r.k.store.WritesAlone() && a.batch == nil && opts.IfMatch == nil && len(changes) > 0 && !r.k.needsWriteCheck(c, changes)
	if u.oneStatement && r.k.writesAlone(a, c) {
		if r.k.hasRowsHooks() {
			if rec, done, err := u.aloneWithRows(ctx); done {
				return rec, err
			}
		} else if differ := comparedInSQL(c, changes); len(differ) > 0 {
			if rec, done, err := u.alone(ctx, differ); done {
				return rec, err
			}
		}
	}
	err = r.k.runWrite(ctx, a, a.write(c, r.k.singleWrite(c)), u.inTx)
	if errors.Is(err, errUnchanged) {
		return u.result, nil
	}
	if err != nil {
		return nil, err
	}
	if u.m != nil {
		r.k.afterCommit(ctx, a, u.m)
	}
	return u.result, nil
}

// updateCall is one UpdateWith between its steps.
type updateCall struct {
	r       *Records
	a       Actor
	c       *collections.Collection
	id      string
	opts    WriteOptions
	started time.Time
	changes Record
	// owner is the owner the record must have ("" for an admin's
	// update, which may change any record of the team).
	owner string
	// oneStatement: the update may write and return the record it
	// replaced in one statement (see UpdateWith).
	oneStatement bool

	result Record
	m      *Mutation
}

// setOf is what an update of changes writes: the changes and, with
// metadata, who and when.
func (u *updateCall) setOf(changes Record) map[string]any {
	set := copyRecord(changes)
	if u.c.UseMetadata() {
		set["updatedAt"] = u.started.UTC().Truncate(time.Microsecond)
		set["updatedBy"] = u.a.UserID
	}
	return set
}

// written keeps the record as set left it and runs the transaction's
// listeners.
func (u *updateCall) written(ctx context.Context, tx bun.Tx, before, changes Record, set map[string]any) error {
	u.result = withSet(before, set)
	u.m = u.r.k.newMutation(ctx, OpUpdate, u.c.Key(), u.a, u.started)
	u.m.ItemID, u.m.Updates, u.m.BeforeData, u.m.Result = u.id, copyRecord(changes), before, copyRecord(u.result)
	return u.r.k.runTxHooks(ctx, tx, u.m)
}

// alone runs the update outside a transaction: the statement writes the
// record, and its change row, only when a value of differ differs as
// PostgreSQL compares them (equal as JSON implies equal there, see
// store.ComparesInSQL), so an update that changes nothing writes nothing
// and needs no rollback. done false means that the transaction decides:
// no record (none, or not one the actor may change; the transaction tells
// which), or a record not written that still differs as JSON (0 and -0
// are equal in SQL).
func (u *updateCall) alone(ctx context.Context, differ Record) (rec Record, done bool, err error) {
	k, a := u.r.k, u.a
	set := u.setOf(u.changes)
	m := k.newMutation(ctx, OpUpdate, u.c.Key(), a, u.started)
	m.ItemID = u.id
	before, wrote, err := k.store.UpdateLogged(ctx, a.guard(), u.c, a.TeamID, u.id, u.owner, set, differ, k.changeOf(m))
	switch {
	case err == nil && !wrote && len(dropUnchanged(before, u.changes)) == 0:
		return before, true, nil
	case err == nil && wrote:
		result := withSet(before, set)
		m.Updates, m.BeforeData, m.Result = dropUnchanged(before, u.changes), before, copyRecord(result)
		k.afterCommit(ctx, a, m)
		return result, true, nil
	case err != nil && !errors.Is(err, store.ErrNotFound):
		return nil, true, err
	}
	u.oneStatement = false
	return nil, false, nil
}

// aloneWithRows is alone when OnMutationRows listeners add rows, which
// need the record's state before: it reads the record, then writes it, its
// change row and the listeners' rows in one statement, only if the record
// is still as read (store.UpdateLoggedAt). done false means that the
// transaction decides: no record, one the actor may not change, one
// written since it was read, or rows that cannot join the statement.
func (u *updateCall) aloneWithRows(ctx context.Context) (rec Record, done bool, err error) {
	k, a := u.r.k, u.a
	before, version, err := k.store.GetVersioned(ctx, u.c, a.TeamID, u.id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, false, nil
	case err != nil:
		return nil, true, err
	case a.mayChange(OpUpdate, before) != nil:
		return nil, false, nil
	}
	changes := dropUnchanged(before, u.changes)
	if len(changes) == 0 {
		return before, true, nil
	}
	set := u.setOf(changes)
	result := withSet(before, set)
	m := k.newMutation(ctx, OpUpdate, u.c.Key(), a, u.started)
	m.ItemID, m.Updates, m.BeforeData, m.Result = u.id, copyRecord(changes), before, copyRecord(result)
	rows, ok, err := k.joinedRows(ctx, m)
	if err != nil || !ok {
		return nil, err != nil, err
	}
	_, err = k.store.UpdateLoggedAt(ctx, a.guard(), u.c, a.TeamID, u.id, version, set, k.changeOf(m), rows...)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, false, nil
	case err != nil:
		return nil, true, err
	}
	k.afterCommit(ctx, a, m)
	return result, true, nil
}

// inTx runs the update in write transaction tx.
func (u *updateCall) inTx(ctx context.Context, tx bun.Tx) error {
	k, a := u.r.k, u.a
	if u.oneStatement {
		set := u.setOf(u.changes)
		before, err := k.store.UpdateReturningBefore(ctx, tx, u.c, a.TeamID, u.id, u.owner, set)
		switch {
		case err == nil:
			if u.changes = dropUnchanged(before, u.changes); len(u.changes) == 0 {
				u.result = before
				return errUnchanged // undo the write of updatedAt alone
			}
			return u.written(ctx, tx, before, u.changes, set)
		case !errors.Is(err, store.ErrNotFound):
			return err
		}
		// No record, or not one the actor may change: the read below
		// tells which.
	}
	before, err := k.store.GetForUpdate(ctx, tx, u.c, a.TeamID, u.id)
	if err != nil {
		return err
	}
	if err := a.mayChange(OpUpdate, before); err != nil {
		return err
	}
	if err := u.opts.check(before); err != nil {
		return err
	}
	if u.changes = dropUnchanged(before, u.changes); len(u.changes) == 0 {
		u.result = before
		return nil
	}
	if err := k.checkWrite(ctx, tx, u.c, a.TeamID, u.id, u.changes); err != nil {
		return err
	}
	set := u.setOf(u.changes)
	if err := k.store.Update(ctx, tx, u.c, a.TeamID, u.id, set); err != nil {
		return err
	}
	return u.written(ctx, tx, before, u.changes, set)
}

// comparedInSQL returns the changes whose difference from the stored
// values PostgreSQL can tell (store.ComparesInSQL).
func comparedInSQL(c *collections.Collection, changes Record) Record {
	out := make(Record, len(changes))
	for k, v := range changes {
		if store.ComparesInSQL(c, k) {
			out[k] = v
		}
	}
	return out
}

// errUnchanged rolls back an update that wrote values equal to the stored
// ones (see UpdateWith); it never leaves the package.
var errUnchanged = errors.New("kit: the update changes nothing")

// needsWriteCheck reports whether checkWrite would look anything up for
// vals: a reference to check, or a unique field that is not c's only one.
func (k *Kit) needsWriteCheck(c *collections.Collection, vals map[string]any) bool {
	for name, v := range vals {
		a, _ := c.Attribute(name)
		if v == nil || a.Field == nil {
			continue
		}
		if a.Field.RefTarget != "" || a.Field.Meta.Unique && store.SoleUniqueField(c) != name {
			return true
		}
	}
	return false
}

// Delete removes record id. The same rules as Update apply; a record that
// other records still refer to is a *ConstraintError of Kind
// ConstraintReferenced (409) naming the referencing collections and
// counts, and nothing is deleted. In a tree, a record that has children is refused with ErrHasChildren (409): move or
// delete the children first. In trees and sortable collections the
// siblings after the record move up one place, so orders stay 0..n-1.
func (r *Records) Delete(ctx context.Context, a Actor, id string) error {
	return r.DeleteWith(ctx, a, id, WriteOptions{})
}

// DeleteWith is Delete under the conditions of opts: with IfMatch, a
// record whose current ETag is not listed is a *PreconditionError
// (ErrPrecondition) and nothing is deleted.
func (r *Records) DeleteWith(ctx context.Context, a Actor, id string, opts WriteOptions) error {
	c, err := r.openForWrite(ctx, a)
	if err != nil {
		return err
	}
	if err := r.deleteWith(ctx, a, c, id, opts); err != nil {
		return err
	}
	r.k.recordsGone(ctx, a, c, []string{id}) // after commit
	return nil
}

// deleteWith is DeleteWith of an opened collection.
func (r *Records) deleteWith(ctx context.Context, a Actor, c *collections.Collection, id string, opts WriteOptions) error {
	started := time.Now()
	var err error
	m := r.k.newMutation(ctx, OpDelete, c.Key(), a, started)
	if a.Role.AtLeast(teamauth.RoleAdmin) && !c.IsOrdered() && !c.SoftDelete() && !r.k.needsDeleteState() && opts.IfMatch == nil {
		// Nothing needs the record's last state (no listener that reads
		// it, no owner check, no siblings to move): one statement, which
		// also tells whether the team had the record.
		// The change log's row needs only the id.
		m.ItemID, m.ItemIDs = id, []string{id}
		if r.k.hasRowsHooks() {
			return r.deleteWithRows(ctx, a, c, id, m)
		}
		if r.k.writesAlone(a, c) {
			// Outside a transaction, with the change row.
			err := r.k.store.DeleteLogged(ctx, a.guard(), c, a.TeamID, id, r.k.changeOf(m))
			if err == nil {
				r.k.changed()
			}
			return err
		}
		err := r.k.runWrite(ctx, a, a.write(c, true), func(ctx context.Context, tx bun.Tx) error {
			if err := r.k.store.Delete(ctx, tx, c, a.TeamID, id); err != nil {
				return err
			}
			if r.k.changesOn() {
				return r.k.recordChange(ctx, tx, m)
			}
			return nil
		})
		if err == nil {
			r.k.changed()
		}
		return err
	}
	err = r.k.runWrite(ctx, a, a.write(c, r.k.singleWrite(c)), func(ctx context.Context, tx bun.Tx) error {
		if err := r.k.lockOrder(ctx, tx, c, a.TeamID); err != nil {
			return err
		}
		before, err := r.k.store.GetForUpdate(ctx, tx, c, a.TeamID, id)
		if err != nil {
			return err
		}
		if err := a.mayChange(OpDelete, before); err != nil {
			return err
		}
		if err := opts.check(before); err != nil {
			return err
		}
		if err := r.k.checkNoChildren(ctx, tx, c, a.TeamID, id); err != nil {
			return err
		}
		if err := r.k.store.Delete(ctx, tx, c, a.TeamID, id); err != nil {
			return err
		}
		if err := r.k.closeGap(ctx, tx, c, a.TeamID, before); err != nil {
			return err
		}
		if err := r.k.toTrash(ctx, tx, c, a, m, started, before); err != nil {
			return err
		}
		m.ItemID, m.ItemIDs, m.BeforeData = id, []string{id}, before
		m.Result = map[string]any{"deleted": 1}
		return r.k.runTxHooks(ctx, tx, m)
	})
	if err != nil {
		return err
	}
	r.k.afterCommit(ctx, a, m)
	return nil
}

// deleteWithRows is deleteWith's one-statement delete when OnMutationRows
// listeners that do not read the record's last state are registered (see
// MutationRowsOptions.NoDeleteState) and nothing else needs it: the
// delete and the listeners' rows, then the change log row (runTxHooks),
// in one write. m carries the id, not BeforeData.
//
// On PostgreSQL, when the rows can join it, the delete, its change log
// row and the rows are one statement outside any transaction.
func (r *Records) deleteWithRows(ctx context.Context, a Actor, c *collections.Collection, id string, m *Mutation) error {
	m.Result = map[string]any{"deleted": 1}
	if r.k.writesAlone(a, c) {
		rows, ok, err := r.k.joinedRows(ctx, m)
		if err != nil {
			return err
		}
		if ok {
			if err := r.k.store.DeleteLogged(ctx, a.guard(), c, a.TeamID, id, r.k.changeOf(m), rows...); err != nil {
				return err
			}
			r.k.afterCommit(ctx, a, m)
			return nil
		}
	}
	err := r.k.runWrite(ctx, a, a.write(c, r.k.singleWrite(c)), func(ctx context.Context, tx bun.Tx) error {
		if err := r.k.store.Delete(ctx, tx, c, a.TeamID, id); err != nil {
			return err
		}
		m.Result = map[string]any{"deleted": 1}
		return r.k.runTxHooks(ctx, tx, m)
	})
	if err != nil {
		return err
	}
	r.k.afterCommit(ctx, a, m)
	return nil
}

// checkWrite checks, inside the write transaction, that every reference
// names a record of the same team and that unique fields stay unique in
// the team.
func (k *Kit) checkWrite(ctx context.Context, tx bun.Tx, c *collections.Collection, teamID, selfID string, vals map[string]any) error {
	verr := &ValidationError{}
	for name, v := range vals {
		a, _ := c.Attribute(name)
		if v == nil || a.Field == nil {
			continue
		}
		if ref := a.Field.RefTarget; ref != "" {
			target, ok := k.Collections().Get(ref)
			if !ok || target.External() {
				continue // external sources are not ours to check
			}
			ok, err := k.store.Exists(ctx, tx, target, teamID, v.(string))
			if err != nil {
				return err
			}
			if !ok {
				if verr.Fields == nil {
					verr.Fields = map[string]string{}
				}
				verr.Fields[name] = fmt.Sprintf("refers to no %s record of this team", ref)
			}
		}
		// A collection's only unique index answers for itself: the write
		// fails with a unique violation naming the field (store.classifyFor),
		// which undoes only that statement. Otherwise look first, so the
		// error names the right field.
		if a.Field.Meta.Unique && store.SoleUniqueField(c) != name {
			taken, err := k.store.Taken(ctx, tx, c, a, teamID, selfID, v)
			if err != nil {
				return err
			}
			if taken {
				return &ConstraintError{Kind: ConstraintUnique, Field: name, Message: fmt.Sprintf("%s must be unique in the team; another record has this value", name)}
			}
		}
	}
	if len(verr.Fields) > 0 {
		return verr
	}
	return nil
}

// dropUnchanged removes from changes the fields whose value equals the
// stored one (compared as JSON), so an update that sets what is already
// there writes nothing and fires no hook.
func dropUnchanged(before, changes Record) Record {
	out := make(Record, len(changes))
	for k, v := range changes {
		old, err1 := json.Marshal(before[k])
		nv, err2 := json.Marshal(v)
		if err1 == nil && err2 == nil && string(old) == string(nv) {
			continue
		}
		out[k] = v
	}
	return out
}

// withSet returns a copy of before with the values of set written over.
func withSet(before Record, set map[string]any) Record {
	out := copyRecord(before)
	for k, v := range set {
		out[k] = v
	}
	return out
}

func copyRecord(r Record) Record {
	if r == nil {
		return nil
	}
	out := make(Record, len(r))
	for k, v := range r {
		out[k] = v
	}
	return out
}
