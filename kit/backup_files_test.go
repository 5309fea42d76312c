package kit_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/backup"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/kittest"
	"github.com/collectionkit/kit/teamauth"
)

// TestBackupWithFilesRestoresEveryFile backs up a SQLite database whose
// records hold files (in a local directory, and on a real S3-compatible
// server), puts the archive back into a new database and a new files
// store, and downloads every file from a Kit serving the restored pair:
// each is byte-identical to the upload.
func TestBackupWithFilesRestoresEveryFile(t *testing.T) {
	t.Parallel()
	for _, sc := range fileStores() {
		t.Run("on "+sc.name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			fc, _ := sc.open(t)
			dir := t.TempDir()
			defs := []collections.Definition{productMediaDef(), datasheetsDef()}
			app := kittest.NewApp(t, kit.Config{SQLitePath: filepath.Join(dir, "kit.db"), Definitions: defs, Logger: quietLogger(),
				Files: fc, Backups: kit.BackupConfig{Dir: filepath.Join(dir, "backups"), Interval: -1}})
			acme, alice := app.Team("acme"), app.User("alice")
			app.AddMember(acme, alice, teamauth.RoleOwner)
			token := app.Token(alice)
			base := "/api/teams/" + acme.ID + "/shop-productMedia"
			w := &fileWorld{}
			uploads := map[string][]byte{}
			for i := range 3 {
				a, b := make([]byte, 3000+i), make([]byte, 70000*(i+1))
				_, _ = rand.Read(a)
				_, _ = rand.Read(b)
				na, nb := fmt.Sprintf("a%d.bin", i), fmt.Sprintf("b%d.bin", i)
				uploads[na], uploads[nb] = a, b
				res := w.send(t, http.MethodPost, app.Server.URL+base, token, valueP("title", "p"), fileP("attachments", na, a), fileP("attachments", nb, b))
				if res.status != http.StatusCreated {
					t.Fatalf("upload: got %d %s, want 201", res.status, res.body)
				}
			}

			made, err := app.Kit.CreateBackup(ctx)
			if err != nil {
				t.Fatal(err)
			}
			list, err := app.Kit.Backups(ctx)
			if err != nil || len(list) != 1 || list[0].Name != made.Name || list[0].Size != made.Size {
				t.Fatalf("got backups %+v (%v), want the one made, %+v", list, err, made)
			}

			// Restore into a new database file and a new, empty store.
			fc2, b2 := sc.open(t)
			restored := filepath.Join(t.TempDir(), "restored.db")
			rc, _, err := app.Kit.OpenBackup(ctx, made.Name)
			if err != nil {
				t.Fatal(err)
			}
			sum, err := backup.Restore(ctx, rc, backup.Target{Files: b2, RestoreDatabase: func(_ context.Context, m backup.Manifest, path string) error {
				if m.Engine != backup.EngineSQLite {
					return fmt.Errorf("got engine %q", m.Engine)
				}
				return copyFile(path, restored)
			}})
			rc.Close()
			if err != nil {
				t.Fatal(err)
			}
			if sum.Files != len(uploads) {
				t.Errorf("got %d files restored, want %d", sum.Files, len(uploads))
			}
			k2 := kittest.NewKit(t, kit.Config{SQLitePath: restored, Definitions: defs, Logger: quietLogger(), Files: fc2})
			srv := kittest.Serve(t, k2)
			res := do(t, http.MethodGet, srv.URL+base+"?pageSize=100", token, "", nil)
			if res.status != http.StatusOK {
				t.Fatalf("list on the restored server: got %d %s", res.status, res.body)
			}
			got := 0
			for _, rec := range res.json(t)["items"].([]any) {
				for _, f := range rec.(map[string]any)["attachments"].([]any) {
					f := f.(map[string]any)
					name, u := f["name"].(string), f["url"].(string)
					dl := do(t, http.MethodGet, srv.URL+u, "", "", nil)
					if dl.status != http.StatusOK || !bytes.Equal(dl.body, uploads[name]) {
						t.Errorf("%s: got %d and %d bytes, want 200 and the %d uploaded", name, dl.status, len(dl.body), len(uploads[name]))
					}
					got++
				}
			}
			if got != len(uploads) {
				t.Errorf("got %d files on the restored server, want %d", got, len(uploads))
			}
		})
	}
}

// TestBackupStoreRefusesBadNames: a name that is not a backup's answers
// ErrNotFound, whatever it points at.
func TestBackupStoreRefusesBadNames(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	k := kittest.NewKit(t, kit.Config{Logger: quietLogger(), Backups: kit.BackupConfig{Dir: filepath.Join(dir, "backups"), Interval: -1}})
	if err := os.WriteFile(filepath.Join(dir, "secret.tar"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"../secret.tar", "kit-../../secret.tar", "secret.tar", "kit-x.tar/", "", "kit-none.tar"} {
		t.Run(fmt.Sprintf("the name %q is not found", name), func(t *testing.T) {
			if _, _, err := k.OpenBackup(t.Context(), name); !errors.Is(err, kit.ErrNotFound) {
				t.Errorf("got %v, want ErrNotFound", err)
			}
		})
	}
	t.Run("without a backup store every call says so", func(t *testing.T) {
		none := kittest.NewKit(t, kit.Config{Logger: quietLogger()})
		if _, err := none.CreateBackup(t.Context()); !errors.Is(err, kit.ErrNoBackupStore) {
			t.Errorf("got %v, want ErrNoBackupStore", err)
		}
		if _, err := none.Backups(t.Context()); !errors.Is(err, kit.ErrNoBackupStore) {
			t.Errorf("got %v, want ErrNoBackupStore", err)
		}
	})
}

func copyFile(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.Create(to)
	if err != nil {
		return err
	}
	_, err = io.Copy(dst, src)
	return errors.Join(err, dst.Close())
}
