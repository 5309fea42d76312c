package typegen_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/typegen"
)

// TestGoOutputBuildsAndVetsInAModuleOfItsOwn writes each schema set's Go
// output into a new module with a small main that uses every generated
// type, and runs go build, go vet and the program.
func TestGoOutputBuildsAndVetsInAModuleOfItsOwn(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH: skipping the build of the generated Go code")
	}
	for _, set := range schemaSets {
		t.Run(set.name, func(t *testing.T) {
			t.Parallel()
			reg := load(t, set.dir)
			src, err := typegen.Generate(reg, typegen.LangGo, typegen.Options{Package: "kittypes"})
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			write := func(name, content string) {
				p := filepath.Join(dir, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write("go.mod", "module example.com/gencheck\n\ngo 1.25\n")
			write("kittypes/kit_types.go", string(src))
			write("main.go", usageProgram(reg))
			for _, args := range [][]string{{"build", "-o", "gencheck", "."}, {"vet", "./..."}} {
				cmd := exec.CommandContext(t.Context(), goTool, args...)
				cmd.Dir = dir
				cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
				}
			}
			out, err := exec.CommandContext(t.Context(), filepath.Join(dir, "gencheck")).CombinedOutput()
			if err != nil {
				t.Fatalf("the program using the types failed: %v\n%s", err, out)
			}
			if got, want := strings.Count(string(out), "\n"), reg.Len(); got != want {
				t.Errorf("got %d lines from the program, want one per collection (%d):\n%s", got, want, out)
			}
		})
	}
}

// usageProgram is a main package that uses each collection's generated
// types and constants: it marshals an input, unmarshals a record and a
// page, and encodes a query.
func usageProgram(reg *collections.Registry) string {
	names := collections.TypeNames(reg.All())
	keys := make([]string, 0, len(names))
	for k := range names {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	b.WriteString("package main\n\nimport (\n\t\"encoding/json\"\n\t\"fmt\"\n\n\t\"example.com/gencheck/kittypes\"\n)\n\nfunc main() {\n")
	for _, key := range keys {
		n, pascalKey := names[key], strings.ToUpper(key[:1])+key[1:]
		fmt.Fprintf(&b, `	{
		in, err := json.Marshal(kittypes.%[1]sInput{})
		if err != nil {
			panic(err)
		}
		var rec kittypes.%[1]s
		if err := json.Unmarshal([]byte(`+"`"+`{"id": "r1", "teamId": "t1"}`+"`"+`), &rec); err != nil {
			panic(err)
		}
		var page kittypes.%[1]sResponse
		if err := json.Unmarshal([]byte(`+"`"+`{"items": [{"id": "r1"}], "pagination": {"currentPage": 1, "pageSize": 20, "totalItems": 1}}`+"`"+`), &page); err != nil {
			panic(err)
		}
		v, err := kittypes.%[1]sQuery{Page: 2, Sort: []string{"-id"}, Filter: map[string]any{"id": "r1"}, IDs: []string{"r1"}}.Values()
		if err != nil {
			panic(err)
		}
		fmt.Println(kittypes.%[2]sKey, kittypes.%[2]sAPIPath, rec.ID, len(page.Items), page.Pagination.TotalItems, v.Encode(), len(in) > 0)
	}
`, n, pascalKey)
	}
	b.WriteString("}\n")
	return b.String()
}
