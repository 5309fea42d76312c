package kit

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/collectionkit/kit/internal/apierror"
	"github.com/collectionkit/kit/internal/store"
	"github.com/collectionkit/kit/internal/wire"
	"github.com/collectionkit/kit/teamauth"
)

// registerAccountRoutes adds teamauth's accounts routes (sign-in, me,
// teams, members, super-admin users and teams) under the prefix. With a
// host's own Directory the routes that need kit's account tables answer
// 501 (see teamauth.Accounts).
func (k *Kit) registerAccountRoutes(add func(method, path string, h http.HandlerFunc)) {
	a := &teamauth.Accounts{Auth: k.teamAuth, Prefix: k.cfg.Prefix, Config: k.cfg.Accounts, Records: teamRecords{k}}
	if k.cfg.Directory == teamauth.Directory(k.auth) {
		a.Store = k.auth
	}
	for _, rt := range a.Routes() {
		add(rt.Method, rt.Path, rt.Handler.ServeHTTP)
	}
}

// teamRecords answers teamauth about a team's records in the collections.
type teamRecords struct{ k *Kit }

// TeamHasRecords reports whether any collection holds a record of the team.
func (t teamRecords) TeamHasRecords(ctx context.Context, teamID string) (bool, error) {
	reg := t.k.Collections()
	if reg == nil {
		return false, nil
	}
	for _, c := range reg.All() {
		if c.External() {
			continue
		}
		q, err := c.ParseListQuery(url.Values{"pageSize": {"1"}}, t.k.limits)
		if err != nil {
			return false, err
		}
		page, err := t.k.store.List(ctx, store.Read{}, c, teamID, q)
		if err != nil {
			return false, err
		}
		if page.Total > 0 {
			return true, nil
		}
	}
	return false, nil
}

// errRecordsRemain refuses a forced team deletion whose records could not
// all be deleted.
var errRecordsRemain = apierror.New(http.StatusConflict, "some records of the team could not be deleted (they refer to each other in a cycle); delete them first")

// DeleteTeamRecords deletes every record of the team through the record
// service, acting as userID with the owner role, so that hooks and audit
// events see each deletion. A record that cannot go yet (still referenced,
// or a tree node with children) is retried in the next pass; passes go on
// while they delete something. Records left when a pass deletes nothing
// are errRecordsRemain (409).
func (t teamRecords) DeleteTeamRecords(ctx context.Context, teamID, userID string) error {
	reg := t.k.Collections()
	if reg == nil {
		return nil
	}
	actor := Actor{UserID: userID, TeamID: teamID, Role: teamauth.RoleOwner, fromAccess: true} // the accounts routes checked both
	for {
		deleted, remaining := 0, 0
		for _, c := range reg.All() {
			if c.External() {
				continue
			}
			recs := t.k.Records(c.Key())
			var ids []string
			for page := 1; ; page++ {
				list, err := recs.List(ctx, actor, url.Values{"pageSize": {"100"}, "page": {strconv.Itoa(page)}})
				if err != nil {
					return fmt.Errorf("kit: list %s of team %s: %w", c.Key(), teamID, err)
				}
				for _, r := range list.Items {
					if id, ok := r["id"].(string); ok {
						ids = append(ids, id)
					}
				}
				if page >= list.Pagination.TotalPages {
					break
				}
			}
			for _, id := range ids {
				err := recs.Delete(ctx, actor, id)
				switch {
				case err == nil:
					deleted++
				case errors.Is(err, ErrNotFound):
					// Gone meanwhile.
				case wire.Status(err) == http.StatusBadRequest || wire.Status(err) == http.StatusConflict:
					remaining++ // referenced, or has children: next pass
				default:
					return err
				}
			}
		}
		if remaining == 0 {
			return nil
		}
		if deleted == 0 {
			return errRecordsRemain
		}
	}
}
