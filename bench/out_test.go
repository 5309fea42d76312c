package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteOut(t *testing.T) {
	const report = "| workload | server |\n| list | kit |\n"
	sqlBegin, sqlEnd := sectionMarkers("sqlite")
	pgBegin, pgEnd := sectionMarkers("postgres")
	page := "# Benchmarks\n\nprose\n\n" + string(sqlBegin) + "\nold sqlite\n" + string(sqlEnd) +
		"\n\nmore prose\n\n" + string(pgBegin) + "\nold postgres\n" + string(pgEnd) + "\n"
	for _, tc := range []struct {
		name, engine string
		old          *string // nil: no file
		want         string
		wantErr      bool
	}{
		{name: "a new file holds the report", engine: "sqlite", want: report},
		{name: "a file without markers is replaced whole", engine: "sqlite", old: ptr("notes\n"), want: report},
		{name: "a page keeps its prose and the other engine's tables", engine: "sqlite", old: &page,
			want: strings.Replace(page, "\nold sqlite\n", "\n\n"+strings.TrimSpace(report)+"\n\n", 1)},
		{name: "the postgres tables go between the postgres markers", engine: "postgres", old: &page,
			want: strings.Replace(page, "\nold postgres\n", "\n\n"+strings.TrimSpace(report)+"\n\n", 1)},
		{name: "a page with only the begin marker is refused", engine: "sqlite", old: ptr("a\n" + string(sqlBegin) + "\nb\n"), wantErr: true},
		{name: "markers out of order are refused", engine: "sqlite", old: ptr(string(sqlEnd) + "\n" + string(sqlBegin) + "\n"), wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "out.md")
			if tc.old != nil {
				if err := os.WriteFile(path, []byte(*tc.old), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			err := writeOut(path, tc.engine, []byte(report))
			got, rerr := os.ReadFile(path)
			if rerr != nil {
				t.Fatal(rerr)
			}
			if tc.wantErr {
				if err == nil {
					t.Errorf("got no error, want one")
				}
				if string(got) != *tc.old {
					t.Errorf("got the file changed to %q, want it unchanged", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if string(got) != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func ptr(s string) *string { return &s }

// TestTheBenchmarksPageTakesBothEngines checks that docs/benchmarks.md
// holds the markers of both engines, in both placements, so go run
// ./bench --out docs/benchmarks.md replaces its tables and nothing else.
func TestTheBenchmarksPageTakesBothEngines(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "docs", "benchmarks.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, engine := range []string{"sqlite", "postgres", "sqlite shared-cores", "postgres shared-cores"} {
		begin, end := sectionMarkers(engine)
		b, e := strings.Index(string(page), string(begin)), strings.Index(string(page), string(end))
		if b < 0 || e < b || strings.Count(string(page), string(begin)) != 1 {
			t.Errorf("got %s markers at %d and %d, want one begin marker before one end marker", engine, b, e)
		}
	}
}

func TestCommandLine(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no flags", nil, "go run ./bench"},
		{"flags stay as given", []string{"--duration", "8s", "--rounds=4"}, "go run ./bench --duration 8s --rounds=4"},
		{"--out is left out", []string{"--out", "docs/benchmarks.md", "--rows=300", "-out=x.md"}, "go run ./bench --rows=300"},
		{"the database URL is hidden", []string{"--db", "postgres://u:secret@h/db", "-db=postgres://u:secret@h/db", "--conns", "4"},
			"go run ./bench --db postgres://... --db postgres://... --conns 4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := commandLine(tc.args); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestRevisionLeavesTheReportOutOfTheChanges: the report names the commit,
// with "plus uncommitted changes" when the working tree holds any, and the
// file the report goes to is not one: a run that rewrote it measured the
// same kit. It runs git on a repository in t.TempDir().
func TestRevisionLeavesTheReportOutOfTheChanges(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=kit", "-c", "user.email=kit@example.com"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q")
	write("docs/benchmarks.md", "old tables\n")
	write("kit.go", "package kit\n")
	git("add", ".")
	git("commit", "-q", "-m", "first")
	clean := revision("docs/benchmarks.md")
	if !strings.HasPrefix(clean, "kit at ") || strings.Contains(clean, "uncommitted") {
		t.Fatalf("a clean tree: got %q, want kit at a commit", clean)
	}
	for _, tc := range []struct {
		name, out, change, want string
	}{
		{"a rewritten report is no change to kit", "docs/benchmarks.md", "docs/benchmarks.md", clean},
		{"a rewritten report given by its absolute path is no change either", filepath.Join(dir, "docs/benchmarks.md"), "docs/benchmarks.md", clean},
		{"a change to the code is one", "docs/benchmarks.md", "kit.go", clean + " plus uncommitted changes"},
		{"without --out the report is a change like any other", "", "docs/benchmarks.md", clean + " plus uncommitted changes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			git("checkout", "-q", "--", ".")
			write(tc.change, "changed\n")
			if got := revision(tc.out); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
