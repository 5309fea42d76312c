package teamauth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/internal/wire"
)

// routes guards one handler per guard on a ServeMux. Every handler answers
// "<guard> <user name>[ <team slug> <team role>]".
func routes(a *Auth) *http.ServeMux {
	echo := func(guard string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			u, _ := UserFrom(r.Context())
			msg := guard + " " + u.Name
			if acc, ok := AccessFrom(r.Context()); ok {
				msg += " " + acc.Team.Slug + " " + string(acc.Membership.Role)
			}
			fmt.Fprint(w, msg)
		})
	}
	mux := http.NewServeMux()
	mux.Handle("GET /teams/{team}/hello", a.RequireTeamMember()(echo("member")))
	mux.Handle("GET /teams/{team}/members", a.RequireTeamRole(RoleAdmin)(echo("admin")))
	mux.Handle("GET /teams/{team}/settings", a.RequireTeamRole(RoleOwner)(echo("owner")))
	mux.Handle("GET /teams/{team}/records", a.RequireTeamRole(RoleMember)(echo("records")))
	mux.Handle("GET /teamless", a.RequireTeamMember()(echo("teamless")))
	mux.Handle("GET /users/{user}/subscriptions", a.RequireSelf()(echo("self")))
	mux.Handle("GET /selfless", a.RequireSelf()(echo("selfless")))
	mux.Handle("GET /admin/stats", a.RequireAdmin()(echo("superadmin")))
	mux.Handle("GET /me", a.RequireUser()(echo("me")))
	return mux
}

// request is one call in a scenario table.
type request struct {
	path    string
	token   string // Authorization: Bearer <token> when not ""
	header  string // a raw Authorization header, when not ""
	ctxUser *User  // stored with WithUser, as host session middleware would
}

// do serves req through h and returns the recorded response.
func do(h http.Handler, req request) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodGet, req.path, nil)
	if req.token != "" {
		r.Header.Set("Authorization", "Bearer "+req.token)
	}
	if req.header != "" {
		r.Header.Set("Authorization", req.header)
	}
	if req.ctxUser != nil {
		r = r.WithContext(WithUser(r.Context(), req.ctxUser))
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// checkResponse asserts the status and, for errors, kit's error shape
// with the wanted message; for successes, the body.
func checkResponse(t *testing.T, w *httptest.ResponseRecorder, wantStatus int, want string) {
	t.Helper()
	if w.Code != wantStatus {
		t.Fatalf("got status %d, want %d (body %q)", w.Code, wantStatus, w.Body.String())
	}
	if wantStatus < 400 {
		if got := w.Body.String(); got != want {
			t.Errorf("got body %q, want %q", got, want)
		}
		return
	}
	var body wire.Body
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
		t.Fatalf("error body %q is not JSON: %v", w.Body.String(), err)
	}
	if body.Status != wantStatus || body.StatusText != http.StatusText(wantStatus) {
		t.Errorf("got body status %d %q, want %d %q", body.Status, body.StatusText, wantStatus, http.StatusText(wantStatus))
	}
	if body.Message != want {
		t.Errorf("got message %q, want %q", body.Message, want)
	}
}

