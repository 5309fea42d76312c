package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// dataWorld is a SQLite database with a schemas folder of one collection,
// shopProducts, and a team acme whose owner Ann has two products.
type dataWorld struct {
	db, schemas string
	ann         string
}

func newDataWorld(t *testing.T) *dataWorld {
	t.Helper()
	dir := t.TempDir()
	w := &dataWorld{db: filepath.Join(dir, "kit.db"), schemas: filepath.Join(dir, "schemas")}
	if err := os.MkdirAll(filepath.Join(w.schemas, "shop"), 0o755); err != nil {
		t.Fatal(err)
	}
	schema := `{"title": {"type": "string", "meta": {"required": true}}, "sku": {"type": "string", "meta": {"unique": true}}, "price": {"type": "decimal", "meta": {"precision": 10, "scale": 2}}}`
	if err := os.WriteFile(filepath.Join(w.schemas, "shop", "products.json"), []byte(schema), 0o644); err != nil {
		t.Fatal(err)
	}
	k, err := kit.New(kit.Config{SQLitePath: w.db, Schemas: os.DirFS(w.schemas)})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	ctx := t.Context()
	team, err := k.Accounts().CreateTeam(ctx, teamauth.Team{Name: "Acme", Slug: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	user, err := k.Accounts().CreateUser(ctx, teamauth.User{Name: "Ann", Email: "ann@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Accounts().AddMember(ctx, team.ID, user.ID, teamauth.RoleOwner); err != nil {
		t.Fatal(err)
	}
	w.ann = user.ID
	actor := kit.Actor{UserID: user.ID, TeamID: team.ID, Role: teamauth.RoleOwner}
	for _, p := range []map[string]any{{"title": "Hammer", "sku": "H-1", "price": "9.99"}, {"title": "=HYPERLINK(\"x\")", "sku": "H-2"}} {
		if _, err := k.Records("shopProducts").Create(ctx, actor, p); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func (w *dataWorld) args(args ...string) []string {
	return append(args, "--db", w.db, "--schemas", w.schemas)
}

func TestExportCommand(t *testing.T) {
	w := newDataWorld(t)
	out := filepath.Join(t.TempDir(), "products.csv")
	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   []string
		stderr   string
		wantFile bool
	}{
		{name: "CSV goes to stdout with a header and escaped formulas",
			args: w.args("export", "--team", "acme", "--collection", "shopProducts", "--sort", "sku"), code: 0,
			stdout: []string{"id,teamId,owner,title,sku,price,createdAt,updatedAt,createdBy,updatedBy\n", ",Hammer,H-1,9.99,", `,"'=HYPERLINK(""x"")",H-2,,`}},
		{name: "NDJSON of a filtered query, the collection named by its apiPath",
			args: w.args("export", "--team", "acme", "--collection", "shop-products", "--format", "ndjson", "--filter", `{"sku":"H-1"}`), code: 0,
			stdout: []string{`"sku":"H-1"`}},
		{name: "--out writes a file",
			args: w.args("export", "--team", "acme", "--collection", "shopProducts", "--out", out), code: 0, wantFile: true},
		{name: "--out refuses a file that exists and leaves it alone",
			args: w.args("export", "--team", "acme", "--collection", "shopProducts", "--out", out), code: exitFail, stderr: "exists", wantFile: true},
		{name: "a bad filter fails naming it",
			args: w.args("export", "--team", "acme", "--collection", "shopProducts", "--filter", `{"nope":1}`), code: exitFail, stderr: "filter"},
		{name: "an unknown collection fails",
			args: w.args("export", "--team", "acme", "--collection", "nothing"), code: exitFail, stderr: "no such collection"},
		{name: "an unknown team fails",
			args: w.args("export", "--team", "nope", "--collection", "shopProducts"), code: exitFail, stderr: "--team nope"},
		{name: "a user who is no member fails",
			args: w.args("export", "--team", "acme", "--collection", "shopProducts", "--user", "someone"), code: exitFail, stderr: "no member"},
		{name: "--team is required",
			args: w.args("export", "--collection", "shopProducts"), code: exitUsage, stderr: "--team is required"},
		{name: "an unknown format is a usage error",
			args: w.args("export", "--team", "acme", "--collection", "shopProducts", "--format", "xml"), code: exitUsage, stderr: "--format"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runKit(t, tc.args...)
			if code != tc.code {
				t.Fatalf("got exit status %d (stderr %s), want %d", code, stderr, tc.code)
			}
			for _, s := range tc.stdout {
				if !strings.Contains(stdout, s) {
					t.Errorf("got stdout %q, want it to contain %q", stdout, s)
				}
			}
			if !strings.Contains(stderr, tc.stderr) {
				t.Errorf("got stderr %q, want it to contain %q", stderr, tc.stderr)
			}
			if tc.wantFile {
				raw, err := os.ReadFile(out)
				if err != nil || !strings.HasPrefix(string(raw), "id,teamId,owner,title") || strings.Count(string(raw), "\n") != 3 {
					t.Errorf("got file %q (%v), want a header and 2 rows", raw, err)
				}
			}
		})
	}
}

func TestImportCommand(t *testing.T) {
	w := newDataWorld(t)
	dir := t.TempDir()
	file := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	count := func() int {
		code, stdout, stderr := runKit(t, w.args("export", "--team", "acme", "--collection", "shopProducts", "--format", "ndjson")...)
		if code != 0 {
			t.Fatalf("export: %d %s", code, stderr)
		}
		return strings.Count(stdout, "\n")
	}
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr []string
		added  int
	}{
		{name: "a CSV file is imported, all rows",
			args: w.args("import", "--team", "acme", "--collection", "shopProducts", file("new.csv", "title,sku,price\nSaw,S-1,12.00\nDrill,S-2,\n")),
			code: 0, stdout: "imported 2 records (correlation id ", added: 2},
		{name: "the format comes from the extension",
			args: w.args("import", "--team", "acme", "--collection", "shopProducts", file("new.ndjson", `{"title":"Level"}`+"\n")),
			code: 0, stdout: "imported 1 records", added: 1},
		{name: "rejected rows are printed one reason a line, and nothing is written",
			args: w.args("import", "--team", "acme", "--collection", "shopProducts", file("bad.csv", "title,price\nOk,1.00\n,abc\nDup,2.00\n")),
			code: exitFail, stderr: []string{"line 3, row 2: price: ", "line 3, row 2: title: is required", "kit import: the import was refused: 1 of 3 rows have errors"}},
		{name: "an unknown column is refused",
			args: w.args("import", "--team", "acme", "--collection", "shopProducts", file("cols.csv", "title,colour\na,b\n")),
			code: exitFail, stderr: []string{"line 1, row 0: colour: unknown column"}},
		{name: "a unique value the team has is refused",
			args: w.args("import", "--team", "acme", "--collection", "shopProducts", file("dup.csv", "title,sku\nCopy,H-1\n")),
			code: exitFail, stderr: []string{"line 2, row 1: sku: sku must be unique"}},
		{name: "a missing file fails",
			args: w.args("import", "--team", "acme", "--collection", "shopProducts", filepath.Join(dir, "none.csv")),
			code: exitFail, stderr: []string{"no such file"}},
		{name: "FILE is required",
			args: w.args("import", "--team", "acme", "--collection", "shopProducts"), code: exitUsage, stderr: []string{"FILE is required"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := count()
			code, stdout, stderr := runKit(t, tc.args...)
			if code != tc.code {
				t.Fatalf("got exit status %d (stderr %s), want %d", code, stderr, tc.code)
			}
			if !strings.Contains(stdout, tc.stdout) {
				t.Errorf("got stdout %q, want it to contain %q", stdout, tc.stdout)
			}
			for _, s := range tc.stderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("got stderr %q, want it to contain %q", stderr, s)
				}
			}
			if got := count() - before; got != tc.added {
				t.Errorf("got %d records added, want %d", got, tc.added)
			}
		})
	}
}

