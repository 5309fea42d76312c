package main

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/collectionkit/kit/admin"
	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/events"
	"github.com/collectionkit/kit/internal/backup"
	"github.com/collectionkit/kit/internal/pgopen"
	"github.com/collectionkit/kit/kit"
)

// The server's timeouts are serveTimeouts (serve_timeouts.go).
const (
	shutdownTimeout   = 10 * time.Second
	retentionInterval = time.Hour // how often the events add-on applies its retention
)

// demoSchemas names the schemas --demo serves when --schemas is not
// given: a copy of the repository's examples/schemas, embedded in the
// binary so that the demo runs from any directory.
const demoSchemas = "the embedded demo schemas (examples/schemas)"

// demoSchemaFiles holds the demo schemas under demo/schemas; a test keeps
// them identical to examples/schemas.
//
//go:embed demo/schemas
var demoSchemaFiles embed.FS

type serveOptions struct {
	schemas  string
	db       string
	addr     string
	prefix   string
	demo     bool
	noEvents bool
	noAdmin  bool
	cors     []string // --cors-origin values, split at commas
	files    string
	backups  string
	every    time.Duration
	keep     int
}

// adminPath is where kit serve mounts the admin app (unless --no-admin).
const adminPath = "/admin/"

// runServe implements "kit serve".
func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return serveWith(ctx, args, stdout, stderr, defaultServeTimeouts())
}

