package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/typegen"
)

func TestGenTypesWritesTheGeneratorsOutput(t *testing.T) {
	schemas := filepath.Join("..", "..", "examples", "schemas")
	reg, _, err := collections.Load(os.DirFS(schemas), collections.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := func(lang typegen.Lang, pkg string) string {
		b, err := typegen.Generate(reg, lang, typegen.Options{Package: pkg, Source: filepath.ToSlash(schemas)})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"go to stdout, package kittypes by default", []string{"--lang", "go"}, want(typegen.LangGo, "")},
		{"go with a package name", []string{"--lang", "go", "--package", "shop"}, want(typegen.LangGo, "shop")},
		{"ts to stdout", []string{"--lang", "ts"}, want(typegen.LangTS, "")},
		{"vue to stdout", []string{"--lang", "vue"}, want(typegen.LangVue, "")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runKit(t, append([]string{"gen", "types", "--schemas", schemas}, tt.args...)...)
			if code != exitOK {
				t.Fatalf("got exit status %d, want 0 (stderr %q)", code, stderr)
			}
			if stdout != tt.want {
				t.Errorf("got stdout that is not the generator's output:\n%.400s", stdout)
			}
			if stderr != "" {
				t.Errorf("got stderr %q, want nothing", stderr)
			}
		})
	}

	t.Run("--out writes the file and prints only a note on stderr", func(t *testing.T) {
		t.Parallel()
		out := filepath.Join(t.TempDir(), "kit.ts")
		code, stdout, stderr := runKit(t, "gen", "types", "--lang", "ts", "--schemas", schemas, "--out", out)
		if code != exitOK || stdout != "" {
			t.Fatalf("got exit status %d and stdout %q, want 0 and nothing (stderr %q)", code, stdout, stderr)
		}
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want(typegen.LangTS, "") {
			t.Errorf("got a file that is not the generator's output:\n%.400s", got)
		}
		if wantNote := "kit gen types: wrote the ts types of 3 collections to " + out + "\n"; stderr != wantNote {
			t.Errorf("got stderr %q, want %q", stderr, wantNote)
		}
	})
}

func TestGenTypesRefusesABadCommandLine(t *testing.T) {
	good := filepath.Join("..", "..", "examples", "schemas")
	broken := writeSchemas(t, map[string]string{"shop/products.json": `{"title": {"type": "strng"}}`})
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr []string // lines stderr must contain
	}{
		{"an unknown language", []string{"gen", "types", "--lang", "rust", "--schemas", good}, exitUsage,
			[]string{`kit gen types: unknown --lang "rust" (want go, ts or vue)`, "Usage: kit gen types --lang go|ts|vue"}},
		{"no language", []string{"gen", "types", "--schemas", good}, exitUsage,
			[]string{"kit gen types: --lang is required"}},
		{"a package name for TypeScript", []string{"gen", "types", "--lang", "ts", "--package", "shop", "--schemas", good}, exitUsage,
			[]string{"kit gen types: --package applies to --lang go only"}},
		{"a package name that is not an identifier", []string{"gen", "types", "--lang", "go", "--package", "my-types", "--schemas", good}, exitUsage,
			[]string{`kit gen types: --package "my-types" is not a Go package name`}},
		{"a schemas folder that does not exist", []string{"gen", "types", "--lang", "go", "--schemas", filepath.Join(good, "missing")}, exitUsage,
			[]string{"is not a folder; give the schemas folder with --schemas"}},
		{"a positional argument", []string{"gen", "types", "--lang", "go", "--schemas", good, "extra"}, exitUsage,
			[]string{`kit gen types: unexpected argument "extra"`}},
		{"an unknown flag", []string{"gen", "types", "--lang", "go", "--format", "x"}, exitUsage,
			[]string{"flag provided but not defined: -format"}},
		{"an unknown subcommand", []string{"gen", "models"}, exitUsage,
			[]string{`kit gen: unknown subcommand "models"`, "Usage: kit gen types [flags]"}},
		{"a schemas folder with errors", []string{"gen", "types", "--lang", "go", "--schemas", broken}, exitFail,
			[]string{`shop/products.json: products.title: unknown type "strng"`, "has schema errors (kit lint " + broken + " lists them all)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// Every command line names --out (before any positional
			// argument, so that it is parsed): a refusal writes nothing.
			out := filepath.Join(t.TempDir(), "types.go")
			args := append([]string{}, tt.args[:2]...)
			if tt.args[1] == "types" {
				args = append(args, "--out", out)
			}
			code, stdout, stderr := runKit(t, append(args, tt.args[2:]...)...)
			if code != tt.code {
				t.Errorf("got exit status %d, want %d (stderr %q)", code, tt.code, stderr)
			}
			if stdout != "" {
				t.Errorf("got stdout %.200q, want nothing", stdout)
			}
			for _, want := range tt.stderr {
				if !strings.Contains(stderr, want) {
					t.Errorf("got stderr\n%s\nwant it to contain %q", stderr, want)
				}
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("got a file at --out (stat: %v), want none written", err)
			}
		})
	}
}
