package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/collectionkit/kit/internal/backup"
	"github.com/collectionkit/kit/internal/files"
	"github.com/collectionkit/kit/internal/pgopen"
	"github.com/collectionkit/kit/internal/store"
)

// backupHelp is the part of kit backup's and kit restore's help that
// says where archives and files are.
const backupHelp = "FILE is a local path or an S3 object URL, s3://HOST/BUCKET/NAME.tar (https; s3+http:// is plain\n" +
	"http), with the keys in KIT_BACKUP_ACCESS_KEY and KIT_BACKUP_SECRET_KEY. --files is the uploads'\n" +
	"directory or bucket URL as kit serve takes it (default kit-files beside the SQLite file)."

// runBackup implements "kit backup".
func runBackup(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var to, filesAt, pgDump string
	fl := newCommandFlags("backup", "--to FILE [--db PATH|URL] [--files DIR|URL] [--pg-dump BIN]",
		"Write a backup archive while kit serve keeps running: a tar of manifest.json, the database\n"+
			"(kit.db, a consistent SQLite copy made by VACUUM INTO; on PostgreSQL kit.dump, pg_dump's custom\n"+
			"format) and every file of the file fields under files/. FILE must not exist; the archive is\n"+
			"written under a temporary name and then put in place, so FILE is the whole backup or nothing.\n"+
			backupHelp)
	dsn := fl.db()
	fl.StringVar(&to, "to", "", "the backup `file` or s3:// URL to write")
	fl.StringVar(&filesAt, "files", "", "the uploads' `directory` or S3-compatible bucket URL")
	fl.StringVar(&pgDump, "pg-dump", "pg_dump", "the pg_dump `binary` (PostgreSQL)")
	if code, ok := fl.parseRequired(args, stdout, stderr, "to"); !ok {
		return code
	}
	src := backup.Source{Engine: backup.EnginePostgres, CopyDatabase: func(ctx context.Context, path string) error {
		return backup.PgDump(ctx, pgDump, *dsn, path)
	}}
	if !pgopen.IsDSN(*dsn) {
		if _, err := os.Stat(*dsn); err != nil {
			return fail(stderr, "backup", err)
		}
		db, err := store.OpenSQLite(*dsn)
		if err != nil {
			return fail(stderr, "backup", err)
		}
		defer db.Close()
		src.Engine = backup.EngineSQLite
		src.CopyDatabase = func(ctx context.Context, path string) error { return store.CopyDB(ctx, db, path) }
	}
	bucket, err := filesBucket(filesAt, *dsn)
	if err != nil {
		return fail(stderr, "backup", err)
	}
	src.Files = bucket
	dest, key, err := backup.Open(ctx, to, os.Getenv("KIT_BACKUP_ACCESS_KEY"), os.Getenv("KIT_BACKUP_SECRET_KEY"))
	if err != nil {
		return fail(stderr, "backup", err)
	}
	sum, n, err := backup.WriteTo(ctx, dest, key, src)
	if errors.Is(err, files.ErrExist) {
		return fail(stderr, "backup", fmt.Errorf("%s already exists: choose a new name", to))
	}
	if err != nil {
		return fail(stderr, "backup", err)
	}
	fmt.Fprintf(stdout, "backed up %s and %d files (%d bytes) to %s (%d bytes)\n", redactDSN(*dsn), sum.Files, sum.FileBytes, to, n)
	return exitOK
}

// filesBucket is the Bucket of a --files value (see filesConfig), with
// kit's default beside the SQLite file dsn.
func filesBucket(at, dsn string) (files.Bucket, error) {
	fc := filesConfig(at, os.Getenv)
	if fc.S3URL != "" {
		b, err := files.NewS3(files.S3Options{URL: fc.S3URL, AccessKey: fc.S3AccessKey, SecretKey: fc.S3SecretKey})
		if err != nil {
			return nil, err
		}
		return b, b.EnsureBucket(context.Background())
	}
	if fc.Dir == "" {
		fc.Dir = "kit-files"
		if !pgopen.IsDSN(dsn) {
			fc.Dir = filepath.Join(filepath.Dir(dsn), "kit-files")
		}
	}
	return files.Dir{Root: fc.Dir}, nil
}

