package teamauth

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/collectionkit/kit/internal/rowdiff"
	"github.com/collectionkit/kit/internal/testdb"
)

// accountsTables are every table the accounts routes write.
var accountsTables = []string{"kit_users", "kit_teams", "kit_members", "kit_tokens", "kit_passwords", "kit_sessions", "kit_auth_state"}

// snapshot fingerprints every row of the accounts tables.
func (f *accountsFixture) snapshot(t *testing.T) map[string]string {
	t.Helper()
	rows, err := rowdiff.Tables(t.Context(), f.db, accountsTables...)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// refusal is a request that must be answered with status, its body
// containing every string of contains, and must write nothing.
type refusal struct {
	name     string
	call     call
	status   int
	contains []string
}

// runRefusals sends each refusal to one fixture per engine and checks its
// status, its body and that the accounts tables are unchanged, row by row.
// "$u:<user>$", "$m:<user>" and "$tok:<user>" in paths and string bodies
// are expanded (see expand).
func runRefusals(t *testing.T, cfg AccountsConfig, tests []refusal) {
	t.Helper()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		f := newAccountsFixture(t, e, cfg)
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				c := tt.call
				c.path = f.expand(t, c.path)
				if s, ok := c.body.(string); ok {
					c.body = f.expand(t, s)
				}
				if c.as != "" {
					// A token's or session's first use is recorded: let that
					// write happen before the snapshot.
					f.do(t, call{method: "GET", path: "/api/me", as: c.as})
				}
				before := f.snapshot(t)
				res := f.do(t, c)
				if res.status != tt.status {
					t.Fatalf("got status %d (%s), want %d", res.status, res.body, tt.status)
				}
				for _, s := range tt.contains {
					if !strings.Contains(res.body, s) {
						t.Errorf("got body %s, want it to contain %s", res.body, s)
					}
				}
				if n := rowdiff.Count(before, f.snapshot(t)); n != 0 {
					t.Errorf("got %d rows of the accounts tables written, want none", n)
				}
			})
		}
	})
}

// nulField is the body of a 400 naming field for a NUL.
func nulField(field string) []string {
	return []string{`"status":400`, `"fields":{"` + field + `":"must not contain NUL bytes"}`}
}

