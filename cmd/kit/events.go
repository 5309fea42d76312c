package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/collectionkit/kit/events"
	"github.com/collectionkit/kit/kit"
)

// runEvents runs "kit events ...".
func runEvents(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runEventsCommand(ctx, nil, args, stdout, stderr)
}

// runEventsCommand runs the events command line (args without "kit
// events"): today "cleanup [--dry-run] [--retention-days N]
// [--max-events N] [--db PATH]", which prints the cleanup result, e.g.
//
//	deleted 120 events; 4880 remain, the oldest from 2026-08-23T09:12:44Z
//
// It cleans up with t, or, when t is nil, opens the database --db names
// and installs the events add-on on it. It returns the exit status: 0
// done, 1 failed, 2 a bad command line.
func runEventsCommand(ctx context.Context, t *events.Tracker, args []string, stdout, stderr io.Writer) int {
	return subcommand("events", args, stdout, stderr, map[string]func([]string) int{
		"cleanup": func(args []string) int { return runEventsCleanup(ctx, t, args, stdout, stderr) },
	})
}

// runEventsCleanup implements "kit events cleanup".
func runEventsCleanup(ctx context.Context, t *events.Tracker, args []string, stdout, stderr io.Writer) int {
	fl := newCommandFlags("events cleanup", "[--dry-run] [--retention-days N] [--max-events N] [--db PATH]",
		"Delete audit events older than the retention days, then the oldest ones beyond the maximum\n"+
			"count (defaults: the configured retention, 90 days and 100000 events), and print how many\n"+
			"were deleted and remain. --dry-run deletes nothing and prints what a run would delete.")
	dry := fl.Bool("dry-run", false, "delete nothing; print what a run would delete")
	days := fl.Int("retention-days", 0, "delete events older than `N` days (default: the configured retention)")
	maxEvents := fl.Int("max-events", 0, "keep at most `N` events (default: the configured maximum)")
	dsn := fl.db()
	if code, ok := fl.parse(args, 0, stdout, stderr); !ok {
		return code
	}
	opts := events.CleanupOptions{DryRun: *dry}
	fl.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "retention-days":
			opts.RetentionDays = days
		case "max-events":
			opts.MaxEvents = maxEvents
		}
	})
	if t == nil {
		k, closeKit, err := openKit(ctx, *dsn, kit.Config{Logger: newLogger(stderr)})
		if err != nil {
			return fail(stderr, "events cleanup", err)
		}
		defer closeKit()
		if t, err = events.Install(ctx, k, events.Config{ErrorHandling: events.ErrorHandling{NoConsoleLog: true}}); err != nil {
			return fail(stderr, "events cleanup", err)
		}
	}
	res, err := t.CleanupOldEvents(ctx, opts)
	if err != nil {
		return fail(stderr, "events cleanup", err)
	}
	line := fmt.Sprintf("deleted %d events; %d remain", res.DeletedCount, res.TotalRemaining)
	if *dry {
		line = fmt.Sprintf("dry run: would delete %d events; %d would remain", res.DeletedCount, res.TotalRemaining)
	}
	if res.OldestRemaining != nil {
		line += ", the oldest from " + res.OldestRemaining.Format(time.RFC3339)
	}
	fmt.Fprintln(stdout, line)
	return exitOK
}
