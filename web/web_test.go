package web

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestWebPackages runs the Vitest suite of the TypeScript packages (npm
// test in this folder), which builds kit from ./cmd/kit and serves it on a
// temporary SQLite file. It installs the locked dependencies (npm ci) when
// node_modules is missing or lacks a dependency of the root package, and
// skips with a message when node or npm is not installed, or with -short.
func TestWebPackages(t *testing.T) {
	requireNode(t)
	if testing.Short() {
		t.Skip("-short: skipping the TypeScript tests of web/ (they build and start kit serve)")
	}
	// The component suites (happy-dom, Vue single-file components) made the
	// run a few minutes long on a busy two-core machine; 8 minutes stays
	// inside go test's default 10-minute limit.
	consultSources(t)
	ctx, cancel := context.WithTimeout(t.Context(), 9*time.Minute) // openapi-typescript and tsc load the TypeScript compiler: slow on a busy machine
	defer cancel()
	installDependencies(ctx, t)
	start := time.Now()
	out, err := npm(ctx, "test")
	if err != nil {
		t.Fatalf("npm test (vitest run in web/): %v\n%s", err, out)
	}
	t.Logf("npm test passed in %s\n%s", time.Since(start).Round(100*time.Millisecond), out)
}

// consultSources stats every source file of the repository (Go, the web
// packages, the lockfile), outside node_modules and .git. The suite runs
// programs go test does not see (npm, and kit built from ./cmd/kit), so
// without this go test would answer a cached "ok" after a change to any of
// them; files a test consults are part of its cache key.
func consultSources(t *testing.T) {
	t.Helper()
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "node_modules", ".git", "testdata-out":
				return filepath.SkipDir
			}
			return nil
		}
		_, err = os.Stat(path)
		return err
	})
	if err != nil {
		t.Fatalf("walk the sources: %v", err)
	}
}

// installNeeded says why node_modules must be installed from the lockfile,
// or returns "" when it holds every dependency the root package names: a
// checkout that gained a devDependency (openapi-typescript, say) since the
// last npm ci installs again.
func installNeeded() string {
	if _, err := os.Stat(filepath.Join("node_modules", ".package-lock.json")); err != nil {
		return "web/node_modules is missing"
	}
	raw, err := os.ReadFile("package-lock.json")
	if err != nil {
		return "web/package-lock.json is unreadable"
	}
	var lock struct {
		Packages map[string]struct {
			Dependencies    map[string]string `json:"dependencies"`
			DevDependencies map[string]string `json:"devDependencies"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(raw, &lock); err != nil {
		return "web/package-lock.json is not JSON"
	}
	root := lock.Packages[""]
	for _, deps := range []map[string]string{root.Dependencies, root.DevDependencies} {
		for name := range deps {
			if _, err := os.Stat(filepath.Join("node_modules", filepath.FromSlash(name), "package.json")); err != nil {
				return "web/node_modules lacks " + name
			}
		}
	}
	return ""
}

// requireNode skips t, saying why, when node or npm is not installed.
func requireNode(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: skipping the TypeScript tests of web/ (install Node.js 20+ to run them)", tool)
		}
	}
}

// installDependencies runs npm ci when node_modules lacks what the
// lockfile's root package names (see installNeeded).
func installDependencies(ctx context.Context, t *testing.T) {
	t.Helper()
	if why := installNeeded(); why != "" {
		t.Logf("%s: running npm ci", why)
		if out, err := npm(ctx, "ci", "--no-audit", "--no-fund"); err != nil {
			t.Fatalf("npm ci: %v\n%s", err, out)
		}
	}
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
