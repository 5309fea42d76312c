package kit_test

import (
	"testing"

	"github.com/collectionkit/kit/internal/testdb"
)

// accountsTables are the tables the accounts routes write, with the
// world's collection tables.
var accountsTables = append([]string{"kit_users", "kit_teams", "kit_members", "kit_tokens", "kit_passwords", "kit_sessions", "kit_auth_state"}, worldTables...)

// TestAccountsRoutesHoldTheTextRuleThroughKit sends the cases of issue 45
// to the accounts routes as kit mounts them (its mux, prefix and
// middleware), on both engines: each is refused with its exact status
// and writes no row.
func TestAccountsRoutesHoldTheTextRuleThroughKit(t *testing.T) {
	t.Parallel()
	scenarios := []scenario{
		{name: "a NUL in a user name is a 400 naming name", method: "PATCH", path: "/api/me", caller: "mia", body: `{"name":"m\u0000"}`, status: 400,
			contains: []string{`"fields":{"name":"must not contain NUL bytes"}`}},
		{name: "a NUL in a token name is a 400 naming name", method: "POST", path: "/api/me/tokens", caller: "mia", body: `{"name":"\u0000"}`, status: 400,
			contains: []string{`"fields":{"name":"must not contain NUL bytes"}`}},
		{name: "a NUL in a team description is a 400 naming description", method: "PATCH", path: "/api/teams/acme", caller: "alice", body: `{"description":"\u0000"}`, status: 400,
			contains: []string{`"fields":{"description":"must not contain NUL bytes"}`}},
		{name: "a NUL in a member email is a 400 naming email", method: "POST", path: "/api/teams/acme/members", caller: "alice", body: `{"email":"a\u0000@example.com","role":"member"}`, status: 400,
			contains: []string{`"fields":{"email":"must not contain NUL bytes"}`}},
		{name: "a lone surrogate in a team name is a 400, not U+FFFD stored", method: "PATCH", path: "/api/teams/acme", caller: "alice", body: `{"name":"\ud800"}`, status: 400,
			contains: []string{`"fields":{"name"`, "surrogate"}},
		{name: "a blank team name is a 400 naming name", method: "PATCH", path: "/api/teams/acme", caller: "alice", body: `{"name":"\u200b"}`, status: 400,
			contains: []string{`"fields":{"name":"must not be empty or blank"}`}},
		{name: "an accounts body declared as UTF-16 is a 415", method: "PATCH", path: "/api/me", caller: "mia", body: `{"name":"x"}`,
			contentType: "application/json; charset=utf-16", status: 415},
		{name: "a sign-in with a NUL in the email is a 401", method: "POST", path: "/api/auth/login", body: `{"email":"mia@example.com\u0000","password":"x"}`, status: 401,
			contains: []string{"invalid email or password"}},
		{name: "a member id of NUL is the 404 of a missing member", method: "DELETE", path: "/api/teams/acme/members/%00", caller: "alice", status: 404,
			contains: []string{`"message":"member not found"`}},
		{name: "a team id of bytes that are not UTF-8 is the 404 of a missing team", method: "GET", path: "/api/teams/%FF/members", caller: "mia", status: 404,
			contains: []string{`"message":"team not found"`}},
		{name: "a token id of an overlong encoding is the 404 of a missing token", method: "DELETE", path: "/api/me/tokens/%C0%AF", caller: "mia", status: 404,
			contains: []string{`"message":"token not found"`}},
		{name: "a super-admin user id of NUL is the 404 of a missing user", method: "GET", path: "/api/super-admin/users/%00", caller: "root", status: 404,
			contains: []string{`"message":"user not found"`}},
		{name: "a super-admin search with a NUL is a 400 naming search", method: "GET", path: "/api/super-admin/users?search=%00", caller: "root", status: 400,
			contains: []string{`"param":"search"`}},
		{name: "a super-admin page of bytes that are not UTF-8 is a 400 naming page", method: "GET", path: "/api/super-admin/teams?page=%FF", caller: "root", status: 400,
			contains: []string{`"param":"page"`}},
	}
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		w := newWorld(t, e)
		for _, sc := range scenarios {
			t.Run(sc.name, func(t *testing.T) {
				if sc.caller != "" {
					// A token's first use is recorded: let that write
					// happen before the snapshot.
					w.do(t, "GET", "/api/me", sc.caller, "", "")
				}
				checkScenario(t, w, sc, accountsTables, nil)
			})
		}
	})
}
