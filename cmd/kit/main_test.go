package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/collectionkit/kit/internal/testkit"
)

// runKit runs the command line in-process and returns the exit status and
// what was printed.
func runKit(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut testkit.Buffer
	code = run(t.Context(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestHelpPrintsTheUsageOfEveryCommandToStdout(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}, {"help", "help"}} {
		code, stdout, stderr := runKit(t, args...)
		if code != 0 {
			t.Errorf("kit %s: got exit status %d, want 0", strings.Join(args, " "), code)
		}
		if stderr != "" {
			t.Errorf("kit %s: got stderr %q, want nothing", strings.Join(args, " "), stderr)
		}
		for _, c := range commands {
			if !strings.Contains(stdout, "  "+commandLine(c)+"\n") {
				t.Errorf("kit %s: got usage without %q:\n%s", strings.Join(args, " "), commandLine(c), stdout)
			}
		}
	}
}

func TestHelpForACommandPrintsItsFlags(t *testing.T) {
	tests := []struct {
		args  []string
		flags []string
	}{
		{[]string{"help", "serve"}, []string{"-schemas", "-db", "-addr", "-prefix", "-demo", "-no-events"}},
		{[]string{"serve", "-h"}, []string{"-schemas", "-db", "-addr", "-prefix", "-demo", "-no-events"}},
		{[]string{"help", "lint"}, []string{"kit lint [DIR]"}},
		{[]string{"help", "team", "create"}, []string{"-name", "-slug", "-db"}},
		{[]string{"help", "user", "create"}, []string{"-name", "-email", "-role", "-db"}},
		{[]string{"help", "member", "add"}, []string{"-team", "-user", "-role", "-db"}},
		{[]string{"token", "create", "--help"}, []string{"-user", "-name", "-db"}},
		{[]string{"help", "team"}, []string{"create|list"}},
		{[]string{"help", "gen", "types"}, []string{"-lang", "-schemas", "-out", "-package"}},
		{[]string{"gen", "types", "-h"}, []string{"kit gen types --lang go|ts|vue"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stdout, _ := runKit(t, tt.args...)
			if code != 0 {
				t.Errorf("got exit status %d, want 0", code)
			}
			for _, f := range tt.flags {
				if !strings.Contains(stdout, f) {
					t.Errorf("got usage without %q:\n%s", f, stdout)
				}
			}
		})
	}
}

func TestAWrongCommandLinePrintsTheUsageToStderrWithStatus2(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"no command", nil, "Usage:"},
		{"an unknown command", []string{"frobnicate"}, `unknown command "frobnicate"`},
		{"help for an unknown command", []string{"help", "frobnicate"}, `unknown command "frobnicate"`},
		{"an unknown subcommand", []string{"team", "delete"}, `unknown subcommand "delete"`},
		{"a group without subcommand", []string{"user"}, "Usage: kit user ban|create|list|passwd|sessions|unban"},
		{"an unknown flag", []string{"serve", "--port", "80"}, "flag provided but not defined: -port"},
		{"a missing required flag", []string{"token", "create"}, "--user is required"},
		{"an unexpected argument", []string{"team", "create", "--name", "x", "extra"}, `unexpected argument "extra"`},
		{"a bad team role", []string{"member", "add", "--team", "t", "--user", "u", "--role", "boss"}, `--role must be owner, admin or member, not "boss"`},
		{"a team role given to a user", []string{"user", "create", "--name", "x", "--role", "owner"}, `--role must be empty or "admin"`},
		{"a bad prefix", []string{"serve", "--prefix", "/a b"}, `--prefix "/a b" must be a URL path`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runKit(t, tt.args...)
			if code != 2 {
				t.Errorf("got exit status %d, want 2", code)
			}
			if stdout != "" {
				t.Errorf("got stdout %q, want nothing", stdout)
			}
			if !strings.Contains(stderr, tt.stderr) {
				t.Errorf("got stderr %q, want it to contain %q", stderr, tt.stderr)
			}
		})
	}
}

func TestOpenDBSaysWhichPostgreSQLServerItCouldNotReach(t *testing.T) {
	for _, dsn := range []string{"postgres://u:secret@127.0.0.1:1/kit", "postgresql://u:secret@127.0.0.1:1/kit"} {
		_, err := openDB(dsn)
		if err == nil || !strings.Contains(err.Error(), "connect to") || !strings.Contains(err.Error(), "127.0.0.1:1") {
			t.Errorf("openDB(%q): got error %v, want one naming the server", dsn, err)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("openDB(%q): got error %v, want the password hidden", dsn, err)
		}
	}
}

func TestOpenDBKeepsAnOddSQLiteFileNameWhole(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"a#b.db", "a?b.db", "100%.db", "with space.db"} {
		db := filepath.Join(dir, name)
		if code, _, stderr := runKit(t, "team", "list", "--db", db); code != 0 {
			t.Fatalf("--db %q: got exit status %d, want 0 (stderr %q)", db, code, stderr)
		}
		if _, err := os.Stat(db); err != nil {
			t.Errorf("--db %q: got no such file (%v), want the database there", db, err)
		}
	}
}

func TestOpenDBNamesAMissingFolder(t *testing.T) {
	db := filepath.Join(t.TempDir(), "missing", "kit.db")
	code, _, stderr := runKit(t, "team", "list", "--db", db)
	if want := "folder " + filepath.Dir(db) + " does not exist"; code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("got exit status %d and stderr %q, want 1 and %q", code, stderr, want)
	}
}
