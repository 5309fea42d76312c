package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/collectionkit/kit/internal/pgopen"
	"github.com/collectionkit/kit/internal/store"
)

// runBackup implements "kit backup".
func runBackup(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var to string
	fl := newCommandFlags("backup", "--to FILE [--db PATH]",
		"Write a consistent copy of a SQLite database to FILE while kit serve keeps running (VACUUM\n"+
			"INTO): it holds every write committed before the backup started. FILE must not exist; it is\n"+
			"written under a temporary name and then put in place, so it is the whole copy or nothing.\n"+
			"On PostgreSQL use pg_dump (docs/operations.md).")
	dsn := fl.db()
	fl.StringVar(&to, "to", "", "the backup `file` to write")
	if code, ok := fl.parseRequired(args, stdout, stderr, "to"); !ok {
		return code
	}
	if pgopen.IsDSN(*dsn) {
		return fail(stderr, "backup", errors.New("on PostgreSQL, back up with pg_dump --format=custom and put back with pg_restore (docs/operations.md)"))
	}
	if _, err := os.Stat(*dsn); err != nil {
		return fail(stderr, "backup", err)
	}
	db, err := store.OpenSQLite(*dsn)
	if err != nil {
		return fail(stderr, "backup", err)
	}
	defer db.Close()
	if err := store.CopyDB(ctx, db, to); err != nil {
		return fail(stderr, "backup", err)
	}
	fmt.Fprintf(stdout, "backed up %s to %s\n", *dsn, to)
	return exitOK
}

// runRestore implements "kit restore".
func runRestore(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var from string
	var force bool
	fl := newCommandFlags("restore", "--from FILE [--db PATH] [--force]",
		"Put a SQLite backup made by kit backup back as the database --db names, after checking it\n"+
			"(PRAGMA integrity_check). A database that exists and holds tables is refused unless --force\n"+
			"(which replaces it); stop kit serve first. The database is written under a temporary name\n"+
			"and then put in place.")
	dsn := fl.db()
	fl.StringVar(&from, "from", "", "the backup `file` to restore")
	fl.BoolVar(&force, "force", false, "replace a database that holds tables")
	if code, ok := fl.parseRequired(args, stdout, stderr, "from"); !ok {
		return code
	}
	if pgopen.IsDSN(*dsn) {
		return fail(stderr, "restore", errors.New("on PostgreSQL, restore with pg_restore (docs/operations.md)"))
	}
	if err := store.CheckSQLiteFile(ctx, from); err != nil {
		return fail(stderr, "restore", err)
	}
	if _, err := os.Stat(*dsn); err == nil {
		n, err := store.SQLiteTables(ctx, *dsn)
		if err != nil {
			return fail(stderr, "restore", err)
		}
		if n > 0 && !force {
			return fail(stderr, "restore", fmt.Errorf("%s is not empty (%d tables): refused without --force", *dsn, n))
		}
	}
	if err := restoreFile(from, *dsn); err != nil {
		return fail(stderr, "restore", err)
	}
	fmt.Fprintf(stdout, "restored %s from %s\n", *dsn, from)
	return exitOK
}

// restoreFile copies the backup from to a temporary file beside to,
// then renames it over to, removing to's WAL files.
func restoreFile(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	tmp, err := os.CreateTemp(filepath.Dir(to), "."+filepath.Base(to)+".*.tmp")
	if err != nil {
		return err
	}
	_, err = io.Copy(tmp, src)
	if err = errors.Join(err, tmp.Sync(), tmp.Close()); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		if err := os.Remove(to + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			os.Remove(tmp.Name())
			return err
		}
	}
	return os.Rename(tmp.Name(), to)
}
