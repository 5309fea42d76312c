package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/collectionkit/kit/internal/testkit"
)

// TestANewcomerCanRunTheDemoAndEveryPrintedCurlLineWorks does what the
// README tells a newcomer: build kit, run "kit serve --demo" (from an
// empty folder: the demo schemas are built in), paste each printed curl
// line, the events list's too, press Ctrl-C.
func TestANewcomerCanRunTheDemoAndEveryPrintedCurlLineWorks(t *testing.T) {
	t.Parallel()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH, so the kit binary cannot be built")
	}
	if runtime.GOOS == "windows" {
		t.Skip("the test stops kit with SIGINT, which Windows processes cannot be sent")
	}
	root := moduleRoot(t)
	tmp := t.TempDir()
	bin := buildKit(t, goBin, root)

	kit := exec.Command(bin, "serve", "--demo", "--addr", "127.0.0.1:0", "--db", filepath.Join(tmp, "kit.db"))
	kit.Dir = t.TempDir() // empty: nothing of the repository around
	var stderr testkit.Buffer
	stdout, stdoutWriter := io.Pipe()
	kit.Stdout, kit.Stderr = stdoutWriter, &stderr
	if err := kit.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() {
		exited <- kit.Wait()
		stdoutWriter.Close()
	}()
	waited := false
	t.Cleanup(func() {
		if !waited {
			kit.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("kit's stderr:\n%s", stderr.String())
		}
	})

	apiURL, printed := waitForServing(t, stdout)
	var requests []curlRequest
	for _, line := range printed {
		if line = strings.TrimSpace(line); strings.HasPrefix(line, "curl ") {
			req, err := parseCurl(line)
			if err != nil {
				t.Fatalf("printed line %q: %v", line, err)
			}
			requests = append(requests, req)
		}
	}
	if len(requests) != 5 {
		t.Fatalf("got %d curl lines, want 5 (Alice, Bob, Carol, Root, acme's events); stdout before serving:\n%s", len(requests), strings.Join(printed, "\n"))
	}
	if got := requests[4].url; got != apiURL+"/teams/acme/kit-events" {
		t.Errorf("got last curl line for %s, want acme's events list %s/teams/acme/kit-events", got, apiURL)
	}
	for _, r := range requests {
		if !strings.HasPrefix(r.url, apiURL+"/") {
			t.Errorf("curl line for %s: want a URL under the serving address %s", r.url, apiURL)
		}
		name := strings.TrimPrefix(r.url, apiURL)
		if strings.Contains(name, "/super-admin/") {
			name = path.Dir(name) + "/{id}"
		}
		t.Run(r.method+" "+name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(t.Context(), r.method, r.url, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range r.headers {
				req.Header.Add(h[0], h[1])
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			raw, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("got status %d, want 200; body %s", resp.StatusCode, raw)
			}
			var body map[string]any
			if err := json.Unmarshal(raw, &body); err != nil {
				t.Fatalf("got body %s, want a JSON object", raw)
			}
			if strings.Contains(r.url, "/super-admin/") {
				if id := path.Base(r.url); body["id"] != id {
					t.Errorf("got record %v, want the record with id %s", body, id)
				}
				return
			}
			items, ok := body["items"].([]any)
			if !ok || len(items) == 0 {
				t.Fatalf("got body %s, want a list with items", raw)
			}
			if strings.HasSuffix(r.url, "/kit-events") {
				// The seeded records were created with the add-on on.
				first, _ := items[0].(map[string]any)
				if first["operation"] != "create" || first["teamId"] == "" || first["collectionName"] == "" {
					t.Errorf("got first event %v, want a create event of a demo record", first)
				}
			}
		})
	}

	if err := kit.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		waited = true
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			t.Errorf("after SIGINT: got exit status %d, want 0", exit.ExitCode())
		} else if err != nil {
			t.Errorf("after SIGINT: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("kit did not exit within 10 s of SIGINT")
	}
}

// moduleRoot returns the folder of the go.mod above the working directory.
// buildKit builds the kit command into a temporary folder.
// builtKit is the kit binary the process tests share: go build runs once
// per test binary, into a directory TestMain removes.
var builtKit struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

// buildKit builds ./cmd/kit once for every test that starts kit processes
// and returns the binary's path.
func buildKit(t *testing.T, goBin, root string) string {
	t.Helper()
	builtKit.once.Do(func() {
		if builtKit.dir, builtKit.err = os.MkdirTemp("", "kit-cmd-test-"); builtKit.err != nil {
			return
		}
		bin := filepath.Join(builtKit.dir, "kit")
		build := exec.Command(goBin, "build", "-o", bin, "./cmd/kit")
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			builtKit.err = fmt.Errorf("go build ./cmd/kit: %v\n%s", err, out)
			return
		}
		builtKit.bin = bin
	})
	if builtKit.err != nil {
		t.Fatal(builtKit.err)
	}
	return builtKit.bin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if builtKit.dir != "" {
		os.RemoveAll(builtKit.dir)
	}
	os.Exit(code)
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = parent
	}
}

// curlRequest is the request a curl command line makes.
type curlRequest struct {
	method  string
	url     string
	headers [][2]string
}

// parseCurl reads a curl command line as a shell would (words, single
// quotes) and returns its request. It knows -s, -H and -X; anything else
// is an error, so that a line the test cannot check does not pass.
func parseCurl(line string) (curlRequest, error) {
	words, err := shellWords(line)
	if err != nil {
		return curlRequest{}, err
	}
	r := curlRequest{method: http.MethodGet}
	for i := 1; i < len(words); i++ {
		switch w := words[i]; {
		case w == "-s" || w == "--silent":
		case (w == "-H" || w == "--header") && i+1 < len(words):
			i++
			name, value, ok := strings.Cut(words[i], ":")
			if !ok {
				return r, fmt.Errorf("header %q has no colon", words[i])
			}
			r.headers = append(r.headers, [2]string{strings.TrimSpace(name), strings.TrimSpace(value)})
		case (w == "-X" || w == "--request") && i+1 < len(words):
			i++
			r.method = words[i]
		case !strings.HasPrefix(w, "-") && r.url == "":
			r.url = w
		default:
			return r, fmt.Errorf("unexpected curl argument %q", w)
		}
	}
	if r.url == "" {
		return r, errors.New("no URL")
	}
	return r, nil
}

// shellWords splits a command line into words: runs of non-space
// characters and single-quoted strings. Other shell syntax is refused.
func shellWords(line string) ([]string, error) {
	var words []string
	var word strings.Builder
	inWord, quoted := false, false
	for _, c := range line {
		switch {
		case quoted && c == '\'':
			quoted = false
		case quoted:
			word.WriteRune(c)
		case c == '\'':
			quoted, inWord = true, true
		case c == ' ':
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
		case strings.ContainsRune("\"\\$`;&|<>()*?", c):
			return nil, fmt.Errorf("shell syntax %q outside single quotes", c)
		default:
			word.WriteRune(c)
			inWord = true
		}
	}
	if quoted {
		return nil, errors.New("unterminated single quote")
	}
	if inWord {
		words = append(words, word.String())
	}
	return words, nil
}
