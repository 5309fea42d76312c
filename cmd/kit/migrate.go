package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"strings"

	"github.com/collectionkit/kit/internal/pgopen"
	"github.com/collectionkit/kit/kit"
)

// The migrate commands show and apply the changes a schemas folder makes
// to a database's collection tables (docs/schema-changes.md). kit serve
// applies the same changes when it starts, except dropping the columns
// of removed fields, which only "kit migrate apply --drop" does.

// runMigrate implements "kit migrate plan|apply".
func runMigrate(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return subcommand("migrate", args, stdout, stderr, map[string]func([]string) int{
		"plan":  func(args []string) int { return runMigratePlan(ctx, args, stdout, stderr) },
		"apply": func(args []string) int { return runMigrateApply(ctx, args, stdout, stderr) },
	})
}

// migrateOptions are the flags the migrate commands share.
type migrateOptions struct {
	schemas, db string
	drop        bool
}

func (o *migrateOptions) define(fl *commandFlags) {
	fl.StringVar(&o.schemas, "schemas", "", "schemas `folder` (default ./schemas)")
	fl.StringVar(&o.db, "db", defaultDB, "database: a SQLite file `path` or a postgres:// URL")
	fl.BoolVar(&o.drop, "drop", false, "drop the columns kept for fields removed from the schemas, with their values")
}

// config is the kit.Config of o: its schemas, and a logger that says only
// what went wrong (the commands print the changes themselves).
func (o *migrateOptions) config(stderr io.Writer) (kit.Config, string, error) {
	dir, schemas, err := schemasFolder(o.schemas, false)
	if err != nil {
		return kit.Config{}, "", err
	}
	return kit.Config{Schemas: schemas, AllowDestructiveSchemaChanges: o.drop, Logger: quietLogger(stderr)}, dir, nil
}

// quietLogger logs errors only, to stderr.
func quietLogger(stderr io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelError}))
}

func runMigratePlan(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var o migrateOptions
	asJSON := false
	fl := newCommandFlags("migrate plan", "[--schemas DIR] [--db PATH] [--drop] [--json]",
		"Print what kit serve (or kit migrate apply) would change in the database's collection tables\n"+
			"for the schemas folder, with the SQL, changing nothing: schema sync runs in a transaction\n"+
			"that is rolled back. Changes it would refuse (a type the stored values cannot take, a rename\n"+
			"of a missing column) are listed with their reasons, and the exit status is then 1.\n"+
			"--drop plans the drop of the columns kept for removed fields too.")
	o.define(fl)
	fl.BoolVar(&asJSON, "json", false, "print the plan as JSON: {engine, changes, statements, refused}")
	if code, ok := fl.parse(args, 0, stdout, stderr); !ok {
		return code
	}
	cfg, dir, err := o.config(stderr)
	if err != nil {
		return fail(stderr, "migrate plan", err)
	}
	where, closeDB, err := planTarget(ctx, o.db, &cfg)
	if err != nil {
		return fail(stderr, "migrate plan", err)
	}
	defer closeDB()
	plan, err := kit.PlanSchema(ctx, cfg)
	if err != nil && !errors.Is(err, kit.ErrSchemaDrift) {
		return fail(stderr, "migrate plan", startError(dir, err))
	}
	refused := refusals(err)
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			*kit.SchemaPlan
			Refused []string `json:"refused"`
		}{plan, refused}); err != nil {
			return fail(stderr, "migrate plan", err)
		}
	} else {
		printPlan(stdout, fmt.Sprintf("Plan for the %s with the schemas in %s", where, dir), plan, refused)
	}
	if len(refused) > 0 {
		return exitFail
	}
	return exitOK
}

func runMigrateApply(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var o migrateOptions
	fl := newCommandFlags("migrate apply", "[--schemas DIR] [--db PATH] [--drop]",
		"Bring the database's collection tables in line with the schemas folder, as kit serve does\n"+
			"when it starts, and print what changed. It holds the schema lock while it works, so\n"+
			"instances starting meanwhile wait and find the work done. With --drop it also drops the\n"+
			"columns kept for fields removed from the schemas, and their values. A change the data\n"+
			"cannot take is refused, nothing is changed, and the exit status is 1 (kit migrate plan\n"+
			"lists them all).")
	o.define(fl)
	if code, ok := fl.parse(args, 0, stdout, stderr); !ok {
		return code
	}
	cfg, dir, err := o.config(stderr)
	if err != nil {
		return fail(stderr, "migrate apply", err)
	}
	db, err := openDB(o.db)
	if err != nil {
		return fail(stderr, "migrate apply", err)
	}
	cfg.DB, cfg.SQLitePath = db.DB, db.SQLitePath
	if cfg.DB != nil {
		defer cfg.DB.Close()
	}
	plan, err := kit.ApplySchema(ctx, cfg)
	if err != nil {
		return fail(stderr, "migrate apply", migrateError(dir, err))
	}
	printPlan(stdout, "Applied to the "+describeDB(o.db), plan, nil)
	return exitOK
}