func TestEveryAccountsTextRefusesNUL(t *testing.T) {
	runRefusals(t, AccountsConfig{TeamCreation: TeamCreationUsers}, []refusal{
		{name: "a user name with a NUL is a 400 naming name",
			call: call{method: "PATCH", path: "/api/me", as: "member", body: `{"name":"mem\u0000ber"}`}, status: 400, contains: nulField("name")},
		{name: "a user image with a NUL is a 400 naming image",
			call: call{method: "PATCH", path: "/api/me", as: "member", body: `{"image":"\u0000"}`}, status: 400, contains: nulField("image")},
		{name: "a token name with a NUL is a 400 naming name",
			call: call{method: "POST", path: "/api/me/tokens", as: "member", body: `{"name":"ci\u0000"}`}, status: 400, contains: nulField("name")},
		{name: "a new team's name with a NUL is a 400 naming name",
			call: call{method: "POST", path: "/api/teams", as: "member", body: `{"name":"\u0000x"}`}, status: 400, contains: nulField("name")},
		{name: "a new team's description with a NUL is a 400 naming description",
			call: call{method: "POST", path: "/api/teams", as: "member", body: `{"name":"New","description":"a\u0000b"}`}, status: 400, contains: nulField("description")},
		{name: "a NUL deep in a new team's settings is a 400 naming settings",
			call: call{method: "POST", path: "/api/teams", as: "member", body: `{"name":"New","settings":{"a":[{"b":"\u0000"}]}}`}, status: 400, contains: nulField("settings")},
		{name: "a NUL in a settings key is a 400 naming settings",
			call: call{method: "POST", path: "/api/teams", as: "member", body: `{"name":"New","settings":{"\u0000":1}}`}, status: 400, contains: nulField("settings")},
		{name: "a team description changed to hold a NUL is a 400 naming description",
			call: call{method: "PATCH", path: "/api/teams/acme", as: "owner", body: `{"description":"\u0000"}`}, status: 400, contains: nulField("description")},
		{name: "a team avatar URL with a NUL is a 400 naming avatarUrl",
			call: call{method: "PATCH", path: "/api/teams/acme", as: "owner", body: `{"avatarUrl":"https://x/\u0000"}`}, status: 400, contains: nulField("avatarUrl")},
		{name: "a NUL in a duplicate settings member merged by the decoder is refused",
			call: call{method: "PATCH", path: "/api/teams/acme", as: "owner", body: `{"settings":{"a":"\u0000"},"settings":{"b":1}}`}, status: 400, contains: nulField("settings")},
		{name: "a NUL in a member name spelled in another case is a 400 naming the member",
			call: call{method: "PATCH", path: "/api/teams/acme", as: "owner", body: `{"DESCRIPTION":"\u0000"}`}, status: 400, contains: nulField("description")},
		{name: "a member email with a NUL is a 400 naming email",
			call: call{method: "POST", path: "/api/teams/acme/members", as: "owner", body: `{"email":"outsider@example.com\u0000","role":"member"}`}, status: 400, contains: nulField("email")},
		{name: "a member user id with a NUL is a 400 naming userId",
			call: call{method: "POST", path: "/api/teams/acme/members", as: "owner", body: `{"userId":"$u:outsider$\u0000","role":"member"}`}, status: 400, contains: nulField("userId")},
		{name: "a member role with a NUL is a 400 naming role",
			call: call{method: "PATCH", path: "/api/teams/acme/members/$m:member", as: "owner", body: `{"role":"admin\u0000"}`}, status: 400, contains: nulField("role")},
		{name: "a super-admin role change with a NUL is a 400 naming role",
			call: call{method: "PATCH", path: "/api/super-admin/users/$u:member$", as: "root", body: `{"role":"\u0000"}`}, status: 400, contains: nulField("role")},
		{name: "a new password with a NUL is a 400 naming newPassword",
			call: call{method: "POST", path: "/api/me/password", as: "member", body: `{"currentPassword":"member-password!","newPassword":"a brand new\u0000password"}`}, status: 400, contains: nulField("newPassword")},
		{name: "every member at fault is named",
			call: call{method: "POST", path: "/api/teams", as: "member", body: `{"name":"\u0000","slug":"\u0000"}`}, status: 400,
			contains: []string{`"name":"must not contain NUL bytes"`, `"slug":"must not contain NUL bytes"`}},
		{name: "a super-admin search with a NUL is a 400 naming search",
			call: call{method: "GET", path: "/api/super-admin/users?search=a%00", as: "root"}, status: 400, contains: []string{`"status":400`, `"param":"search"`, "NUL"}},
		{name: "a team search with a NUL is a 400 naming search",
			call: call{method: "GET", path: "/api/super-admin/teams?search=%00", as: "root"}, status: 400, contains: []string{`"param":"search"`}},
		{name: "a super-admin search over 200 characters is a 400 naming search",
			call: call{method: "GET", path: "/api/super-admin/users?search=" + strings.Repeat("a", 100_000), as: "root"}, status: 400, contains: []string{`"param":"search"`, "at most 200 characters"}},
		{name: "a team search over 200 characters is a 400 naming search",
			call: call{method: "GET", path: "/api/super-admin/teams?search=" + strings.Repeat("[", 9_999), as: "root"}, status: 400, contains: []string{`"param":"search"`}},
		{name: "a member id of NUL is the 404 of a missing member",
			call: call{method: "DELETE", path: "/api/teams/acme/members/%00", as: "owner"}, status: 404, contains: []string{`"message":"member not found"`}},
		{name: "a sign-in with a NUL in the email is a 401",
			call: call{method: "POST", path: "/api/auth/login", body: `{"email":"member@example.com\u0000","password":"member-password!"}`}, status: 401,
			contains: []string{`"message":"invalid email or password"`}},
		{name: "a sign-in with a NUL in the password is a 401",
			call: call{method: "POST", path: "/api/auth/login", body: `{"email":"member@example.com","password":"member-password!\u0000"}`}, status: 401,
			contains: []string{`"message":"invalid email or password"`}},
	})
}

