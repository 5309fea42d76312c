package teamauth

import "net/http"

// authError is the type of every sentinel in this package: a status and a
// public-safe message. wire.Error finds it through HTTPStatus and answers
// with its status and its Error text. A refinement (ErrInvalidToken) names
// the broader sentinel it refines as parent, so errors.Is matches both.
type authError struct {
	status int
	msg    string
	parent error
}

func (e *authError) Error() string   { return e.msg }
func (e *authError) HTTPStatus() int { return e.status }
func (e *authError) Unwrap() error   { return e.parent }

// errBadRequest is a 400 with msg.
func errBadRequest(msg string) error { return &authError{http.StatusBadRequest, msg, nil} }

// Errors callers branch on with errors.Is. Each carries its HTTP status
// (HTTPStatus() int) and a message that is safe to show to the client;
// anything wrapped around them with %w keeps that status and message on the
// wire.
var (
	// ErrNoCredentials (401) is returned by an [Authenticator] that finds
	// no credentials of its kind in the request, so that a [Chain] moves
	// on to the next one. [Auth] turns it into ErrUnauthorized.
	ErrNoCredentials error = &authError{http.StatusUnauthorized, "authentication required", nil}

	// ErrUnauthorized (401) means the request is not authenticated: no
	// authenticator recognized it, or its credentials are invalid.
	ErrUnauthorized error = &authError{http.StatusUnauthorized, "authentication required", nil}

	// ErrInvalidToken (401) refines ErrUnauthorized (errors.Is matches
	// both): a bearer token was presented but is malformed, unknown or
	// revoked. The three cases answer alike so that the answer reveals
	// nothing about which tokens exist.
	ErrInvalidToken error = &authError{http.StatusUnauthorized, "invalid token", ErrUnauthorized}

	// ErrBanned (403) refuses an authenticated user whose Banned flag is set.
	ErrBanned error = &authError{http.StatusForbidden, "user is banned", nil}

	// ErrNotMember (403) means the user is not a member of the team.
	ErrNotMember error = &authError{http.StatusForbidden, "not a member of this team", nil}

	// ErrInsufficientRole (403) means the member's team role is below the
	// one the action needs.
	ErrInsufficientRole error = &authError{http.StatusForbidden, "insufficient team role", nil}

	// ErrNotSelf (403) refuses access to another user's data.
	ErrNotSelf error = &authError{http.StatusForbidden, "access to another user's data is not allowed", nil}

	// ErrAdminRequired (403) means the route needs a user whose global role
	// is "admin".
	ErrAdminRequired error = &authError{http.StatusForbidden, "admin role required", nil}

	// ErrTeamNotFound (404) means no team has the given id or slug.
	ErrTeamNotFound error = &authError{http.StatusNotFound, "team not found", nil}

	// ErrUserNotFound (404) means no user has the given id.
	ErrUserNotFound error = &authError{http.StatusNotFound, "user not found", nil}

	// ErrTokenNotFound (404) means no token has the given id.
	ErrTokenNotFound error = &authError{http.StatusNotFound, "token not found", nil}

	// ErrSlugTaken (409) means another team already uses the slug.
	ErrSlugTaken error = &authError{http.StatusConflict, "team slug already taken", nil}

	// ErrTeamMissing (400) means the route carries no team id or slug.
	ErrTeamMissing error = &authError{http.StatusBadRequest, "team id missing", nil}

	// ErrInvalidSlug (400) means a team slug breaks the slug rules: 1 to 64
	// lower-case letters, digits and single hyphens, starting and ending
	// with a letter or digit, and not shaped like a UUID (so that a route
	// value is never ambiguous between an id and a slug).
	ErrInvalidSlug error = &authError{http.StatusBadRequest, "invalid team slug: use 1 to 64 lower-case letters, digits and hyphens, not a UUID", nil}

	// ErrInvalidID (400) means a team id given to CreateTeam is not a UUID.
	ErrInvalidID error = &authError{http.StatusBadRequest, "invalid team id: must be a UUID", nil}

	// ErrInvalidRole (400) means a team role is not owner, admin or member,
	// or a global user role is neither "" nor "admin".
	ErrInvalidRole error = &authError{http.StatusBadRequest, "invalid role", nil}

	// ErrWeakPassword (400) means a new password breaks the password
	// policy. The errors SetPassword returns refine it with a message
	// naming the rule broken.
	ErrWeakPassword error = &authError{http.StatusBadRequest, "password too weak", nil}

	// ErrInvalidCredentials (401) refines ErrUnauthorized: the email and
	// password given to sign in match no account. An unknown email and a
	// wrong password answer alike.
	ErrInvalidCredentials error = &authError{http.StatusUnauthorized, "invalid email or password", ErrUnauthorized}

	// ErrWrongPassword (403) refuses a password change whose current
	// password is wrong. It is not a 401: the caller is signed in.
	ErrWrongPassword error = &authError{http.StatusForbidden, "current password is wrong", nil}

	// ErrInvalidSession (401) refines ErrUnauthorized: a session cookie
	// was presented but is malformed, unknown, expired or ended.
	ErrInvalidSession error = &authError{http.StatusUnauthorized, "session expired or invalid", ErrUnauthorized}

	// ErrCrossOrigin (403) refuses a cookie-authenticated request that
	// changes state and comes from another origin.
	ErrCrossOrigin error = &authError{http.StatusForbidden, "cross-origin request refused", nil}

	// ErrTooManyAttempts (429) is matched by every *TooManyAttemptsError.
	ErrTooManyAttempts error = &authError{http.StatusTooManyRequests, "too many failed sign-ins", nil}

	// ErrOwnerRequired (403) means only a team owner may grant, take away
	// or remove the owner role.
	ErrOwnerRequired error = &authError{http.StatusForbidden, "only an owner may grant or remove the owner role", nil}

	// ErrAlreadyMember (409) means the user is a member of the team
	// already; change their role with PATCH instead.
	ErrAlreadyMember error = &authError{http.StatusConflict, "already a member of this team", nil}

	// ErrSelfLockout (409) refuses a super-admin banning or demoting
	// themselves.
	ErrSelfLockout error = &authError{http.StatusConflict, "a super-admin cannot ban or demote themselves", nil}

	// ErrInvalidName (400) means a team or user name is empty or blank.
	ErrInvalidName error = &authError{http.StatusBadRequest, "name must not be empty", nil}

	// ErrEmailTaken (409) means another user already has the email.
	ErrEmailTaken error = &authError{http.StatusConflict, "email already in use", nil}

	// ErrLastOwner (409) refuses to demote or remove the last owner of a
	// team.
	ErrLastOwner error = &authError{http.StatusConflict, "a team needs at least one owner", nil}

	// ErrTeamHasRecords (409) refuses to delete a team that still has
	// records, unless the deletion is forced.
	ErrTeamHasRecords error = &authError{http.StatusConflict, "team still has records; delete them first or pass ?force=true", nil}

	// ErrMemberNotFound (404) means the team has no membership with the
	// given id. A membership of another team answers alike.
	ErrMemberNotFound error = &authError{http.StatusNotFound, "member not found", nil}

	// ErrNotSupported (501) means the host's own Directory does not
	// support what the accounts route needs.
	ErrNotSupported error = &authError{http.StatusNotImplemented, "not supported by this server's accounts", nil}
)
