package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/collectionkit/kit/internal/files"
	"github.com/collectionkit/kit/internal/testdb"
)

// TestBackupAndRestoreOnPostgreSQL runs kit backup on a PostgreSQL
// database (pg_dump) with files, and kit restore into a new database and
// an empty files folder: the records and the files are the original's,
// and a second restore into the now full database is refused.
func TestBackupAndRestoreOnPostgreSQL(t *testing.T) {
	dsn := testdb.PostgresDSN(t)
	for _, tool := range []string{"pg_dump", "pg_restore"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: kit backup on PostgreSQL is not tested", tool)
		}
	}
	w := newDataWorld(t)
	schema, src := seedPostgresShop(t, w, dsn)
	ctx := t.Context()
	dir := t.TempDir()
	blob := bytes.Repeat([]byte{0, 1, 2, 255}, 30000)
	if _, err := (files.Dir{Root: filepath.Join(dir, "files")}).Put(ctx, "t/c/r/x-photo.bin", bytes.NewReader(blob), ""); err != nil {
		t.Fatal(err)
	}

	dst := withSearchPath(scratchDatabase(t, dsn, schema), schema)
	archive := filepath.Join(dir, "kit.tar")
	restored := filepath.Join(dir, "restored-files")
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"a backup of PostgreSQL and its files is written", []string{"backup", "--db", src, "--files", filepath.Join(dir, "files"), "--to", archive}, 0, ""},
		{"a restore of it into a SQLite file is refused", []string{"restore", "--from", archive, "--db", filepath.Join(dir, "kit.db"), "--files", filepath.Join(dir, "other")}, exitFail, "postgres database"},
		{"a restore into a new database puts the records and files back", []string{"restore", "--from", archive, "--db", dst, "--files", restored}, 0, ""},
		{"a second restore into it is refused", []string{"restore", "--from", archive, "--db", dst, "--files", filepath.Join(dir, "empty")}, exitFail, "not empty"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runKit(t, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.stderr) {
				t.Fatalf("got %d, stdout %q, stderr %q; want %d, %q", code, stdout, stderr, tc.code, tc.stderr)
			}
		})
	}
	export := func(db string) string {
		code, stdout, stderr := runKit(t, "export", "--team", "acme", "--collection", "shopProducts", "--format", "ndjson", "--sort", "sku", "--db", db, "--schemas", w.schemas)
		if code != 0 {
			t.Fatalf("export from %s: %s", db, stderr)
		}
		return stdout
	}
	if got, want := export(dst), export(src); got != want || strings.Count(got, "\n") != 2 {
		t.Errorf("got restored records %q, want the original's %q", got, want)
	}
	if got, err := os.ReadFile(filepath.Join(restored, "t", "c", "r", "x-photo.bin")); err != nil || !bytes.Equal(got, blob) {
		t.Errorf("got the restored file's %d bytes (%v), want the %d backed up", len(got), err, len(blob))
	}
	for _, d := range []string{"other", "empty"} {
		if _, err := os.Stat(filepath.Join(dir, d)); !os.IsNotExist(err) {
			t.Errorf("got %s written by a refused restore (%v), want nothing", d, err)
		}
	}
}
