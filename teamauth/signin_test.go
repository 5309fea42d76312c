package teamauth

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/collectionkit/kit/internal/testdb"
)

func login(email, password string) call {
	return call{method: "POST", path: "/api/auth/login", body: map[string]any{"email": email, "password": password}}
}

func TestLogin(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		f := newAccountsFixture(t, e, AccountsConfig{})
		t.Run("the right password answers the user and sets the session cookie", func(t *testing.T) {
			res := f.do(t, login("member@example.com", "member-password!"))
			if res.status != 200 || !strings.Contains(res.body, `"name":"member"`) || !strings.Contains(res.body, `"slug":"acme"`) {
				t.Fatalf("got %d %s, want 200 with the user and their teams", res.status, res.body)
			}
			cookie := res.header.Get("Set-Cookie")
			for _, want := range []string{"kit_session=kits_", "Path=/api", "HttpOnly", "SameSite=Lax", "Expires="} {
				if !strings.Contains(cookie, want) {
					t.Errorf("got Set-Cookie %q, want it to contain %q", cookie, want)
				}
			}
			if strings.Contains(cookie, "Secure") {
				t.Errorf("got Set-Cookie %q over plain HTTP without SecureCookies, want no Secure", cookie)
			}
		})
		t.Run("unknown email and wrong password answer alike and write nothing", func(t *testing.T) {
			before := f.version(t)
			unknown := f.do(t, login("nobody@example.com", "member-password!"))
			wrong := f.do(t, login("admin@example.com", "member-password!"))
			if unknown.status != 401 || wrong.status != 401 || unknown.body != wrong.body {
				t.Errorf("got %d %s and %d %s, want the same 401", unknown.status, unknown.body, wrong.status, wrong.body)
			}
			if unknown.header.Get("Set-Cookie") != "" || wrong.header.Get("Set-Cookie") != "" {
				t.Errorf("got a cookie on a failed sign-in, want none")
			}
			if f.version(t) != before {
				t.Errorf("got the identity tables changed by failed sign-ins, want unchanged")
			}
		})
		t.Run("a banned user with the right password is 403", func(t *testing.T) {
			if res := f.do(t, login("banned@example.com", "banned-password!")); res.status != 403 {
				t.Errorf("got %d %s, want 403", res.status, res.body)
			}
		})
		bad := []struct {
			name   string
			c      call
			status int
		}{
			{"a form body is 415", call{method: "POST", path: "/api/auth/login", body: "email=a&password=b", contentType: "application/x-www-form-urlencoded"}, 415},
			{"no body is 415", call{method: "POST", path: "/api/auth/login"}, 415},
			{"an empty JSON body is 400", call{method: "POST", path: "/api/auth/login", body: " "}, 400},
			{"an unknown field is 400", call{method: "POST", path: "/api/auth/login", body: map[string]any{"email": "a", "password": "b", "remember": true}}, 400},
			{"a password of the wrong type is 400", call{method: "POST", path: "/api/auth/login", body: map[string]any{"email": "a", "password": 5}}, 400},
			{"a cross-site sign-in is 403", call{method: "POST", path: "/api/auth/login", body: map[string]any{"email": "member@example.com", "password": "member-password!"},
				header: map[string]string{"Sec-Fetch-Site": "cross-site"}}, 403},
			{"a GET is 405", call{method: "GET", path: "/api/auth/login"}, 405},
		}
		for _, tt := range bad {
			t.Run(tt.name, func(t *testing.T) {
				before := f.version(t)
				res := f.do(t, tt.c)
				if res.status != tt.status || res.header.Get("Set-Cookie") != "" {
					t.Errorf("got %d %s (cookie %q), want %d and no cookie", res.status, res.body, res.header.Get("Set-Cookie"), tt.status)
				}
				if f.version(t) != before {
					t.Errorf("got the identity tables changed, want unchanged")
				}
			})
		}
	})
}

func TestLoginSecureCookie(t *testing.T) {
	f := newAccountsFixture(t, testdb.EngineSQLite, AccountsConfig{SecureCookies: true, CookieName: "sid"})
	res := f.do(t, login("member@example.com", "member-password!"))
	if c := res.header.Get("Set-Cookie"); res.status != 200 || !strings.HasPrefix(c, "sid=") || !strings.Contains(c, "Secure") {
		t.Errorf("got %d, Set-Cookie %q; want 200 and a Secure cookie named sid", res.status, c)
	}
}

