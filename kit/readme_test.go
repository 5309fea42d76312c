package kit_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readmeProgram wraps a Go snippet of the README in a program: the
// snippet is a main function's body that may use ctx and schemasFS and
// the packages imported here.
const readmeProgram = `package main

import (
	"context"
	"io/fs"
	"log"
	"net/http"
	"os"

	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

var (
	_ = log.Fatal
	_ = http.ListenAndServe
	_ = kit.Open
	_ = teamauth.RoleOwner
)

func main() {
	ctx := context.Background()
	var schemasFS fs.FS = os.DirFS("schemas")
	_, _ = ctx, schemasFS

%s
}
`

var goFence = regexp.MustCompile("(?ms)^```go\n(.*?)^```")

// TestREADMESnippetsCompile builds and vets every Go snippet of the
// README as the body of a main function, in a module of its own that
// requires this checkout of kit (a replace directive), so a snippet that
// drifts from kit's API fails here. Example_firstTeam runs the first
// snippet's program.
func TestREADMESnippetsCompile(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH: skipping the build of the README's snippets")
	}
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	snippets := goFence.FindAllStringSubmatch(string(readme), -1)
	if len(snippets) == 0 {
		t.Fatal("got no Go snippet in the README, want at least the embedding example")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module readmecheck\n\ngo 1.25\n\nrequire github.com/collectionkit/kit v0.0.0\n\n" +
			"replace github.com/collectionkit/kit => " + root + "\n",
		"go.sum": string(sum),
	}
	for i, m := range snippets {
		files[fmt.Sprintf("snippet%d/main.go", i+1)] = fmt.Sprintf(readmeProgram, m[1])
	}
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"build", "-o", filepath.Join(dir, "bin") + string(filepath.Separator), "./..."}, {"vet", "./..."}} {
		cmd := exec.CommandContext(t.Context(), goTool, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s over the README's %d Go snippet(s): %v\n%s", strings.Join(args, " "), len(snippets), err, out)
		}
	}
}
