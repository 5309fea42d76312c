package teamauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
)

// TeamCreation says who may create teams over HTTP (POST /api/teams).
type TeamCreation string

// Who may create teams.
const (
	// TeamCreationSuperAdmins lets only super-admins create teams. The
	// default.
	TeamCreationSuperAdmins TeamCreation = "super-admins"
	// TeamCreationUsers lets every signed-in user create teams.
	TeamCreationUsers TeamCreation = "users"
)

// AccountsConfig configures sign-in and the accounts routes. Its zero value
// is the documented defaults.
type AccountsConfig struct {
	// CookieName names the session cookie. Default "kit_session".
	CookieName string
	// SecureCookies marks the session cookie Secure on every response, for
	// servers behind a proxy that ends TLS. Without it the cookie is
	// Secure when the request came over TLS.
	SecureCookies bool
	// Sessions are the session lifetimes: 7 days idle, 30 days at most by
	// default (see SessionLifetimes).
	Sessions SessionLifetimes
	// TeamCreation says who may create teams. Default
	// TeamCreationSuperAdmins.
	TeamCreation TeamCreation
	// TrustedOrigins are origins ("https://app.example.com") other than the
	// server's own whose cookie-authenticated requests that change state
	// are accepted. Every other cross-origin one is refused with 403.
	TrustedOrigins []string
	// LoginThrottle bounds failed sign-ins (see LoginThrottle).
	LoginThrottle LoginThrottle
}

func (c AccountsConfig) cookieName() string {
	if c.CookieName != "" {
		return c.CookieName
	}
	return "kit_session"
}

// crossOrigin builds the cross-origin protection of c, or fails on a
// malformed trusted origin.
func (c AccountsConfig) crossOrigin() (*http.CrossOriginProtection, error) {
	cop := http.NewCrossOriginProtection()
	for _, o := range c.TrustedOrigins {
		if err := cop.AddTrustedOrigin(o); err != nil {
			return nil, fmt.Errorf("teamauth: trusted origin %q: %w", o, err)
		}
	}
	return cop, nil
}

// SessionVerifier turns a session secret (the cookie's value) into its
// user. [Store] implements it.
type SessionVerifier interface {
	UserBySession(ctx context.Context, secret string) (*User, error)
}

// SessionAuthenticator authenticates the session cookie that
// POST /api/auth/login sets. It joins the default chain after the context
// user and the bearer token. A cookie-authenticated request that changes
// state (any method but GET, HEAD and OPTIONS) and that a browser marks as
// coming from another origin (Sec-Fetch-Site, or an Origin header that is
// not the Host) is refused with ErrCrossOrigin (403); requests without a
// session cookie, such as bearer-token ones, are never checked. Build it
// with [NewSessionAuthenticator].
type SessionAuthenticator struct {
	sessions   SessionVerifier
	cookieName string
	cop        *http.CrossOriginProtection
}

// NewSessionAuthenticator returns the authenticator of the session cookie
// named by cfg, verified by sessions. A malformed cfg.TrustedOrigins entry
// is an error.
func NewSessionAuthenticator(sessions SessionVerifier, cfg AccountsConfig) (*SessionAuthenticator, error) {
	cop, err := cfg.crossOrigin()
	if err != nil {
		return nil, err
	}
	return &SessionAuthenticator{sessions: sessions, cookieName: cfg.cookieName(), cop: cop}, nil
}

// Authenticate returns the user of r's session cookie: ErrNoCredentials
// without one, ErrCrossOrigin for a cross-origin request that changes
// state, ErrInvalidSession for a cookie naming no running session.
func (a *SessionAuthenticator) Authenticate(r *http.Request) (*User, error) {
	if a == nil || a.sessions == nil {
		return nil, ErrNoCredentials
	}
	c, err := r.Cookie(a.cookieName)
	if err != nil || c.Value == "" {
		return nil, ErrNoCredentials
	}
	if err := a.cop.Check(r); err != nil {
		return nil, ErrCrossOrigin
	}
	return a.sessions.UserBySession(r.Context(), c.Value)
}

// TeamRecords tells the accounts routes about a team's records, which live
// in tables teamauth does not know. kit supplies it.
type TeamRecords interface {
	// TeamHasRecords reports whether any collection holds a record of the
	// team (by id).
	TeamHasRecords(ctx context.Context, teamID string) (bool, error)
	// DeleteTeamRecords deletes every record of the team, acting as
	// userID, before DELETE /teams/{team}?force=true deletes the team. An
	// error leaves the team in place.
	DeleteTeamRecords(ctx context.Context, teamID, userID string) error
}

// Route is one accounts route: a method and a path below the API prefix
// ("/auth/login"), with its handler.
type Route struct {
	Method  string
	Path    string
	Handler http.Handler
}

