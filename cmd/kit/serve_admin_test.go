package main

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/collectionkit/kit/internal/testkit"
)

// serveDemoLines runs "kit serve --demo" with extra args and returns the
// API URL and the lines it printed before the serving line.
func serveDemoLines(t *testing.T, extra ...string) (apiURL string, printed []string) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	pr, pw := io.Pipe()
	var stderr testkit.Buffer
	done := make(chan int, 1)
	args := append([]string{"serve", "--demo", "--db", filepath.Join(t.TempDir(), "kit.db"), "--addr", "127.0.0.1:0"}, extra...)
	go func() {
		done <- run(ctx, args, pw, &stderr)
		pw.Close()
	}()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("got exit status %d, want 0 (stderr %q)", code, stderr.String())
		}
	})
	return waitForServing(t, pr)
}

var adminLine = regexp.MustCompile(`open (http://\S+/admin/) and sign in as Alice`)

func TestServeMountsTheAdminApp(t *testing.T) {
	t.Parallel()
	t.Run("--demo prints the admin app's URL and a sign-in that works there", func(t *testing.T) {
		t.Parallel()
		apiURL, printed := serveDemoLines(t)
		out := strings.Join(printed, "\n")
		m := adminLine.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("got no admin line in\n%s", out)
		}
		var email, password string
		for i, line := range printed {
			if adminLine.MatchString(line) && i+2 < len(printed) {
				email, _ = strings.CutPrefix(strings.TrimSpace(printed[i+1]), "email: ")
				password, _ = strings.CutPrefix(strings.TrimSpace(printed[i+2]), "password: ")
			}
		}
		if email != "alice@acme.example" || password == "" {
			t.Fatalf("got email %q and password %q after the admin line, want Alice's", email, password)
		}
		page := fetch(t, "GET", m[1]+"teams/acme", "")
		if page.status != http.StatusOK || !strings.Contains(page.body, `<base href="/admin/" />`) || !strings.Contains(page.body, `content="/api"`) {
			t.Errorf("GET %steams/acme: got %d\n%s\nwant the app's page with base /admin/ and prefix /api", m[1], page.status, page.body)
		}
		login := fetch(t, "POST", apiURL+"/auth/login", `{"email":"`+email+`","password":"`+password+`"}`)
		if login.status != http.StatusOK || !strings.Contains(login.body, `"email":"alice@acme.example"`) {
			t.Errorf("POST /auth/login with the printed sign-in: got %d %s, want 200 with Alice", login.status, login.body)
		}
	})
	t.Run("--no-admin serves no /admin/ and prints no admin URL", func(t *testing.T) {
		t.Parallel()
		apiURL, printed := serveDemoLines(t, "--no-admin")
		if out := strings.Join(printed, "\n"); strings.Contains(out, "/admin/") {
			t.Errorf("got an admin URL in\n%s\nwant none", out)
		}
		base := strings.TrimSuffix(apiURL, "/api")
		if got := fetch(t, "GET", base+"/admin/", ""); got.status != http.StatusNotFound {
			t.Errorf("GET /admin/: got %d, want 404", got.status)
		}
	})
}

type fetched struct {
	status int
	body   string
}

// fetch sends one request (a JSON body when body is not empty).
func fetch(t *testing.T, method, url, body string) fetched {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return fetched{res.StatusCode, string(b)}
}
