package teamauth

import (
	"net/http"
	"sort"
	"strings"
)

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

	// ErrInvalidName (400) means a team, user or token name is empty or
	// blank: it holds no character but white space and invisible format
	// characters (such as U+200B ZERO WIDTH SPACE).
	ErrInvalidName error = &authError{http.StatusBadRequest, "name must not be empty", nil}

	// ErrInvalidInput (400) is matched by every *FieldError and
	// *QueryError: input of an accounts route that breaks a rule, such as
	// the text rule (valid UTF-8, no lone UTF-16 surrogate, no NUL).
	ErrInvalidInput error = &authError{http.StatusBadRequest, "invalid input", nil}

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

// FieldError (400) reports the members of an accounts request body that
// break a rule, with a message per member, in the shape of a record's
// ValidationError: on the wire, data.fields maps each member's JSON name
// to its message. errors.Is matches ErrInvalidInput, and Err when set
// (ErrInvalidName for a blank name).
type FieldError struct {
	// Fields maps a body member's JSON name to what is wrong with it.
	Fields map[string]string
	// Err is the sentinel of the rule broken, or nil.
	Err error
}

// Error lists the members and their messages, in name order.
func (e *FieldError) Error() string {
	names := make([]string, 0, len(e.Fields))
	for n := range e.Fields {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + ": " + e.Fields[n]
	}
	return "invalid body: " + strings.Join(parts, "; ")
}

// HTTPStatus is 400.
func (e *FieldError) HTTPStatus() int { return http.StatusBadRequest }

// ErrorData puts the per-member messages under "fields".
func (e *FieldError) ErrorData() any { return map[string]any{"fields": e.Fields} }

// Unwrap lets errors.Is match ErrInvalidInput and Err.
func (e *FieldError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrInvalidInput, e.Err}
	}
	return []error{ErrInvalidInput}
}

// fieldError is a *FieldError naming one member.
func fieldError(field, msg string, sentinel error) *FieldError {
	return &FieldError{Fields: map[string]string{field: msg}, Err: sentinel}
}

// QueryError (400) reports a query parameter of an accounts route that
// breaks a rule, as the record lists do: on the wire, data.param names
// it. errors.Is matches ErrInvalidInput.
type QueryError struct {
	// Param is the query parameter at fault ("search", "page", ...).
	Param string
	// Message says what is wrong.
	Message string
}

// Error returns "invalid <param>: <message>".
func (e *QueryError) Error() string { return "invalid " + e.Param + ": " + e.Message }

// HTTPStatus is 400.
func (e *QueryError) HTTPStatus() int { return http.StatusBadRequest }

// ErrorData names the parameter.
func (e *QueryError) ErrorData() any { return map[string]any{"param": e.Param} }

// Unwrap lets errors.Is(err, ErrInvalidInput) match.
func (e *QueryError) Unwrap() error { return ErrInvalidInput }
