package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
)

// Exit statuses.
const (
	exitOK    = 0 // done
	exitFail  = 1 // the command failed (or kit lint found errors)
	exitUsage = 2 // the command line is wrong
)

// command is one command of kit: the words that name it and what it does,
// in one line.
type command struct {
	name    string // "team create"
	purpose string
}

// commands are every command kit runs, in the order kit --help lists
// them. doc.go and docs/cli.md list them too; a test walks the command
// groups' own help to check that none is missing.
var commands = []command{
	{"serve", "serve a schemas folder as a team-scoped HTTP API, with the admin app"},
	{"lint", "check a schemas folder and print every finding"},
	{"openapi", "print the OpenAPI 3.1 document of a schemas folder's API"},
	{"gen types", "write Go or TypeScript types for a schemas folder's collections"},
	{"team create", "create a team and print its id"},
	{"team list", "list teams: id, slug, name"},
	{"team rename", "change a team's name or slug"},
	{"user create", "create a user (--role admin: a super-admin) and print its id"},
	{"user list", "list users: id, role, name, email"},
	{"user ban", "ban a user: refused with 403 from then on, sessions ended"},
	{"user unban", "lift a user's ban"},
	{"user passwd", "set a user's password, read from the terminal or stdin"},
	{"user sessions revoke", "end every sign-in session of a user"},
	{"member add", "add a user to a team, or change their role"},
	{"member remove", "remove a user from a team (never its last owner)"},
	{"member role", "change a member's role (never demoting the last owner)"},
	{"token create", "create an API token for a user and print it"},
	{"token revoke", "revoke an API token by id"},
	{"events cleanup", "delete audit events past retention (--dry-run: only print them)"},
	{"export", "write a team's records of a collection as CSV, JSON or NDJSON"},
	{"import", "create a team's records from CSV, JSON or NDJSON, all rows or none"},
	{"backup", "write a backup archive (database and files) while kit serves"},
	{"restore", "put a backup archive back into an empty database (--force: any)"},
	{"migrate plan", "print the schema changes kit serve would make, with SQL"},
	{"migrate apply", "make the pending schema changes (--drop: drop removed columns)"},
	{"help", "print this list, or a command's usage and flags"},
}

// usage is what kit --help prints: every command with its purpose.
var usage = func() string {
	var b strings.Builder
	b.WriteString("kit serves collections defined in JSON schema files as a team-scoped HTTP API.\n\n")
	b.WriteString("Usage:\n  kit COMMAND [flags]\n\nCommands:\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "  %s\n", commandLine(c))
	}
	b.WriteString("\nRun \"kit help COMMAND\" for a command's usage and flags. --db is a SQLite file\n")
	b.WriteString("(default ./kit.db) or a postgres:// URL. Docs: docs/cli.md.\n")
	return b.String()
}()

// commandLine is c's line in the usage: its name padded to one column,
// then its purpose.
func commandLine(c command) string {
	return fmt.Sprintf("%-22s %s", c.name, c.purpose)
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// After the first signal, restore the default handling, so that a
		// second one stops a slow shutdown at once.
		<-ctx.Done()
		stop()
	}()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run runs the kit command line args (without the program name) and
// returns the exit status. ctx ends a running server: main cancels it on
// SIGINT or SIGTERM.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	cmd, rest := args[0], args[1:]
	if isHelp(cmd) {
		if len(rest) == 0 || isHelp(rest[0]) {
			fmt.Fprint(stdout, usage)
			return exitOK
		}
		// Every command parses its flags before doing anything, so -h
		// prints its usage and returns.
		return run(ctx, append(rest, "-h"), stdout, stderr)
	}
	if runCmd, ok := topCommands[cmd]; ok {
		return runCmd(ctx, rest, stdout, stderr)
	}
	fmt.Fprintf(stderr, "kit: unknown command %q\n\n%s", cmd, usage)
	return exitUsage
}

// runner runs a command line (without the words that chose it) and
// returns the exit status.
type runner func(ctx context.Context, args []string, stdout, stderr io.Writer) int

// topCommands maps the first word of every command but help to what runs
// it; a group (team, user, ...) hands the next word to [subcommand].
var topCommands = map[string]runner{
	"serve": runServe,
	"lint": func(_ context.Context, args []string, stdout, stderr io.Writer) int {
		return runLint(args, stdout, stderr)
	},
	"openapi": runOpenAPI,
	"gen": func(_ context.Context, args []string, stdout, stderr io.Writer) int {
		return runGen(args, stdout, stderr)
	},
	"team":    runTeam,
	"user":    runUser,
	"member":  runMember,
	"token":   runToken,
	"events":  runEvents,
	"migrate": runMigrate,
	"export":  runExport,
	"import":  runImport,
	"backup":  runBackup,
	"restore": runRestore,
}

