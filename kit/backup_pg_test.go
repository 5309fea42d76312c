package kit_test

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/collectionkit/kit/internal/backup"
	"github.com/collectionkit/kit/internal/pgopen"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// TestScheduledBackupsOnPostgreSQLRunPgDump lets the backup loop run a
// few intervals on the real PostgreSQL: the newest Keep archives stay,
// each with a pg_dump that pg_restore reads and that holds kit's tables.
func TestScheduledBackupsOnPostgreSQLRunPgDump(t *testing.T) {
	t.Parallel()
	dsn := testdb.PostgresDSN(t)
	if _, err := exec.LookPath("pg_restore"); err != nil {
		t.Skip("pg_restore is not installed: the dumps cannot be checked")
	}
	schema := testdb.NewSchema(t, dsn)
	db, err := pgopen.Open(t.Context(), dsn, pgopen.Options{SearchPath: schema, MaxOpenConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	backups := t.TempDir()
	k, err := kit.New(kit.Config{DB: db, Logger: quietLogger(), Files: kit.FilesConfig{Dir: t.TempDir()},
		Backups: kit.BackupConfig{Dir: backups, Interval: 50 * time.Millisecond, Keep: 2, PgDumpURL: dsn + "&search_path=" + schema}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Accounts().CreateTeam(t.Context(), teamauth.Team{Name: "Acme", Slug: "acme"}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	claims := &claimCounter{}
	var names []string
	for {
		names, _ = filepath.Glob(filepath.Join(backups, "kit-*.tar"))
		if len(names) == 2 && claims.seen(t, k) >= 4 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	k.Close()
	names, _ = filepath.Glob(filepath.Join(backups, "kit-*.tar"))
	if len(names) != 2 || claims.n < 4 {
		t.Fatalf("got backups %v after %d claims, want the newest 2 after at least 4", names, claims.n)
	}
	for _, name := range names {
		m, dump := readArchive(t, name)
		if m.Engine != backup.EnginePostgres || m.Database != backup.PgDumpName {
			t.Errorf("%s: got manifest %+v, want a postgres dump", name, m)
		}
		path := filepath.Join(t.TempDir(), "kit.dump")
		if err := os.WriteFile(path, dump, 0o600); err != nil {
			t.Fatal(err)
		}
		out, err := exec.CommandContext(t.Context(), "pg_restore", "--list", path).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "TABLE "+schema+" kit_teams") {
			t.Errorf("%s: got pg_restore --list %v:\n%s\nwant kit_teams of %s", name, err, out, schema)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(backups, ".*")); len(left) != 0 {
		t.Errorf("got temporary files left: %v", left)
	}
}

// TestScheduledBackupsOnPostgreSQLSayWhatIsMissing: without pg_dump, or
// without the URL it connects with, no archive is written and the log
// says why.
func TestScheduledBackupsOnPostgreSQLSayWhatIsMissing(t *testing.T) {
	t.Parallel()
	dsn := testdb.PostgresDSN(t)
	tests := []struct {
		name string
		cfg  kit.BackupConfig
		log  string
	}{
		{"a pg_dump that is not found is a logged error at each interval",
			kit.BackupConfig{Interval: 30 * time.Millisecond, PgDumpURL: dsn, PgDump: "/nonexistent/pg_dump"}, "pg_dump was not found"},
		{"no PgDumpURL schedules nothing and logs an error at start",
			kit.BackupConfig{Interval: 30 * time.Millisecond}, "without Config.Backups.PgDumpURL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			logs := &lockedBuffer{}
			tc.cfg.Dir = t.TempDir()
			k, err := kit.New(kit.Config{DB: testdb.PostgresDB(t), Logger: slog.New(slog.NewTextHandler(logs, nil)), Backups: tc.cfg})
			if err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(20 * time.Second)
			for !strings.Contains(logs.String(), tc.log) && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			k.Close()
			if got := logs.String(); !strings.Contains(got, tc.log) || !strings.Contains(got, "level=ERROR") {
				t.Errorf("got log %q, want an error saying %q", got, tc.log)
			}
			if left, _ := os.ReadDir(tc.cfg.Dir); len(left) != 0 {
				t.Errorf("got %d files in the backup folder, want none", len(left))
			}
		})
	}
}

// readArchive returns the manifest and the database entry of the backup
// archive at path.
func readArchive(t *testing.T, path string) (backup.Manifest, []byte) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr := tar.NewReader(f)
	var m backup.Manifest
	if h, err := tr.Next(); err != nil || h.Name != backup.ManifestName {
		t.Fatalf("%s: got first entry %v (%v), want the manifest", path, h, err)
	}
	if err := json.NewDecoder(tr).Decode(&m); err != nil {
		t.Fatal(err)
	}
	if h, err := tr.Next(); err != nil || h.Name != m.Database {
		t.Fatalf("%s: got second entry %v (%v), want %s", path, h, err, m.Database)
	}
	raw, err := io.ReadAll(tr)
	if err != nil {
		t.Fatal(err)
	}
	return m, raw
}

// lockedBuffer is a log destination safe for concurrent writes.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