// Accounts serves sign-in, the current user, teams, members and the
// super-admin user and team lists (see docs/accounts.md). kit mounts its [Accounts.Routes] under its prefix; a program
// without kit can serve [Accounts.Handler].
//
// With a Store, every route works. Without one (a host whose own
// Directory holds users and teams) only GET /me (without teams),
// POST /auth/logout and GET /teams/{team} work; the others answer 501
// ErrNotSupported, since they change data the host owns.
type Accounts struct {
	// Auth authenticates callers and resolves teams. Required.
	Auth *Auth
	// Store is kit's own account store, or nil when the host supplies its
	// own Directory.
	Store *Store
	// Prefix is where the routes are served, and the session cookie's
	// Path. Default "/api".
	Prefix string
	// Config is the sign-in configuration.
	Config AccountsConfig
	// Records answers whether a team still has records, for DELETE
	// /teams/{team}. Nil means teams never have records.
	Records TeamRecords

	now      func() time.Time // the clock; tests replace it
	initOnce sync.Once
	initErr  error
	limiter  *loginLimiter
	cop      *http.CrossOriginProtection
}

func (a *Accounts) init() error {
	a.initOnce.Do(func() {
		a.limiter = newLoginLimiter(a.Config.LoginThrottle)
		a.cop, a.initErr = a.Config.crossOrigin()
		if a.now == nil {
			a.now = time.Now
		}
	})
	return a.initErr
}

func (a *Accounts) prefix() string {
	if a.Prefix != "" {
		return strings.TrimSuffix(a.Prefix, "/")
	}
	return "/api"
}

// Routes returns the accounts routes, paths relative to the prefix. It
// panics when Auth is nil or Config.TrustedOrigins holds a malformed
// origin: setup mistakes.
func (a *Accounts) Routes() []Route {
	if a.Auth == nil {
		panic("teamauth: Accounts.Auth is nil")
	}
	if err := a.init(); err != nil {
		panic(err)
	}
	// Every route applies the text rule to its query parameters (400
	// naming the parameter) and path segments (answered as a missing id)
	// before its own work.
	h := func(method, path string, f func(http.ResponseWriter, *http.Request) error) Route {
		wildcards := pathWildcards(path)
		return Route{Method: method, Path: path, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			err := checkQuery(r)
			if err == nil {
				replaceBadSegments(r, wildcards)
				err = f(w, r)
			}
			if err != nil {
				var tm *TooManyAttemptsError
				if errors.As(err, &tm) {
					w.Header().Set("Retry-After", tm.retryAfter())
				}
				a.Auth.WriteError(w, r, err)
			}
		})}
	}
	return []Route{
		h(http.MethodPost, "/auth/login", a.login),
		h(http.MethodPost, "/auth/logout", a.logout),
		h(http.MethodGet, "/me", a.getMe),
		h(http.MethodPatch, "/me", a.patchMe),
		h(http.MethodPost, "/me/password", a.changePassword),
		h(http.MethodGet, "/me/tokens", a.listTokens),
		h(http.MethodPost, "/me/tokens", a.createToken),
		h(http.MethodDelete, "/me/tokens/{id}", a.revokeToken),
		h(http.MethodGet, "/users/{user}", a.selfOnly(a.getMe)),
		h(http.MethodGet, "/users/{user}/tokens", a.selfOnly(a.listTokens)),
		h(http.MethodPost, "/teams", a.createTeam),
		h(http.MethodGet, "/teams/{team}", a.getTeam),
		h(http.MethodPatch, "/teams/{team}", a.patchTeam),
		h(http.MethodDelete, "/teams/{team}", a.deleteTeam),
		h(http.MethodGet, "/teams/{team}/members", a.listMembers),
		h(http.MethodPost, "/teams/{team}/members", a.addMember),
		h(http.MethodPatch, "/teams/{team}/members/{member}", a.patchMember),
		h(http.MethodDelete, "/teams/{team}/members/{member}", a.removeMember),
		h(http.MethodGet, "/super-admin/users", a.listUsers),
		h(http.MethodGet, "/super-admin/users/{id}", a.getUser),
		h(http.MethodPatch, "/super-admin/users/{id}", a.patchUser),
		h(http.MethodGet, "/super-admin/teams", a.listTeams),
	}
}

// Handler serves Routes under Prefix on an http.ServeMux, for a program
// without kit. Unknown paths and wrong methods get the ServeMux's plain 404
// and 405; kit, which mounts Routes itself, answers those in its JSON
// error shape.
func (a *Accounts) Handler() http.Handler {
	mux := http.NewServeMux()
	for _, rt := range a.Routes() {
		mux.Handle(rt.Method+" "+a.prefix()+rt.Path, rt.Handler)
	}
	return mux
}

// store returns the Store, or ErrNotSupported without one.
func (a *Accounts) store() (*Store, error) {
	if a.Store == nil {
		return nil, ErrNotSupported
	}
	return a.Store, nil
}

// callerAndStore authenticates r (401 and the other Authenticate errors
// first) and returns the caller with the accounts store (ErrNotSupported
// when none is configured): the preamble of the signed-in accounts routes.
func (a *Accounts) callerAndStore(r *http.Request) (*User, *Store, error) {
	u, err := a.Auth.Authenticate(r)
	if err != nil {
		return nil, nil, err
	}
	s, err := a.store()
	return u, s, err
}
