package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/uptrace/bun"
)

// ErrNoOnlineCopy is CopyTo's error on an engine whose copies are made by
// its own tools (PostgreSQL: pg_dump).
var ErrNoOnlineCopy = errors.New("store: this engine's backups are made with its own tools (pg_dump and pg_restore on PostgreSQL)")

// CopyTo writes a consistent copy of the whole database to the new file
// path while writes go on (SQLite: VACUUM INTO): the copy holds every
// write committed before it started. It writes a temporary file beside
// path and renames it, so path is the whole copy or nothing; a path that
// exists is refused (os.ErrExist) and left alone.
func (s *Store) CopyTo(ctx context.Context, path string) error {
	return CopyDB(ctx, s.db, path)
}

// CopiesOnline reports whether CopyTo can copy this engine's database
// (SQLite), or its tools must (PostgreSQL).
func (s *Store) CopiesOnline() bool { return s.dialect.copySQL() != "" }

// CopyDB is CopyTo for a database kit is not running on (kit backup
// opens the file itself).
func CopyDB(ctx context.Context, db *bun.DB, path string) error {
	query := dialectOf(db.Dialect().Name()).copySQL()
	if query == "" {
		return ErrNoOnlineCopy
	}
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("store: copy to %s: %w", path, os.ErrExist)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("store: copy to %s: %w", path, err)
	}
	name := tmp.Name()
	// VACUUM INTO wants a file that does not exist, or is empty.
	if err := errors.Join(tmp.Close(), os.Remove(name)); err != nil {
		return fmt.Errorf("store: copy to %s: %w", path, err)
	}
	if _, err := db.ExecContext(ctx, query, name); err != nil {
		removeCopy(name)
		return fmt.Errorf("store: copy to %s: %w", path, err)
	}
	// Link, not rename: a file that appeared at path meanwhile is not
	// replaced.
	if err := os.Link(name, path); err != nil {
		removeCopy(name)
		return fmt.Errorf("store: copy to %s: %w", path, err)
	}
	return os.Remove(name)
}

// CheckSQLiteFile opens the SQLite file path read-only and runs PRAGMA
// integrity_check: nil when it answers ok, else an error quoting it.
func CheckSQLiteFile(ctx context.Context, path string) error {
	db, err := openReadOnly(path)
	if err != nil {
		return err
	}
	defer db.Close()
	var res string
	if err := db.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&res); err != nil {
		return fmt.Errorf("store: check %s: %w", path, err)
	}
	if res != "ok" {
		return fmt.Errorf("store: %s fails its integrity check: %s", path, res)
	}
	return nil
}

// SQLiteTables returns how many tables the SQLite file path holds (0 for
// an empty database).
func SQLiteTables(ctx context.Context, path string) (int, error) {
	db, err := openReadOnly(path)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	var n int
	err = db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'table'").Scan(&n)
	return n, err
}

// openReadOnly opens the SQLite file path read-only, without kit's
// pragmas (which would switch it to WAL, a write).
func openReadOnly(path string) (*sql.DB, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	return db, nil
}

// removeCopy removes a copy that failed, with the journal SQLite may
// have left beside it.
func removeCopy(name string) {
	for _, suffix := range []string{"", "-journal", "-wal", "-shm"} {
		os.Remove(name + suffix)
	}
}
