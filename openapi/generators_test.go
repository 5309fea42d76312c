package openapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/collectionkit/kit/internal/testdb"
)

// The generators the document is checked with, at pinned versions, and
// the versions of their runtime libraries the generated code is built
// with. Raising one is a change to this file.
const (
	oapiCodegen = "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2"
	ogen        = "github.com/ogen-go/ogen/cmd/ogen@v1.24.0"
	clientsMod  = `module kitclients

go 1.25

require (
	github.com/go-faster/errors v0.8.0
	github.com/go-faster/jx v1.2.0
	github.com/oapi-codegen/runtime v1.9.0
	github.com/ogen-go/ogen v1.24.0
	go.opentelemetry.io/otel v1.47.0
	go.opentelemetry.io/otel/metric v1.47.0
	go.opentelemetry.io/otel/trace v1.47.0
)
`
	// ogenConfig generates ogen's client only: its server side cannot
	// encode an event stream (the change stream's answer).
	ogenConfig = "generator:\n  features:\n    disable:\n      - paths/server\n"
)

// TestGeneratedGoClients generates two Go clients from the document a real
// kit server serves (the fixture's: the example schemas, a sortable
// collection, an external one, the events add-on), oapi-codegen's
// (-generate types,client) and ogen's, into a module of their own in a
// temporary folder, builds testdata/goclients with them and runs it
// against the server: through each client a create, a list with a filter
// and a search, an update with the created record's ETag, a stale update
// (412), deletes, and a list that finds nothing left. The generators run
// with go run at the versions above; their modules come from the module
// cache or the Go module proxy. It skips with -short.
func TestGeneratedGoClients(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the generated Go clients (they go run oapi-codegen and ogen and build their output)")
	}
	start := time.Now()
	f := newFixtureOn(t, testdb.EngineSQLite)
	status, doc := f.do(t, "GET", "/api/kit/openapi.json", f.owner, "")
	if status != 200 {
		t.Fatalf("GET /api/kit/openapi.json: got %d, want 200: %s", status, doc)
	}
	program, err := os.ReadFile(filepath.Join("testdata", "goclients", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, content := range map[string][]byte{
		"openapi.json": doc, "go.mod": []byte(clientsMod), "ogen.yml": []byte(ogenConfig), "main.go": program,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "oapi"), 0o755); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	run := func(env []string, name string, args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir = dir
		// The module's requirements are pinned above; -mod=mod lets go
		// complete go.mod and go.sum from them.
		cmd.Env = append(os.Environ(), append([]string{"GOWORK=off", "GOFLAGS=-mod=mod"}, env...)...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out.String())
		}
		return out.String()
	}
	run(nil, "go", "run", oapiCodegen, "-generate", "types,client", "-package", "oapi", "-o", "oapi/client.gen.go", "openapi.json")
	run(nil, "go", "run", ogen, "-config", "ogen.yml", "-package", "ogenc", "-target", "ogenc", "-clean", "openapi.json")
	generated := time.Since(start)
	run(nil, "go", "build", "-trimpath", "-o", "goclients", ".")
	built := time.Since(start)
	out := run([]string{"KIT_URL=" + f.app.URL(""), "KIT_TOKEN=" + f.owner, "KIT_TEAM=acme"}, filepath.Join(dir, "goclients"))
	for _, want := range []string{
		"oapi-codegen: create 201, list 1 of 1, update 200, stale update 412, delete 204, then 0 left\n",
		"ogen: create 201, list 1 of 1, update 200, stale update 412, delete 204, then 0 left\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("got\n%s\nwant a line %q", out, want)
		}
	}
	t.Logf("generated in %s, built in %s, ran in %s\n%s", generated.Round(100*time.Millisecond),
		(built - generated).Round(100*time.Millisecond), (time.Since(start) - built).Round(100*time.Millisecond), out)
}

// TestTheDocumentSuitsTools checks, without the tools, the rules of the
// served document that code generators and linters rely on: every enum
// has a type; no schema lists two value types (null aside); every array
// has items; every operation has a tag and a description; every
// component schema, response and parameter is referred to; the document
// names a server and a contact; a decimal input is a string.
func TestTheDocumentSuitsTools(t *testing.T) {
	f := newFixtureOn(t, testdb.EngineSQLite)
	doc := f.document(t)
	raw, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}

	var walk func(path string, v any)
	var problems []string
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if _, hasEnum := v["enum"]; hasEnum && v["type"] == nil {
				problems = append(problems, path+": an enum without a type")
			}
			if types, ok := v["type"].([]any); ok {
				var values []any
				for _, ty := range types {
					if ty != "null" {
						values = append(values, ty)
					}
				}
				if len(values) > 1 {
					problems = append(problems, fmt.Sprintf("%s: type lists %v", path, values))
				}
			}
			if isArray(v["type"]) && v["items"] == nil && v["prefixItems"] == nil {
				problems = append(problems, path+": an array without items")
			}
			for k, sub := range v {
				walk(path+"/"+k, sub)
			}
		case []any:
			for i, sub := range v {
				walk(fmt.Sprintf("%s/%d", path, i), sub)
			}
		}
	}
	walk("#", doc)

	for path, item := range doc["paths"].(map[string]any) {
		for method, op := range item.(map[string]any) {
			o := op.(map[string]any)
			if d, _ := o["description"].(string); d == "" {
				problems = append(problems, fmt.Sprintf("%s %s: no description", method, path))
			}
			if tags, _ := o["tags"].([]any); len(tags) == 0 {
				problems = append(problems, fmt.Sprintf("%s %s: no tag", method, path))
			}
		}
	}
	components := doc["components"].(map[string]any)
	for _, kind := range []string{"schemas", "responses", "parameters"} {
		for name := range components[kind].(map[string]any) {
			if !bytes.Contains(raw, []byte(`"#/components/`+kind+`/`+name+`"`)) {
				problems = append(problems, fmt.Sprintf("components/%s/%s: nothing refers to it", kind, name))
			}
		}
	}
	if servers, _ := doc["servers"].([]any); len(servers) == 0 {
		problems = append(problems, "no servers")
	}
	if doc["info"].(map[string]any)["contact"] == nil {
		problems = append(problems, "no info.contact")
	}
	price := components["schemas"].(map[string]any)["ProductInput"].(map[string]any)["properties"].(map[string]any)["price"].(map[string]any)
	if price["type"] != "string" || !strings.Contains(fmt.Sprint(price["description"]), "a JSON number is accepted too") {
		problems = append(problems, fmt.Sprintf("ProductInput.price: got %v, want a string that says numbers are accepted too", price))
	}
	sort.Strings(problems)
	for _, p := range problems {
		t.Error(p)
	}
}

func isArray(ty any) bool {
	switch ty := ty.(type) {
	case string:
		return ty == "array"
	case []any:
		return slices.Contains(ty, any("array"))
	}
	return false
}
