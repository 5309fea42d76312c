package teamauth

import (
	"strings"
	"testing"

	"github.com/collectionkit/kit/internal/testdb"
)

// scenario is one row of the accounts route table.
type scenario struct {
	name        string
	call        call
	status      int
	contains    []string
	notContains []string
	writes      bool // whether the identity tables change (kit_auth_state moves)
}

// expand replaces in path "$m:<user>" with that user's membership id in
// acme (or in other for othermember) and "$tok:<user>" with the id of the
// user's "test" token.
func (f *accountsFixture) expand(t *testing.T, path string) string {
	t.Helper()
	for name, u := range f.users {
		if strings.Contains(path, "$m:"+name) {
			team := f.team.ID
			if name == "othermember" {
				team = f.other.ID
			}
			m, err := f.store.Membership(t.Context(), team, u.ID)
			if err != nil {
				t.Fatalf("membership of %s: %v", name, err)
			}
			path = strings.ReplaceAll(path, "$m:"+name, m.ID)
		}
		if strings.Contains(path, "$tok:"+name) {
			toks, err := f.store.Tokens(t.Context(), u.ID)
			if err != nil || len(toks) == 0 {
				t.Fatalf("tokens of %s: %v", name, err)
			}
			path = strings.ReplaceAll(path, "$tok:"+name, toks[len(toks)-1].ID)
		}
		path = strings.ReplaceAll(path, "$u:"+name+"$", u.ID)
	}
	return path
}

func runScenarios(t *testing.T, e testdb.Engine, cfg AccountsConfig, tests []scenario) {
	t.Helper()
	// Scenarios that must write nothing share one fixture (each checks
	// that it wrote nothing); the others get a fresh one each.
	shared := newAccountsFixture(t, e, cfg)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := shared
			if tt.writes {
				f = newAccountsFixture(t, e, cfg)
			}
			f.records[f.team.ID] = true // acme has records; other has none
			c := tt.call
			c.path = f.expand(t, c.path)
			if m, ok := c.body.(map[string]any); ok {
				expanded := make(map[string]any, len(m)) // the table is shared by the engines
				for k, v := range m {
					if s, ok := v.(string); ok {
						v = f.expand(t, s)
					}
					expanded[k] = v
				}
				c.body = expanded
			}
			before := f.version(t)
			res := f.do(t, c)
			if res.status != tt.status {
				t.Fatalf("got status %d (%s), want %d", res.status, res.body, tt.status)
			}
			for _, s := range tt.contains {
				if !strings.Contains(res.body, s) {
					t.Errorf("got body %s, want it to contain %q", res.body, s)
				}
			}
			for _, s := range tt.notContains {
				if strings.Contains(res.body, s) {
					t.Errorf("got body %s, want it not to contain %q", res.body, s)
				}
			}
			if changed := f.version(t) != before; changed != tt.writes {
				t.Errorf("got identity tables changed %v, want %v", changed, tt.writes)
			}
		})
	}
}