func TestBackupAndRestoreCommands(t *testing.T) {
	w := newDataWorld(t)
	dir := t.TempDir()
	backup := filepath.Join(dir, "backup.db")
	restored := filepath.Join(dir, "restored.db")
	corrupt := filepath.Join(dir, "corrupt.db")
	if err := os.WriteFile(corrupt, []byte("not a database at all, not even close to one"), 0o644); err != nil {
		t.Fatal(err)
	}
	products := func(db string) string {
		_, stdout, _ := runKit(t, "export", "--team", "acme", "--collection", "shopProducts", "--format", "ndjson", "--db", db, "--schemas", w.schemas)
		return stdout
	}
	tests := []struct {
		name   string
		args   []string
		code   int
		out    string
		stderr string
	}{
		{"a backup of a SQLite file is written", []string{"backup", "--db", w.db, "--to", backup}, 0, "backed up", ""},
		{"a backup to a path that exists is refused", []string{"backup", "--db", w.db, "--to", backup}, exitFail, "", "already exists"},
		{"a backup of PostgreSQL points to pg_dump", []string{"backup", "--db", "postgres://x@127.0.0.1:1/none", "--to", filepath.Join(dir, "pg.db")}, exitFail, "", "pg_dump"},
		{"--to is required", []string{"backup", "--db", w.db}, exitUsage, "", "--to is required"},
		{"a restore into a new file puts the backup back", []string{"restore", "--from", backup, "--db", restored}, 0, "restored", ""},
		{"a restore into a database that holds tables is refused", []string{"restore", "--from", backup, "--db", w.db}, exitFail, "", "not empty"},
		{"--force restores over it", []string{"restore", "--from", backup, "--db", restored, "--force"}, 0, "restored", ""},
		{"a restore from a file that is no database is refused", []string{"restore", "--from", corrupt, "--db", filepath.Join(dir, "other.db")}, exitFail, "", "restore"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runKit(t, tc.args...)
			if code != tc.code || !strings.Contains(stdout, tc.out) || !strings.Contains(stderr, tc.stderr) {
				t.Errorf("got %d, stdout %q, stderr %q; want %d, %q, %q", code, stdout, stderr, tc.code, tc.out, tc.stderr)
			}
		})
	}
	if got, want := products(restored), products(w.db); got != want || strings.Count(got, "\n") != 2 {
		t.Errorf("got restored products %q, want the original's %q", got, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "other.db")); !os.IsNotExist(err) {
		t.Errorf("got a database written from a corrupt backup (%v), want none", err)
	}
}