func TestGuards(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		f := newFixture(t, e)
		h := routes(&Auth{Directory: f.store})
		tok, u := f.tokens, f.users
		upperID := strings.ToUpper(f.team.ID)

		tests := []struct {
			name       string
			req        request
			wantStatus int
			want       string // body on success, error message otherwise
		}{
			// Authentication.
			{"an anonymous caller is asked to authenticate",
				request{path: "/teams/acme/hello"}, 401, "authentication required"},
			{"an anonymous caller of an unknown team learns nothing about it",
				request{path: "/teams/nowhere/hello"}, 401, "authentication required"},
			{"a malformed bearer token is refused",
				request{path: "/teams/acme/hello", token: "not-a-token"}, 401, "invalid token"},
			{"a well-formed but unknown bearer token is refused",
				request{path: "/teams/acme/hello", token: "kit_" + strings.Repeat("A", 43)}, 401, "invalid token"},
			{"an empty bearer token is refused",
				request{path: "/teams/acme/hello", header: "Bearer "}, 401, "invalid token"},
			{"a revoked token is refused",
				request{path: "/teams/acme/hello", token: tok["revoked"]}, 401, "invalid token"},
			{"another authorization scheme is not authentication",
				request{path: "/teams/acme/hello", header: "Basic dXNlcjpwYXNz"}, 401, "authentication required"},
			{"a banned member with a valid token is refused",
				request{path: "/teams/acme/hello", token: tok["banned"]}, 403, "user is banned"},
			{"a banned user from the host session is refused",
				request{path: "/teams/acme/hello", ctxUser: u["banned"]}, 403, "user is banned"},
			{"the bearer scheme is matched without regard to case",
				request{path: "/teams/acme/hello", header: "bearer " + tok["member"]}, 200, "member member acme member"},

			// Team resolution and membership.
			{"a member reaches the team by slug",
				request{path: "/teams/acme/hello", token: tok["member"]}, 200, "member member acme member"},
			{"a member reaches the team by id",
				request{path: "/teams/" + f.team.ID + "/hello", token: tok["member"]}, 200, "member member acme member"},
			{"a member reaches the team by an upper-case id",
				request{path: "/teams/" + upperID + "/hello", token: tok["member"]}, 200, "member member acme member"},
			{"an unknown team slug is not found",
				request{path: "/teams/nowhere/hello", token: tok["member"]}, 404, "team not found"},
			{"an unknown team id is not found",
				request{path: "/teams/01900000-0000-7000-8000-000000000000/hello", token: tok["member"]}, 404, "team not found"},
			{"a user outside the team is refused",
				request{path: "/teams/acme/hello", token: tok["outsider"]}, 403, "not a member of this team"},
			{"a super-admin is not a member by virtue of the role",
				request{path: "/teams/acme/hello", token: tok["root"]}, 403, "not a member of this team"},
			{"a route without a team value is a bad request",
				request{path: "/teamless", token: tok["member"]}, 400, "team id missing"},

			// The host session user and tokens.
			{"the host session user is used",
				request{path: "/teams/acme/hello", ctxUser: u["admin"]}, 200, "member admin acme admin"},
			{"the host session user wins over a bearer token",
				request{path: "/teams/acme/hello", ctxUser: u["member"], token: tok["outsider"]}, 200, "member member acme member"},
			{"the host session user wins even when the token would be let in",
				request{path: "/teams/acme/hello", ctxUser: u["outsider"], token: tok["member"]}, 403, "not a member of this team"},
			{"the host session user wins over an invalid token",
				request{path: "/teams/acme/hello", ctxUser: u["member"], token: "garbage"}, 200, "member member acme member"},

			// Team roles.
			{"a member may use a route for members",
				request{path: "/teams/acme/records", token: tok["member"]}, 200, "records member acme member"},
			{"a member may not manage members",
				request{path: "/teams/acme/members", token: tok["member"]}, 403, "insufficient team role"},
			{"a team admin may manage members",
				request{path: "/teams/acme/members", token: tok["admin"]}, 200, "admin admin acme admin"},
			{"an owner may manage members",
				request{path: "/teams/acme/members", token: tok["owner"]}, 200, "admin owner acme owner"},
			{"a member may not update team settings",
				request{path: "/teams/acme/settings", token: tok["member"]}, 403, "insufficient team role"},
			{"a team admin may not update team settings",
				request{path: "/teams/acme/settings", token: tok["admin"]}, 403, "insufficient team role"},
			{"an owner may update team settings",
				request{path: "/teams/acme/settings", token: tok["owner"]}, 200, "owner owner acme owner"},
			{"a role guard refuses a non-member as a non-member",
				request{path: "/teams/acme/settings", token: tok["outsider"]}, 403, "not a member of this team"},
			{"a role guard refuses an anonymous caller",
				request{path: "/teams/acme/settings"}, 401, "authentication required"},

			// Self.
			{"a user may read their own data",
				request{path: "/users/" + u["member"].ID + "/subscriptions", token: tok["member"]}, 200, "self member"},
			{"a user may not read another user's data",
				request{path: "/users/" + u["owner"].ID + "/subscriptions", token: tok["member"]}, 403, "access to another user's data is not allowed"},
			{"a super-admin may not read another user's data through a self route",
				request{path: "/users/" + u["member"].ID + "/subscriptions", token: tok["root"]}, 403, "access to another user's data is not allowed"},
			{"a self route without a user value refuses",
				request{path: "/selfless", token: tok["member"]}, 403, "access to another user's data is not allowed"},
			{"a self route asks an anonymous caller to authenticate",
				request{path: "/users/" + u["member"].ID + "/subscriptions"}, 401, "authentication required"},

			// Super-admin.
			{"a super-admin may use an admin route",
				request{path: "/admin/stats", token: tok["root"]}, 200, "superadmin root"},
			{"a team owner may not use an admin route",
				request{path: "/admin/stats", token: tok["owner"]}, 403, "admin role required"},
			{"an admin route asks an anonymous caller to authenticate",
				request{path: "/admin/stats"}, 401, "authentication required"},

			// Any user.
			{"an authenticated user passes the user guard",
				request{path: "/me", token: tok["outsider"]}, 200, "me outsider"},
			{"the user guard asks an anonymous caller to authenticate",
				request{path: "/me"}, 401, "authentication required"},
			{"the user guard refuses a banned user",
				request{path: "/me", token: tok["banned"]}, 403, "user is banned"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				checkResponse(t, do(h, tt.req), tt.wantStatus, tt.want)
			})
		}
	})
}

