package kit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// newAccountsKit is a kit on a private in-memory SQLite database with
// "kinds" and "notes" (which refer to kinds), team acme and its owner ann, whose password is
// "ann-password-1", served by an httptest server.
func newAccountsKit(t *testing.T, cfg kit.Config) (*kit.Kit, *httptest.Server, *teamauth.User) {
	t.Helper()
	cfg.SQLitePath = ":memory:" + strings.ReplaceAll(t.Name(), "/", "_")
	cfg.Logger = slog.New(slog.DiscardHandler)
	cfg.Definitions = []collections.Definition{
		{Name: "kinds", Fields: []collections.Field{{Name: "label", Type: collections.TypeString}}},
		{Name: "notes", Fields: []collections.Field{{Name: "title", Type: collections.TypeString}, {Name: "kindId", Type: collections.TypeString, RefTarget: "kinds"}}},
	}
	k, err := kit.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	ctx := t.Context()
	acc := k.Accounts()
	acc.PasswordParams = teamauth.PasswordParams{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}
	team, err := acc.CreateTeam(ctx, teamauth.Team{Name: "Acme", Slug: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	ann, err := acc.CreateUser(ctx, teamauth.User{Name: "ann", Email: "ann@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := acc.AddMember(ctx, team.ID, ann.ID, teamauth.RoleOwner); err != nil {
		t.Fatal(err)
	}
	if err := acc.SetPassword(ctx, ann.ID, "ann-password-1"); err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/api/", k.Handler())
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return k, srv, ann
}

func sendJSON(t *testing.T, c *http.Client, method, url string, body any) (int, string) {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

func TestSignInWithACookieJarUseTheAPIAndSignOut(t *testing.T) {
	_, srv, _ := newAccountsKit(t, kit.Config{})
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Jar: jar}
	steps := []struct {
		name, method, path string
		body               any
		status             int
		contains           string
	}{
		{"before signing in the API refuses", "GET", "/api/me", nil, 401, ""},
		{"a wrong password is refused", "POST", "/api/auth/login", map[string]any{"email": "ann@example.com", "password": "nope"}, 401, "invalid email or password"},
		{"signing in answers the user", "POST", "/api/auth/login", map[string]any{"email": "ann@example.com", "password": "ann-password-1"}, 200, `"slug":"acme"`},
		{"the cookie authenticates GET /api/me", "GET", "/api/me", nil, 200, `"name":"ann"`},
		{"the cookie creates a record", "POST", "/api/teams/acme/app-notes", map[string]any{"title": "hello"}, 201, `"title":"hello"`},
		{"the cookie lists records", "GET", "/api/teams/acme/app-notes", nil, 200, `"title":"hello"`},
		{"the cookie lists the members", "GET", "/api/teams/acme/members", nil, 200, `"role":"owner"`},
		{"the team with records cannot be deleted", "DELETE", "/api/teams/acme", nil, 409, "force=true"},
		{"signing out", "POST", "/api/auth/logout", nil, 204, ""},
		{"after signing out the API refuses", "GET", "/api/teams/acme/app-notes", nil, 401, ""},
	}
	for _, s := range steps {
		status, body := sendJSON(t, c, s.method, srv.URL+s.path, s.body)
		if status != s.status || !strings.Contains(body, s.contains) {
			t.Fatalf("%s: got %d %s, want %d containing %q", s.name, status, body, s.status, s.contains)
		}
		if s.name == "the cookie lists records" {
			crossSiteCreateIsRefused(t, c, srv.URL)
		}
	}
}

// crossSiteCreateIsRefused posts a record with the jar's cookie as a page
// of another site would, and checks that it is refused and not stored.
func crossSiteCreateIsRefused(t *testing.T, c *http.Client, base string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), "POST", base+"/api/teams/acme/app-notes", strings.NewReader(`{"title":"forged"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", "https://evil.example")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 403 {
		t.Errorf("got %d for a cross-site cookie POST, want 403", res.StatusCode)
	}
	if _, body := sendJSON(t, c, "GET", base+"/api/teams/acme/app-notes", nil); strings.Contains(body, "forged") {
		t.Errorf("got the forged record stored, want none")
	}
}

func TestAnEndedSessionIsRefusedAtOnce(t *testing.T) {
	k, srv, ann := newAccountsKit(t, kit.Config{})
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	if status, body := sendJSON(t, c, "POST", srv.URL+"/api/auth/login", map[string]any{"email": "ann@example.com", "password": "ann-password-1"}); status != 200 {
		t.Fatalf("sign-in: got %d %s", status, body)
	}
	if status, _ := sendJSON(t, c, "GET", srv.URL+"/api/teams/acme/app-notes", nil); status != 200 {
		t.Fatalf("got %d, want 200 while signed in", status)
	}
	if _, err := k.Accounts().EndSessions(context.Background(), ann.ID); err != nil {
		t.Fatal(err)
	}
	if status, _ := sendJSON(t, c, "GET", srv.URL+"/api/teams/acme/app-notes", nil); status != 401 {
		t.Errorf("got %d on the request after the sessions were revoked, want 401", status)
	}
}

// hostDirectory is a host's own user and team directory with one team and
// one member, as a host with its own accounts would have.
type hostDirectory struct{}

func (hostDirectory) Team(_ context.Context, idOrSlug string) (*teamauth.Team, error) {
	if idOrSlug != "crew" {
		return nil, teamauth.ErrTeamNotFound
	}
	return &teamauth.Team{ID: "0190c3a8-1f2e-7c4d-9b5a-123456789abc", Name: "Crew", Slug: "crew"}, nil
}

func (hostDirectory) User(_ context.Context, id string) (*teamauth.User, error) {
	if id != "host-user" {
		return nil, teamauth.ErrUserNotFound
	}
	return &teamauth.User{ID: id, Name: "Host User"}, nil
}

func (hostDirectory) Membership(_ context.Context, teamID, userID string) (*teamauth.Membership, error) {
	if userID != "host-user" {
		return nil, teamauth.ErrNotMember
	}
	return &teamauth.Membership{ID: "m1", TeamID: teamID, UserID: userID, Role: teamauth.RoleOwner}, nil
}

func TestAccountsRoutesWithAHostsOwnDirectory(t *testing.T) {
	signedIn := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			u, _ := hostDirectory{}.User(r.Context(), "host-user")
			next.ServeHTTP(w, r.WithContext(teamauth.WithUser(r.Context(), u)))
		})
	}
	_, srv, _ := newAccountsKit(t, kit.Config{Directory: hostDirectory{}, Middleware: []func(http.Handler) http.Handler{signedIn}})
	tests := []struct {
		name, method, path string
		body               any
		status             int
		contains           string
	}{
		{"GET /me answers the host's user without teams", "GET", "/api/me", nil, 200, `"name":"Host User"`},
		{"GET /teams/{team} answers the host's team", "GET", "/api/teams/crew", nil, 200, `"slug":"crew"`},
		{"sign-in is not supported", "POST", "/api/auth/login", map[string]any{"email": "a", "password": "b"}, 501, ""},
		{"PATCH /me is not supported", "PATCH", "/api/me", map[string]any{"name": "x"}, 501, ""},
		{"members are not supported", "GET", "/api/teams/crew/members", nil, 501, ""},
		{"creating teams is not supported", "POST", "/api/teams", map[string]any{"name": "x"}, 501, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := sendJSON(t, http.DefaultClient, tt.method, srv.URL+tt.path, tt.body)
			if status != tt.status || !strings.Contains(body, tt.contains) {
				t.Errorf("got %d %s, want %d containing %q", status, body, tt.status, tt.contains)
			}
			if strings.Contains(body, `"teams"`) {
				t.Errorf("got teams in %s, want none from a host's directory", body)
			}
		})
	}
}

func TestForcedTeamDeletionDeletesItsRecordsFirst(t *testing.T) {
	k, srv, ann := newAccountsKit(t, kit.Config{})
	ctx := t.Context()
	acme, err := k.Accounts().Team(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	other, err := k.Accounts().CreateTeamWithOwner(ctx, teamauth.Team{Name: "Other", Slug: "other"}, ann.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, team := range []*teamauth.Team{acme, other} {
		a := kit.Actor{UserID: ann.ID, TeamID: team.ID, Role: teamauth.RoleOwner}
		for i := 0; i < 3; i++ {
			kind, err := k.Records("appKinds").Create(ctx, a, map[string]any{"label": "k"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := k.Records("appNotes").Create(ctx, a, map[string]any{"title": "n", "kindId": kind["id"]}); err != nil {
				t.Fatal(err)
			}
		}
	}
	token, _, err := k.Accounts().CreateToken(ctx, ann.ID, "t")
	if err != nil {
		t.Fatal(err)
	}
	del := func(path string) int {
		req, _ := http.NewRequestWithContext(ctx, "DELETE", srv.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	count := func(table, teamID string) int {
		n, err := k.DB().NewSelect().Table(table).Where("team_id = ?", teamID).Count(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return int(n)
	}
	if status := del("/api/teams/acme"); status != 409 || count("app_notes", acme.ID) != 3 {
		t.Fatalf("got %d and %d notes left, want 409 and all 3", status, count("app_notes", acme.ID))
	}
	if status := del("/api/teams/acme?force=true"); status != 204 {
		t.Fatalf("got %d for a forced deletion, want 204", status)
	}
	if n, m := count("app_notes", acme.ID), count("app_kinds", acme.ID); n != 0 || m != 0 {
		t.Errorf("got %d notes and %d kinds of the deleted team left, want none", n, m)
	}
	if n := count("app_notes", other.ID); n != 3 {
		t.Errorf("got %d notes of the other team, want its 3 untouched", n)
	}
	if _, err := k.Accounts().Team(ctx, "acme"); err == nil {
		t.Errorf("got team acme still there, want it deleted")
	}
}

func TestAMalformedTrustedOriginFailsNew(t *testing.T) {
	_, err := kit.New(kit.Config{SQLitePath: ":memory:" + t.Name(), Logger: slog.New(slog.DiscardHandler),
		Accounts: teamauth.AccountsConfig{TrustedOrigins: []string{"example.com/path"}}})
	if err == nil || !strings.Contains(err.Error(), "example.com/path") {
		t.Errorf("got %v, want an error naming the origin", err)
	}
}
