package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"

	"github.com/collectionkit/kit/events"
	"github.com/collectionkit/kit/kit"
)

// runOpenAPI implements "kit openapi": the OpenAPI 3.1 document that kit
// serve would serve for the schemas folder, on stdout.
func runOpenAPI(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var schemasFlag, prefixFlag string
	var noEvents, demo bool
	fl := newCommandFlags("openapi", "[--schemas DIR] [--prefix /api] [--demo] [--no-events]",
		"Print the OpenAPI 3.1 document of the API kit serve would serve for the schemas folder (the\n"+
			"same as GET /api/kit/openapi.json): every collection's routes and schemas, kit's own routes,\n"+
			"and the events add-on's unless --no-events. No database is touched: the document is built\n"+
			"on a temporary in-memory one.")
	fl.StringVar(&schemasFlag, "schemas", "", "schemas `folder` (default ./schemas; with --demo, the demo schemas built into kit)")
	fl.StringVar(&prefixFlag, "prefix", "/api", "URL `path` the API is served under")
	fl.BoolVar(&demo, "demo", false, "describe the demo schemas built into kit (unless --schemas is given)")
	fl.BoolVar(&noEvents, "no-events", false, "leave out the events add-on's routes, as kit serve --no-events does")
	if code, ok := fl.parse(args, 0, stdout, stderr); !ok {
		return code
	}
	prefix, err := cleanPrefix(prefixFlag)
	if err != nil {
		return fl.usageError(stderr, "%v", err)
	}
	dir, schemas, err := schemasFolder(schemasFlag, demo)
	if err != nil {
		return fail(stderr, "openapi", err)
	}
	var name [8]byte
	_, _ = rand.Read(name[:])
	k, err := kit.Open(ctx, kit.Config{Schemas: schemas, Prefix: prefix, SQLitePath: ":memory:kit-openapi-" + hex.EncodeToString(name[:]),
		Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelError}))})
	if err != nil {
		return fail(stderr, "openapi", startError(dir, err))
	}
	defer k.Close()
	if !noEvents {
		if _, err := events.Install(ctx, k, events.Config{}); err != nil {
			return fail(stderr, "openapi", err)
		}
	}
	doc, err := k.OpenAPI()
	if err != nil {
		return fail(stderr, "openapi", err)
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return fail(stderr, "openapi", err)
	}
	return exitOK
}