// serveWith is runServe with the HTTP server's timeouts.
func serveWith(ctx context.Context, args []string, stdout, stderr io.Writer, timeouts serveTimeouts) int {
	var o serveOptions
	fl := newCommandFlags("serve", "[--schemas DIR] [--db PATH] [--addr HOST:PORT] [--prefix /api] [--demo] [--no-events] [--no-admin] [--cors-origin ORIGIN] [--files DIR|URL] [--backups DIR|URL]",
		"Serve the collections of a schemas folder as an HTTP API under --prefix, plus GET /healthz,\n"+
			"until SIGINT or SIGTERM, then shut down gracefully. The events add-on records every change\n"+
			"and serves the audit endpoints (GET /teams/{team}/kit-events, ...) unless --no-events.\n"+
			"The admin app (sign in with an account's email and password) is served at /admin/ unless --no-admin.\n"+
			"--demo serves the demo schemas built into kit (unless --schemas is given), seeds two teams\n"+
			"(acme, globex), four users and a few records (once per database), and prints a fresh API\n"+
			"token and a ready-to-paste curl line for each user, and one for acme's events.\n"+
			"--cors-origin lets pages of that origin (https://app.example.com) call the API with API\n"+
			"tokens; repeat it or separate origins with commas. Session cookies stay same-origin.\n"+
			"--files is where uploads of image and file fields go: a directory (default kit-files beside\n"+
			"the SQLite file, ./kit-files on PostgreSQL) or an S3-compatible bucket's URL\n"+
			"(https://host/bucket), with KIT_FILES_ACCESS_KEY and KIT_FILES_SECRET_KEY; give every\n"+
			"instance the same KIT_FILES_URL_SECRET so that each accepts the file URLs the others sign.\n"+
			"--backups keeps backup archives (the database and the files) in a directory or an S3-compatible\n"+
			"bucket's URL, with KIT_BACKUP_ACCESS_KEY and KIT_BACKUP_SECRET_KEY: one every --backup-every\n"+
			"(0: none scheduled), the newest --backup-keep kept; super-admins list, make and download them in\n"+
			"the admin. On PostgreSQL pg_dump (on PATH) connects with --db.")
	fl.StringVar(&o.schemas, "schemas", "", "schemas `folder` (default ./schemas; with --demo, the demo schemas built into kit)")
	fl.StringVar(&o.db, "db", defaultDB, "database: a SQLite file `path` or a postgres:// URL")
	fl.StringVar(&o.addr, "addr", "127.0.0.1:8080", "`address` to listen on; port 0 picks a free port")
	fl.StringVar(&o.prefix, "prefix", "/api", "URL `path` the API is served under")
	fl.BoolVar(&o.demo, "demo", false, "seed demo data and print a token and a curl line per user")
	fl.BoolVar(&o.noEvents, "no-events", false, "do not install the events add-on: no audit events, no event routes")
	fl.BoolVar(&o.noAdmin, "no-admin", false, "do not serve the admin app at "+adminPath)
	fl.StringVar(&o.files, "files", "", "uploads' `directory` or S3-compatible bucket URL (default kit-files beside the SQLite file)")
	fl.StringVar(&o.backups, "backups", "", "backups' `directory` or S3-compatible bucket URL (default: no backups)")
	fl.DurationVar(&o.every, "backup-every", 24*time.Hour, "`interval` of scheduled backups with --backups; 0 schedules none")
	fl.IntVar(&o.keep, "backup-keep", 7, "how many scheduled backups stay")
	fl.Func("cors-origin", "let pages of `origin` call the API with API tokens (repeatable, or comma separated; * for any)", func(v string) error {
		for _, origin := range strings.Split(v, ",") {
			if origin = strings.TrimSpace(origin); origin != "" {
				o.cors = append(o.cors, origin)
			}
		}
		return nil
	})
	if code, ok := fl.parse(args, 0, stdout, stderr); !ok {
		return code
	}
	prefix, err := cleanPrefix(o.prefix)
	if err != nil {
		return fl.usageError(stderr, "%v", err)
	}
	dir, schemas, err := schemasFolder(o.schemas, o.demo)
	if err != nil {
		return fail(stderr, "serve", err)
	}

	logger := newLogger(stderr)
	k, closeKit, err := openKit(ctx, o.db, kit.Config{Schemas: schemas, Prefix: prefix, Logger: logger,
		CORS: kit.CORSConfig{AllowedOrigins: o.cors}, Files: filesConfig(o.files, os.Getenv), Backups: backupConfig(o, os.Getenv)})
	if err != nil {
		return fail(stderr, "serve", startError(dir, err))
	}
	// The add-on goes in before the demo seeds its records, so that they
	// have their events, and before the handler serves a request.
	withEvents := !o.noEvents
	var tracker *events.Tracker
	if withEvents {
		if tracker, err = events.Install(ctx, k, events.Config{}); err != nil {
			closeKit()
			return fail(stderr, "serve", err)
		}
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		closeKit()
		return fail(stderr, "serve", fmt.Errorf("%w (is another server on that port? --addr 127.0.0.1:0 picks a free one)", err))
	}
	base := baseURL(ln.Addr())

	if o.demo {
		demo, err := seedDemo(ctx, k)
		if err != nil {
			ln.Close()
			closeKit()
			return fail(stderr, "serve --demo", err)
		}
		adminURL := ""
		if !o.noAdmin {
			adminURL = base + adminPath
		}
		demo.print(stdout, base+prefix, adminURL, o.db, withEvents)
	}

	mux := http.NewServeMux()
	api := k.Handler()
	mux.Handle(prefix+"/", api)
	if !o.noAdmin {
		mux.Handle(adminPath, http.StripPrefix(strings.TrimSuffix(adminPath, "/"), admin.Handler(k)))
	}
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		if err := k.DB().PingContext(r.Context()); err != nil {
			logger.ErrorContext(r.Context(), "kit: health check: database unreachable", slog.Any("error", err))
			kit.WriteJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable"})
			return
		}
		kit.WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	srv := timeouts.server(apiFirst(prefix, api, mux))
	srv.ErrorLog = slog.NewLogLogger(logger.Handler(), slog.LevelWarn)
	// Change and presence streams never end by themselves: Shutdown ends
	// them (clients resume with Last-Event-ID, or open presence again)
	// instead of waiting for its timeout.
	srv.RegisterOnShutdown(k.CloseStreams)
	srv.RegisterOnShutdown(k.ClosePresence)
	// The events add-on's retention (90 days, 100,000 events) runs hourly,
	// once per hour across instances sharing the database, and stops
	// before the Kit closes.
	stopRetention := func() {}
	if tracker != nil {
		retentionCtx, cancelRetention := context.WithCancel(ctx)
		retained := tracker.StartRetention(retentionCtx, retentionInterval)
		stopRetention = func() { cancelRetention(); <-retained }
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(stdout, "kit: serving %s on %s%s\n", plural(k.Collections().Len(), "collection"), base, prefix)
	if !o.noAdmin {
		fmt.Fprintf(stdout, "kit: admin app on %s%s\n", base, adminPath)
	}
	if addr, ok := ln.Addr().(*net.TCPAddr); ok && addr.IP.IsUnspecified() {
		fmt.Fprintf(stderr, "kit: listening on every interface (%s)\n", addr)
	}

	code := exitOK
	select {
	case err := <-served:
		// Serve never returns nil; before Shutdown, any return is a failure.
		stopRetention()
		closeKit()
		return fail(stderr, "serve", err)
	case <-ctx.Done():
	}
	fmt.Fprintln(stderr, "kit: shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		fmt.Fprintf(stderr, "kit serve: shutdown: %v; closing the remaining connections\n", err)
		srv.Close()
		code = exitFail
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(stderr, "kit serve: %v\n", err)
		code = exitFail
	}
	stopRetention()
	if err := closeKit(); err != nil {
		fmt.Fprintf(stderr, "kit serve: close: %v\n", err)
		code = exitFail
	}
	if code == exitOK {
		fmt.Fprintln(stderr, "kit: stopped")
	}
	return code
}

// schemasFolder picks the schemas: the folder --schemas names when given,
// else the embedded demo schemas with --demo, else ./schemas. name is
// what messages call them.
func schemasFolder(flagValue string, demo bool) (name string, schemas fs.FS, err error) {
	switch {
	case flagValue != "":
		if !isDir(flagValue) {
			return "", nil, fmt.Errorf("--schemas %s: no such folder", flagValue)
		}
		return flagValue, os.DirFS(flagValue), nil
	case demo:
		sub, err := fs.Sub(demoSchemaFiles, "demo/schemas")
		if err != nil {
			return "", nil, err
		}
		return demoSchemas, sub, nil
	default:
		if !isDir("schemas") {
			cwd, _ := os.Getwd()
			return "", nil, fmt.Errorf("no schemas folder in %s: create ./schemas with one JSON file per collection, or pass --schemas DIR (or try kit serve --demo)", cwd)
		}
		return "schemas", os.DirFS("schemas"), nil
	}
}

// startError explains why kit could not start on the schemas folder dir:
// schema errors are listed one per line, as kit lint prints them; a
// schema change the stored data cannot take names the command that lists
// every pending change.
func startError(dir string, err error) error {
	if errors.Is(err, kit.ErrSchemaDrift) {
		return fmt.Errorf("%w\nkit serve applies the schema changes the stored data can take and refuses the rest, changing nothing; kit migrate plan (with the same --schemas and --db) lists every pending change", err)
	}
	var lerr *collections.LoadError
	if !errors.As(err, &lerr) {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s has %s (kit lint %s checks them):", dir, plural(len(lerr.Findings), "schema error"), dir)
	for _, f := range lerr.Findings {
		b.WriteString("\n  ")
		b.WriteString(f.String())
	}
	return errors.New(b.String())
}

// prefixPattern is what --prefix accepts: one or more path segments of
// URL-safe characters.
var prefixPattern = regexp.MustCompile(`^(/[A-Za-z0-9._~-]+)+$`)

// cleanPrefix turns a --prefix value into the form kit.Config.Prefix
// takes: a leading slash and no trailing one ("api/" gives "/api").
func cleanPrefix(p string) (string, error) {
	clean := "/" + strings.Trim(p, "/")
	if !prefixPattern.MatchString(clean) {
		return "", fmt.Errorf("--prefix %q must be a URL path such as /api or /v1/api", p)
	}
	return clean, nil
}

// baseURL returns the URL a client on this machine reaches the listener
// at: an unspecified host (0.0.0.0, ::) becomes 127.0.0.1.
func baseURL(addr net.Addr) string {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok {
		return "http://" + addr.String()
	}
	ip := tcp.IP
	if ip == nil || ip.IsUnspecified() {
		ip = net.IPv4(127, 0, 0, 1)
	}
	return "http://" + net.JoinHostPort(ip.String(), strconv.Itoa(tcp.Port))
}

// apiFirst serves the paths under prefix with api as they were sent, and
// the rest with mux. ServeMux cleans a path before it routes it, and
// answers one with an empty or a dot segment ("/api/teams//x") with an
// HTML redirect to the cleaned path, which names something else; kit's
// handler answers such a path with a 400 in its error shape instead.
func apiFirst(prefix string, api, mux http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, prefix+"/") {
			api.ServeHTTP(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// backupConfig is the Backups config of --backups, --backup-every and
// --backup-keep; on PostgreSQL pg_dump connects with --db.
func backupConfig(o serveOptions, getenv func(string) string) kit.BackupConfig {
	bc := kit.BackupConfig{Interval: o.every, Keep: o.keep}
	if o.every <= 0 {
		bc.Interval = -1
	}
	if o.backups != "" && backup.IsURL(o.backups) {
		bc.S3URL, bc.S3AccessKey, bc.S3SecretKey = o.backups, getenv("KIT_BACKUP_ACCESS_KEY"), getenv("KIT_BACKUP_SECRET_KEY")
	} else {
		bc.Dir = o.backups
	}
	if pgopen.IsDSN(o.db) {
		bc.PgDumpURL = o.db
	}
	return bc
}

// filesConfig is the Files config of --files: a directory, or an http(s)
// bucket URL whose keys come from the environment.
func filesConfig(files string, getenv func(string) string) kit.FilesConfig {
	fc := kit.FilesConfig{URLSecret: []byte(getenv("KIT_FILES_URL_SECRET"))}
	if strings.HasPrefix(files, "http://") || strings.HasPrefix(files, "https://") {
		fc.S3URL, fc.S3AccessKey, fc.S3SecretKey = files, getenv("KIT_FILES_ACCESS_KEY"), getenv("KIT_FILES_SECRET_KEY")
		return fc
	}
	fc.Dir = files
	return fc
}
