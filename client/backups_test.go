package client_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/collectionkit/kit/client"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/kittest"
)

func TestSuperAdminBackups(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "backups")
	app := kittest.NewApp(t, kit.Config{SQLitePath: filepath.Join(tmp, "kit.db"), Backups: kit.BackupConfig{Dir: dir, Interval: -1}})
	admin, err := client.New(app.Server.URL+"/api", client.WithToken(app.Token(app.Admin("root"))))
	if err != nil {
		t.Fatal(err)
	}
	member, err := client.New(app.Server.URL+"/api", client.WithToken(app.Token(app.User("ann"))))
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	made, err := admin.SuperAdmin().CreateBackup(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("Backups lists the backup made", func(t *testing.T) {
		list, err := admin.SuperAdmin().Backups(ctx)
		if err != nil || len(list) != 1 || list[0] != made {
			t.Errorf("got %+v (%v), want [%+v]", list, err, made)
		}
	})
	t.Run("DownloadBackup reads the archive as stored", func(t *testing.T) {
		rc, err := admin.SuperAdmin().DownloadBackup(ctx, made.Name)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(rc)
		rc.Close()
		want, _ := os.ReadFile(filepath.Join(dir, made.Name))
		if string(got) != string(want) || int64(len(got)) != made.Size {
			t.Errorf("got %d bytes, want the %d stored", len(got), len(want))
		}
	})
	t.Run("an unknown name is ErrNotFound", func(t *testing.T) {
		if _, err := admin.SuperAdmin().DownloadBackup(ctx, "kit-none.tar"); !errors.Is(err, client.ErrNotFound) {
			t.Errorf("got %v, want ErrNotFound", err)
		}
	})
	t.Run("a user who is no super-admin is ErrForbidden", func(t *testing.T) {
		if _, err := member.SuperAdmin().Backups(ctx); !errors.Is(err, client.ErrForbidden) {
			t.Errorf("got %v, want ErrForbidden", err)
		}
		if _, err := member.SuperAdmin().CreateBackup(ctx); !errors.Is(err, client.ErrForbidden) {
			t.Errorf("got %v, want ErrForbidden", err)
		}
	})
}
