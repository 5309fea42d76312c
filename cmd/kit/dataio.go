package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// dataOptions are the flags kit export and kit import share: which
// database, schemas, team, collection and acting user.
type dataOptions struct {
	schemas, db, team, user, collection, format string
}

func (o *dataOptions) define(fl *commandFlags) {
	fl.StringVar(&o.schemas, "schemas", "", "schemas `folder` (default ./schemas)")
	fl.StringVar(&o.db, "db", defaultDB, "database: a SQLite file `path` or a postgres:// URL")
	fl.StringVar(&o.team, "team", "", "the team, by `slug or id`")
	fl.StringVar(&o.collection, "collection", "", "the collection, by registry `key` or apiPath")
	fl.StringVar(&o.user, "user", "", "act as this member (user `id`; default: the team's first owner)")
}

// open opens the Kit of o and returns it with the actor and the
// collection's registry key.
func (o *dataOptions) open(ctx context.Context, stderr io.Writer) (k *kit.Kit, a kit.Actor, key string, closeKit func() error, err error) {
	_, schemas, err := schemasFolder(o.schemas, false)
	if err != nil {
		return nil, a, "", nil, err
	}
	k, closeK, err := openKit(ctx, o.db, kit.Config{Schemas: schemas, Logger: quietLogger(stderr), Trash: kit.TrashConfig{NoPurge: true}})
	if err != nil {
		return nil, a, "", nil, err
	}
	c, ok := k.Collections().Get(o.collection)
	if !ok {
		if c, ok = k.Collections().ByAPIPath(o.collection); !ok {
			closeK()
			return nil, a, "", nil, fmt.Errorf("--collection %s: no such collection", o.collection)
		}
	}
	if a, err = o.actor(ctx, k); err != nil {
		closeK()
		return nil, a, "", nil, err
	}
	return k, a, c.Key(), closeK, nil
}

// actor is the member the command acts as: --user, or the team's first
// owner.
func (o *dataOptions) actor(ctx context.Context, k *kit.Kit) (kit.Actor, error) {
	accounts := k.Accounts()
	team, err := accounts.Team(ctx, o.team)
	if err != nil {
		return kit.Actor{}, fmt.Errorf("--team %s: %w", o.team, err)
	}
	members, err := accounts.Members(ctx, team.ID)
	if err != nil {
		return kit.Actor{}, err
	}
	for _, m := range members {
		if o.user == m.UserID || o.user == "" && m.Role == teamauth.RoleOwner {
			return kit.Actor{UserID: m.UserID, TeamID: team.ID, Role: m.Role}, nil
		}
	}
	if o.user != "" {
		return kit.Actor{}, fmt.Errorf("--user %s is no member of team %s", o.user, o.team)
	}
	return kit.Actor{}, fmt.Errorf("team %s has no owner: pass --user", o.team)
}

// runExport implements "kit export".
func runExport(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var o dataOptions
	var filter, search, sort, out string
	fl := newCommandFlags("export", "--team TEAM --collection KEY [--format csv|json|ndjson] [--filter JSON] [--search TEXT] [--sort FIELD] [--out FILE] [--schemas DIR] [--db PATH]",
		"Write every record of a team's collection that the list query selects (filter, search and\n"+
			"sort as in GET .../{apiPath}?...) to --out or stdout, streamed: CSV (a header of the\n"+
			"attribute names, formula cells escaped with an apostrophe), a JSON array, or NDJSON.")
	o.define(fl)
	fl.StringVar(&o.format, "format", "csv", "csv, json or ndjson")
	fl.StringVar(&filter, "filter", "", "a list filter, as the `JSON` of ?filter=")
	fl.StringVar(&search, "search", "", "a list search `text`")
	fl.StringVar(&sort, "sort", "", "a list sort, as ?sort= (`-field` descending)")
	fl.StringVar(&out, "out", "", "write to this `file` (refused when it exists) instead of stdout")
	if code, ok := fl.parseRequired(args, stdout, stderr, "team", "collection"); !ok {
		return code
	}
	format, err := kit.ParseExportFormat(o.format)
	if err != nil {
		return fl.usageError(stderr, "--format must be csv, json or ndjson")
	}
	params := url.Values{}
	for name, v := range map[string]string{"filter": filter, "search": search, "sort": sort} {
		if v != "" {
			params.Set(name, v)
		}
	}
	k, a, key, closeKit, err := o.open(ctx, stderr)
	if err != nil {
		return fail(stderr, "export", err)
	}
	defer closeKit()
	if out == "" {
		if err := k.Records(key).Export(ctx, a, params, format, stdout); err != nil {
			return fail(stderr, "export", err)
		}
		return exitOK
	}
	// A file: written whole or not at all (a failed export removes it).
	f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fail(stderr, "export", err)
	}
	bw := bufio.NewWriter(f)
	err = k.Records(key).Export(ctx, a, params, format, bw)
	if err = errors.Join(err, bw.Flush(), f.Close()); err != nil {
		os.Remove(out)
		return fail(stderr, "export", err)
	}
	return exitOK
}

