package testdb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/internal/pgopen"
	"github.com/collectionkit/kit/internal/store"
)

// EnvPostgres names the variable holding the PostgreSQL connection string.
const EnvPostgres = "KIT_TEST_POSTGRES"

var seq atomic.Int64

// Engine is a database engine the suites run on.
type Engine string

// The engines.
const (
	EngineSQLite   Engine = "sqlite"
	EnginePostgres Engine = "postgres"
)

// SQLite opens an in-memory SQLite database private to t and closes it when
// t ends.
func SQLite(t testing.TB) *bun.DB {
	t.Helper()
	name := fmt.Sprintf("%s-%d", strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()), seq.Add(1))
	db, err := store.OpenSQLite(":memory:" + name)
	if err != nil {
		t.Fatalf("open sqlite: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// PostgresDSN returns KIT_TEST_POSTGRES, or skips t with a message saying
// how to enable the PostgreSQL suite.
func PostgresDSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(EnvPostgres)
	if dsn == "" {
		t.Skipf("PostgreSQL suite skipped: set %s=postgres://user@127.0.0.1:5432/test?sslmode=disable to run it", EnvPostgres)
	}
	return dsn
}

// PostgresDB creates a fresh schema on the KIT_TEST_POSTGRES server, opens a
// pool whose search_path is that schema, and drops the schema when t ends.
// It skips t when the variable is unset.
func PostgresDB(t testing.TB) *bun.DB {
	t.Helper()
	dsn := PostgresDSN(t)
	schema := NewSchema(t, dsn)
	db, err := pgopen.Open(context.Background(), dsn, pgopen.Options{SearchPath: schema, MaxOpenConns: 8})
	if err != nil {
		t.Fatalf("open postgres: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// NewSchema creates an empty schema on dsn's server for t and drops it (with
// everything in it) when t ends.
func NewSchema(t testing.TB, dsn string) string {
	t.Helper()
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "kit_test_" + hex.EncodeToString(b[:])
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := pgopen.Open(ctx, dsn, pgopen.Options{MaxOpenConns: 1})
	if err != nil {
		t.Fatalf("open postgres: %v", err)
	}
	if _, err := admin.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		admin.Close()
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := admin.ExecContext(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
		admin.Close()
	})
	return schema
}

// Open opens a private database of engine e for t.
func Open(t testing.TB, e Engine) *bun.DB {
	t.Helper()
	if e == EnginePostgres {
		return PostgresDB(t)
	}
	return SQLite(t)
}

// Each runs fn once per engine as a subtest named after the engine; the
// PostgreSQL subtest skips (with the message above) when KIT_TEST_POSTGRES
// is unset.
func Each(t *testing.T, fn func(t *testing.T, e Engine)) {
	t.Helper()
	for _, e := range []Engine{EngineSQLite, EnginePostgres} {
		t.Run(string(e), func(t *testing.T) {
			if e == EnginePostgres {
				PostgresDSN(t)
			}
			fn(t, e)
		})
	}
}

// Shared returns a function that opens a new, separate connection pool on
// one database private to t each time it is called: a SQLite file in
// t.TempDir(), or one fresh PostgreSQL schema. It lets a test run several
// kit instances against the same database, as several processes would.
func Shared(t testing.TB, e Engine) func() *bun.DB {
	t.Helper()
	if e == EnginePostgres {
		dsn := PostgresDSN(t)
		schema := NewSchema(t, dsn)
		return func() *bun.DB {
			db, err := pgopen.Open(context.Background(), dsn, pgopen.Options{SearchPath: schema, MaxOpenConns: 8})
			if err != nil {
				t.Fatalf("open postgres: %v", err)
			}
			t.Cleanup(func() { db.Close() })
			return db
		}
	}
	path := t.TempDir() + "/shared.db"
	return func() *bun.DB {
		db, err := store.OpenSQLite(path)
		if err != nil {
			t.Fatalf("open sqlite: %v", err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
}

// CloneSQLite copies the SQLite database src (schema, triggers, search
// index and rows) into a fresh in-memory database private to t with
// VACUUM INTO, and closes the copy when t ends. Copying a seeded database
// is much cheaper than seeding it again.
func CloneSQLite(t testing.TB, src *bun.DB) *bun.DB {
	t.Helper()
	name := fmt.Sprintf("clone-%s-%d", strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()), seq.Add(1))
	dst, err := store.OpenSQLite(":memory:" + name)
	if err != nil {
		t.Fatalf("open sqlite: %v", err)
	}
	t.Cleanup(func() { dst.Close() })
	// The copy's target must exist and be empty: an in-memory database
	// lives only while a connection to it is open, and dst holds one.
	target := strings.SplitN(store.SQLiteDSN(":memory:"+name), "&", 2)[0]
	if _, err := src.ExecContext(t.Context(), "VACUUM INTO ?", target); err != nil {
		t.Fatalf("clone sqlite: %v", err)
	}
	return dst
}