func TestUnauthorizedAnswersCarryABearerChallenge(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		f := newFixture(t, e)
		h := routes(&Auth{Directory: f.store})
		tests := []struct {
			name string
			req  request
			want string
		}{
			{"an anonymous caller gets a plain challenge", request{path: "/me"}, `Bearer realm="kit"`},
			{"an invalid token gets an invalid_token challenge", request{path: "/me", token: "nope"}, `Bearer realm="kit", error="invalid_token"`},
			{"a successful request gets no challenge", request{path: "/me", token: f.tokens["member"]}, ""},
			{"a forbidden request gets no challenge", request{path: "/admin/stats", token: f.tokens["member"]}, ""},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				if got := do(h, tt.req).Header().Get("WWW-Authenticate"); got != tt.want {
					t.Errorf("got WWW-Authenticate %q, want %q", got, tt.want)
				}
			})
		}
	})
}

func TestCustomRouteParameters(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		f := newFixture(t, e)
		a := &Auth{Directory: f.store, TeamParam: "org", UserParam: "uid"}
		mux := http.NewServeMux()
		ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") })
		mux.Handle("GET /orgs/{org}", a.RequireTeamMember()(ok))
		mux.Handle("GET /people/{uid}", a.RequireSelf()(ok))
		t.Run("the team comes from the configured wildcard", func(t *testing.T) {
			checkResponse(t, do(mux, request{path: "/orgs/acme", token: f.tokens["member"]}), 200, "ok")
		})
		t.Run("the user comes from the configured wildcard", func(t *testing.T) {
			checkResponse(t, do(mux, request{path: "/people/" + f.users["member"].ID, token: f.tokens["member"]}), 200, "ok")
		})
	})
}

func TestResolveTeamAndCheckMembership(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		f := newFixture(t, e)
		a := &Auth{Directory: f.store}
		r := httptest.NewRequest(http.MethodGet, "/teams/acme/x", nil)
		r.SetPathValue("team", "acme")
		r = r.WithContext(WithUser(r.Context(), f.users["admin"]))

		acc, err := a.ResolveTeamAndCheckMembership(r)
		if err != nil {
			t.Fatalf("ResolveTeamAndCheckMembership: %v", err)
		}
		if acc.Team.ID != f.team.ID || acc.User.ID != f.users["admin"].ID {
			t.Errorf("got team %s and user %s, want %s and %s", acc.Team.ID, acc.User.ID, f.team.ID, f.users["admin"].ID)
		}
		if acc.Membership.TeamID != f.team.ID || acc.Membership.UserID != f.users["admin"].ID || acc.Membership.Role != RoleAdmin {
			t.Errorf("got membership %+v, want admin of %s", acc.Membership, f.team.ID)
		}
		if !CanManageMembers(acc.Membership) || CanUpdateTeamSettings(acc.Membership) {
			t.Errorf("got CanManageMembers %v, CanUpdateTeamSettings %v for a team admin, want true, false",
				CanManageMembers(acc.Membership), CanUpdateTeamSettings(acc.Membership))
		}
	})
}

