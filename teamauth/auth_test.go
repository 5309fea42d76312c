package teamauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

// stubAuth returns a fixed answer and records that it was asked.
type stubAuth struct {
	name  string
	user  *User
	err   error
	asked *[]string
}

func (s stubAuth) Authenticate(*http.Request) (*User, error) {
	*s.asked = append(*s.asked, s.name)
	return s.user, s.err
}

func TestChain(t *testing.T) {
	ada := &User{ID: "1", Name: "ada"}
	bob := &User{ID: "2", Name: "bob"}
	banned := &User{ID: "3", Name: "eve", Banned: true}
	errDB := errors.New("database down")

	type step struct {
		user *User
		err  error
	}
	tests := []struct {
		name      string
		steps     []step
		wantUser  *User
		wantErr   error
		wantAsked int
	}{
		{"the first user wins", []step{{ada, nil}, {bob, nil}}, ada, nil, 1},
		{"an authenticator without credentials passes to the next", []step{{nil, ErrNoCredentials}, {bob, nil}}, bob, nil, 2},
		{"a wrapped ErrNoCredentials also passes", []step{{nil, fmt.Errorf("cookie: %w", ErrNoCredentials)}, {bob, nil}}, bob, nil, 2},
		{"no user and no error passes to the next", []step{{nil, nil}, {bob, nil}}, bob, nil, 2},
		{"when nobody applies the chain is unauthorized", []step{{nil, ErrNoCredentials}, {nil, ErrNoCredentials}}, nil, ErrUnauthorized, 2},
		{"an empty chain is unauthorized", nil, nil, ErrUnauthorized, 0},
		{"an invalid credential ends the chain", []step{{nil, ErrInvalidToken}, {bob, nil}}, nil, ErrInvalidToken, 1},
		{"an internal error ends the chain", []step{{nil, errDB}, {bob, nil}}, nil, errDB, 1},
		{"a banned user is refused and ends the chain", []step{{banned, nil}, {bob, nil}}, nil, ErrBanned, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked []string
			var auths []Authenticator
			for i, s := range tt.steps {
				auths = append(auths, stubAuth{name: fmt.Sprint(i), user: s.user, err: s.err, asked: &asked})
			}
			u, err := Chain(auths...).Authenticate(httptest.NewRequest(http.MethodGet, "/", nil))
			if u != tt.wantUser || !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Errorf("got %v, %v; want %v, %v", u, err, tt.wantUser, tt.wantErr)
			}
			if len(asked) != tt.wantAsked {
				t.Errorf("got %d authenticators asked, want %d", len(asked), tt.wantAsked)
			}
		})
	}

	t.Run("nil authenticators are skipped", func(t *testing.T) {
		var asked []string
		u, err := Chain(nil, stubAuth{user: ada, asked: &asked}).Authenticate(httptest.NewRequest(http.MethodGet, "/", nil))
		if u != ada || err != nil {
			t.Errorf("got %v, %v; want %v, nil", u, err, ada)
		}
	})
}

// verifierFunc adapts a function to TokenVerifier.
type verifierFunc func(ctx context.Context, token string) (*User, error)

func (f verifierFunc) UserByToken(ctx context.Context, token string) (*User, error) {
	return f(ctx, token)
}

func TestBearerAuthenticator(t *testing.T) {
	ada := &User{ID: "1", Name: "ada"}
	errDB := errors.New("database down")
	verifier := verifierFunc(func(_ context.Context, token string) (*User, error) {
		switch token {
		case "good":
			return ada, nil
		case "gone":
			return nil, ErrUserNotFound
		case "nil":
			return nil, nil
		case "down":
			return nil, errDB
		}
		return nil, ErrInvalidToken
	})
	tests := []struct {
		name     string
		header   string
		tokens   TokenVerifier
		wantUser *User
		wantErr  error
	}{
		{"no Authorization header does not apply", "", verifier, nil, ErrNoCredentials},
		{"another scheme does not apply", "Basic dXNlcjpwYXNz", verifier, nil, ErrNoCredentials},
		{"the scheme word alone is an invalid token", "Bearer", verifier, nil, ErrInvalidToken},
		{"without a verifier bearer tokens do not apply", "Bearer good", nil, nil, ErrNoCredentials},
		{"a valid token gives its user", "Bearer good", verifier, ada, nil},
		{"the scheme is matched without regard to case", "BEARER good", verifier, ada, nil},
		{"surrounding spaces around the token are ignored", "Bearer  good ", verifier, ada, nil},
		{"an empty token is invalid", "Bearer  ", verifier, nil, ErrInvalidToken},
		{"a refused token is invalid", "Bearer bad", verifier, nil, ErrInvalidToken},
		{"a token naming no user is invalid", "Bearer gone", verifier, nil, ErrInvalidToken},
		{"a verifier answering nothing makes the token invalid", "Bearer nil", verifier, nil, ErrInvalidToken},
		{"a verifier failure is passed on", "Bearer down", verifier, nil, errDB},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			if tt.header != "" {
				r.Header.Set("Authorization", tt.header)
			}
			u, err := BearerAuthenticator{Tokens: tt.tokens}.Authenticate(r)
			if u != tt.wantUser || !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Errorf("got %v, %v; want %v, %v", u, err, tt.wantUser, tt.wantErr)
			}
		})
	}
	t.Run("an invalid token is unauthorized", func(t *testing.T) {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Header.Set("Authorization", "Bearer bad")
		if _, err := (BearerAuthenticator{Tokens: verifier}).Authenticate(r); !errors.Is(err, ErrUnauthorized) {
			t.Errorf("got %v, want an error matching ErrUnauthorized", err)
		}
	})
}

