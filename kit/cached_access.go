package kit

import (
	"net/http"
	"strings"

	"github.com/collectionkit/kit/internal/store"
	"github.com/collectionkit/kit/teamauth"
)

// A read of a collection route on PostgreSQL authorizes its caller from
// the accounts cache without the query that confirms the cache is current
// (teamauth.Store.CachedAccess), runs, and confirms before a byte of the
// answer leaves: its own statements return kit_auth_state's version as
// one more column (a store.VersionProbe), read in the same snapshot as
// the data; when they returned no row it reads the version by itself.
// When the version is not the one the cache answered under, the answer is
// thrown away and the request served again the usual way, which reads the
// version first. A removed member, a revoked token or a ban is thus
// refused exactly as before, on every instance; what is saved is the
// version read of every read: a round trip on PostgreSQL, a statement of
// its own on SQLite.
//
// Only reads take this path: nothing they do writes, so running one whose
// authorization turns out stale changes nothing.

// serveFromCachedAccess serves r from the accounts cache when it can and
// reports whether it did; false means nothing was written and the caller
// serves r the usual way.
func (k *Kit) serveFromCachedAccess(w http.ResponseWriter, r *http.Request, serve func(http.ResponseWriter, *http.Request, collectionCall)) bool {
	if r.Method != http.MethodGet || !k.defaultAuth {
		return false
	}
	if _, ok := teamauth.UserFrom(r.Context()); ok {
		return false // the host's user comes before any token
	}
	token, ok := bearerToken(r)
	if !ok {
		return false
	}
	acc, version, ok := k.auth.CachedAccess(token, r.PathValue("team"))
	if !ok {
		return false
	}
	c, ok := k.Collections().ByAPIPath(r.PathValue("apiPath"))
	if !ok || c.External() {
		return false
	}
	probe := store.NewVersionProbe(teamauth.AuthVersionSubquery)
	ctx := store.WithVersionProbe(teamauth.WithUser(r.Context(), acc.User), probe)
	cw := &confirmingWriter{w: w, header: http.Header{}, confirm: func() bool {
		if v, ok := probe.Value(); ok {
			return v == version
		}
		v, ok := k.auth.AuthVersion(r.Context())
		return ok && v == version
	}}
	serve(cw, r.WithContext(ctx), collectionCall{
		c:     c,
		actor: Actor{UserID: acc.User.ID, TeamID: acc.Team.ID, Role: acc.Membership.Role},
		acc:   acc,
	})
	return cw.decide()
}

// bearerToken returns the token of r's "Authorization: Bearer" header, as
// teamauth.BearerAuthenticator reads it.
func bearerToken(r *http.Request) (string, bool) {
	scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// confirmingWriter holds a response back until confirm approves it, at
// the first WriteHeader or Write (or at the end). Approved, everything
// passes to w, headers included; refused, everything is dropped and w
// stays untouched.
type confirmingWriter struct {
	w       http.ResponseWriter
	header  http.Header
	confirm func() bool
	decided bool
	passed  bool
}

func (c *confirmingWriter) Header() http.Header {
	if c.passed {
		return c.w.Header()
	}
	return c.header
}

// decide asks confirm once and reports whether the response passes.
func (c *confirmingWriter) decide() bool {
	if !c.decided {
		c.decided = true
		if c.passed = c.confirm(); c.passed {
			h := c.w.Header()
			for name, v := range c.header {
				h[name] = v
			}
		}
	}
	return c.passed
}

func (c *confirmingWriter) WriteHeader(code int) {
	if c.decide() {
		c.w.WriteHeader(code)
	}
}

func (c *confirmingWriter) Write(b []byte) (int, error) {
	if !c.decide() {
		return len(b), nil
	}
	return c.w.Write(b)
}
