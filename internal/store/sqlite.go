package store

import (
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// sqlitePragmas are applied to every connection of a file database. WAL lets
// readers run beside the single writer; _txlock=immediate takes the write
// lock at BEGIN so read-then-write transactions never fail with SQLITE_BUSY
// half way (docs/decisions/0004).
//
// wal_autocheckpoint(0): a connection that commits does not checkpoint
// the WAL itself (copying pages to the database file and syncing it,
// while the commit's caller waits); kit runs passive checkpoints in the
// background instead (Store.CheckpointWAL, see write.go). Other
// programs opening the file keep SQLite's default. journal_size_limit
// (64 MiB): when the WAL starts over, a longer file is cut to that size.
//
// mmap_size (256 MiB): reads take the database file's first 256 MiB
// through a shared memory map instead of a read system call and a copy
// into each connection's page cache (the WAL is still read by pread, and
// writes still go through it). Every connection maps the file itself, so
// RSS counts a page once per connection that touched it; the memory is the
// kernel's page cache, held once (docs/decisions/0004). An I/O error on a
// mapped page (a failing disk) stops the process instead of failing the
// statement; a "file:" DSN with pragmas of its own (mmap_size(0)) opts
// out.
const sqlitePragmas = "_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(ON)&_pragma=wal_autocheckpoint(0)&_pragma=journal_size_limit(67108864)&_pragma=mmap_size(268435456)&_txlock=immediate"

// BackgroundCheckpoints reports whether the connections of a database
// opened with path's DSN leave WAL checkpoints to their owner (see
// sqlitePragmas).
func BackgroundCheckpoints(path string) bool {
	return strings.Contains(SQLiteDSN(path), "wal_autocheckpoint(0)")
}

// memPragmas are the pragmas for an in-memory (memdb VFS) database, which
// has no journal file to put in WAL mode.
const memPragmas = "_pragma=busy_timeout(10000)&_pragma=foreign_keys(ON)&_txlock=immediate"

// SQLiteDSN turns a file path, a "file:" URI or ":memory:<name>" into the DSN
// kit uses. A path gets the WAL pragmas; ":memory:<name>" becomes an
// isolated in-memory database named name (one per name in the process).
func SQLiteDSN(path string) string {
	switch {
	case strings.HasPrefix(path, ":memory:"):
		name := strings.TrimPrefix(path, ":memory:")
		if name == "" {
			name = "kit"
		}
		return "file:/" + url.PathEscape(name) + "?vfs=memdb&" + memPragmas
	case strings.HasPrefix(path, "file:"):
		if strings.Contains(path, "_pragma=") || strings.Contains(path, "_txlock=") {
			return path
		}
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		return path + sep + sqlitePragmas
	default:
		// '?', '#' and '%' would end or garble the path inside a URI.
		return "file:" + strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path) + "?" + sqlitePragmas
	}
}

// OpenSQLite opens the embedded SQLite database at path (see [SQLiteDSN])
// as a bun.DB. The pool keeps its connections open: an in-memory database
// lives only as long as one connection to it does.
func OpenSQLite(path string) (*bun.DB, error) {
	sqldb, err := sql.Open("sqlite", SQLiteDSN(path))
	if err != nil {
		return nil, fmt.Errorf("store: open sqlite %q: %w", path, err)
	}
	sqldb.SetMaxOpenConns(8)
	sqldb.SetMaxIdleConns(8)
	sqldb.SetConnMaxLifetime(0)
	sqldb.SetConnMaxIdleTime(0)
	if err := pingSQLite(sqldb); err != nil {
		sqldb.Close()
		return nil, fmt.Errorf("store: open sqlite %q: %w", path, err)
	}
	return bun.NewDB(sqldb, sqlitedialect.New()), nil
}

// pingSQLite opens the first connection, retrying while the database is
// busy: a process that creates a file database switches it to WAL, which
// takes an exclusive lock without waiting in the busy handler, so a second
// process opening the same new file at that moment gets SQLITE_BUSY at
// once. It gives up after busy_timeout (10 s).
func pingSQLite(db *sql.DB) error {
	deadline := time.Now().Add(10 * time.Second)
	for wait := 5 * time.Millisecond; ; wait = min(2*wait, 200*time.Millisecond) {
		err := db.Ping()
		var sc sqliteCoder
		if err == nil || !errors.As(err, &sc) || sc.Code()&0xff != sqliteBusy || time.Now().After(deadline) {
			return err
		}
		time.Sleep(wait)
	}
}