func TestAccountsRoutes(t *testing.T) {
	json := func(v map[string]any) map[string]any { return v }
	tests := []scenario{
		// GET /me
		{name: "me: a member sees themselves and their team and role", call: call{method: "GET", path: "/api/me", as: "member"},
			status: 200, contains: []string{`"name":"member"`, `"slug":"acme"`, `"role":"member"`}, notContains: []string{"password", "other"}},
		{name: "me: a session cookie works", call: call{method: "GET", path: "/api/me", as: "session:member"},
			status: 200, contains: []string{`"name":"member"`}},
		{name: "me: a super-admin has the global role", call: call{method: "GET", path: "/api/me", as: "root"},
			status: 200, contains: []string{`"role":"admin"`, `"teams":[]`}},
		{name: "me: anonymous is 401", call: call{method: "GET", path: "/api/me"}, status: 401},
		{name: "me: a banned user is 403", call: call{method: "GET", path: "/api/me", as: "banned"}, status: 403, contains: []string{"banned"}},
		{name: "me: a revoked token is 401", call: call{method: "GET", path: "/api/me", as: "revoked"}, status: 401, contains: []string{"invalid token"}},
		{name: "me: an ended session is 401", call: call{method: "GET", path: "/api/me", as: "session:ended"}, status: 401, contains: []string{"session"}},
		// PATCH /me
		{name: "patch me: a member renames themselves", call: call{method: "PATCH", path: "/api/me", as: "member", body: json(map[string]any{"name": "Mem", "image": "https://x/y.png"})},
			status: 200, contains: []string{`"name":"Mem"`, `"image":"https://x/y.png"`}, writes: true},
		{name: "patch me: an empty body changes nothing and answers the caller", call: call{method: "PATCH", path: "/api/me", as: "member", body: "{}"},
			status: 200, contains: []string{`"name":"member"`, `"email":"member@example.com"`}},
		{name: "patch me: the email cannot be changed here", call: call{method: "PATCH", path: "/api/me", as: "member", body: json(map[string]any{"email": "x@example.com"})},
			status: 400, contains: []string{`unknown field \"email\"`}},
		{name: "patch me: an empty name is 400", call: call{method: "PATCH", path: "/api/me", as: "member", body: json(map[string]any{"name": " "})}, status: 400},
		{name: "patch me: a non-JSON body is 415", call: call{method: "PATCH", path: "/api/me", as: "member", body: "name=x", contentType: "application/x-www-form-urlencoded"}, status: 415},
		{name: "patch me: malformed JSON is 400", call: call{method: "PATCH", path: "/api/me", as: "member", body: `{"name":`}, status: 400},
		{name: "patch me: two JSON values are 400", call: call{method: "PATCH", path: "/api/me", as: "member", body: `{"name":"a"}{"name":"b"}`}, status: 400},
		{name: "patch me: an array body is 400", call: call{method: "PATCH", path: "/api/me", as: "member", body: `[]`}, status: 400},
		{name: "patch me: anonymous is 401", call: call{method: "PATCH", path: "/api/me", body: json(map[string]any{"name": "x"})}, status: 401},
		{name: "patch me: a cross-origin cookie request is 403", call: call{method: "PATCH", path: "/api/me", as: "session:member", body: json(map[string]any{"name": "x"}),
			header: map[string]string{"Sec-Fetch-Site": "cross-site"}}, status: 403, contains: []string{"cross-origin"}},
		{name: "patch me: a cross-origin bearer request is fine", call: call{method: "PATCH", path: "/api/me", as: "member", body: json(map[string]any{"name": "x"}),
			header: map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}}, status: 200, writes: true},
		{name: "patch me: a same-origin cookie request is fine", call: call{method: "PATCH", path: "/api/me", as: "session:member", body: json(map[string]any{"name": "x"}),
			header: map[string]string{"Sec-Fetch-Site": "same-origin"}}, status: 200, writes: true},
		// POST /me/password
		{name: "password: a member changes theirs", call: call{method: "POST", path: "/api/me/password", as: "member", body: json(map[string]any{"currentPassword": "member-password!", "newPassword": "a brand new password"})},
			status: 204, writes: true},
		{name: "password: a wrong current password is 403", call: call{method: "POST", path: "/api/me/password", as: "member", body: json(map[string]any{"currentPassword": "nope", "newPassword": "a brand new password"})},
			status: 403, contains: []string{"current password is wrong"}},
		{name: "password: an empty new password is 400 naming the rule", call: call{method: "POST", path: "/api/me/password", as: "member", body: json(map[string]any{"currentPassword": "member-password!", "newPassword": ""})},
			status: 400, contains: []string{"password is empty"}},
		{name: "password: a short new password is 400 naming the rule", call: call{method: "POST", path: "/api/me/password", as: "session:member", body: json(map[string]any{"currentPassword": "member-password!", "newPassword": "short"})},
			status: 400, contains: []string{"shorter than 10 characters"}},
		{name: "password: the email as password is 400 naming the rule", call: call{method: "POST", path: "/api/me/password", as: "member", body: json(map[string]any{"currentPassword": "member-password!", "newPassword": "member@example.com"})},
			status: 400, contains: []string{"must not be the account's email"}},
		{name: "password: anonymous is 401", call: call{method: "POST", path: "/api/me/password", body: json(map[string]any{"currentPassword": "x", "newPassword": "a brand new password"})}, status: 401},
		// tokens
		{name: "tokens: a member lists their own tokens without secrets", call: call{method: "GET", path: "/api/me/tokens", as: "member"},
			status: 200, contains: []string{`"name":"test"`, `"name":"old"`}, notContains: []string{"kit_", "hash"}},
		{name: "tokens: creating one shows it once", call: call{method: "POST", path: "/api/me/tokens", as: "member", body: json(map[string]any{"name": "ci"})},
			status: 201, contains: []string{`"token":"kit_`, `"name":"ci"`}, writes: true},
		{name: "tokens: a token needs a name", call: call{method: "POST", path: "/api/me/tokens", as: "member", body: json(map[string]any{})}, status: 400},
		{name: "tokens: revoking one's own token", call: call{method: "DELETE", path: "/api/me/tokens/$tok:member", as: "session:member"}, status: 204, writes: true},
		{name: "tokens: another user's token is 404", call: call{method: "DELETE", path: "/api/me/tokens/$tok:admin", as: "member"}, status: 404},
		{name: "tokens: anonymous is 401", call: call{method: "GET", path: "/api/me/tokens"}, status: 401},
		// /users/{user}
		{name: "users: a user reads their own data", call: call{method: "GET", path: "/api/users/$u:member$", as: "member"}, status: 200, contains: []string{`"name":"member"`}},
		{name: "users: another user's data is 403", call: call{method: "GET", path: "/api/users/$u:admin$/tokens", as: "member"}, status: 403, notContains: []string{`"name":"test"`}},
		{name: "users: a super-admin gets no other user's data here", call: call{method: "GET", path: "/api/users/$u:member$", as: "root"}, status: 403},
		{name: "users: anonymous is 401", call: call{method: "GET", path: "/api/users/$u:member$"}, status: 401},
		// POST /teams
		{name: "create team: a super-admin creates one and owns it", call: call{method: "POST", path: "/api/teams", as: "root", body: json(map[string]any{"name": "New Team"})},
			status: 201, contains: []string{`"slug":"new-team"`, `"role":"owner"`}, writes: true},
		{name: "create team: a user may not by default", call: call{method: "POST", path: "/api/teams", as: "member", body: json(map[string]any{"name": "Mine"})}, status: 403},
		{name: "create team: a taken slug is 409", call: call{method: "POST", path: "/api/teams", as: "root", body: json(map[string]any{"name": "Acme"})}, status: 409},
		{name: "create team: a bad slug is 400", call: call{method: "POST", path: "/api/teams", as: "root", body: json(map[string]any{"name": "X", "slug": "Bad Slug"})}, status: 400},
		{name: "create team: anonymous is 401", call: call{method: "POST", path: "/api/teams", body: json(map[string]any{"name": "X"})}, status: 401},
		// GET/PATCH/DELETE /teams/{team}
		{name: "team: a member reads it", call: call{method: "GET", path: "/api/teams/acme", as: "member"}, status: 200, contains: []string{`"slug":"acme"`, `"role":"member"`}},
		{name: "team: another team's member is 403", call: call{method: "GET", path: "/api/teams/acme", as: "othermember"}, status: 403},
		{name: "team: a super-admin is no member", call: call{method: "GET", path: "/api/teams/acme", as: "root"}, status: 403},
		{name: "team: an unknown team is 404", call: call{method: "GET", path: "/api/teams/nope", as: "member"}, status: 404},
		{name: "team: anonymous is 401", call: call{method: "GET", path: "/api/teams/acme"}, status: 401},
		{name: "patch team: an owner renames it", call: call{method: "PATCH", path: "/api/teams/acme", as: "owner", body: json(map[string]any{"name": "Acme 2", "settings": map[string]any{"theme": "dark"}})},
			status: 200, contains: []string{`"name":"Acme 2"`, `"theme":"dark"`}, writes: true},
		{name: "patch team: an admin is 403", call: call{method: "PATCH", path: "/api/teams/acme", as: "admin", body: json(map[string]any{"name": "x"})}, status: 403},
		{name: "patch team: a taken slug is 409", call: call{method: "PATCH", path: "/api/teams/acme", as: "owner", body: json(map[string]any{"slug": "other"})}, status: 409},
		{name: "patch team: an unknown field is 400", call: call{method: "PATCH", path: "/api/teams/acme", as: "owner", body: json(map[string]any{"id": "x"})}, status: 400},
		{name: "delete team: refused while it has records", call: call{method: "DELETE", path: "/api/teams/acme", as: "owner"}, status: 409, contains: []string{"force=true"}},
		{name: "delete team: forced", call: call{method: "DELETE", path: "/api/teams/acme?force=true", as: "owner"}, status: 204, writes: true},
		{name: "delete team: an empty team goes", call: call{method: "DELETE", path: "/api/teams/other", as: "othermember"}, status: 204, writes: true},
		{name: "delete team: an admin is 403", call: call{method: "DELETE", path: "/api/teams/acme?force=true", as: "admin"}, status: 403},
		// members
		{name: "members: a member lists them", call: call{method: "GET", path: "/api/teams/acme/members", as: "member"},
			status: 200, contains: []string{`"name":"owner"`, `"role":"admin"`, `"userId":`}, notContains: []string{"othermember", "@example.com"}},
		{name: "members: another team's member is 403", call: call{method: "GET", path: "/api/teams/acme/members", as: "othermember"}, status: 403},
		{name: "add member: an admin adds by email", call: call{method: "POST", path: "/api/teams/acme/members", as: "admin", body: json(map[string]any{"email": "OUTSIDER@example.com", "role": "member"})},
			status: 201, contains: []string{`"name":"outsider"`, `"role":"member"`}, writes: true},
		{name: "add member: an owner adds an owner by id", call: call{method: "POST", path: "/api/teams/acme/members", as: "owner", body: json(map[string]any{"userId": "$u:outsider$", "role": "owner"})},
			status: 201, contains: []string{`"role":"owner"`}, writes: true},
		{name: "add member: an admin granting owner is 403", call: call{method: "POST", path: "/api/teams/acme/members", as: "admin", body: json(map[string]any{"email": "outsider@example.com", "role": "owner"})}, status: 403},
		{name: "add member: a member managing members is 403", call: call{method: "POST", path: "/api/teams/acme/members", as: "member", body: json(map[string]any{"email": "outsider@example.com", "role": "member"})}, status: 403},
		{name: "add member: an existing member is 409", call: call{method: "POST", path: "/api/teams/acme/members", as: "owner", body: json(map[string]any{"email": "member@example.com", "role": "admin"})}, status: 409},
		{name: "add member: an unknown user is 404", call: call{method: "POST", path: "/api/teams/acme/members", as: "owner", body: json(map[string]any{"email": "nobody@example.com", "role": "member"})}, status: 404},
		{name: "add member: both userId and email is 400", call: call{method: "POST", path: "/api/teams/acme/members", as: "owner", body: json(map[string]any{"email": "outsider@example.com", "userId": "x", "role": "member"})}, status: 400},
		{name: "add member: a bad role is 400", call: call{method: "POST", path: "/api/teams/acme/members", as: "owner", body: json(map[string]any{"email": "outsider@example.com", "role": "boss"})}, status: 400},
		{name: "patch member: an admin demotes a member to member", call: call{method: "PATCH", path: "/api/teams/acme/members/$m:member", as: "admin", body: json(map[string]any{"role": "admin"})},
			status: 200, contains: []string{`"role":"admin"`}, writes: true},
		{name: "patch member: an admin granting owner is 403", call: call{method: "PATCH", path: "/api/teams/acme/members/$m:member", as: "admin", body: json(map[string]any{"role": "owner"})}, status: 403},
		{name: "patch member: an admin demoting the owner is 403", call: call{method: "PATCH", path: "/api/teams/acme/members/$m:owner", as: "admin", body: json(map[string]any{"role": "member"})}, status: 403},
		{name: "patch member: demoting the last owner is 409", call: call{method: "PATCH", path: "/api/teams/acme/members/$m:owner", as: "owner", body: json(map[string]any{"role": "admin"})}, status: 409},
		{name: "patch member: a member is 403", call: call{method: "PATCH", path: "/api/teams/acme/members/$m:admin", as: "member", body: json(map[string]any{"role": "member"})}, status: 403},
		{name: "patch member: another team's member id is 404", call: call{method: "PATCH", path: "/api/teams/acme/members/$m:othermember", as: "owner", body: json(map[string]any{"role": "member"})}, status: 404},
		{name: "remove member: an admin removes a member", call: call{method: "DELETE", path: "/api/teams/acme/members/$m:member", as: "admin"}, status: 204, writes: true},
		{name: "remove member: a member leaves", call: call{method: "DELETE", path: "/api/teams/acme/members/$m:member", as: "session:member"}, status: 204, writes: true},
		{name: "remove member: a member removing another is 403", call: call{method: "DELETE", path: "/api/teams/acme/members/$m:admin", as: "member"}, status: 403},
		{name: "remove member: an admin removing the owner is 403", call: call{method: "DELETE", path: "/api/teams/acme/members/$m:owner", as: "admin"}, status: 403},
		{name: "remove member: the last owner leaving is 409", call: call{method: "DELETE", path: "/api/teams/acme/members/$m:owner", as: "owner"}, status: 409},
		{name: "remove member: another team's member id is 404", call: call{method: "DELETE", path: "/api/teams/acme/members/$m:othermember", as: "owner"}, status: 404},
		{name: "remove member: a banned member is 403", call: call{method: "DELETE", path: "/api/teams/acme/members/$m:member", as: "banned"}, status: 403},
		// super-admin
		{name: "super-admin users: searchable and paginated", call: call{method: "GET", path: "/api/super-admin/users?search=MEMB&pageSize=1", as: "root"},
			status: 200, contains: []string{`"totalItems":2`, `"totalPages":2`, `"pageSize":1`}},
		{name: "super-admin users: a bad page is 400", call: call{method: "GET", path: "/api/super-admin/users?page=0", as: "root"}, status: 400},
		{name: "super-admin users: an owner is 403", call: call{method: "GET", path: "/api/super-admin/users", as: "owner"}, status: 403},
		{name: "super-admin users: anonymous is 401", call: call{method: "GET", path: "/api/super-admin/users"}, status: 401},
		{name: "super-admin teams: searchable", call: call{method: "GET", path: "/api/super-admin/teams?search=oth", as: "root"},
			status: 200, contains: []string{`"slug":"other"`, `"totalItems":1`}, notContains: []string{`"slug":"acme"`}},
		{name: "super-admin teams: a member is 403", call: call{method: "GET", path: "/api/super-admin/teams", as: "member"}, status: 403},
		{name: "super-admin: bans a user", call: call{method: "PATCH", path: "/api/super-admin/users/$u:member$", as: "root", body: json(map[string]any{"banned": true})},
			status: 200, contains: []string{`"banned":true`}, writes: true},
		{name: "super-admin: makes a super-admin", call: call{method: "PATCH", path: "/api/super-admin/users/$u:member$", as: "root", body: json(map[string]any{"role": "admin"})},
			status: 200, contains: []string{`"role":"admin"`}, writes: true},
		{name: "super-admin: an unknown role is 400", call: call{method: "PATCH", path: "/api/super-admin/users/$u:member$", as: "root", body: json(map[string]any{"role": "god"})}, status: 400},
		{name: "super-admin: banning oneself is 409", call: call{method: "PATCH", path: "/api/super-admin/users/$u:root$", as: "root", body: json(map[string]any{"banned": true})}, status: 409},
		{name: "super-admin: an unknown user is 404", call: call{method: "PATCH", path: "/api/super-admin/users/nope", as: "root", body: json(map[string]any{"banned": true})}, status: 404},
		{name: "super-admin: a team owner may not ban", call: call{method: "PATCH", path: "/api/super-admin/users/$u:member$", as: "owner", body: json(map[string]any{"banned": true})}, status: 403},
	}
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		runScenarios(t, e, AccountsConfig{}, tests)
	})
}

