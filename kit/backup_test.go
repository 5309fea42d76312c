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
