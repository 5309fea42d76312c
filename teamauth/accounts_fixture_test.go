package teamauth

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/collectionkit/kit/internal/testdb"
)

// accountsFixture serves the accounts routes under /api over the fixture's
// store, with kit's default chain (context user, bearer token, session
// cookie). Besides the fixture's cast it has:
//
//	team "other" whose owner is "othermember" (another team's member)
//	sessions["member"]  a running session of member
//	sessions["ended"]   an ended session of member
//	records             teams that "have records" for DELETE /teams/{team}
//
// Every user has the password "<name>-password!".
type accountsFixture struct {
	*fixture
	accounts *Accounts
	srv      *httptest.Server
	other    *Team
	sessions map[string]string
	records  fakeRecords
}

// fakeRecords is the TeamRecords kit supplies, reduced to its answer: the
// records live in kit's collection tables, which this package cannot see.
type fakeRecords map[string]bool

func (f fakeRecords) TeamHasRecords(_ context.Context, teamID string) (bool, error) {
	return f[teamID], nil
}

func (f fakeRecords) DeleteTeamRecords(_ context.Context, teamID, _ string) error {
	delete(f, teamID)
	return nil
}

func newAccountsFixture(t testing.TB, e testdb.Engine, cfg AccountsConfig) *accountsFixture {
	t.Helper()
	ctx := t.Context()
	f := &accountsFixture{fixture: newFixtureOn(t, testdb.Open(t, e)), sessions: map[string]string{}, records: fakeRecords{}}
	s := f.store
	s.PasswordParams = cheapParams
	var err error
	if f.other, err = s.CreateTeam(ctx, Team{Name: "Other", Slug: "other"}); err != nil {
		t.Fatal(err)
	}
	om, err := s.CreateUser(ctx, User{Name: "othermember", Email: "othermember@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	f.users["othermember"] = om
	if _, err := s.AddMember(ctx, f.other.ID, om.ID, RoleOwner); err != nil {
		t.Fatal(err)
	}
	if f.tokens["othermember"], _, err = s.CreateToken(ctx, om.ID, "test"); err != nil {
		t.Fatal(err)
	}
	for name, u := range f.users {
		if err := s.SetPassword(ctx, u.ID, name+"-password!"); err != nil {
			t.Fatalf("SetPassword(%s): %v", name, err)
		}
	}
	for _, name := range []string{"member", "ended"} {
		secret, _, err := s.CreateSession(ctx, f.users["member"].ID)
		if err != nil {
			t.Fatal(err)
		}
		f.sessions[name] = secret
	}
	if err := s.EndSession(ctx, f.sessions["ended"]); err != nil {
		t.Fatal(err)
	}
	sessions, err := NewSessionAuthenticator(s, cfg)
	if err != nil {
		t.Fatal(err)
	}
	auth := &Auth{Directory: s, Authenticator: Chain(ContextAuthenticator{}, BearerAuthenticator{Tokens: s}, sessions)}
	f.accounts = &Accounts{Auth: auth, Store: s, Prefix: "/api", Config: cfg, Records: f.records}
	f.srv = httptest.NewServer(f.accounts.Handler())
	t.Cleanup(f.srv.Close)
	return f
}

// call is one request of a test.
type call struct {
	method, path string
	as           string // a token name, "session:<name>", or "" for anonymous
	body         any    // marshalled to JSON unless a string (sent as is)
	contentType  string // default application/json when there is a body
	header       map[string]string
}

// response is what a call got.
type response struct {
	status int
	header http.Header
	body   string
}

func (f *accountsFixture) do(t testing.TB, c call) response {
	t.Helper()
	var body io.Reader
	if c.body != nil {
		if s, ok := c.body.(string); ok {
			body = bytes.NewBufferString(s)
		} else {
			b, err := json.Marshal(c.body)
			if err != nil {
				t.Fatal(err)
			}
			body = bytes.NewReader(b)
		}
	}
	req, err := http.NewRequestWithContext(t.Context(), c.method, f.srv.URL+c.path, body)
	if err != nil {
		t.Fatal(err)
	}
	if c.body != nil {
		ct := c.contentType
		if ct == "" {
			ct = "application/json"
		}
		req.Header.Set("Content-Type", ct)
	}
	switch {
	case c.as == "":
	case len(c.as) > 8 && c.as[:8] == "session:":
		req.AddCookie(&http.Cookie{Name: "kit_session", Value: f.sessions[c.as[8:]]})
	default:
		tok, ok := f.tokens[c.as]
		if !ok {
			t.Fatalf("no token %q", c.as)
		}
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	for k, v := range c.header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return response{status: res.StatusCode, header: res.Header, body: string(b)}
}

// version is kit_auth_state's version: it moves with every write to the
// identity tables, so an unchanged version means nothing was written.
func (f *accountsFixture) version(t *testing.T) int64 {
	t.Helper()
	v, ok := f.store.readVersion(t.Context())
	if !ok {
		t.Fatal("no kit_auth_state version")
	}
	return v
}