func TestAccountsTextIsStoredExactlyOrRefused(t *testing.T) {
	blankName := []string{`"status":400`, `"fields":{"name":"must not be empty or blank"}`}
	runRefusals(t, AccountsConfig{TeamCreation: TeamCreationUsers}, []refusal{
		{name: "a lone high surrogate in a user name is a 400, not stored as U+FFFD",
			call: call{method: "PATCH", path: "/api/me", as: "member", body: `{"name":"a\ud800"}`}, status: 400,
			contains: []string{`"fields":{"name":"must not hold a \\u escape of a lone UTF-16 surrogate"}`}},
		{name: "a lone low surrogate in a token name is a 400",
			call: call{method: "POST", path: "/api/me/tokens", as: "member", body: `{"name":"\udc00ci"}`}, status: 400, contains: []string{`"fields":{"name"`, "surrogate"}},
		{name: "a high surrogate before another escape is a 400",
			call: call{method: "POST", path: "/api/teams", as: "member", body: `{"name":"\ud83d\u0041"}`}, status: 400, contains: []string{`"fields":{"name"`}},
		{name: "bytes that are not UTF-8 in a team description are a 400",
			call: call{method: "PATCH", path: "/api/teams/acme", as: "owner", body: "{\"description\":\"a\xffb\"}"}, status: 400,
			contains: []string{`"fields":{"description":"must be valid UTF-8 text"}`}},
		{name: "an overlong encoding in a member email is a 400",
			call: call{method: "POST", path: "/api/teams/acme/members", as: "owner", body: "{\"email\":\"\xc0\xaf@example.com\",\"role\":\"member\"}"}, status: 400,
			contains: []string{`"fields":{"email":"must be valid UTF-8 text"}`}},
		{name: "a blank new team name is a 400",
			call: call{method: "POST", path: "/api/teams", as: "member", body: `{"name":" \t"}`}, status: 400, contains: blankName},
		{name: "a new team name of zero-width spaces is a 400",
			call: call{method: "POST", path: "/api/teams", as: "member", body: `{"name":"\u200b\u200b","slug":"zero"}`}, status: 400, contains: blankName},
		{name: "a new team with only a slug is a 400 naming name",
			call: call{method: "POST", path: "/api/teams", as: "member", body: `{"slug":"only-slug"}`}, status: 400, contains: blankName},
		{name: "a team renamed to an ideographic space and a BOM is a 400",
			call: call{method: "PATCH", path: "/api/teams/acme", as: "owner", body: `{"name":"\u3000\ufeff"}`}, status: 400, contains: blankName},
		{name: "a team renamed to a Hangul filler is a 400",
			call: call{method: "PATCH", path: "/api/teams/acme", as: "owner", body: `{"name":"\u3164"}`}, status: 400, contains: blankName},
		{name: "a user renamed to a zero-width joiner is a 400",
			call: call{method: "PATCH", path: "/api/me", as: "member", body: `{"name":"\u200d"}`}, status: 400, contains: blankName},
		{name: "a token named with a word joiner is a 400",
			call: call{method: "POST", path: "/api/me/tokens", as: "member", body: `{"name":"\u2060"}`}, status: 400, contains: blankName},
		{name: "a body declared as UTF-16 is a 415",
			call: call{method: "PATCH", path: "/api/me", as: "member", body: `{"name":"x"}`, contentType: "application/json; charset=utf-16"}, status: 415,
			contains: []string{`"status":415`, "UTF-8"}},
		{name: "a sign-in declared as Latin-1 is a 415",
			call: call{method: "POST", path: "/api/auth/login", body: `{"email":"member@example.com","password":"member-password!"}`, contentType: "application/json; charset=iso-8859-1"}, status: 415},
		{name: "a +json body is a 415 on the accounts routes",
			call: call{method: "POST", path: "/api/teams", as: "member", body: `{"name":"x"}`, contentType: "application/merge-patch+json"}, status: 415},
	})
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		f := newAccountsFixture(t, e, AccountsConfig{})
		t.Run("a surrogate pair and charset=UTF-8 are accepted and stored as sent", func(t *testing.T) {
			res := f.do(t, call{method: "PATCH", path: "/api/me", as: "member", body: `{"name":"smile \ud83d\ude00"}`, contentType: "application/json; charset=UTF-8"})
			if res.status != 200 {
				t.Fatalf("got status %d (%s), want 200", res.status, res.body)
			}
			u, err := f.store.User(t.Context(), f.users["member"].ID)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := u.Name, "smile \U0001F600"; got != want {
				t.Errorf("got name %q stored, want %q", got, want)
			}
		})
		t.Run("a name with visible text around spaces is accepted", func(t *testing.T) {
			if res := f.do(t, call{method: "POST", path: "/api/me/tokens", as: "member", body: `{"name":"\u200b ci \u200b"}`}); res.status != 201 {
				t.Errorf("got status %d (%s), want 201", res.status, res.body)
			}
		})
	})
}

