package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/collectionkit/kit/internal/store"
	"github.com/collectionkit/kit/internal/testkit"
)

// exampleSchemas is examples/schemas seen from this package's folder,
// where go test runs.
const exampleSchemas = "../../examples/schemas"

// servingLine matches the line kit serve prints once it accepts requests.
var servingLine = regexp.MustCompile(`^kit: serving \d+ collections? on (http://\S+)$`)

// waitForServing reads lines from r until the serving line and returns
// its URL and every line before it; the rest of r is drained in the
// background.
func waitForServing(t *testing.T, r io.Reader) (apiURL string, before []string) {
	t.Helper()
	type result struct {
		url   string
		lines []string
	}
	found := make(chan result, 1)
	go func() {
		sc := bufio.NewScanner(r)
		var lines []string
		for sc.Scan() {
			if m := servingLine.FindStringSubmatch(sc.Text()); m != nil {
				found <- result{m[1], lines}
				io.Copy(io.Discard, r)
				return
			}
			lines = append(lines, sc.Text())
		}
		found <- result{"", lines}
	}()
	select {
	case res := <-found:
		if res.url == "" {
			t.Fatalf("got no serving line; stdout was:\n%s", strings.Join(res.lines, "\n"))
		}
		return res.url, res.lines
	case <-time.After(60 * time.Second):
		t.Fatal("got no serving line within 60 s")
	}
	return "", nil
}

func getJSON(t *testing.T, url, token string) (status int, body map[string]any) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Errorf("GET %s: got body %q, want a JSON object", url, raw)
	}
	return resp.StatusCode, body
}

func TestServeAnswersUnderThePrefixAndAtHealthzAndStopsWhenTheContextEnds(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	pr, pw := io.Pipe()
	var stderr testkit.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--schemas", exampleSchemas, "--db", filepath.Join(t.TempDir(), "kit.db"),
			"--addr", "127.0.0.1:0", "--prefix", "v1/"}, pw, &stderr)
		pw.Close()
	}()
	apiURL, _ := waitForServing(t, pr)
	if !strings.HasSuffix(apiURL, "/v1") {
		t.Errorf("got API URL %s, want it to end in the prefix /v1", apiURL)
	}
	origin := strings.TrimSuffix(apiURL, "/v1")

	if status, body := getJSON(t, origin+"/healthz", ""); status != 200 || body["status"] != "ok" {
		t.Errorf("GET /healthz: got %d %v, want 200 {\"status\":\"ok\"}", status, body)
	}
	if status, body := getJSON(t, apiURL+"/kit/collections", ""); status != 401 || body["status"] != float64(401) {
		t.Errorf("GET /v1/kit/collections without a token: got %d %v, want kit's 401 answer", status, body)
	}
	for _, path := range []string{"/v1/teams//x", "/v1/teams/acme/../x", "/v1/./kit/collections"} {
		// Not ServeMux's HTML redirect to a cleaned path: kit's 400.
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, origin+path, nil)
		req.URL.Opaque = path // sent as written, not cleaned by the client
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 400 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") || !strings.Contains(string(body), `"status":400`) {
			t.Errorf("GET %s: got %d %s %s, want kit's 400 in its error shape", path, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	}
	if resp, err := http.Get(origin + "/api/kit/collections"); err != nil || resp.StatusCode != 404 {
		t.Errorf("GET /api/kit/collections with prefix /v1: got %v, %v; want 404", resp.StatusCode, err)
	} else {
		resp.Body.Close()
	}

	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("got exit status %d after the context ended, want 0 (stderr %q)", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not return within 10 s of the context ending")
	}
	if !strings.Contains(stderr.String(), "kit: stopped") {
		t.Errorf("got stderr %q, want it to say kit stopped", stderr.String())
	}
}

