package web

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/typegen"
)

// TestGeneratedTypeScriptCompiles runs tsc --noEmit over what kit gen
// types writes (--lang ts and --lang vue) for the example schemas and for
// typegen's test schemas (every field type, a tree, a sortable
// collection), together with the usage files in
// ../typegen/testdata/usage: the generated types used through
// @collectionkit/client and the generated composables over
// @collectionkit/vue (both compiled from their sources), each with
// @ts-expect-error lines that tsc must find wrong. It skips, saying so,
// without Node.js.
func TestGeneratedTypeScriptCompiles(t *testing.T) {
	requireNode(t)
	consultSources(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	installDependencies(ctx, t)

	// Inside web/, so that vue resolves from web/node_modules.
	dir, err := os.MkdirTemp(".", ".typegen-check-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	write := func(name string, content []byte) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("tsconfig.json", []byte(`{
  "extends": "../tsconfig.base.json",
  "compilerOptions": {
    "noEmit": true,
    "paths": {
      "@collectionkit/client": ["../client/src/index.ts"],
      "@collectionkit/vue": ["../vue/src/index.ts"]
    }
  },
  "include": ["**/*.ts"]
}
`))
	for _, set := range []struct{ name, schemas string }{
		{"examples", "../examples/schemas"},
		{"testdata", "../typegen/testdata/schemas"},
	} {
		reg, _, err := collections.Load(os.DirFS(set.schemas), collections.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for lang, file := range map[typegen.Lang]string{typegen.LangTS: "kit.ts", typegen.LangVue: "kit-vue.ts"} {
			src, err := typegen.Generate(reg, lang, typegen.Options{Source: set.schemas})
			if err != nil {
				t.Fatal(err)
			}
			write(set.name+"/"+file, src)
		}
	}
	for _, usage := range []string{"usage-client.ts", "usage-vue.ts"} {
		src, err := os.ReadFile(filepath.Join("..", "typegen", "testdata", "usage", usage))
		if err != nil {
			t.Fatal(err)
		}
		write("examples/"+usage, src)
	}
	cmd := exec.CommandContext(ctx, filepath.Join("node_modules", ".bin", "tsc"), "-p", filepath.Join(dir, "tsconfig.json"))
	cmd.WaitDelay = 10 * time.Second
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tsc --noEmit over the generated TypeScript: %v\n%s", err, out)
	}
}
