package web

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestWebPackages runs the Vitest suite of the TypeScript packages (npm
// test in this folder), which builds kit from ./cmd/kit and serves it on a
// temporary SQLite file. It installs the locked dependencies (npm ci) when
// node_modules is missing, and skips with a message when node or npm is not
// installed, or with -short.
func TestWebPackages(t *testing.T) {
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: skipping the TypeScript tests of web/ (install Node.js 20+ to run them)", tool)
		}
	}
	if testing.Short() {
		t.Skip("-short: skipping the TypeScript tests of web/ (they build and start kit serve)")
	}
	// The component suites (happy-dom, Vue single-file components) made the
	// run a few minutes long on a busy two-core machine; 8 minutes stays
	// inside go test's default 10-minute limit.
	ctx, cancel := context.WithTimeout(t.Context(), 8*time.Minute)
	defer cancel()

	if _, err := os.Stat(filepath.Join("node_modules", ".package-lock.json")); err != nil {
		t.Log("web/node_modules is missing: running npm ci")
		if out, err := npm(ctx, "ci", "--no-audit", "--no-fund"); err != nil {
			t.Fatalf("npm ci: %v\n%s", err, out)
		}
	}
	start := time.Now()
	out, err := npm(ctx, "test")
	if err != nil {
		t.Fatalf("npm test (vitest run in web/): %v\n%s", err, out)
	}
	t.Logf("npm test passed in %s\n%s", time.Since(start).Round(100*time.Millisecond), out)
}

// npm runs npm with args in this folder and returns its combined output.
func npm(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "npm", args...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "FORCE_COLOR=0", "CI=1")
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	cmd.WaitDelay = 10 * time.Second
	err := cmd.Run()
	return out.Bytes(), err
}