func TestASignInWithTextThatBreaksTheRuleIsAFailedSignIn(t *testing.T) {
	cfg := AccountsConfig{LoginThrottle: LoginThrottle{AccountFailures: 100, AddressFailures: 3, Window: time.Minute}}
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		t.Run("text that breaks the rule counts toward the address's limit", func(t *testing.T) {
			for _, bad := range []string{"\\u0000", "\\ud800", "\xff"} {
				t.Run(fmt.Sprintf("in %q", bad), func(t *testing.T) {
					f := newAccountsFixture(t, e, cfg)
					before := f.snapshot(t)
					for i := range 3 {
						res := f.do(t, call{method: "POST", path: "/api/auth/login",
							body: fmt.Sprintf(`{"email":"member@example.com%s","password":"member-password!"}`, bad)})
						if res.status != 401 || !strings.Contains(res.body, "invalid email or password") {
							t.Fatalf("attempt %d: got %d %s, want 401 invalid email or password", i+1, res.status, res.body)
						}
					}
					if n := rowdiff.Count(before, f.snapshot(t)); n != 0 {
						t.Errorf("got %d rows written by refused sign-ins, want none", n)
					}
					res := f.do(t, login("member@example.com", "member-password!"))
					if res.status != 429 {
						t.Errorf("got %d for a right sign-in after 3 bad ones, want 429: the bad ones were not counted", res.status)
					}
				})
			}
		})
		t.Run("a lone surrogate never matches a password that holds U+FFFD", func(t *testing.T) {
			f := newAccountsFixture(t, e, cfg)
			if err := f.store.SetPassword(t.Context(), f.users["member"].ID, "replacement \uFFFD password"); err != nil {
				t.Fatal(err)
			}
			res := f.do(t, call{method: "POST", path: "/api/auth/login", body: `{"email":"member@example.com","password":"replacement \ud800 password"}`})
			if res.status != 401 {
				t.Errorf("got %d %s, want 401", res.status, res.body)
			}
			if res := f.do(t, call{method: "POST", path: "/api/auth/login", body: `{"email":"member@example.com","password":"replacement \ufffd password"}`}); res.status != 200 {
				t.Errorf("got %d %s for the password as set, want 200", res.status, res.body)
			}
		})
		t.Run("a current password that breaks the rule is a wrong one, counted", func(t *testing.T) {
			f := newAccountsFixture(t, e, cfg)
			if err := f.store.SetPassword(t.Context(), f.users["member"].ID, "replacement \uFFFD password"); err != nil {
				t.Fatal(err)
			}
			f.do(t, call{method: "GET", path: "/api/me", as: "member"})
			before := f.snapshot(t)
			for i := range 3 {
				res := f.do(t, call{method: "POST", path: "/api/me/password", as: "member",
					body: `{"currentPassword":"replacement \udfff password","newPassword":"a brand new password"}`})
				if res.status != 403 {
					t.Fatalf("attempt %d: got %d %s, want 403", i+1, res.status, res.body)
				}
			}
			if n := rowdiff.Count(before, f.snapshot(t)); n != 0 {
				t.Errorf("got %d rows written, want none", n)
			}
			if res := f.do(t, call{method: "POST", path: "/api/me/password", as: "member",
				body: `{"currentPassword":"replacement \ufffd password","newPassword":"a brand new password"}`}); res.status != 429 {
				t.Errorf("got %d for the right current password after 3 bad ones, want 429", res.status)
			}
		})
	})
}