// TestEveryAccountsRouteRefusesTheUnauthenticated sweeps every route but
// sign-in and sign-out with the callers that must never get through:
// anonymous, a revoked token and an ended session (401), a banned user
// (403), a cross-site cookie request that changes state (403). Nothing may
// be written.
func TestEveryAccountsRouteRefusesTheUnauthenticated(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		f := newAccountsFixture(t, e, AccountsConfig{})
		callers := []struct {
			as     string
			header map[string]string
			status int
			unsafe bool // only for methods that change state
		}{
			{as: "", status: 401},
			{as: "revoked", status: 401},
			{as: "session:ended", status: 401},
			{as: "banned", status: 403},
			{as: "session:member", header: map[string]string{"Sec-Fetch-Site": "cross-site"}, status: 403, unsafe: true},
		}
		for _, rt := range f.accounts.Routes() {
			if strings.HasPrefix(rt.Path, "/auth/") {
				continue
			}
			path := strings.NewReplacer("{team}", "acme", "{member}", "x", "{id}", "x", "{user}", f.users["member"].ID).Replace(rt.Path)
			for _, c := range callers {
				if c.unsafe && rt.Method == "GET" {
					continue
				}
				name := c.as
				if name == "" {
					name = "anonymous"
				}
				t.Run(rt.Method+" "+rt.Path+" as "+name, func(t *testing.T) {
					before := f.version(t)
					var body any
					if rt.Method != "GET" && rt.Method != "DELETE" {
						body = map[string]any{"name": "x"}
					}
					res := f.do(t, call{method: rt.Method, path: "/api" + path, as: c.as, header: c.header, body: body})
					if res.status != c.status {
						t.Errorf("got %d %s, want %d", res.status, res.body, c.status)
					}
					if f.version(t) != before {
						t.Errorf("got the identity tables changed, want unchanged")
					}
				})
			}
		}
	})
}
