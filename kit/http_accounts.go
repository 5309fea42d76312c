package kit

import (
	"context"
	"net/http"
	"net/url"

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

// teamRecords answers teamauth whether a team has records in any
// collection.
type teamRecords struct{ k *Kit }

// TeamHasRecords reports whether any collection holds a record of the team.
func (t teamRecords) TeamHasRecords(ctx context.Context, teamID string) (bool, error) {
	reg := t.k.Collections()
	if reg == nil {
		return false, nil
	}
	for _, c := range reg.All() {
		if c.External {
			continue
		}
		q, err := c.ParseListQuery(url.Values{"pageSize": {"1"}}, t.k.limits)
		if err != nil {
			return false, err
		}
		page, err := t.k.store.List(ctx, t.k.db, c, teamID, q)
		if err != nil {
			return false, err
		}
		if page.Total > 0 {
			return true, nil
		}
	}
	return false, nil
}
