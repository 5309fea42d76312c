package events

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"
)

// CommandUsage describes the command line Command runs.
const CommandUsage = `Usage:
  kit events cleanup [--dry-run] [--retention-days N] [--max-events N]

Commands:
  cleanup   delete events older than the retention days, then the oldest
            ones beyond the maximum count (defaults: the configured
            retention, 90 days and 100000 events); --dry-run deletes
            nothing and prints what a run would delete
`

// Command runs the events command line (args without "kit events"): today
// "cleanup [--dry-run] [--retention-days N] [--max-events N]", which
// prints the cleanup result, e.g.
//
//	deleted 120 events; 4880 remain, the oldest from 2026-08-23T09:12:44Z
//
// It returns the exit status: 0 done, 1 failed, 2 a bad command line. The
// kit command wires it as "kit events ...", with t installed on the
// database it opened.
func Command(ctx context.Context, t *Tracker, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "cleanup" {
		if len(args) > 0 && (args[0] == "help" || args[0] == "-h" || args[0] == "--help") {
			fmt.Fprint(stdout, CommandUsage)
			return 0
		}
		fmt.Fprint(stderr, CommandUsage)
		return 2
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
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "kit events cleanup: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	opts := CleanupOptions{DryRun: *dry}
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
		return 1
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
