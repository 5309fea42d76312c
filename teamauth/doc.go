// Package teamauth is identity and tenancy for kit: who the caller is
// ([User]), which team a route names ([Team]), and what the caller may do
// there ([Membership] and its [Role]). kit serves team-scoped endpoints,
// /api/teams/{team}/..., where {team} is a team id or slug; this package
// turns such a request into an [Access] or into the right refusal.
//
// # Directory
//
// A [Directory] answers three questions: which team has this id or slug,
// which user has this id, and what membership a user has in a team. The
// guards need nothing else. [Store] is the default implementation, on
// kit's own tables (kit_users, kit_teams, kit_members, kit_tokens) through
// bun, on SQLite or PostgreSQL; create them with [Store.CreateTables] or
// with the bun/migrate migration of [Store.RegisterMigrations]. The Store
// also manages teams, users, members and API tokens, for kit's command line
// and for tests.
//
// Team slugs are lower-case letters, digits and hyphens and never look like
// a UUID, so a route value is an id when it is a UUID and a slug otherwise.
// The ids the Store makes are UUIDv7 strings.
//
// # Authentication
//
// An [Authenticator] finds the caller of a request. It answers
// [ErrNoCredentials] when the request has no credentials of its kind, so a
// [Chain] of them tries the next; a credential that is present but invalid
// ([ErrInvalidToken]) ends the chain with a 401 instead of falling through.
// The chain refuses a banned user with [ErrBanned] and answers
// [ErrUnauthorized] when nobody applies.
//
// The default chain of [Auth] is:
//
//  1. the user host middleware stored in the request context with
//     [WithUser] ([ContextAuthenticator]);
//  2. else "Authorization: Bearer kit_..." verified by the Directory when
//     it is a [TokenVerifier], as a *Store is ([BearerAuthenticator]);
//  3. else 401.
//
// API tokens are "kit_" and 32 random bytes in base64url. [Store.CreateToken]
// shows a token once; only its SHA-256 is stored, and a revoked token stops
// working at once.
//
// # Helpers and guards
//
// [Auth] holds a Directory and offers the server helpers of the
// specification: [Auth.ResolveTeamAndCheckMembership] (authenticate,
// resolve the route's team by id or slug, check membership: 401, 400, 404
// or 403) and [Auth.IsTeamMemberWithEvent]. Role checks work on the
// membership: [CanManageMembers] (admin or owner), [CanUpdateTeamSettings]
// (owner), [RequireRole].
//
// The same checks come as net/http middleware: [Auth.RequireTeamMember],
// [Auth.RequireTeamRole], [Auth.RequireSelf] (the route's {user} is the
// caller), [Auth.RequireAdmin] (the caller's global role is "admin") and
// [Auth.RequireUser]. A refused request is answered with kit's JSON error
// shape; an admitted one reaches the handler with [UserFrom] and, for the
// team guards, [AccessFrom] filled in.
//
// A super-admin (User.Role "admin") may use admin routes but is not a
// member of any team by virtue of that role.
//
// # Errors
//
// Every refusal is a sentinel ([ErrUnauthorized], [ErrNotMember],
// [ErrTeamNotFound], ...) to test with errors.Is. Each carries its HTTP
// status (an HTTPStatus() int method) and a message safe to show to the
// client; other errors, such as a failing database, are answered with a
// bare 500 and logged.
//
// # Bringing your own users
//
// A host that already has users, teams and sessions keeps them. It
// implements the three methods of Directory over its own tables, and its
// session middleware, having found the user, calls WithUser:
//
//	type directory struct{ db *sql.DB }
//
//	func (d directory) Team(ctx context.Context, idOrSlug string) (*teamauth.Team, error)
//	func (d directory) User(ctx context.Context, id string) (*teamauth.User, error)
//	func (d directory) Membership(ctx context.Context, teamID, userID string) (*teamauth.Membership, error)
//
//	func session(next http.Handler) http.Handler {
//		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
//			if u := userOfCookie(r); u != nil {
//				r = r.WithContext(teamauth.WithUser(r.Context(), u))
//			}
//			next.ServeHTTP(w, r)
//		})
//	}
//
//	auth := &teamauth.Auth{Directory: directory{db}}
//	mux.Handle("GET /api/teams/{team}/reports", auth.RequireTeamMember()(reports))
//	http.ListenAndServe(addr, session(mux))
//
// Its methods return ErrTeamNotFound, ErrUserNotFound and ErrNotMember for
// what is missing. To accept bearer tokens of its own as well, it
// implements [TokenVerifier] or sets [Auth.Authenticator] to a Chain.
//
// Routers other than http.ServeMux must make the team (and user) route
// values readable with r.PathValue, for example by calling r.SetPathValue
// in a small middleware.
package teamauth