// commandFlags is the flag set of one command, with the usage it prints
// for -h (to stdout) and for a wrong command line (to stderr).
type commandFlags struct {
	*flag.FlagSet
	name     string // "team create"
	synopsis string // what follows the name: "--name NAME [--slug SLUG]"
	summary  string // what the command does, one paragraph
}

func newCommandFlags(name, synopsis, summary string) *commandFlags {
	fs := flag.NewFlagSet("kit "+name, flag.ContinueOnError)
	fs.Usage = func() {} // parse prints the usage itself, to the right writer
	return &commandFlags{FlagSet: fs, name: name, synopsis: synopsis, summary: summary}
}

// db defines the --db flag the account commands share.
func (c *commandFlags) db() *string {
	return c.String("db", defaultDB, "database: a SQLite file `path` or a postgres:// URL")
}

func (c *commandFlags) printUsage(w io.Writer) {
	fmt.Fprintf(w, "Usage: kit %s %s\n\n%s\n", c.name, c.synopsis, c.summary)
	hasFlags := false
	c.VisitAll(func(*flag.Flag) { hasFlags = true })
	if hasFlags {
		fmt.Fprintln(w, "\nFlags:")
		c.SetOutput(w)
		c.PrintDefaults()
	}
}

// parse parses args. When ok is false the command ends at once with code:
// 0 after printing the usage asked for with -h, 2 after a wrong flag.
// Positional arguments are refused unless maxArgs allows them.
func (c *commandFlags) parse(args []string, maxArgs int, stdout, stderr io.Writer) (code int, ok bool) {
	c.SetOutput(stderr)
	err := c.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		c.printUsage(stdout)
		return exitOK, false
	case err != nil: // the flag package has printed the error
		fmt.Fprintln(stderr)
		c.printUsage(stderr)
		return exitUsage, false
	case c.NArg() > maxArgs:
		return c.usageError(stderr, "unexpected argument %q", c.Arg(maxArgs)), false
	}
	return exitOK, true
}

// usageError prints a message about the command line and the usage to
// stderr, and returns exitUsage.
func (c *commandFlags) usageError(stderr io.Writer, format string, args ...any) int {
	fmt.Fprintf(stderr, "kit %s: %s\n\n", c.name, fmt.Sprintf(format, args...))
	c.printUsage(stderr)
	return exitUsage
}

// require returns a usage error naming the first of the flags that is empty.
func (c *commandFlags) require(stderr io.Writer, flags ...string) (code int, ok bool) {
	for _, name := range flags {
		if f := c.Lookup(name); f != nil && f.Value.String() == "" {
			return c.usageError(stderr, "--%s is required", name), false
		}
	}
	return exitOK, true
}

// parseRequired parses args that take no positional arguments and then
// requires the named flags to be non-empty: parse followed by require.
func (c *commandFlags) parseRequired(args []string, stdout, stderr io.Writer, flags ...string) (code int, ok bool) {
	if code, ok := c.parse(args, 0, stdout, stderr); !ok {
		return code, false
	}
	return c.require(stderr, flags...)
}

// subcommand dispatches a command group such as "team create": args[0]
// names the subcommand.
func subcommand(group string, args []string, stdout, stderr io.Writer, subs map[string]func([]string) int) int {
	groupUsage := func(w io.Writer) {
		fmt.Fprintf(w, "Usage: kit %s %s [flags]\n\nRun \"kit help %s SUBCOMMAND\" for its flags.\n",
			group, strings.Join(slices.Sorted(maps.Keys(subs)), "|"), group)
	}
	if len(args) == 0 {
		groupUsage(stderr)
		return exitUsage
	}
	if isHelp(args[0]) {
		groupUsage(stdout)
		return exitOK
	}
	sub, ok := subs[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "kit %s: unknown subcommand %q\n\n", group, args[0])
		groupUsage(stderr)
		return exitUsage
	}
	return sub(args[1:])
}

func isHelp(arg string) bool {
	switch arg {
	case "help", "-h", "-help", "--help":
		return true
	}
	return false
}

// fail prints "kit CMD: err" to stderr and returns exitFail.
func fail(stderr io.Writer, cmd string, err error) int {
	fmt.Fprintf(stderr, "kit %s: %v\n", cmd, err)
	return exitFail
}

// newLogger returns the logger kit and the HTTP server log to: text on
// stderr.
func newLogger(stderr io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(stderr, nil))
}