func TestLogoutEndsTheSession(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		f := newAccountsFixture(t, e, AccountsConfig{})
		if res := f.do(t, call{method: "POST", path: "/api/auth/logout", as: "session:member", header: map[string]string{"Origin": "https://evil.example"}}); res.status != 403 {
			t.Fatalf("got %d from a cross-origin sign-out, want 403", res.status)
		}
		res := f.do(t, call{method: "POST", path: "/api/auth/logout", as: "session:member"})
		if res.status != 204 || !strings.Contains(res.header.Get("Set-Cookie"), "Max-Age=0") {
			t.Fatalf("got %d, Set-Cookie %q; want 204 deleting the cookie", res.status, res.header.Get("Set-Cookie"))
		}
		if res := f.do(t, call{method: "GET", path: "/api/me", as: "session:member"}); res.status != 401 {
			t.Errorf("got %d with the signed-out session, want 401", res.status)
		}
		if res := f.do(t, call{method: "POST", path: "/api/auth/logout"}); res.status != 204 {
			t.Errorf("got %d signing out without a session, want 204", res.status)
		}
	})
}

func TestLoginThrottle(t *testing.T) {
	f := newAccountsFixture(t, testdb.EngineSQLite, AccountsConfig{LoginThrottle: LoginThrottle{AccountFailures: 3, AddressFailures: 5, Window: time.Minute}})
	now := time.Now()
	f.accounts.now = func() time.Time { return now }
	t.Run("an account is refused after its failures, even with the right password", func(t *testing.T) {
		for i := 0; i < 3; i++ {
			if res := f.do(t, login("member@example.com", "wrong")); res.status != 401 {
				t.Fatalf("got %d on failure %d, want 401", res.status, i+1)
			}
		}
		res := f.do(t, login("MEMBER@example.com", "member-password!"))
		if res.status != 429 || res.header.Get("Retry-After") != "60" {
			t.Fatalf("got %d, Retry-After %q; want 429 and 60", res.status, res.header.Get("Retry-After"))
		}
		now = now.Add(time.Minute)
		if res := f.do(t, login("member@example.com", "member-password!")); res.status != 200 {
			t.Errorf("got %d after the window, want 200", res.status)
		}
	})
	t.Run("an address is refused after its failures across accounts", func(t *testing.T) {
		for i := 0; i < 5; i++ {
			f.do(t, login(fmt.Sprintf("guess%d@example.com", i), "wrong"))
		}
		res := f.do(t, login("admin@example.com", "admin-password!"))
		if res.status != 429 || res.header.Get("Retry-After") == "" {
			t.Errorf("got %d, Retry-After %q; want 429 with Retry-After", res.status, res.header.Get("Retry-After"))
		}
	})
}

func TestFailureCounterIsBounded(t *testing.T) {
	c := newFailureCounter(3, time.Minute, 100)
	now := time.Now()
	for i := 0; i < 10000; i++ {
		c.fail(fmt.Sprint("key", i), now)
	}
	if n := c.len(); n > 100 {
		t.Errorf("got %d entries, want at most 100", n)
	}
	for i := 0; i < 3; i++ {
		c.fail("hot", now)
	}
	if c.blocked("hot", now) == 0 {
		t.Errorf("got a key with 3 failures unblocked, want blocked")
	}
}