func TestServeRefusesToStartWithAMessageThatSaysWhatToDo(t *testing.T) {
	t.Parallel()
	broken := writeSchemas(t, map[string]string{"tasks.json": `{"title": {"type": "strng"}}`})
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	db := filepath.Join(t.TempDir(), "kit.db")
	tests := []struct {
		name   string
		args   []string
		stderr []string
	}{
		// go test runs in cmd/kit, which has no ./schemas.
		{"no schemas folder", []string{"serve", "--db", db}, []string{"no schemas folder in", "pass --schemas DIR"}},
		{"a missing --schemas folder", []string{"serve", "--schemas", "nowhere", "--db", db}, []string{"--schemas nowhere: no such folder"}},
		{"a schema with errors", []string{"serve", "--schemas", broken, "--db", db}, []string{
			"has 1 schema error (kit lint " + broken + " checks them):",
			`  tasks.json: tasks.title: unknown type "strng"`,
		}},
		{"an unreachable PostgreSQL server", []string{"serve", "--schemas", exampleSchemas, "--db", "postgresql://kit@127.0.0.1:1/kit"}, []string{
			"connect to postgresql://kit@127.0.0.1:1/kit",
		}},
		{"an address in use", []string{"serve", "--schemas", exampleSchemas, "--db", db, "--addr", busy.Addr().String()}, []string{
			"--addr 127.0.0.1:0 picks a free one",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runKit(t, tt.args...)
			if code != 1 {
				t.Errorf("got exit status %d, want 1", code)
			}
			if stdout != "" {
				t.Errorf("got stdout %q, want nothing", stdout)
			}
			for _, want := range tt.stderr {
				if !strings.Contains(stderr, want) {
					t.Errorf("got stderr %q, want it to contain %q", stderr, want)
				}
			}
		})
	}
}

func TestCleanPrefix(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"/api", "/api", true},
		{"api/", "/api", true},
		{"/v1/api", "/v1/api", true},
		{"", "", false},
		{"/", "", false},
		{"/a b", "", false},
		{"/a//b", "", false},
		{"/a?b", "", false},
	}
	for _, tt := range tests {
		got, err := cleanPrefix(tt.in)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("cleanPrefix(%q): got %q, %v; want %q (ok %v)", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestBaseURLTurnsAnUnspecifiedHostIntoLoopback(t *testing.T) {
	tests := []struct {
		addr *net.TCPAddr
		want string
	}{
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}, "http://127.0.0.1:8080"},
		{&net.TCPAddr{IP: net.IPv4zero, Port: 8080}, "http://127.0.0.1:8080"},
		{&net.TCPAddr{IP: net.IPv6unspecified, Port: 80}, "http://127.0.0.1:80"},
		{&net.TCPAddr{IP: net.IPv6loopback, Port: 9000}, "http://[::1]:9000"},
	}
	for _, tt := range tests {
		if got := baseURL(tt.addr); got != tt.want {
			t.Errorf("baseURL(%s): got %s, want %s", tt.addr, got, tt.want)
		}
	}
}

// startDemo runs "kit serve --demo" in-process with extra args on a fresh
// database and returns the API URL and Alice's token (the first printed).
func startDemo(t *testing.T, extra ...string) (apiURL, token string) {
	t.Helper()
	apiURL, token, _ = startDemoOn(t, filepath.Join(t.TempDir(), "kit.db"), extra...)
	return apiURL, token
}

// startDemoOn is startDemo on the database file db; stop ends the server
// and waits for it (the test's cleanup does so too, once).
func startDemoOn(t *testing.T, db string, extra ...string) (apiURL, token string, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	pr, pw := io.Pipe()
	var stderr testkit.Buffer
	done := make(chan int, 1)
	args := append([]string{"serve", "--demo", "--db", db, "--addr", "127.0.0.1:0"}, extra...)
	go func() {
		done <- run(ctx, args, pw, &stderr)
		pw.Close()
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if code := <-done; code != 0 {
				t.Errorf("got exit status %d, want 0 (stderr %q)", code, stderr.String())
			}
		})
	}
	t.Cleanup(stop)
	apiURL, printed := waitForServing(t, pr)
	for _, line := range printed {
		if tok, ok := strings.CutPrefix(strings.TrimSpace(line), "token: "); ok {
			return apiURL, tok, stop
		}
	}
	t.Fatalf("got no token line; stdout:\n%s", strings.Join(printed, "\n"))
	return "", "", stop
}

