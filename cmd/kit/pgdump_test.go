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
	schema := testdb.NewSchema(t, dsn)
	src := withSearchPath(dsn, schema)
	ctx := t.Context()
	for _, args := range [][]string{
		{"team", "create", "--name", "Acme", "--slug", "acme", "--db", src},
	} {
		if code, _, stderr := runKit(t, args...); code != 0 {
			t.Fatalf("%v: %s", args, stderr)
		}
	}
	code, user, stderr := runKit(t, "user", "create", "--name", "Ann", "--db", src)
	if code != 0 {
		t.Fatal(stderr)
	}
	if code, _, stderr := runKit(t, "member", "add", "--team", "acme", "--user", strings.TrimSpace(user), "--role", "owner", "--db", src); code != 0 {
		t.Fatal(stderr)
	}
	csv := filepath.Join(t.TempDir(), "products.csv")
	if err := os.WriteFile(csv, []byte("title,sku,price\nHammer,H-1,9.99\nSaw,S-1,\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runKit(t, "import", "--team", "acme", "--collection", "shopProducts", "--db", src, "--schemas", w.schemas, csv); code != 0 {
		t.Fatal(stderr)
	}

	// A new database to restore into, dropped when the test ends.
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
	dst := u.String()

	// A dump of one schema leaves out the extension kit creates for its
	// search indexes (a whole database's dump, the recipe's, has it).
	target, err := pgopen.Open(ctx, dst, pgopen.Options{MaxOpenConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = target.ExecContext(ctx, "CREATE EXTENSION IF NOT EXISTS pg_trgm")
	target.Close()
	if err != nil {
		t.Fatal(err)
	}
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