func TestIsTeamMemberWithEvent(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		f := newFixture(t, e)
		a := &Auth{Directory: f.store}
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		tests := []struct {
			name    string
			teamID  string
			userID  string
			want    bool
			wantErr error
		}{
			{"a member is a member", f.team.ID, f.users["member"].ID, true, nil},
			{"an owner is a member", f.team.ID, f.users["owner"].ID, true, nil},
			{"an outsider is not a member and that is no error", f.team.ID, f.users["outsider"].ID, false, nil},
			{"a super-admin is not a member", f.team.ID, f.users["root"].ID, false, nil},
			{"a slug is not a team id", "acme", f.users["member"].ID, false, nil},
			{"an unknown user is not a member", f.team.ID, "nobody", false, nil},
			{"an empty team id is an error", "", f.users["member"].ID, false, ErrTeamMissing},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, err := a.IsTeamMemberWithEvent(r, tt.teamID, tt.userID)
				if got != tt.want || !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
					t.Errorf("got %v, %v; want %v, %v", got, err, tt.want, tt.wantErr)
				}
			})
		}
	})
}

// failingDirectory fails every lookup with an internal error.
type failingDirectory struct{}

var errExploded = errors.New("database exploded at 10.0.0.7")

func (failingDirectory) Team(context.Context, string) (*Team, error) { return nil, errExploded }
func (failingDirectory) User(context.Context, string) (*User, error) { return nil, errExploded }
func (failingDirectory) Membership(context.Context, string, string) (*Membership, error) {
	return nil, errExploded
}

func TestDirectoryFailures(t *testing.T) {
	var logs bytes.Buffer
	a := &Auth{Directory: failingDirectory{}, Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	member := &User{ID: "u1", Name: "Ada"}

	t.Run("a failing lookup is a 500 that reveals nothing and is logged", func(t *testing.T) {
		w := do(routes(a), request{path: "/teams/acme/hello", ctxUser: member})
		checkResponse(t, w, 500, "Internal Server Error")
		if strings.Contains(w.Body.String(), "10.0.0.7") {
			t.Errorf("got body %q, want no internal detail", w.Body.String())
		}
		if !strings.Contains(logs.String(), "10.0.0.7") {
			t.Errorf("got log %q, want the internal error logged", logs.String())
		}
	})
	t.Run("IsTeamMemberWithEvent returns a failing lookup's error", func(t *testing.T) {
		got, err := a.IsTeamMemberWithEvent(httptest.NewRequest(http.MethodGet, "/", nil), "t1", "u1")
		if got || !errors.Is(err, errExploded) {
			t.Errorf("got %v, %v; want false, %v", got, err, errExploded)
		}
	})
	t.Run("without a Directory resolving fails", func(t *testing.T) {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.SetPathValue("team", "acme")
		_, err := (&Auth{}).ResolveTeamAndCheckMembership(withUserRequest(r, member))
		if wire.Status(err) != 500 {
			t.Errorf("got status %d (%v), want 500", wire.Status(err), err)
		}
	})
}

// withUserRequest returns r carrying u as host middleware would.
func withUserRequest(r *http.Request, u *User) *http.Request {
	return r.WithContext(WithUser(r.Context(), u))
}

func TestGuardSetupMistakesPanic(t *testing.T) {
	tests := []struct {
		name  string
		build func()
	}{
		{"a team guard without a Directory panics", func() { (&Auth{}).RequireTeamMember() }},
		{"a role guard without a Directory panics", func() { (&Auth{}).RequireTeamRole(RoleAdmin) }},
		{"a role guard for an unknown role panics", func() { (&Auth{Directory: failingDirectory{}}).RequireTeamRole("boss") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("got no panic, want one")
				}
			}()
			tt.build()
		})
	}
}

// countingDirectory counts Team lookups.
type countingDirectory struct {
	Directory
	teams int
}

func (c *countingDirectory) Team(ctx context.Context, idOrSlug string) (*Team, error) {
	c.teams++
	return c.Directory.Team(ctx, idOrSlug)
}

func TestNestedTeamGuardsResolveOnce(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		f := newFixture(t, e)
		dir := &countingDirectory{Directory: f.store}
		a := &Auth{Directory: dir, Authenticator: ContextAuthenticator{}}
		h := a.RequireTeamMember()(a.RequireTeamRole(RoleAdmin)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "ok")
		})))
		mux := http.NewServeMux()
		mux.Handle("GET /teams/{team}/members", h)

		checkResponse(t, do(mux, request{path: "/teams/acme/members", ctxUser: f.users["owner"]}), 200, "ok")
		if dir.teams != 1 {
			t.Errorf("got %d team lookups, want 1", dir.teams)
		}
	})
}
