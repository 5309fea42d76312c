package teamauth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/collectionkit/kit/internal/wire"
)

// Auth holds what the team helpers and guards need. Only Directory is
// required; every other field's zero value works.
//
// The guards (RequireTeamMember, RequireTeamRole, RequireSelf,
// RequireAdmin, RequireUser) are plain net/http middleware. They answer a
// refused request with kit's JSON error shape and never call the next
// handler; an admitted request reaches it with the user in its context
// ([UserFrom]) and, for the team guards, the resolved team and membership
// ([AccessFrom]).
type Auth struct {
	// Directory finds teams, users and memberships: a [*Store], or the
	// host's own implementation. Required: the team guards panic when they
	// are built without one, and ResolveTeamAndCheckMembership fails.
	Directory Directory

	// Authenticator finds the caller. Nil means the default chain: the user
	// that host middleware stored with [WithUser], else a bearer token
	// verified by Directory when it is a [TokenVerifier] (a *Store is),
	// else ErrUnauthorized.
	Authenticator Authenticator

	// TeamParam names the route wildcard holding the team id or slug, read
	// with r.PathValue. Default "team", as in "/api/teams/{team}/...".
	TeamParam string

	// UserParam names the route wildcard RequireSelf compares with the
	// caller's id. Default "user".
	UserParam string

	// Logger receives the errors answered with a 500. Nil means
	// slog.Default().
	Logger *slog.Logger
}

// Access is what ResolveTeamAndCheckMembership establishes: the caller, the
// team named by the route, and the caller's membership in it.
type Access struct {
	Team       *Team       `json:"team"`
	User       *User       `json:"user"`
	Membership *Membership `json:"membership"`
}

type accessKey struct{}

// WithAccess stores acc, and its user, in ctx, as the team guards do, so
// handlers downstream read it with [AccessFrom].
func WithAccess(ctx context.Context, acc *Access) context.Context {
	return WithUser(context.WithValue(ctx, accessKey{}, acc), acc.User)
}

// AccessFrom returns the Access that RequireTeamMember or RequireTeamRole
// stored in ctx, and whether there is one.
func AccessFrom(ctx context.Context) (*Access, bool) {
	acc, ok := ctx.Value(accessKey{}).(*Access)
	return acc, ok && acc != nil
}

func (a *Auth) teamParam() string {
	if a.TeamParam != "" {
		return a.TeamParam
	}
	return "team"
}

func (a *Auth) userParam() string {
	if a.UserParam != "" {
		return a.UserParam
	}
	return "user"
}

// errNoDirectory is a setup mistake, answered as a 500.
var errNoDirectory = errors.New("teamauth: Auth.Directory is nil")

func (a *Auth) authenticator() Authenticator {
	if a.Authenticator != nil {
		return a.Authenticator
	}
	tokens, _ := a.Directory.(TokenVerifier)
	return chain{ContextAuthenticator{}, BearerAuthenticator{Tokens: tokens}}
}

// Authenticate returns the caller of r, using Authenticator (or the
// default chain). It makes any authenticator behave like a [Chain] at the
// end: ErrNoCredentials becomes ErrUnauthorized, and a banned user is
// refused with ErrBanned.
func (a *Auth) Authenticate(r *http.Request) (*User, error) {
	u, err := a.authenticator().Authenticate(r)
	switch {
	case err != nil && errors.Is(err, ErrNoCredentials):
		return nil, ErrUnauthorized
	case err != nil:
		return nil, err
	case u == nil:
		return nil, ErrUnauthorized
	case u.Banned:
		return nil, ErrBanned
	}
	return u, nil
}

// ResolveTeamAndCheckMembership authenticates the caller, resolves the team
// the route names by id or slug, and checks that the caller is a member, in
// that order: an anonymous caller learns nothing about which teams exist.
//
// It fails with ErrUnauthorized (401) or ErrBanned (403) for the caller,
// ErrTeamMissing (400) when the route has no team value, ErrTeamNotFound
// (404), and ErrNotMember (403). A super-admin is no member by virtue of
// that role: super-admin routes are separate ([Auth.RequireAdmin]).
//
// When the Directory is a [*Store], the token and team lookups of the call
// share one read of the Store's cache version (see "Caching" in the
// package documentation).
func (a *Auth) ResolveTeamAndCheckMembership(r *http.Request) (*Access, error) {
	if a.Directory == nil {
		return nil, errNoDirectory
	}
	if s, ok := a.Directory.(*Store); ok && !s.uncached {
		// Scoped to this call: r is the caller's, not changed.
		r = r.WithContext(s.withRequestVersion(r.Context()))
	}
	u, err := a.Authenticate(r)
	if err != nil {
		return nil, err
	}
	idOrSlug := r.PathValue(a.teamParam())
	if idOrSlug == "" {
		return nil, ErrTeamMissing
	}
	ctx := r.Context()
	if f, ok := a.Directory.(TeamMembershipFinder); ok {
		team, m, err := f.TeamAndMembership(ctx, idOrSlug, u.ID)
		switch {
		case err != nil:
			return nil, err
		case team == nil:
			return nil, ErrTeamNotFound
		case m == nil:
			return nil, ErrNotMember
		}
		return &Access{Team: team, User: u, Membership: m}, nil
	}
	team, err := a.Directory.Team(ctx, idOrSlug)
	if err != nil {
		return nil, err
	}
	if team == nil {
		return nil, ErrTeamNotFound
	}
	m, err := a.Directory.Membership(ctx, team.ID, u.ID)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, ErrNotMember
	}
	return &Access{Team: team, User: u, Membership: m}, nil
}

