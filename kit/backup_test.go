package kit_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/backup"
	"github.com/collectionkit/kit/internal/files"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// TestBackupUnderWrites backs a SQLite file up while a writer creates
// records: the copy passes integrity_check and holds every create that
// was acknowledged before the backup started.
func TestBackupUnderWrites(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	k, err := kit.New(kit.Config{SQLitePath: filepath.Join(dir, "kit.db"), Definitions: []collections.Definition{
		{Name: "notes", Layer: "app", Fields: []collections.Field{{Name: "body", Type: collections.TypeText}}}}})
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
	a := kit.Actor{UserID: user.ID, TeamID: team.ID, Role: teamauth.RoleOwner}
	var acked atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := k.Records("appNotes").Create(context.Background(), a, map[string]any{"body": "x"}); err != nil {
					t.Error(err)
					return
				}
				acked.Add(1)
			}
		}()
	}
	for acked.Load() < 200 { // let the writers get going
		time.Sleep(time.Millisecond)
	}
	backup := filepath.Join(dir, "backup.db")
	before := acked.Load()
	err = k.Backup(ctx, backup)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+backup+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var check string
	var n int64
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Fatalf("got integrity_check %q (%v), want ok", check, err)
	}
	if err := db.QueryRow("SELECT count(*) FROM app_notes").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n < before {
		t.Errorf("got %d notes in the backup, want at least the %d acknowledged before it started", n, before)
	}
	t.Logf("backup holds %d notes; %d were acknowledged before it started, %d by the end", n, before, acked.Load())

	t.Run("a backup to a path that exists is refused and leaves the file alone", func(t *testing.T) {
		taken := filepath.Join(dir, "taken.db")
		if err := os.WriteFile(taken, []byte("mine"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := k.Backup(ctx, taken); !errors.Is(err, os.ErrExist) {
			t.Fatalf("got %v, want os.ErrExist", err)
		}
		if raw, _ := os.ReadFile(taken); string(raw) != "mine" {
			t.Errorf("got the file changed to %q", raw)
		}
		if left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(left) != 0 {
			t.Errorf("got temporary files left: %v", left)
		}
	})
}

func TestBackupOnPostgreSQLIsPgDump(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		if e == testdb.EngineSQLite {
			return
		}
		d := newDesk(t, e)
		path := filepath.Join(t.TempDir(), "backup.db")
		if err := d.k.Backup(t.Context(), path); !errors.Is(err, kit.ErrNoOnlineBackup) {
			t.Fatalf("got %v, want ErrNoOnlineBackup", err)
		}
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("got a file at %s, want none", path)
		}
	})
}

// TestScheduledBackupsKeepTheNewest lets the backup loop run a few
// intervals: the newest Keep backups stay, each a whole database.
func TestScheduledBackupsKeepTheNewest(t *testing.T) {
	t.Parallel()
	dir, backups := t.TempDir(), t.TempDir()
	k, err := kit.New(kit.Config{SQLitePath: filepath.Join(dir, "kit.db"),
		Backups: kit.BackupConfig{Dir: backups, Interval: 30 * time.Millisecond, Keep: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Accounts().CreateTeam(t.Context(), teamauth.Team{Name: "Acme", Slug: "acme"}); err != nil {
		t.Fatal(err)
	}
	// The loop has taken more than Keep backups once a run removed one:
	// wait for the third (its name sorts after the first two).
	deadline := time.Now().Add(20 * time.Second)
	claims := &claimCounter{}
	var names []string
	for {
		names, _ = filepath.Glob(filepath.Join(backups, "kit-*.tar"))
		if len(names) == 2 && claims.seen(t, k) >= 3 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	k.Close()
	names, _ = filepath.Glob(filepath.Join(backups, "kit-*.tar"))
	if len(names) != 2 {
		t.Fatalf("got backups %v, want the newest 2", names)
	}
	for _, name := range names {
		db, err := sql.Open("sqlite", "file:"+archivedDB(t, name)+"?mode=ro")
		if err != nil {
			t.Fatal(err)
		}
		var check string
		var teams int
		err = db.QueryRow("PRAGMA integrity_check").Scan(&check)
		if err == nil {
			err = db.QueryRow("SELECT count(*) FROM kit_teams").Scan(&teams)
		}
		db.Close()
		if err != nil || check != "ok" || teams != 1 {
			t.Errorf("%s: got integrity %q, %d teams (%v); want ok and the team", name, check, teams, err)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(backups, ".*")); len(left) != 0 {
		t.Errorf("got temporary files left: %v", left)
	}
}

// archivedDB extracts the SQLite database of the backup archive at path
// and returns the file's path.
func archivedDB(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := filepath.Join(t.TempDir(), "kit.db")
	_, err = backup.Restore(t.Context(), f, backup.Target{Files: files.Dir{Root: t.TempDir()},
		RestoreDatabase: func(_ context.Context, _ backup.Manifest, p string) error { return copyFile(p, out) }})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return out
}

// claimCounter counts the scheduled backups k claims, from the claim's
// time in kit_periodic (which keeps the last one only), polled.
type claimCounter struct {
	last time.Time
	n    int
}

func (c *claimCounter) seen(t *testing.T, k *kit.Kit) int {
	t.Helper()
	var last time.Time
	if err := k.DB().QueryRowContext(t.Context(), "SELECT last_run_at FROM kit_periodic WHERE name = 'kit:backup'").Scan(&last); err == nil && !last.Equal(c.last) {
		c.last = last
		c.n++
	}
	return c.n
}