// missingAndBad pairs the path of a missing id with the same path holding
// bytes that break the text rule.
type missingAndBad struct {
	route        string
	method, path string // "%s" stands for the segment
	as           string
	body         string
	status       int
}

func TestAPathSegmentThatIsNotTextAnswersAsAMissingID(t *testing.T) {
	routes := []missingAndBad{
		{route: "a team", method: "GET", path: "/api/teams/%s", as: "member", status: 404},
		{route: "a team, anonymously", method: "GET", path: "/api/teams/%s", status: 401},
		{route: "a team changed", method: "PATCH", path: "/api/teams/%s", as: "owner", body: `{"name":"x"}`, status: 404},
		{route: "a team deleted", method: "DELETE", path: "/api/teams/%s", as: "owner", status: 404},
		{route: "a team's members", method: "GET", path: "/api/teams/%s/members", as: "member", status: 404},
		{route: "a member added to a team", method: "POST", path: "/api/teams/%s/members", as: "owner", body: `{"email":"outsider@example.com","role":"member"}`, status: 404},
		{route: "a member changed", method: "PATCH", path: "/api/teams/acme/members/%s", as: "owner", body: `{"role":"admin"}`, status: 404},
		{route: "a member removed", method: "DELETE", path: "/api/teams/acme/members/%s", as: "owner", status: 404},
		{route: "a member removed by a plain member", method: "DELETE", path: "/api/teams/acme/members/%s", as: "member", status: 403},
		{route: "a token revoked", method: "DELETE", path: "/api/me/tokens/%s", as: "member", status: 404},
		{route: "a user's data", method: "GET", path: "/api/users/%s", as: "member", status: 403},
		{route: "a user's tokens", method: "GET", path: "/api/users/%s/tokens", as: "member", status: 403},
		{route: "a super-admin user read", method: "GET", path: "/api/super-admin/users/%s", as: "root", status: 404},
		{route: "a super-admin user change", method: "PATCH", path: "/api/super-admin/users/%s", as: "root", body: `{"banned":true}`, status: 404},
	}
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		f := newAccountsFixture(t, e, AccountsConfig{})
		for _, rt := range routes {
			for _, seg := range []string{"%FF", "%C0%AF", "%00", "a%00b", "%ED%A0%80"} {
				t.Run(fmt.Sprintf("%s with %s answers %d like a missing id", rt.route, seg, rt.status), func(t *testing.T) {
					c := call{method: rt.method, as: rt.as}
					if rt.body != "" {
						c.body = rt.body
					}
					if c.as != "" {
						f.do(t, call{method: "GET", path: "/api/me", as: c.as})
					}
					c.path = fmt.Sprintf(rt.path, "0190c3a8-1f2e-7c4d-9b5a-123456789abc")
					missing := f.do(t, c)
					before := f.snapshot(t)
					c.path = strings.Replace(rt.path, "%s", seg, 1)
					bad := f.do(t, c)
					if bad.status != rt.status || missing.status != rt.status {
						t.Fatalf("got %d (%s), and %d for a missing id; want %d for both", bad.status, bad.body, missing.status, rt.status)
					}
					if bad.body != missing.body {
						t.Errorf("got body %s, want the missing id's %s", bad.body, missing.body)
					}
					if n := rowdiff.Count(before, f.snapshot(t)); n != 0 {
						t.Errorf("got %d rows written, want none", n)
					}
				})
			}
		}
	})
}

