package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var updateCLIDoc = flag.Bool("update-cli-doc", false, "rewrite the generated part of docs/cli.md from the commands' help")

// groupUsage matches the help of a command group: "Usage: kit user
// ban|create|list [flags]" followed by the "SUBCOMMAND" hint.
var groupUsage = regexp.MustCompile(`^Usage: kit ([a-z ]+?) ([a-z|]+) \[flags\]\n\nRun "kit help [a-z ]+ SUBCOMMAND"`)

// walkCommands returns every command kit runs, found from the program
// itself: the first words topCommands dispatches on, and below each
// group the subcommands its own help lists, down to the commands that
// print their usage.
func walkCommands(t *testing.T) []string {
	t.Helper()
	var leaves []string
	var walk func(name string)
	walk = func(name string) {
		code, stdout, stderr := runKit(t, append([]string{"help"}, strings.Fields(name)...)...)
		if code != 0 || stderr != "" {
			t.Fatalf("kit help %s: got exit status %d and stderr %q, want 0 and nothing", name, code, stderr)
		}
		if m := groupUsage.FindStringSubmatch(stdout); m != nil {
			if m[1] != name {
				t.Fatalf("kit help %s: got the usage of group %q", name, m[1])
			}
			for _, sub := range strings.Split(m[2], "|") {
				walk(name + " " + sub)
			}
			return
		}
		if !strings.HasPrefix(stdout, "Usage: kit "+name+" ") && stdout != "Usage: kit "+name+"\n" {
			t.Fatalf("kit help %s: got %q, want it to start with its usage line", name, firstLine(stdout))
		}
		leaves = append(leaves, name)
	}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range topCommands {
			if !yield(k) {
				return
			}
		}
	}) {
		walk(name)
	}
	return append(leaves, "help")
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func TestHelpListsEveryCommandWithAOneLinePurpose(t *testing.T) {
	found := walkCommands(t)
	listed := make([]string, len(commands))
	for i, c := range commands {
		listed[i] = c.name
	}
	for _, name := range found {
		if !slices.Contains(listed, name) {
			t.Errorf("got command %q, which kit runs, missing from the commands kit --help lists", name)
		}
	}
	for _, name := range listed {
		if !slices.Contains(found, name) {
			t.Errorf("got %q in the commands kit --help lists, want only commands kit runs (found %v)", name, found)
		}
	}
	_, stdout, _ := runKit(t, "--help")
	for _, c := range commands {
		if c.purpose == "" || strings.ContainsAny(c.purpose, "\n\t") {
			t.Errorf("%s: got purpose %q, want one line", c.name, c.purpose)
		}
		line := commandLine(c)
		if len(line)+2 > 100 {
			t.Errorf("%s: got a line of %d characters, want at most 100", c.name, len(line)+2)
		}
		if !strings.Contains(stdout, "\n  "+line+"\n") {
			t.Errorf("kit --help: got no line %q in\n%s", line, stdout)
		}
	}
}

func TestThePackageDocListsEveryCommand(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range commands {
		if want := "//\t" + commandLine(c) + "\n"; !strings.Contains(string(doc), want) {
			t.Errorf("got doc.go without the line %q", want)
		}
	}
}

// The generated part of docs/cli.md lies between these lines.
const (
	cliDocStart = "<!-- generated from kit's help by go test ./cmd/kit -run TestCLIDoc -update-cli-doc: do not edit -->\n"
	cliDocEnd   = "<!-- end of the generated part -->\n"
)

// cliDocGenerated is the generated part of docs/cli.md: the table of
// every command and its purpose, then each command's help.
func cliDocGenerated(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("| Command | Purpose |\n|---|---|\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "| `kit %s` | %s |\n", c.name, c.purpose)
	}
	for _, c := range commands {
		if c.name == "help" {
			continue
		}
		code, stdout, _ := runKit(t, append([]string{"help"}, strings.Fields(c.name)...)...)
		if code != 0 {
			t.Fatalf("kit help %s: got exit status %d, want 0", c.name, code)
		}
		fmt.Fprintf(&b, "\n### kit %s\n\n```text\n%s```\n", c.name, stdout)
	}
	return b.String()
}

func TestCLIDocListsEveryCommandAsItsHelpSays(t *testing.T) {
	const path = "../../docs/cli.md"
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok := bytes.Cut(doc, []byte(cliDocStart))
	_, after, ok2 := bytes.Cut(rest, []byte(cliDocEnd))
	if !ok || !ok2 {
		t.Fatalf("got %s without the lines that mark its generated part", path)
	}
	want := cliDocGenerated(t)
	if *updateCLIDoc {
		out := string(before) + cliDocStart + want + cliDocEnd + string(after)
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got, _, _ := bytes.Cut(rest, []byte(cliDocEnd)); string(got) != want {
		t.Errorf("got %s out of date with kit's help; run go test ./cmd/kit -run TestCLIDoc -update-cli-doc", path)
	}
	for _, c := range commands {
		if !strings.Contains(string(doc), "| `kit "+c.name+"` |") {
			t.Errorf("got %s without the command %q", path, "kit "+c.name)
		}
	}
}
