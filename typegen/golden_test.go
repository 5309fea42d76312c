package typegen_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/typegen"
)

var update = flag.Bool("update", false, "rewrite the golden files (testdata/golden, examples/kittypes) from the generator")

// schemaSets are the schema folders with golden files: the repository's
// example and demo schemas, and testdata/schemas (every field type,
// required and optional, a tree, a sortable collection, a collection
// without metadata, and two layers with a collection of one name).
var schemaSets = []struct {
	name   string // the golden files' base name
	dir    string // from this package
	source string // from the repository's root, for the header
}{
	{"examples-schemas", "../examples/schemas", "examples/schemas"},
	{"examples-basic-schemas", "../examples/basic/schemas", "examples/basic/schemas"},
	{"cmd-kit-demo-schemas", "../cmd/kit/demo/schemas", "cmd/kit/demo/schemas"},
	{"testdata-schemas", "testdata/schemas", "typegen/testdata/schemas"},
}

// goldenExt is each language's golden file extension.
var goldenExt = map[typegen.Lang]string{typegen.LangGo: ".go.golden", typegen.LangTS: ".ts.golden", typegen.LangVue: ".vue.ts.golden"}

func load(t *testing.T, dir string) *collections.Registry {
	t.Helper()
	reg, _, err := collections.Load(os.DirFS(dir), collections.LoadOptions{})
	if err != nil {
		t.Fatalf("load %s: %v", dir, err)
	}
	return reg
}

// checkGolden compares got with the file at path, or writes it with -update.
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./typegen -run Golden -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the generator's output differs from %s (run go test ./typegen -run Golden -update and review the diff):\n%s",
			path, firstDifference(got, want))
	}
}

// firstDifference shows the first line where got and want differ.
func firstDifference(got, want []byte) string {
	g, w := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl []byte
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if !bytes.Equal(gl, wl) {
			return "line " + strconv.Itoa(i+1) + ":\n got: " + string(gl) + "\nwant: " + string(wl)
		}
	}
	return ""
}

func TestGoldenFilesMatchTheGeneratorForEverySchemaSetAndLanguage(t *testing.T) {
	for _, set := range schemaSets {
		reg := load(t, set.dir)
		for _, lang := range typegen.Langs() {
			t.Run(set.name+" in "+string(lang), func(t *testing.T) {
				got, err := typegen.Generate(reg, lang, typegen.Options{Source: set.source})
				if err != nil {
					t.Fatal(err)
				}
				checkGolden(t, filepath.Join("testdata", "golden", set.name+goldenExt[lang]), got)
			})
		}
	}
}

func TestGoldenExamplesKittypesIsTheGeneratorsOutput(t *testing.T) {
	// examples/kittypes/doc.go generates it with --schemas ../schemas.
	got, err := typegen.Generate(load(t, "../examples/schemas"), typegen.LangGo, typegen.Options{Package: "kittypes", Source: "../schemas"})
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "../examples/kittypes/kit_types.go", got)
}

func TestGoldenWebVueTestModuleIsTheGeneratorsOutput(t *testing.T) {
	// web/vue/test/generated.test.ts runs these composables against a
	// real kit server.
	got, err := typegen.Generate(load(t, "../examples/schemas"), typegen.LangVue, typegen.Options{Source: "examples/schemas"})
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "../web/vue/test/generated/kit.ts", got)
}