// planTarget points cfg at the database --db names for a plan, and says
// which it is. A SQLite file that does not exist yet is not created: the
// plan is made against an empty database, which is what opening the file
// would start from.
func planTarget(ctx context.Context, dsn string, cfg *kit.Config) (string, func() error, error) {
	if !pgopen.IsDSN(dsn) && !strings.HasPrefix(dsn, "file:") && !strings.HasPrefix(dsn, ":memory:") {
		if _, err := os.Stat(dsn); errors.Is(err, fs.ErrNotExist) {
			cfg.SQLitePath = ":memory:kit-migrate-plan"
			return "new SQLite database " + dsn + " (it does not exist yet)", func() error { return nil }, nil
		}
	}
	db, err := openDB(dsn)
	if err != nil {
		return "", nil, err
	}
	cfg.DB, cfg.SQLitePath = db.DB, db.SQLitePath
	closeDB := func() error { return nil }
	if cfg.DB != nil {
		closeDB = cfg.DB.Close
	}
	return describeDB(dsn), closeDB, nil
}

// describeDB names the database --db names, without a password.
func describeDB(dsn string) string {
	if pgopen.IsDSN(dsn) {
		return "PostgreSQL database " + redactDSN(dsn)
	}
	return "SQLite database " + dsn
}

// redactDSN hides the password of a postgres:// URL.
func redactDSN(dsn string) string {
	scheme, rest, ok := strings.Cut(dsn, "://")
	if !ok {
		return dsn
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return dsn
	}
	if user, _, hasPass := strings.Cut(rest[:at], ":"); hasPass {
		return scheme + "://" + user + ":***" + rest[at:]
	}
	return dsn
}

// refusals lists the messages of the drift errors joined in err.
func refusals(err error) []string {
	if err == nil {
		return nil
	}
	var out []string
	var de *kit.DriftError
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range joined.Unwrap() {
			out = append(out, refusals(e)...)
		}
		return out
	}
	if errors.As(err, &de) {
		return []string{de.Error()}
	}
	return []string{err.Error()}
}

// printPlan prints plan under title: its changes, then its SQL, then the
// refused changes.
func printPlan(w io.Writer, title string, plan *kit.SchemaPlan, refused []string) {
	fmt.Fprintf(w, "%s (%s):\n", title, plan.Engine)
	if len(plan.Changes) == 0 && len(refused) == 0 {
		fmt.Fprintln(w, "\nNothing to change: the collection tables match the schemas.")
		return
	}
	if len(plan.Changes) > 0 {
		fmt.Fprintln(w, "\nChanges:")
		for _, ch := range plan.Changes {
			fmt.Fprintf(w, "  %s\n", ch.Description)
		}
		fmt.Fprintf(w, "\nSQL (%s):\n", plan.Engine)
		for _, st := range plan.Statements {
			fmt.Fprintf(w, "  %s;", strings.ReplaceAll(st.SQL, "\n", "\n  "))
			if st.Runs > 1 {
				fmt.Fprintf(w, " -- %d times in a row", st.Runs)
			}
			fmt.Fprintln(w)
		}
	}
	if len(refused) > 0 {
		fmt.Fprintln(w, "\nRefused (kit serve and kit migrate apply stop on these, changing nothing):")
		for _, r := range refused {
			fmt.Fprintf(w, "  %s\n", r)
		}
	}
}

// migrateError explains a failed apply: schema errors as kit serve lists
// them, a refused change with the command that lists them all.
func migrateError(dir string, err error) error {
	if errors.Is(err, kit.ErrSchemaDrift) {
		return fmt.Errorf("%w\nnothing was changed; kit migrate plan lists every pending change", err)
	}
	return startError(dir, err)
}