func TestContextAuthenticator(t *testing.T) {
	ada := &User{ID: "1", Name: "ada"}
	tests := []struct {
		name     string
		ctx      context.Context
		wantUser *User
		wantErr  error
	}{
		{"a user in the context is the caller", WithUser(context.Background(), ada), ada, nil},
		{"no user in the context does not apply", context.Background(), nil, ErrNoCredentials},
		{"a nil user in the context does not apply", WithUser(context.Background(), nil), nil, ErrNoCredentials},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/", nil).WithContext(tt.ctx)
			u, err := ContextAuthenticator{}.Authenticate(r)
			if u != tt.wantUser || !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Errorf("got %v, %v; want %v, %v", u, err, tt.wantUser, tt.wantErr)
			}
		})
	}
}

func TestAuthAuthenticate(t *testing.T) {
	ada := &User{ID: "1", Name: "ada"}
	eve := &User{ID: "2", Name: "eve", Banned: true}
	var asked []string
	tests := []struct {
		name     string
		auth     Authenticator
		wantUser *User
		wantErr  error
	}{
		{"a lone authenticator without credentials becomes unauthorized", stubAuth{err: ErrNoCredentials, asked: &asked}, nil, ErrUnauthorized},
		{"a lone authenticator answering nothing becomes unauthorized", stubAuth{asked: &asked}, nil, ErrUnauthorized},
		{"a lone authenticator's banned user is refused", stubAuth{user: eve, asked: &asked}, nil, ErrBanned},
		{"a lone authenticator's user is the caller", stubAuth{user: ada, asked: &asked}, ada, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &Auth{Authenticator: tt.auth}
			u, err := a.Authenticate(httptest.NewRequest(http.MethodGet, "/", nil))
			if u != tt.wantUser || !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Errorf("got %v, %v; want %v, %v", u, err, tt.wantUser, tt.wantErr)
			}
		})
	}
}

// hostDirectory is a host's own user and team tables, reduced to maps: the
// three methods of Directory and nothing else.
type hostDirectory struct {
	teams   map[string]*Team // by id and by slug
	members map[[2]string]*Membership
}

func (d hostDirectory) Team(_ context.Context, idOrSlug string) (*Team, error) {
	if t, ok := d.teams[idOrSlug]; ok {
		return t, nil
	}
	return nil, ErrTeamNotFound
}

func (d hostDirectory) User(context.Context, string) (*User, error) { return nil, ErrUserNotFound }

func (d hostDirectory) Membership(_ context.Context, teamID, userID string) (*Membership, error) {
	if m, ok := d.members[[2]string{teamID, userID}]; ok {
		return m, nil
	}
	return nil, ErrNotMember
}

func TestHostDirectoryWithSessionMiddleware(t *testing.T) {
	team := &Team{ID: "t-1", Slug: "acme", Name: "Acme"}
	ada := &User{ID: "u-1", Name: "ada"}
	dir := hostDirectory{
		teams:   map[string]*Team{"t-1": team, "acme": team},
		members: map[[2]string]*Membership{{"t-1", "u-1"}: {ID: "m-1", TeamID: "t-1", UserID: "u-1", Role: RoleMember}},
	}
	// The host's session middleware: here, a cookie naming the user.
	session := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if c, err := r.Cookie("session"); err == nil && c.Value == "ada" {
				r = r.WithContext(WithUser(r.Context(), ada))
			}
			next.ServeHTTP(w, r)
		})
	}
	mux := routes(&Auth{Directory: dir})
	h := session(mux)

	tests := []struct {
		name       string
		cookie     string
		token      string
		wantStatus int
		want       string
	}{
		{"the session user reaches the team", "ada", "", 200, "member ada acme member"},
		{"without a session the caller must authenticate", "", "", 401, "authentication required"},
		{"a bearer token is not accepted when the directory verifies none", "", "kit_whatever", 401, "authentication required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/teams/acme/hello", nil)
			if tt.cookie != "" {
				r.AddCookie(&http.Cookie{Name: "session", Value: tt.cookie})
			}
			if tt.token != "" {
				r.Header.Set("Authorization", "Bearer "+tt.token)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			checkResponse(t, w, tt.wantStatus, tt.want)
		})
	}
}
