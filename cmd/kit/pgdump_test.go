package main

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/collectionkit/kit/internal/pgopen"
	"github.com/collectionkit/kit/internal/testdb"
)

// TestPgDumpRecipeRestoresTheRecords runs the PostgreSQL backup recipe of
// docs/operations.md: pg_dump --format=custom of a database kit serves,
// pg_restore into a new database, and the restored records are the
// original's.
func TestPgDumpRecipeRestoresTheRecords(t *testing.T) {
	dsn := testdb.PostgresDSN(t)
	for _, tool := range []string{"pg_dump", "pg_restore"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: the pg_dump recipe is not tested", tool)
		}
	}
	w := newDataWorld(t) // for its schemas folder
	schema, src := seedPostgresShop(t, w, dsn)
	ctx := t.Context()
	dst := scratchDatabase(t, dsn, schema)
	dump := filepath.Join(t.TempDir(), "kit.dump")
	for _, cmd := range [][]string{
		{"pg_dump", "--format=custom", "--schema=" + schema, "--file", dump, dsn},
		{"pg_restore", "--no-owner", "--dbname", dst, dump},
	} {
		if out, err := exec.CommandContext(ctx, cmd[0], cmd[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", cmd[0], err, out)
		}
	}
	export := func(db string) string {
		code, stdout, stderr := runKit(t, "export", "--team", "acme", "--collection", "shopProducts", "--format", "ndjson", "--sort", "sku", "--db", db, "--schemas", w.schemas)
		if code != 0 {
			t.Fatalf("export from %s: %s", db, stderr)
		}
		return stdout
	}
	got, want := export(withSearchPath(dst, schema)), export(src)
	if got != want || strings.Count(got, "\n") != 2 {
		t.Errorf("got restored records %q, want the original's %q", got, want)
	}
}

// seedPostgresShop makes a fresh PostgreSQL schema on dsn (dropped when t
// ends) holding, through the kit command, the team acme, its owner Ann
// and two shop products imported from CSV; it returns the schema and the
// URL that serves it.
func seedPostgresShop(t *testing.T, w *dataWorld, dsn string) (schema, src string) {
	t.Helper()
	schema = testdb.NewSchema(t, dsn)
	src = withSearchPath(dsn, schema)
	code, user, stderr := runKit(t, "user", "create", "--name", "Ann", "--db", src)
	if code != 0 {
		t.Fatal(stderr)
	}
	for _, args := range [][]string{
		{"team", "create", "--name", "Acme", "--slug", "acme", "--db", src},
		{"member", "add", "--team", "acme", "--user", strings.TrimSpace(user), "--role", "owner", "--db", src},
	} {
		if code, _, stderr := runKit(t, args...); code != 0 {
			t.Fatalf("%v: %s", args, stderr)
		}
	}
	csv := filepath.Join(t.TempDir(), "products.csv")
	if err := os.WriteFile(csv, []byte("title,sku,price\nHammer,H-1,9.99\nSaw,S-1,\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runKit(t, "import", "--team", "acme", "--collection", "shopProducts", "--db", src, "--schemas", w.schemas, csv); code != 0 {
		t.Fatal(stderr)
	}
	return schema, src
}

// scratchDatabase creates a new database on dsn's server, named after
// schema and dropped when t ends, and returns its URL. It has pg_trgm,
// the extension kit creates for its search indexes, which a dump of one
// schema leaves out (a whole database's dump, the recipe's, has it).
func scratchDatabase(t *testing.T, dsn, schema string) string {
	t.Helper()
	ctx := t.Context()
	admin, err := pgopen.Open(ctx, dsn, pgopen.Options{MaxOpenConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	name := strings.Replace(schema, "kit_test_", "kit_restore_", 1)
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		admin.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if _, err := admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
		admin.Close()
	})
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	target, err := pgopen.Open(ctx, u.String(), pgopen.Options{MaxOpenConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = target.ExecContext(ctx, "CREATE EXTENSION IF NOT EXISTS pg_trgm")
	target.Close()
	if err != nil {
		t.Fatal(err)
	}
	return u.String()
}
