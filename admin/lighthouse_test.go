package admin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// lighthouseCLI is Lighthouse's command line, pinned in web/package.json
// and installed by npm ci in web/.
const lighthouseCLI = "../web/node_modules/lighthouse/cli/index.js"

// The least score (0 to 100) of the categories the admin holds itself to.
var lighthouseFloor = map[string]float64{"accessibility": 95, "best-practices": 95}

// TestLighthouse runs Lighthouse (the pinned version, on Node.js) against
// a kit server with the admin app and its seeded teams, on the sign-in
// page and, signed in as Alice (her session cookie sent with every
// request), on a collection, a record's form and the activity log, in
// Debian's Chromium. Each page scores at least 95 for accessibility and
// for best practices; performance is reported in the log (it depends on
// the machine, so it is measured, not asserted). The reports are saved
// under testdata/out. Without Node.js, Lighthouse or Chromium it skips,
// saying so; -short skips it too.
func TestLighthouse(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping Lighthouse (it runs Chromium for each page)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: skipping Lighthouse (install Node.js 20+ and run npm ci in web/)")
	}
	if _, err := os.Stat(lighthouseCLI); err != nil {
		t.Skipf("Lighthouse is not installed (%v): run npm ci in web/", err)
	}
	chromium := chromiumPath()
	if chromium == "" {
		t.Skip("Chromium is not installed: skipping Lighthouse (apt-get install chromium, or set KIT_CHROMIUM)")
	}
	w := newWorld(t)
	cookie := w.sessionCookie(t)
	headers, _ := json.Marshal(map[string]string{"Cookie": cookie})

	pages := []struct{ name, path string }{
		{"the sign-in page", "/admin/login"},
		{"a collection", "/admin/teams/acme/collections/shopProducts"},
		{"a record's form", "/admin/teams/acme/collections/shopProducts?record=" + w.ids["Lamp C"]},
		{"the activity log", "/admin/teams/acme/activity"},
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, pg := range pages {
		t.Run(pg.name+" scores at least 95 for accessibility and best practices", func(t *testing.T) {
			args := []string{lighthouseCLI, w.srv.URL + pg.path}
			if pg.path != "/admin/login" {
				args = append(args, "--extra-headers="+string(headers))
			}
			report := runLighthouse(t, node, chromium, args)
			name := filepath.Join(outDir, "lighthouse_"+unsafeName.ReplaceAllString(pg.name, "_")+".json")
			if err := os.WriteFile(name, report.raw, 0o644); err != nil {
				t.Log(err)
			}
			if report.RuntimeError != nil {
				t.Fatalf("Lighthouse: %s: %s", report.RuntimeError.Code, report.RuntimeError.Message)
			}
			if got := report.FinalDisplayedURL; !strings.HasPrefix(got, w.srv.URL+strings.SplitN(pg.path, "?", 2)[0]) {
				t.Errorf("got Lighthouse on %s, want %s (signed out?)", got, pg.path)
			}
			var line []string
			for _, id := range []string{"performance", "accessibility", "best-practices"} {
				c, ok := report.Categories[id]
				if !ok || c.Score == nil {
					t.Errorf("got no %s score", id)
					continue
				}
				score := *c.Score * 100
				line = append(line, fmt.Sprintf("%s %.0f", id, score))
				if floor, ok := lighthouseFloor[id]; ok && score < floor {
					t.Errorf("got %s %.0f, want at least %.0f; failing audits: %s", id, score, floor, strings.Join(report.failing(id), "; "))
				}
			}
			t.Logf("Lighthouse %s on %s: %s (report %s)", report.LighthouseVersion, pg.path, strings.Join(line, ", "), name)
			for _, warning := range report.RunWarnings {
				t.Logf("Lighthouse warns: %s", warning)
			}
		})
	}
}

// lighthouseReport is the part of Lighthouse's JSON report the test reads.
type lighthouseReport struct {
	raw               []byte
	LighthouseVersion string   `json:"lighthouseVersion"`
	FinalDisplayedURL string   `json:"finalDisplayedUrl"`
	RunWarnings       []string `json:"runWarnings"`
	RuntimeError      *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"runtimeError"`
	Categories map[string]struct {
		Score     *float64 `json:"score"`
		AuditRefs []struct {
			ID     string  `json:"id"`
			Weight float64 `json:"weight"`
		} `json:"auditRefs"`
	} `json:"categories"`
	Audits map[string]struct {
		Title string   `json:"title"`
		Score *float64 `json:"score"`
	} `json:"audits"`
}

// failing lists the weighted audits of a category that did not pass.
func (r *lighthouseReport) failing(category string) []string {
	var out []string
	for _, ref := range r.Categories[category].AuditRefs {
		a := r.Audits[ref.ID]
		if ref.Weight > 0 && a.Score != nil && *a.Score < 1 {
			out = append(out, fmt.Sprintf("%s (%s, score %.2f)", ref.ID, a.Title, *a.Score))
		}
	}
	return out
}

// runLighthouse runs Lighthouse's CLI with args in Chromium, headless, on
// a fresh user data dir, and decodes its JSON report.
func runLighthouse(t *testing.T, node, chromium string, args []string) *lighthouseReport {
	t.Helper()
	profile := t.TempDir()
	flags := strings.Join([]string{
		"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--user-data-dir=" + profile,
	}, " ")
	args = append(args,
		"--output=json", "--output-path=stdout", "--quiet",
		"--only-categories=performance,accessibility,best-practices",
		"--chrome-flags="+flags,
		// A signed-in page keeps the team's change stream and the presence
		// stream open, so its network never goes quiet: Lighthouse audits it
		// at this deadline, rendered (and warns that it loaded slowly).
		"--max-wait-for-load=12000",
	)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Env = append(os.Environ(), "CHROME_PATH="+chromium, "NO_COLOR=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Run(); err != nil {
		t.Fatalf("lighthouse: %v\n%s", err, stderr.String())
	}
	r := &lighthouseReport{raw: stdout.Bytes()}
	if err := json.Unmarshal(r.raw, r); err != nil {
		t.Fatalf("lighthouse report: %v\n%s", err, stderr.String())
	}
	return r
}

// sessionCookie signs Alice in through the API and returns her session
// cookie as a Cookie header's value.
func (w *world) sessionCookie(t *testing.T) string {
	t.Helper()
	body := strings.NewReader(fmt.Sprintf(`{"email": %q, "password": %q}`, w.email, w.password))
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, w.srv.URL+w.k.Config().Prefix+"/auth/login", body)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("sign in: got status %d, want 200", res.StatusCode)
	}
	var parts []string
	for _, c := range res.Cookies() {
		parts = append(parts, c.Name+"="+c.Value)
	}
	if len(parts) == 0 {
		t.Fatal("sign in: got no cookie, want the session's")
	}
	return strings.Join(parts, "; ")
}
