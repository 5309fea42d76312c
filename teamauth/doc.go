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
// with the bun/migrate migrations of [Store.RegisterMigrations]. The Store
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
// kit's own default chain adds a third authenticator after the bearer
// token: the session cookie of POST /api/auth/login
// ([SessionAuthenticator]).
//
// API tokens are "kit_" and 32 random bytes in base64url. [Store.CreateToken]
// shows a token once; only its SHA-256 is stored, and a revoked token stops
// working at once.
//
// # Passwords and sessions
//
// [Store.SetPassword] checks a password against the [PasswordPolicy] (at
// least 10 characters, at most 256 bytes, not blank, not one repeated
// character, not the account's email: each refusal is a 400 naming the
// rule, errors.Is [ErrWeakPassword]) and stores its argon2id hash, with
// its parameters, as a PHC string in kit_passwords (see [PasswordParams];
// the defaults are [DefaultPasswordParams]). A hash of older parameters is
// replaced at the next successful sign-in. [Store.CheckPassword] answers an
// unknown email, a user without a password and a wrong password alike
// ([ErrInvalidCredentials]) and in the same time: it verifies a dummy hash
// when there is no account.
//
// A session ([Store.CreateSession]) is "kits_" and 32 random bytes, kept in
// kit_sessions only as its SHA-256. It ends after 7 days unused or 30 days
// in all ([SessionLifetimes]), at sign-out, at a password change, at a ban,
// or with [Store.EndSessions] (kit user sessions revoke). Sessions count
// in kit_auth_state like the other identity tables (migration
// 20261121000102_teamauth_sessions), so an ended session is refused from
// the next request on, in every process; renewing one, which writes
// last_seen_at alone at most once a minute, does not count.
//
// # Accounts routes
//
// [Accounts] serves, below kit's prefix: POST /auth/login and /auth/logout;
// GET|PATCH /me, POST /me/password, GET|POST /me/tokens, DELETE
// /me/tokens/{id};
// GET /users/{user} and /users/{user}/tokens (the caller alone);
// POST /teams; GET|PATCH|DELETE /teams/{team}; GET|POST
// /teams/{team}/members, PATCH|DELETE /teams/{team}/members/{member};
// GET /super-admin/users, /super-admin/teams, GET|PATCH
// /super-admin/users/{id}. kit mounts them; [AccountsConfig] (kit's
// Config.Accounts) sets the cookie, the lifetimes, who may create teams,
// trusted origins and the [LoginThrottle].
//
// A session cookie is HttpOnly, SameSite=Lax, Path the prefix, and Secure
// over TLS or with AccountsConfig.SecureCookies. A cookie-authenticated
// request that changes state and comes from another origin is refused
// with [ErrCrossOrigin] (403), checked with http.CrossOriginProtection;
// bearer-token requests are not affected. Failed sign-ins are counted per
// account and per client address in bounded memory; past the limit the
// answer is 429 with Retry-After ([TooManyAttemptsError]).
//
// Every text the routes take holds the record fields' rule: valid UTF-8,
// no \u escape of a lone UTF-16 surrogate, no NUL. A body member that
// breaks it is a 400 [FieldError] naming the member (data.fields), a
// query parameter a 400 [QueryError] naming it (data.param); a path
// segment is answered as a missing id; an email or password to sign in
// is a failed sign-in (401, counted). A body must be application/json in
// UTF-8 (415 otherwise). A team, user or token name that shows nothing is
// a 400 naming "name" ([ErrInvalidName]).
//
// # Caching
//
// Every team-scoped request needs the caller's token and the route's team
// with the caller's membership. A Store answers both lookups,
// [Store.UserByToken] (and [Store.UserBySession]) and
// [Store.TeamAndMembership], from a cache in
// memory, and never with authorization that is out of date: the next
// request after a change commits sees it, whichever process made the
// change (this one, the kit command line, another kit instance, or SQL
// the host runs itself).
//
// The guarantee comes from the database. kit_auth_state holds one counter,
// and triggers on kit_users, kit_teams, kit_members, kit_tokens and
// kit_sessions
// increment it in the transaction of every INSERT, UPDATE and DELETE
// (PostgreSQL: one statement-level trigger per table, TRUNCATE included;
// SQLite: row-level triggers). A lookup reads the counter before it reads
// the data and keeps what it read under that value; a cached answer is
// used only while the counter still has that value. Writing a token's
// last_used_at alone, which UserByToken does at most once a minute per
// token, does not count as a change. [Store.CreateTables] and the second
// migration of [Store.RegisterMigrations] create the counter and the
// triggers.
//
// A request therefore costs one small query, reading the counter, instead
// of two lookups: [Auth.ResolveTeamAndCheckMembership] (and the team
// guards, which call it) reads the counter once, at the first lookup of
// the request, when its Directory is a *Store; a lookup outside such a
// request reads it itself. A request refused before any lookup reads
// nothing.
//
// Each of the two caches holds at most 4096 entries and starts over when
// full; every change empties them in effect. Unknown teams and unknown or
// revoked tokens are not cached. Callers get copies they may change.
// [Store.Team], [Store.User] and [Store.Membership] are not cached, and
// neither is a host's own [Directory] or [TokenVerifier].
//
// Writes that fire no triggers are not seen: triggers disabled with ALTER
// TABLE ... DISABLE TRIGGER, or PostgreSQL sessions with
// session_replication_role = replica (logical replication, some restore
// tools). After such a write, or when editing kit_auth_state by hand,
// increment its version:
//
//	UPDATE kit_auth_state SET version = version + 1 WHERE id = 1
//
// A database without kit_auth_state (not migrated yet) works uncached.
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
// [ErrTeamNotFound], ...) to test with errors.Is, or a *[FieldError] or
// *[QueryError] naming the input at fault, which match [ErrInvalidInput]. Each carries its HTTP
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
// what is missing. The accounts routes then answer only what such a
// Directory supports: GET /me (without teams), GET /teams/{team} and
// POST /auth/logout; the rest answer 501 ([ErrNotSupported]), since they
// would change users and teams the host owns. To accept bearer tokens of its own as well, it
// implements [TokenVerifier] or sets [Auth.Authenticator] to a Chain.
//
// Routers other than http.ServeMux must make the team (and user) route
// values readable with r.PathValue, for example by calling r.SetPathValue
// in a small middleware.
package teamauth