// IsTeamMemberWithEvent reports whether the user is a member of the team
// (by team id, not slug), using r only for its context. A non-member is
// false with a nil error; an empty teamID is ErrTeamMissing; lookup
// failures are returned.
func (a *Auth) IsTeamMemberWithEvent(r *http.Request, teamID, userID string) (bool, error) {
	if a.Directory == nil {
		return false, errNoDirectory
	}
	if teamID == "" {
		return false, ErrTeamMissing
	}
	m, err := a.Directory.Membership(r.Context(), teamID, userID)
	if errors.Is(err, ErrNotMember) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return m != nil, nil
}

// CanManageMembers reports whether the membership may manage the team's
// members: role admin or owner.
func CanManageMembers(m *Membership) bool { return m != nil && m.Role.AtLeast(RoleAdmin) }

// CanUpdateTeamSettings reports whether the membership may update the
// team's settings: role owner.
func CanUpdateTeamSettings(m *Membership) bool { return m != nil && m.Role.AtLeast(RoleOwner) }

// RequireRole returns nil when the membership's role is min or higher,
// ErrInsufficientRole (403) when it is lower, and ErrNotMember when m is
// nil.
func RequireRole(m *Membership, min Role) error {
	if m == nil {
		return ErrNotMember
	}
	if !m.Role.AtLeast(min) {
		return ErrInsufficientRole
	}
	return nil
}

// WriteError answers a refused request the way the guards do: kit's JSON
// error shape through wire.Error, with a WWW-Authenticate challenge on a
// 401. Handlers that call ResolveTeamAndCheckMembership themselves can use
// it to answer alike.
func (a *Auth) WriteError(w http.ResponseWriter, r *http.Request, err error) {
	if wire.Status(err) == http.StatusUnauthorized {
		challenge := `Bearer realm="kit"`
		if errors.Is(err, ErrInvalidToken) {
			challenge += `, error="invalid_token"`
		}
		w.Header().Set("WWW-Authenticate", challenge)
	}
	wire.Error(w, r, a.Logger, err)
}

// RequireTeamMember admits members of the team the route names (see
// ResolveTeamAndCheckMembership) and stores the [Access] in the request
// context. It panics when a.Directory is nil.
func (a *Auth) RequireTeamMember() func(http.Handler) http.Handler {
	a.mustHaveDirectory("RequireTeamMember")
	return a.teamGuard(func(*Access) error { return nil })
}

// RequireTeamRole admits members of the route's team whose role is min or
// higher; others get ErrInsufficientRole (403). It stores the [Access] in
// the request context, and reuses one an outer RequireTeamMember stored. It
// panics when min is not a valid role or a.Directory is nil.
func (a *Auth) RequireTeamRole(min Role) func(http.Handler) http.Handler {
	if !min.Valid() {
		panic(fmt.Sprintf("teamauth: RequireTeamRole(%q): role must be owner, admin or member", string(min)))
	}
	a.mustHaveDirectory("RequireTeamRole")
	return a.teamGuard(func(acc *Access) error { return RequireRole(acc.Membership, min) })
}

func (a *Auth) mustHaveDirectory(guard string) {
	if a.Directory == nil {
		panic("teamauth: " + guard + " needs Auth.Directory")
	}
}

// teamGuard resolves the team access (or reuses the one in the context)
// and admits the request when check passes.
func (a *Auth) teamGuard(check func(*Access) error) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			acc, ok := AccessFrom(r.Context())
			if !ok {
				var err error
				if acc, err = a.ResolveTeamAndCheckMembership(r); err != nil {
					a.WriteError(w, r, err)
					return
				}
				r = r.WithContext(WithAccess(r.Context(), acc))
			}
			if err := check(acc); err != nil {
				a.WriteError(w, r, err)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// userGuard authenticates the caller and admits the request when check
// passes, with the user stored in the context.
func (a *Auth) userGuard(check func(*http.Request, *User) error) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			u, err := a.Authenticate(r)
			if err == nil {
				err = check(r, u)
			}
			if err != nil {
				a.WriteError(w, r, err)
				return
			}
			next.ServeHTTP(w, r.WithContext(WithUser(r.Context(), u)))
		})
	}
}

// RequireUser admits any authenticated, unbanned caller and stores the user
// in the request context ([UserFrom]).
func (a *Auth) RequireUser() func(http.Handler) http.Handler {
	return a.userGuard(func(*http.Request, *User) error { return nil })
}

// RequireSelf admits the caller only when the route's user wildcard
// (UserParam, default "user") is the caller's own id, and answers
// ErrNotSelf (403) otherwise, including when the route has no such value.
func (a *Auth) RequireSelf() func(http.Handler) http.Handler {
	return a.userGuard(func(r *http.Request, u *User) error {
		if id := r.PathValue(a.userParam()); id == "" || id != u.ID {
			return ErrNotSelf
		}
		return nil
	})
}

// RequireAdmin admits only super-admins (User.Role is UserRoleAdmin) and
// answers ErrAdminRequired (403) to everyone else.
func (a *Auth) RequireAdmin() func(http.Handler) http.Handler {
	return a.userGuard(func(_ *http.Request, u *User) error {
		if !u.IsAdmin() {
			return ErrAdminRequired
		}
		return nil
	})
}