// BenchmarkLoginTimingUnknownEmailVersusWrongPassword measures, per
// iteration, 200 sign-ins with an unknown email and 200 with a wrong
// password, interleaved, with kit's default argon2id parameters, and
// reports and logs both medians. It asserts nothing about time (that would
// flake on a busy machine); run it with
//
//	go test -run '^$' -bench LoginTiming -benchtime 1x ./teamauth
func BenchmarkLoginTimingUnknownEmailVersusWrongPassword(b *testing.B) {
	f := newAccountsFixture(b, testdb.EngineSQLite, AccountsConfig{LoginThrottle: LoginThrottle{AccountFailures: 1 << 30, AddressFailures: 1 << 30}})
	f.store.PasswordParams = DefaultPasswordParams
	if err := f.store.SetPassword(b.Context(), f.users["member"].ID, "member-password!"); err != nil {
		b.Fatal(err)
	}
	const tries = 200
	type kind struct {
		email string
		into  *[]time.Duration
	}
	for b.Loop() {
		var unknown, wrong []time.Duration
		kinds := []kind{{"nobody@example.com", &unknown}, {"member@example.com", &wrong}}
		for i := 0; i < tries; i++ {
			// Interleaved, and in alternating order, so that load changes
			// and garbage collection hit both kinds alike.
			order := kinds
			if i%2 == 1 {
				order = []kind{kinds[1], kinds[0]}
			}
			for _, c := range order {
				start := time.Now()
				res := f.do(b, login(c.email, "not-the-password"))
				*c.into = append(*c.into, time.Since(start))
				if res.status != http.StatusUnauthorized {
					b.Fatalf("got %d, want 401", res.status)
				}
			}
		}
		median := func(d []time.Duration) time.Duration { slices.Sort(d); return d[len(d)/2] }
		mu, mw := median(unknown), median(wrong)
		b.ReportMetric(float64(mu.Microseconds()), "unknown-email-median-µs")
		b.ReportMetric(float64(mw.Microseconds()), "wrong-password-median-µs")
		b.Logf("sign-in medians over %d tries each: unknown email %v, wrong password %v (%+.1f%%)",
			tries, mu, mw, float64(mu-mw)/float64(mw)*100)
	}
}

func TestChangingThePasswordEndsOtherSessionsAndRenewsTheCallers(t *testing.T) {
	f := newAccountsFixture(t, testdb.EngineSQLite, AccountsConfig{})
	other, _, err := f.store.CreateSession(t.Context(), f.users["member"].ID)
	if err != nil {
		t.Fatal(err)
	}
	res := f.do(t, call{method: "POST", path: "/api/me/password", as: "session:member",
		body: map[string]any{"currentPassword": "member-password!", "newPassword": "a brand new password"}})
	cookie := res.header.Get("Set-Cookie")
	if res.status != 204 || !strings.HasPrefix(cookie, "kit_session=kits_") {
		t.Fatalf("got %d, Set-Cookie %q; want 204 and a new session cookie", res.status, cookie)
	}
	secret := strings.TrimPrefix(strings.SplitN(cookie, ";", 2)[0], "kit_session=")
	if _, err := f.store.UserBySession(t.Context(), secret); err != nil {
		t.Errorf("got %v with the new session, want it running", err)
	}
	for _, old := range []string{other, f.sessions["member"]} {
		if _, err := f.store.UserBySession(t.Context(), old); err == nil {
			t.Errorf("got an old session still running after the change, want it ended")
		}
	}
	if res := f.do(t, login("member@example.com", "a brand new password")); res.status != 200 {
		t.Errorf("got %d signing in with the new password, want 200", res.status)
	}
}

// TestChangesApplyFromTheNextRequest warms the Store's cache with a
// request, changes access over HTTP, and checks that the very next request
// sees the change.
func TestChangesApplyFromTheNextRequest(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		tests := []struct {
			name   string
			as     string // the caller whose access changes
			change call
			status int // of the caller's next GET /api/teams/acme
		}{
			{"a banned user's session is 403", "session:member",
				call{method: "PATCH", path: "/api/super-admin/users/$u:member$", as: "root", body: map[string]any{"banned": true}}, 403},
			{"a removed member is 403", "session:member",
				call{method: "DELETE", path: "/api/teams/acme/members/$m:member", as: "owner"}, 403},
			{"a revoked token is 401", "member",
				call{method: "DELETE", path: "/api/me/tokens/$tok:member", as: "session:member"}, 401},
			{"a signed-out session is 401", "session:member",
				call{method: "POST", path: "/api/auth/logout", as: "session:member"}, 401},
			{"a renamed team's old slug is 404", "session:member",
				call{method: "PATCH", path: "/api/teams/acme", as: "owner", body: map[string]any{"slug": "acme-2"}}, 404},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				f := newAccountsFixture(t, e, AccountsConfig{})
				get := call{method: "GET", path: "/api/teams/acme", as: tt.as}
				if res := f.do(t, get); res.status != 200 {
					t.Fatalf("got %d before the change, want 200", res.status)
				}
				c := tt.change
				c.path = f.expand(t, c.path)
				if res := f.do(t, c); res.status >= 300 {
					t.Fatalf("change: got %d %s", res.status, res.body)
				}
				if res := f.do(t, get); res.status != tt.status {
					t.Errorf("got %d %s on the next request, want %d", res.status, res.body, tt.status)
				}
			})
		}
	})
}
