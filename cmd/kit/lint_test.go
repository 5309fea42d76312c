package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeSchemas writes files (path relative to the folder -> content) into
// a new temporary folder and returns it.
func writeSchemas(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLint(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		code  int
		lines []string // the whole stdout, line by line
	}{
		{
			name: "a broken schema prints its findings sorted by file, collection and field and fails",
			files: map[string]string{
				"shop/products.json": `{"title": {"type": "strng"}, "price": {"type": "decimal", "meta": {"precision": 10, "scale": 2}}, "published": {"type": "date"}}`,
				"blog/posts.json":    `{"title": {"type": "string"}, "body": {"type": "text", "meta": {"requird": true}}}`,
			},
			code: 1,
			lines: []string{
				`blog/posts.json: posts.body: unknown key "meta.requird" (allowed: required, label, default, precision, scale, unique, uniqueIgnoreCase, index, integer, area, displayAs, renamedFrom, maxSize, mimeTypes, multiple, maxFiles, thumbs)`,
				`shop/products.json: products.published: warning: date field "published" should end in "At" (e.g. "publishedAt")`,
				`shop/products.json: products.title: unknown type "strng" (allowed: string, text, number, decimal, boolean, date, json, repeater, array, image, file)`,
			},
		},
		{
			name: "a folder with only warnings passes",
			files: map[string]string{
				"tasks.json": `{"title": {"type": "string"}, "done": {"type": "boolean"}}`,
			},
			code: 0,
			lines: []string{
				`tasks.json: tasks.done: warning: boolean field "done" should start with "is", "has" or "can" (e.g. "isDone")`,
			},
		},
		{
			name:  "a clean folder prints nothing and passes",
			files: map[string]string{"tasks.json": `{"title": {"type": "string"}, "isDone": {"type": "boolean"}}`},
			code:  0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := writeSchemas(t, tt.files)
			code, stdout, stderr := runKit(t, "lint", dir)
			if code != tt.code {
				t.Errorf("got exit status %d, want %d (stderr %q)", code, tt.code, stderr)
			}
			var got []string
			if stdout != "" {
				got = strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
			}
			if strings.Join(got, "\n") != strings.Join(tt.lines, "\n") {
				t.Errorf("got stdout\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.lines, "\n"))
			}
		})
	}
}

func TestLintPassesTheExampleSchemas(t *testing.T) {
	code, stdout, stderr := runKit(t, "lint", "../../examples/schemas")
	if code != 0 {
		t.Errorf("got exit status %d, want 0 (stdout %q, stderr %q)", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "3 collections ok") {
		t.Errorf("got stderr %q, want it to contain %q", stderr, "3 collections ok")
	}
}

func TestLintOfAMissingFolderIsAUsageError(t *testing.T) {
	code, _, stderr := runKit(t, "lint", filepath.Join(t.TempDir(), "nowhere"))
	if code != 2 {
		t.Errorf("got exit status %d, want 2", code)
	}
	if !strings.Contains(stderr, "is not a folder") {
		t.Errorf("got stderr %q, want it to say the folder is missing", stderr)
	}
}
