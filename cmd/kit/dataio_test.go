package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/collectionkit/kit/internal/files"
	"github.com/collectionkit/kit/internal/store"
	"github.com/collectionkit/kit/internal/tests3"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
	"github.com/uptrace/bun"
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

// mustOpenSQLite opens the SQLite file path for the test.
func mustOpenSQLite(t *testing.T, path string) *bun.DB {
	t.Helper()
	db, err := store.OpenSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestBackupToS3AndRestore writes a backup archive with kit backup to a
// real S3-compatible server and puts it back with kit restore.
func TestBackupToS3AndRestore(t *testing.T) {
	srv := tests3.Start(t)
	t.Setenv("KIT_BACKUP_ACCESS_KEY", srv.AccessKey)
	t.Setenv("KIT_BACKUP_SECRET_KEY", srv.SecretKey)
	w := newDataWorld(t)
	dir := t.TempDir()
	to := strings.Replace(srv.BucketURL("cli-backup"), "http://", "s3+http://", 1) + "/nightly/kit.tar"
	products := func(db string) string {
		_, stdout, _ := runKit(t, "export", "--team", "acme", "--collection", "shopProducts", "--format", "ndjson", "--db", db, "--schemas", w.schemas)
		return stdout
	}
	restored := filepath.Join(dir, "restored.db")
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"a backup to an S3 object is written", []string{"backup", "--db", w.db, "--to", to}, 0, ""},
		{"a backup to an S3 object that exists is refused", []string{"backup", "--db", w.db, "--to", to}, exitFail, "already exists"},
		{"a restore from the S3 object puts the database back", []string{"restore", "--from", to, "--db", restored, "--files", filepath.Join(dir, "files")}, 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runKit(t, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.stderr) {
				t.Errorf("got %d, stdout %q, stderr %q; want %d, %q", code, stdout, stderr, tc.code, tc.stderr)
			}
		})
	}
	if got, want := products(restored), products(w.db); got != want || strings.Count(got, "\n") != 2 {
		t.Errorf("got restored products %q, want the original's %q", got, want)
	}
}

func TestBackupAndRestoreCommands(t *testing.T) {
	w := newDataWorld(t)
	dir := t.TempDir()
	backup := filepath.Join(dir, "backup.tar")
	restored := filepath.Join(dir, "restored.db")
	restoredFiles := filepath.Join(dir, "restored-files")
	blob := bytes.Repeat([]byte("kit\x00"), 50000)
	if _, err := (files.Dir{Root: filepath.Join(filepath.Dir(w.db), "kit-files")}).Put(t.Context(), "t1/c/r1/a-blob.bin", bytes.NewReader(blob), ""); err != nil {
		t.Fatal(err)
	}
	legacy := filepath.Join(dir, "legacy.db")
	if code, _, stderr := runKit(t, "backup", "--db", w.db, "--to", filepath.Join(dir, "warm.tar")); code != 0 {
		t.Fatal(stderr)
	}
	if err := store.CopyDB(t.Context(), mustOpenSQLite(t, w.db), legacy); err != nil {
		t.Fatal(err)
	}
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
		{"a backup of a SQLite file and its files is written", []string{"backup", "--db", w.db, "--to", backup}, 0, "and 1 files (200000 bytes)", ""},
		{"a backup to a path that exists is refused", []string{"backup", "--db", w.db, "--to", backup}, exitFail, "", "already exists"},
		{"a backup of PostgreSQL points to pg_dump", []string{"backup", "--db", "postgres://x@127.0.0.1:1/none", "--to", filepath.Join(dir, "pg.db")}, exitFail, "", "pg_dump"},
		{"--to is required", []string{"backup", "--db", w.db}, exitUsage, "", "--to is required"},
		{"a restore into a new file puts the database and the files back", []string{"restore", "--from", backup, "--db", restored, "--files", restoredFiles}, 0, "and 1 files", ""},
		{"a restore into a database that holds tables is refused", []string{"restore", "--from", backup, "--db", w.db}, exitFail, "", "not empty"},
		{"a restore into a files store that holds files is refused", []string{"restore", "--from", backup, "--db", filepath.Join(dir, "fresh.db"), "--files", restoredFiles}, exitFail, "", "holds files"},
		{"--force restores over both", []string{"restore", "--from", backup, "--db", restored, "--files", restoredFiles, "--force"}, 0, "restored", ""},
		{"a bare SQLite backup restores the database", []string{"restore", "--from", legacy, "--db", filepath.Join(dir, "legacy-restored.db")}, 0, "restored", ""},
		{"a restore from a backup that does not exist is refused", []string{"restore", "--from", filepath.Join(dir, "none.tar"), "--db", filepath.Join(dir, "other.db")}, exitFail, "", "no such backup"},
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
	for _, name := range []string{"other.db", "fresh.db"} {
		if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
			t.Errorf("got %s written by a refused restore (%v), want none", name, err)
		}
	}
	if got, err := os.ReadFile(filepath.Join(restoredFiles, "t1", "c", "r1", "a-blob.bin")); err != nil || !bytes.Equal(got, blob) {
		t.Errorf("got the restored file's %d bytes (%v), want the %d backed up", len(got), err, len(blob))
	}
}
