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

// usage lists every command; doc.go repeats it for go doc.
const usage = `kit serves collections defined in JSON schema files as a team-scoped HTTP API.

Usage:
  kit serve [--schemas DIR] [--db PATH] [--addr HOST:PORT] [--prefix /api] [--demo] [--no-events] [--no-admin] [--cors-origin ORIGIN]
  kit lint [DIR]
  kit openapi [--schemas DIR] [--prefix /api] [--demo] [--no-events]
  kit gen types --lang go|ts|vue [--schemas DIR] [--out FILE] [--package NAME]
  kit team create --name NAME [--slug SLUG] [--db PATH]
  kit team list [--db PATH]
  kit user create --name NAME [--email EMAIL] [--role admin] [--db PATH]
  kit user list [--db PATH]
  kit member add --team ID_OR_SLUG --user ID --role owner|admin|member [--db PATH]
  kit token create --user ID [--name NAME] [--db PATH]
  kit token revoke --id TOKEN_ID [--db PATH]
  kit member remove --team ID_OR_SLUG --user ID [--db PATH]
  kit member role --team ID_OR_SLUG --user ID --role owner|admin|member [--db PATH]
  kit user ban|unban --user ID [--db PATH]
  kit user passwd --user ID [--db PATH] < password
  kit user sessions revoke --user ID [--db PATH]
  kit team rename --team ID_OR_SLUG [--name NAME] [--slug SLUG] [--db PATH]
  kit events cleanup [--dry-run] [--retention-days N] [--max-events N] [--db PATH]
  kit help [COMMAND]

Commands:
  serve          serve the schemas folder (default ./schemas) on http://127.0.0.1:8080/api
                 until SIGINT or SIGTERM, with the audit events add-on unless --no-events;
                 --demo serves the built-in demo schemas, seeds demo teams, users and
                 records, and prints a token, a curl line and a sign-in line per user
                 and a curl line for the events list
  lint           check a schemas folder (default ./schemas); prints each finding as
                 "file: collection.field: message"; exit status 1 on any error
  openapi        print the OpenAPI 3.1 document of the API kit serve would serve for the
                 schemas folder (default ./schemas), as GET /api/kit/openapi.json answers it
  gen types      write the record, input, query and response types of the schemas
                 folder's collections in Go, TypeScript, or TypeScript with the typed
                 composables of @collectionkit/vue (vue), to stdout or --out FILE
  team create    create a team; prints its id
  team list      list teams: id, slug, name
  user create    create a user (--role admin makes a super-admin); prints its id
  user list      list users: id, role, name, email
  member add     add a user to a team, or change their role; prints the membership id
  token create   create an API token for a user; prints only the token
  token revoke   revoke an API token by id
  member remove  remove a user from a team (never its last owner)
  member role    change a member's role (never demoting the last owner)
  user ban       ban a user (refused with 403, sessions ended); user unban lifts it
  user passwd    set a user's password, read from the terminal or stdin (never a flag)
  user sessions revoke  end every sign-in session of a user
  team rename    change a team's name or slug
  events cleanup delete audit events past retention (90 days, 100000 events by
                 default); --dry-run prints what would be deleted and deletes nothing

--db is a SQLite file (default ./kit.db) or a postgres:// URL. Run "kit help COMMAND" for a command's flags.
`

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
	switch cmd {
	case "help", "-h", "-help", "--help":
		if len(rest) == 0 || isHelp(rest[0]) {
			fmt.Fprint(stdout, usage)
			return exitOK
		}
		// Every command parses its flags before doing anything, so -h
		// prints its usage and returns.
		return run(ctx, append(rest, "-h"), stdout, stderr)
	case "serve":
		return runServe(ctx, rest, stdout, stderr)
	case "lint":
		return runLint(rest, stdout, stderr)
	case "openapi":
		return runOpenAPI(ctx, rest, stdout, stderr)
	case "gen":
		return runGen(rest, stdout, stderr)
	case "team":
		return runTeam(ctx, rest, stdout, stderr)
	case "user":
		return runUser(ctx, rest, stdout, stderr)
	case "member":
		return runMember(ctx, rest, stdout, stderr)
	case "token":
		return runToken(ctx, rest, stdout, stderr)
	case "events":
		return runEvents(ctx, rest, stdout, stderr)
	}
	fmt.Fprintf(stderr, "kit: unknown command %q\n\n%s", cmd, usage)
	return exitUsage
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
