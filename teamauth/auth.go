package teamauth

import (
	"context"
	"errors"
	"net/http"
	"strings"
)

// An Authenticator finds the user a request comes from.
//
// It returns ErrNoCredentials when the request carries no credentials of
// its kind, so that a [Chain] tries the next one, and another error (such as
// ErrInvalidToken) when it carries credentials of its kind that are not
// valid: a bad credential ends the chain, it does not fall through to
// anonymous or to another authenticator.
type Authenticator interface {
	Authenticate(r *http.Request) (*User, error)
}

// TokenVerifier turns a bearer token into its user. [Store] implements it;
// a host with its own tokens implements it to use [BearerAuthenticator].
// A token that is not valid should give ErrInvalidToken (or any error
// errors.Is matches as ErrUnauthorized).
type TokenVerifier interface {
	UserByToken(ctx context.Context, token string) (*User, error)
}

type userKey struct{}

// WithUser returns a copy of ctx carrying u as the authenticated user. A
// host whose own session middleware has authenticated the request stores
// the user this way; [ContextAuthenticator] (first in the default chain)
// picks it up.
func WithUser(ctx context.Context, u *User) context.Context {
	return context.WithValue(ctx, userKey{}, u)
}

// UserFrom returns the user stored in ctx by [WithUser] (or by the guards
// of [Auth]), and whether there is one.
func UserFrom(ctx context.Context) (*User, bool) {
	u, ok := ctx.Value(userKey{}).(*User)
	return u, ok && u != nil
}

// ContextAuthenticator authenticates the user that host middleware stored
// in the request context with [WithUser]. Without one it returns
// ErrNoCredentials.
type ContextAuthenticator struct{}

// Authenticate returns the user in r's context, or ErrNoCredentials.
func (ContextAuthenticator) Authenticate(r *http.Request) (*User, error) {
	if u, ok := UserFrom(r.Context()); ok {
		return u, nil
	}
	return nil, ErrNoCredentials
}

// BearerAuthenticator authenticates "Authorization: Bearer <token>" with
// Tokens. Without an Authorization header, or with another scheme, it
// returns ErrNoCredentials; a bearer token that Tokens refuses is
// ErrInvalidToken. Tokens are read from the header only, never from the
// URL, where they would end up in logs.
type BearerAuthenticator struct {
	// Tokens verifies the token. When nil the authenticator never applies.
	Tokens TokenVerifier
}

// Authenticate returns the user of r's bearer token.
func (b BearerAuthenticator) Authenticate(r *http.Request) (*User, error) {
	h := r.Header.Get("Authorization")
	scheme, token, _ := strings.Cut(h, " ")
	if h == "" || !strings.EqualFold(scheme, "Bearer") || b.Tokens == nil {
		return nil, ErrNoCredentials
	}
	token = strings.TrimSpace(token)
	if token == "" {
		return nil, ErrInvalidToken
	}
	u, err := b.Tokens.UserByToken(r.Context(), token)
	switch {
	case err == nil && u != nil:
		return u, nil
	case err == nil,
		errors.Is(err, ErrNoCredentials),
		errors.Is(err, ErrUserNotFound),
		errors.Is(err, ErrTokenNotFound):
		// Whatever the verifier's reason, a presented token that names no
		// user is an invalid token, never a fall-through.
		return nil, ErrInvalidToken
	default:
		return nil, err
	}
}

// Chain returns an Authenticator that asks auths in order. The first to
// return a user wins; one returning ErrNoCredentials (or no user and no
// error) passes to the next; any other error ends the chain with that error.
// When no authenticator applies the chain returns ErrUnauthorized. A banned
// user is refused with ErrBanned. Nil authenticators are skipped.
func Chain(auths ...Authenticator) Authenticator {
	return append(chain(nil), auths...)
}

type chain []Authenticator

func (c chain) Authenticate(r *http.Request) (*User, error) {
	for _, a := range c {
		if a == nil {
			continue
		}
		u, err := a.Authenticate(r)
		switch {
		case err != nil && errors.Is(err, ErrNoCredentials):
			continue
		case err != nil:
			return nil, err
		case u == nil:
			continue
		case u.Banned:
			return nil, ErrBanned
		default:
			return u, nil
		}
	}
	return nil, ErrUnauthorized
}