// runImport implements "kit import".
func runImport(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var o dataOptions
	fl := newCommandFlags("import", "--team TEAM --collection KEY [--format csv|json|ndjson] [--schemas DIR] [--db PATH] FILE",
		"Create a record of a team's collection for every row of FILE (- for stdin): CSV with a\n"+
			"header naming the fields, a JSON array of objects, or NDJSON (--format; default from the\n"+
			"file's extension, else csv). All rows or none: every row goes through the create's\n"+
			"validation, then all are created in one transaction with one correlation id. Rejected\n"+
			"rows are printed to stderr, one reason a line (line N, row N, field: reason), and\n"+
			"nothing is written. Prints the number created and the correlation id.")
	o.define(fl)
	fl.StringVar(&o.format, "format", "", "csv, json or ndjson (default: from FILE's extension, else csv)")
	files, code, ok := parseInterspersed(fl, args, stdout, stderr)
	if !ok {
		return code
	}
	if code, ok := fl.require(stderr, "team", "collection"); !ok {
		return code
	}
	switch len(files) {
	case 0:
		return fl.usageError(stderr, "FILE is required (- for stdin)")
	case 1:
	default:
		return fl.usageError(stderr, "unexpected argument %q", files[1])
	}
	file := files[0]
	name := o.format
	if name == "" {
		name = strings.TrimPrefix(filepath.Ext(file), ".")
		if name != "json" && name != "ndjson" {
			name = "csv"
		}
	}
	format, err := kit.ParseExportFormat(name)
	if err != nil {
		return fl.usageError(stderr, "--format must be csv, json or ndjson")
	}
	var in io.Reader = os.Stdin
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return fail(stderr, "import", err)
		}
		defer f.Close()
		in = f
	}
	k, a, key, closeKit, err := o.open(ctx, stderr)
	if err != nil {
		return fail(stderr, "import", err)
	}
	defer closeKit()
	res, err := k.Records(key).Import(ctx, a, format, bufio.NewReader(in))
	var ie *kit.ImportError
	if errors.As(err, &ie) {
		for _, r := range ie.Rejected {
			field := r.Field
			if field != "" {
				field += ": "
			}
			fmt.Fprintf(stderr, "line %d, row %d: %s%s\n", r.Line, r.Row, field, r.Reason)
		}
	}
	if err != nil {
		return fail(stderr, "import", err)
	}
	fmt.Fprintf(stdout, "imported %d records (correlation id %s)\n", res.Imported, res.CorrelationID)
	return exitOK
}

// parseInterspersed parses args whose flags may come before and after the
// positional arguments ("kit import FILE --db x"), and returns those.
func parseInterspersed(fl *commandFlags, args []string, stdout, stderr io.Writer) (positional []string, code int, ok bool) {
	for {
		if code, ok := fl.parse(args, len(args), stdout, stderr); !ok {
			return nil, code, false
		}
		if fl.NArg() == 0 {
			return positional, exitOK, true
		}
		positional = append(positional, fl.Arg(0))
		args = fl.Args()[1:]
	}
}