// runRestore implements "kit restore".
func runRestore(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var from, filesAt, pgRestore string
	var force bool
	fl := newCommandFlags("restore", "--from FILE [--db PATH|URL] [--files DIR|URL] [--force] [--pg-restore BIN]",
		"Put a backup archive of kit backup back: the database as --db names it (checked first: SQLite's\n"+
			"integrity_check; on PostgreSQL pg_restore in one transaction) and the files into --files. A\n"+
			"database that holds tables, or a files store that holds files, is refused unless --force;\n"+
			"stop kit serve first. A failure removes the files it put back and leaves the database alone.\n"+
			"A bare SQLite file (an older kit backup) restores the database only.\n"+backupHelp)
	dsn := fl.db()
	fl.StringVar(&from, "from", "", "the backup `file` or s3:// URL to restore")
	fl.StringVar(&filesAt, "files", "", "the uploads' `directory` or S3-compatible bucket URL")
	fl.StringVar(&pgRestore, "pg-restore", "pg_restore", "the pg_restore `binary` (PostgreSQL)")
	fl.BoolVar(&force, "force", false, "restore over a database that holds tables and files that exist")
	if code, ok := fl.parseRequired(args, stdout, stderr, "from"); !ok {
		return code
	}
	src, key, err := backup.Open(ctx, from, os.Getenv("KIT_BACKUP_ACCESS_KEY"), os.Getenv("KIT_BACKUP_SECRET_KEY"))
	if err != nil {
		return fail(stderr, "restore", err)
	}
	blob, err := src.Open(ctx, key)
	if errors.Is(err, files.ErrNotExist) {
		return fail(stderr, "restore", fmt.Errorf("%s: no such backup", from))
	}
	if err != nil {
		return fail(stderr, "restore", err)
	}
	defer blob.Close()
	if err := refuseNonEmptyDB(ctx, *dsn, force); err != nil {
		return fail(stderr, "restore", err)
	}
	head := make([]byte, 16)
	n, _ := io.ReadFull(blob, head)
	if _, err := blob.Seek(0, io.SeekStart); err != nil {
		return fail(stderr, "restore", err)
	}
	if bytes.Equal(head[:n], []byte("SQLite format 3\x00")) && !backup.IsURL(from) && !pgopen.IsDSN(*dsn) {
		if err := restoreSQLite(ctx, from, *dsn); err != nil {
			return fail(stderr, "restore", err)
		}
		fmt.Fprintf(stdout, "restored %s from %s\n", *dsn, from)
		return exitOK
	}
	bucket, err := filesBucket(filesAt, *dsn)
	if err != nil {
		return fail(stderr, "restore", err)
	}
	if empty, err := backup.Empty(ctx, bucket); err != nil {
		return fail(stderr, "restore", err)
	} else if !empty && !force {
		return fail(stderr, "restore", errors.New("the files store holds files: refused without --force"))
	}
	sum, err := backup.Restore(ctx, blob, backup.Target{
		Files: bucket,
		CheckDatabase: func(ctx context.Context, m backup.Manifest, path string) error {
			if want := engineOf(*dsn); m.Engine != want {
				return fmt.Errorf("the backup is of a %s database, and --db names a %s one", m.Engine, want)
			}
			if m.Engine == backup.EngineSQLite {
				return store.CheckSQLiteFile(ctx, path)
			}
			return nil
		},
		RestoreDatabase: func(ctx context.Context, m backup.Manifest, path string) error {
			if m.Engine == backup.EngineSQLite {
				return restoreFile(path, *dsn)
			}
			return backup.PgRestore(ctx, pgRestore, *dsn, path, force)
		},
	})
	if err != nil {
		return fail(stderr, "restore", err)
	}
	fmt.Fprintf(stdout, "restored %s and %d files (%d bytes) from %s\n", redactDSN(*dsn), sum.Files, sum.FileBytes, from)
	return exitOK
}

func engineOf(dsn string) string {
	if pgopen.IsDSN(dsn) {
		return backup.EnginePostgres
	}
	return backup.EngineSQLite
}

// refuseNonEmptyDB is an error when the database of dsn holds tables
// (on PostgreSQL: in the search_path's schema) and force is not set.
func refuseNonEmptyDB(ctx context.Context, dsn string, force bool) error {
	if force {
		return nil
	}
	var n int
	if pgopen.IsDSN(dsn) {
		db, err := pgopen.Open(ctx, dsn, pgopen.Options{MaxOpenConns: 1})
		if err != nil {
			return err
		}
		defer db.Close()
		if err := db.QueryRowContext(ctx, "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()").Scan(&n); err != nil {
			return err
		}
	} else if _, err := os.Stat(dsn); err == nil {
		if n, err = store.SQLiteTables(ctx, dsn); err != nil {
			return err
		}
	}
	if n > 0 {
		return fmt.Errorf("%s is not empty (%d tables): refused without --force", redactDSN(dsn), n)
	}
	return nil
}

// restoreSQLite puts a bare SQLite backup file back as dsn.
func restoreSQLite(ctx context.Context, from, dsn string) error {
	if err := store.CheckSQLiteFile(ctx, from); err != nil {
		return err
	}
	return restoreFile(from, dsn)
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