func TestAQueryParameterThatIsNotTextIsA400NamingIt(t *testing.T) {
	param := func(name string) []string { return []string{`"status":400`, `"param":"` + name + `"`} }
	runRefusals(t, AccountsConfig{}, []refusal{
		{name: "a user search with bytes that are not UTF-8 is a 400 naming search",
			call: call{method: "GET", path: "/api/super-admin/users?search=%FF", as: "root"}, status: 400, contains: append(param("search"), "UTF-8")},
		{name: "a team search with an overlong encoding is a 400 naming search",
			call: call{method: "GET", path: "/api/super-admin/teams?search=%C0%AF", as: "root"}, status: 400, contains: param("search")},
		{name: "a page with a NUL is a 400 naming page",
			call: call{method: "GET", path: "/api/super-admin/users?page=1%00", as: "root"}, status: 400, contains: param("page")},
		{name: "a page size with bytes that are not UTF-8 is a 400 naming pageSize",
			call: call{method: "GET", path: "/api/super-admin/teams?pageSize=%FF", as: "root"}, status: 400, contains: param("pageSize")},
		{name: "a page of zero is a 400 naming page",
			call: call{method: "GET", path: "/api/super-admin/users?page=0", as: "root"}, status: 400, contains: param("page")},
		{name: "a page size over 100 is a 400 naming pageSize",
			call: call{method: "GET", path: "/api/super-admin/users?pageSize=101", as: "root"}, status: 400, contains: param("pageSize")},
		{name: "force with a NUL is a 400 naming force, and the team stays",
			call: call{method: "DELETE", path: "/api/teams/acme?force=true%00", as: "owner"}, status: 400, contains: param("force")},
		{name: "a parameter the route does not read is held to the rule too",
			call: call{method: "GET", path: "/api/me?utm=%FF", as: "member"}, status: 400, contains: param("utm")},
		{name: "a parameter name with a NUL is a 400",
			call: call{method: "GET", path: "/api/super-admin/users?a%00=1", as: "root"}, status: 400, contains: []string{`"status":400`, "\"param\":\"a\uFFFD\""}},
	})
}

func TestATeamRouteValueThatIsNotTextNamesNoTeam(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		f := newFixture(t, e)
		srv := httptest.NewServer(routes(&Auth{Directory: f.store}))
		t.Cleanup(srv.Close)
		for _, seg := range []string{"%FF", "%C0%AF", "%00", "acme%00", "%ED%A0%80"} {
			t.Run("a host's team route with "+seg+" is the 404 of a missing team", func(t *testing.T) {
				req, _ := http.NewRequestWithContext(t.Context(), "GET", srv.URL+"/teams/"+seg+"/hello", nil)
				req.Header.Set("Authorization", "Bearer "+f.tokens["member"])
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if res.StatusCode != 404 || !strings.Contains(string(b), `"message":"team not found"`) {
					t.Errorf("got %d %s, want 404 team not found", res.StatusCode, b)
				}
			})
		}
		t.Run("the store's team lookups answer ErrTeamNotFound for such a value", func(t *testing.T) {
			for _, v := range []string{"\x00", "acme\x00", "\xff", "\xc0\xaf"} {
				if _, err := f.store.Team(t.Context(), v); !errors.Is(err, ErrTeamNotFound) {
					t.Errorf("Team(%q): got %v, want ErrTeamNotFound", v, err)
				}
				if _, _, err := f.store.TeamAndMembership(t.Context(), v, f.users["member"].ID); !errors.Is(err, ErrTeamNotFound) {
					t.Errorf("TeamAndMembership(%q): got %v, want ErrTeamNotFound", v, err)
				}
			}
		})
	})
}
