package kit

import (
	"bytes"
	"io"
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
// The probe and the guard below travel in the request's Actor
// (cachedCheck), an explicit input of every store call.
// When the version is not the one the cache answered under, the answer is
// thrown away and the request served again the usual way, which reads the
// version first. A removed member, a revoked token or a ban is thus
// refused exactly as before, on every instance; what is saved is the
// version read of every read: a round trip on PostgreSQL, a statement of
// its own on SQLite.
//
// Reads take this path on both engines: nothing they do writes, so
// running one whose authorization turns out stale changes nothing.
//
// The writes of a collection route (create, update, delete, move) take it
// too. The request's writes carry a store.WriteGuard, and the Store runs
// none of them unless the version is still the cache's: on SQLite the
// write queue reads it in the write's own transaction, under SQLite's
// write lock, before the first of them runs; on PostgreSQL a write that is
// one statement (store.InsertLogged, UpdateLogged, DeleteLogged) tests it
// in its WHERE, in the statement's snapshot, and a write in a transaction
// reads it in that transaction first. A refused write runs nothing; its
// answer is thrown away and the request served again the usual way, its
// body replayed from what the first attempt read. A request that ends
// before any write reaches the Store (a malformed body, a refused role)
// reads the version by itself before its answer leaves, as a read without
// rows does. What is saved is the version read of every write: on SQLite a
// statement on a pool connection whose page cache each group commit
// empties, on PostgreSQL a round trip.

// cachedCheck is how a request authorized from the accounts cache
// confirms that authorization, carried by its Actor into every store call
// it makes: its reads feed probe (they read the version in their own
// snapshot), and its writes run only under guard (the Store checks the
// version in the write's transaction or statement). One of the two is
// set: probe for a read, guard for a write.
type cachedCheck struct {
	probe *store.VersionProbe
	guard *store.WriteGuard
}

// serveFromCachedAccess serves r from the accounts cache when it can and
// reports whether it did; false means nothing was written and the caller
// serves r the usual way.
func (k *Kit) serveFromCachedAccess(w http.ResponseWriter, r *http.Request, serve func(http.ResponseWriter, *http.Request, collectionCall)) bool {
	write := r.Method != http.MethodGet
	if write && r.Method == http.MethodHead || !k.defaultAuth {
		return false
	}
	if write && isMultipart(r) {
		return false // uploads stream: a replay would have to keep the body
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
	ctx := teamauth.WithUser(r.Context(), acc.User)
	var confirmed func() (ok, decided bool)
	var body *recordedBody
	check := &cachedCheck{}
	if write {
		guard := store.NewWriteGuard(k.auth.AuthCounter(), version)
		check.guard = guard
		confirmed = func() (bool, bool) {
			s := guard.State()
			return s == store.GuardConfirmed, s != store.GuardUnchecked
		}
		if r.Body != nil && r.Body != http.NoBody {
			body = &recordedBody{rc: r.Body}
		}
	} else {
		probe := store.NewVersionProbe(k.auth.AuthCounter())
		check.probe = probe
		confirmed = func() (bool, bool) {
			v, ok := probe.Value()
			return v == version, ok
		}
	}
	cw := &confirmingWriter{w: w, header: http.Header{}, confirm: func() bool {
		if ok, decided := confirmed(); decided {
			return ok
		}
		v, ok := k.auth.AuthVersion(r.Context())
		return ok && v == version
	}}
	attempt := r.WithContext(ctx)
	if body != nil {
		attempt.Body = body
	}
	serve(cw, attempt, collectionCall{
		c:     c,
		actor: Actor{UserID: acc.User.ID, TeamID: acc.Team.ID, Role: acc.Membership.Role, fromAccess: true, cached: check},
		acc:   acc,
	})
	if cw.decide() {
		return true
	}
	if body != nil {
		r.Body = body.replay()
	}
	return false
}

// recordedBody keeps what is read of a request body so that the request
// can be served again with the same body.
type recordedBody struct {
	rc   io.ReadCloser
	read []byte
}

func (b *recordedBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.read = append(b.read, p[:n]...)
	return n, err
}

// Close leaves the body open for the replay; the server closes it.
func (b *recordedBody) Close() error { return nil }

// replay returns the body again from its start: what was read, then the
// rest.
func (b *recordedBody) replay() io.ReadCloser {
	return struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(b.read), b.rc), b.rc}
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
