package teamauth_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"regexp"
	"strings"

	"github.com/collectionkit/kit/internal/store"
	"github.com/collectionkit/kit/teamauth"
)

// Accounts serves sign-in and the current user: a user with a password
// signs in, the cookie jar keeps the session cookie, GET /api/me answers
// with it, and after sign-out it is refused.
func ExampleAccounts() {
	ctx := context.Background()
	db, err := store.OpenSQLite(":memory:example-accounts")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	st := teamauth.NewStore(db)
	if err := st.CreateTables(ctx); err != nil {
		log.Fatal(err)
	}
	ada, err := st.CreateUser(ctx, teamauth.User{Name: "Ada", Email: "ada@example.com"})
	if err != nil {
		log.Fatal(err)
	}
	if err := st.SetPassword(ctx, ada.ID, "correct horse battery"); err != nil {
		log.Fatal(err)
	}

	var cfg teamauth.AccountsConfig // the defaults
	sessions, err := teamauth.NewSessionAuthenticator(st, cfg)
	if err != nil {
		log.Fatal(err)
	}
	auth := &teamauth.Auth{Directory: st, Authenticator: teamauth.Chain(
		teamauth.ContextAuthenticator{}, teamauth.BearerAuthenticator{Tokens: st}, sessions)}
	accounts := &teamauth.Accounts{Auth: auth, Store: st, Prefix: "/api", Config: cfg}
	srv := httptest.NewServer(accounts.Handler())
	defer srv.Close()

	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar}
	send := func(method, path, body string) {
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		res, err := client.Do(req)
		if err != nil {
			log.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		// Ids are fresh UUIDs: shown as "<id>".
		out := uuidPattern.ReplaceAllString(strings.TrimSpace(string(b)), "<id>")
		fmt.Println(strings.TrimSpace(fmt.Sprintf("%s %s: %d %s", method, path, res.StatusCode, out)))
	}
	send("POST", "/api/auth/login", `{"email":"ada@example.com","password":"wrong password"}`)
	send("POST", "/api/auth/login", `{"email":"ada@example.com","password":"correct horse battery"}`)
	send("GET", "/api/me", "")
	send("POST", "/api/auth/logout", "")
	send("GET", "/api/me", "")
	// Output:
	// POST /api/auth/login: 401 {"status":401,"statusText":"Unauthorized","message":"invalid email or password"}
	// POST /api/auth/login: 200 {"id":"<id>","name":"Ada","email":"ada@example.com","image":"","role":"","teams":[]}
	// GET /api/me: 200 {"id":"<id>","name":"Ada","email":"ada@example.com","image":"","role":"","teams":[]}
	// POST /api/auth/logout: 204
	// GET /api/me: 401 {"status":401,"statusText":"Unauthorized","message":"authentication required"}
}

var uuidPattern = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
