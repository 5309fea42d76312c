package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/collectionkit/kit/events"
	"github.com/collectionkit/kit/kit"
)

// eventsUsage describes "kit events".
const eventsUsage = `Usage:
  kit events cleanup [--dry-run] [--retention-days N] [--max-events N] [--db PATH]

Commands:
  cleanup   delete events older than the retention days, then the oldest
            ones beyond the maximum count (defaults: the configured
            retention, 90 days and 100000 events); --dry-run deletes
            nothing and prints what a run would delete
`

// runEvents runs "kit events ...": it opens the database named by --db,
// installs the events add-on on it and hands the rest of the command line
// to runEventsCommand.
func runEvents(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	dsn, rest, err := takeDBFlag(args)
	if err != nil {
		fmt.Fprintf(stderr, "kit events: %v\n", err)
		return exitUsage
	}
	if len(rest) == 0 || slices.ContainsFunc(rest, isHelp) {
		return runEventsCommand(ctx, nil, rest, stdout, stderr)
	}
	k, closeKit, err := openKit(ctx, dsn, kit.Config{Logger: newLogger(stderr)})
	if err != nil {
		fmt.Fprintf(stderr, "kit events: %v\n", err)
		return exitFail
	}
	defer closeKit()
	tr, err := events.Install(ctx, k, events.Config{ErrorHandling: events.ErrorHandling{NoConsoleLog: true}})
	if err != nil {
		fmt.Fprintf(stderr, "kit events: %v\n", err)
		return exitFail
	}
	return runEventsCommand(ctx, tr, rest, stdout, stderr)
}

// runEventsCommand runs the events command line (args without "kit
// events", and without --db) on t: today "cleanup [--dry-run]
// [--retention-days N] [--max-events N]", which prints the cleanup result,
// e.g.
//
//	deleted 120 events; 4880 remain, the oldest from 2026-08-23T09:12:44Z
//
// It returns the exit status: 0 done, 1 failed, 2 a bad command line. t
// may be nil when args ask only for help.
func runEventsCommand(ctx context.Context, t *events.Tracker, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "cleanup" {
		if len(args) > 0 && isHelp(args[0]) {
			fmt.Fprint(stdout, eventsUsage)
			return 0
		}
		fmt.Fprint(stderr, eventsUsage)
		return exitUsage
	}
	fs := flag.NewFlagSet("kit events cleanup", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dry := fs.Bool("dry-run", false, "delete nothing; print what a run would delete")
	days := fs.Int("retention-days", 0, "delete events older than `N` days (default: the configured retention)")
	maxEvents := fs.Int("max-events", 0, "keep at most `N` events (default: the configured maximum)")
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "kit events cleanup: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	opts := events.CleanupOptions{DryRun: *dry}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "retention-days":
			opts.RetentionDays = days
		case "max-events":
			opts.MaxEvents = maxEvents
		}
	})
	res, err := t.CleanupOldEvents(ctx, opts)
	if err != nil {
		fmt.Fprintf(stderr, "kit events cleanup: %v\n", err)
		return exitFail
	}
	line := fmt.Sprintf("deleted %d events; %d remain", res.DeletedCount, res.TotalRemaining)
	if *dry {
		line = fmt.Sprintf("dry run: would delete %d events; %d would remain", res.DeletedCount, res.TotalRemaining)
	}
	if res.OldestRemaining != nil {
		line += ", the oldest from " + res.OldestRemaining.Format(time.RFC3339)
	}
	fmt.Fprintln(stdout, line)
	return 0
}

// takeDBFlag removes "--db X" or "--db=X" from args and returns X (default
// ./kit.db) and the other arguments.
func takeDBFlag(args []string) (dsn string, rest []string, err error) {
	dsn = defaultDB
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--db" || a == "-db":
			if i+1 >= len(args) {
				return "", nil, fmt.Errorf("flag needs an argument: %s", a)
			}
			dsn = args[i+1]
			i++
		case strings.HasPrefix(a, "--db=") || strings.HasPrefix(a, "-db="):
			dsn = a[strings.Index(a, "=")+1:]
		default:
			rest = append(rest, a)
		}
	}
	return dsn, rest, nil
}
