package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/collectionkit/kit/events"
	"github.com/collectionkit/kit/kit"
)

// runEvents runs "kit events ...": it opens the database named by --db,
// installs the events add-on on it and hands the rest of the command line
// to events.Command.
func runEvents(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	dsn, rest, err := takeDBFlag(args)
	if err != nil {
		fmt.Fprintf(stderr, "kit events: %v\n", err)
		return exitUsage
	}
	if len(rest) == 0 || slices.ContainsFunc(rest, isHelp) {
		return events.Command(ctx, nil, rest, stdout, stderr)
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
	return events.Command(ctx, tr, rest, stdout, stderr)
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
