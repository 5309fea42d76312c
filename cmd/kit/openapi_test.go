package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/collectionkit/kit/events"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/kittest"
)

func TestOpenAPI(t *testing.T) {
	// want is the document a served kit with the example schemas and the
	// events add-on answers.
	k := kittest.NewKit(t, kit.Config{Schemas: os.DirFS("../../examples/schemas")})
	if _, err := events.Install(t.Context(), k, events.Config{}); err != nil {
		t.Fatal(err)
	}
	doc, err := k.OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(doc)

	t.Run("it prints the document kit serve serves for the schemas folder", func(t *testing.T) {
		code, stdout, stderr := runKit(t, "openapi", "--schemas", "../../examples/schemas")
		if code != 0 || stderr != "" {
			t.Fatalf("got exit status %d, stderr %q, want 0 and nothing", code, stderr)
		}
		var got any
		if err := json.Unmarshal([]byte(stdout), &got); err != nil {
			t.Fatalf("got stdout that is not JSON: %v", err)
		}
		gotJSON, _ := json.Marshal(got)
		var wantAny any
		_ = json.Unmarshal(want, &wantAny)
		wantJSON, _ := json.Marshal(wantAny)
		if string(gotJSON) != string(wantJSON) {
			t.Errorf("got a document of %d bytes, want the served one of %d", len(gotJSON), len(wantJSON))
		}
	})
	tests := []struct {
		name         string
		args         []string
		code         int
		contains     []string
		notContains  []string
		stderrSubstr string
	}{
		{name: "--no-events leaves the event routes out", args: []string{"openapi", "--schemas", "../../examples/schemas", "--no-events"},
			contains: []string{`"/api/teams/{team}/shop-products"`}, notContains: []string{"kit-events"}},
		{name: "--prefix moves every path", args: []string{"openapi", "--schemas", "../../examples/schemas", "--prefix", "v1/"},
			contains: []string{`"/v1/teams/{team}/shop-products/{id}"`, `"/v1/kit/openapi.json"`}, notContains: []string{`"/api/`}},
		{name: "--demo describes the demo schemas", args: []string{"openapi", "--demo"},
			contains: []string{`"/api/teams/{team}/blog-posts"`, `"ProductInput"`}},
		{name: "a missing folder fails naming it", args: []string{"openapi", "--schemas", "no-such-folder"}, code: 1,
			stderrSubstr: "--schemas no-such-folder: no such folder"},
		{name: "a bad prefix is a usage error", args: []string{"openapi", "--schemas", "../../examples/schemas", "--prefix", "a b"}, code: 2,
			stderrSubstr: "must be a URL path"},
		{name: "an argument is a usage error", args: []string{"openapi", "extra"}, code: 2, stderrSubstr: `unexpected argument "extra"`},
		{name: "help lists the flags", args: []string{"help", "openapi"},
			contains: []string{"-schemas", "-prefix", "-demo", "-no-events", "OpenAPI 3.1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runKit(t, tt.args...)
			if code != tt.code {
				t.Fatalf("got exit status %d, want %d (stderr %q)", code, tt.code, stderr)
			}
			for _, s := range tt.contains {
				if !strings.Contains(stdout, s) {
					t.Errorf("got stdout without %q", s)
				}
			}
			for _, s := range tt.notContains {
				if strings.Contains(stdout, s) {
					t.Errorf("got stdout with %q, want none", s)
				}
			}
			if !strings.Contains(stderr, tt.stderrSubstr) {
				t.Errorf("got stderr %q, want it to contain %q", stderr, tt.stderrSubstr)
			}
		})
	}
	t.Run("a folder with schema errors fails listing them", func(t *testing.T) {
		dir := writeSchemas(t, map[string]string{"tasks.json": `{"title": {"type": "strng"}}`})
		code, stdout, stderr := runKit(t, "openapi", "--schemas", dir)
		if code != 1 || stdout != "" || !strings.Contains(stderr, `unknown type "strng"`) {
			t.Errorf("got %d, stdout %q, stderr %q; want 1, nothing, the finding", code, stdout, stderr)
		}
	})
}