func TestServeRecordsEveryChangeAsAnAuditEventUnlessNoEvents(t *testing.T) {
	t.Parallel()
	t.Run("with events, a create through the API shows up in the team's events", func(t *testing.T) {
		t.Parallel()
		apiURL, token := startDemo(t)
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, apiURL+"/teams/acme/shop-categories",
			strings.NewReader(`{"title":"Audited"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var created map[string]any
		json.NewDecoder(resp.Body).Decode(&created)
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated || created["id"] == nil {
			t.Fatalf("POST shop-categories: got %d %v, want 201 with the record", resp.StatusCode, created)
		}

		status, body := getJSON(t, apiURL+"/teams/acme/kit-events", token)
		if status != http.StatusOK {
			t.Fatalf("GET kit-events: got status %d (%v), want 200", status, body)
		}
		items, _ := body["items"].([]any)
		if len(items) == 0 {
			t.Fatalf("GET kit-events: got %v, want events", body)
		}
		newest, _ := items[0].(map[string]any)
		if newest["itemId"] != created["id"] || newest["operation"] != "create" || newest["collectionName"] != "shopCategories" {
			t.Errorf("got newest event %v, want the create of shopCategories %v", newest, created["id"])
		}
	})
	t.Run("with --no-events, the events route answers 404", func(t *testing.T) {
		t.Parallel()
		apiURL, token := startDemo(t, "--no-events")
		if status, body := getJSON(t, apiURL+"/teams/acme/kit-events", token); status != http.StatusNotFound {
			t.Errorf("GET kit-events: got %d %v, want 404", status, body)
		}
		if status, _ := getJSON(t, apiURL+"/teams/acme/shop-products", token); status != http.StatusOK {
			t.Errorf("GET shop-products: got %d, want 200 (the collections are served)", status)
		}
	})
}

// TestServeAppliesTheEventRetention: kit serve runs the events add-on's
// retention (90 days) when it starts and hourly after, so an audit event
// older than that is deleted without anyone running kit events cleanup.
func TestServeAppliesTheEventRetention(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "kit.db")
	_, _, stop := startDemoOn(t, db)
	stop()
	// Age one of the demo's events past the retention, and forget the
	// period the first server claimed, as an hour passing would.
	bdb, err := store.OpenSQLite(db)
	if err != nil {
		t.Fatal(err)
	}
	var before int
	if err := bdb.NewSelect().Table("kit_events").ColumnExpr("count(*)").Scan(t.Context(), &before); err != nil {
		t.Fatal(err)
	}
	var aged string
	if err := bdb.NewSelect().Table("kit_events").Column("id").Limit(1).Scan(t.Context(), &aged); err != nil {
		t.Fatal(err)
	}
	if _, err := bdb.NewUpdate().Table("kit_events").Set("timestamp = ?", time.Now().AddDate(0, 0, -91).UTC()).
		Where("id = ?", aged).Exec(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := bdb.NewDelete().Table("kit_periodic").Where("1 = 1").Exec(t.Context()); err != nil {
		t.Fatal(err)
	}
	bdb.Close()

	_, _, stop = startDemoOn(t, db)
	defer stop()
	bdb, err = store.OpenSQLite(db)
	if err != nil {
		t.Fatal(err)
	}
	defer bdb.Close()
	// The retention runs on its own goroutine once the server is up:
	// wait for it, for at most 10 s.
	var left, agedLeft int
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if err := bdb.NewSelect().Table("kit_events").ColumnExpr("count(*)").Where("id = ?", aged).Scan(t.Context(), &agedLeft); err != nil {
			t.Fatal(err)
		}
		if agedLeft == 0 || time.Now().After(deadline) {
			break
		}
	}
	if err := bdb.NewSelect().Table("kit_events").ColumnExpr("count(*)").Scan(t.Context(), &left); err != nil {
		t.Fatal(err)
	}
	if agedLeft != 0 || left != before-1 {
		t.Errorf("got %d events (the aged one %d times), want %d with the aged one deleted", left, agedLeft, before-1)
	}
}

func TestTheEmbeddedDemoSchemasAreACopyOfExamplesSchemas(t *testing.T) {
	_, embedded, err := schemasFolder("", true)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	err = fs.WalkDir(os.DirFS(exampleSchemas), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(os.DirFS(exampleSchemas), p)
		want[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	err = fs.WalkDir(embedded, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(embedded, p)
		got[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Errorf("got %d embedded files, want the %d of examples/schemas (copy examples/schemas to cmd/kit/demo/schemas)", len(got), len(want))
	}
	for p, w := range want {
		if got[p] != w {
			t.Errorf("embedded %s differs from examples/schemas/%s: copy examples/schemas to cmd/kit/demo/schemas", p, p)
		}
	}
}
