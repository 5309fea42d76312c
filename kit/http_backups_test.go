package kit_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/kittest"
	"github.com/collectionkit/kit/teamauth"
)

// TestBackupRoutesAreForSuperAdmins lists, makes and downloads backups
// over HTTP as a super-admin; a team owner is a 403 and no caller a 401,
// and neither makes a backup.
func TestBackupRoutesAreForSuperAdmins(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "backups")
	app := kittest.NewApp(t, kit.Config{SQLitePath: filepath.Join(tmp, "kit.db"), Logger: quietLogger(), Backups: kit.BackupConfig{Dir: dir, Interval: -1}})
	root, ann := app.Token(app.Admin("root")), app.User("ann")
	app.AddMember(app.Team("acme"), ann, teamauth.RoleOwner)
	owner := app.Token(ann)
	base := app.Server.URL + "/api/super-admin/backups"

	made := do(t, http.MethodPost, base, root, "", nil)
	if made.status != http.StatusCreated {
		t.Fatalf("create as a super-admin: got %d %s, want 201", made.status, made.body)
	}
	var f kit.BackupFile
	if err := json.Unmarshal(made.body, &f); err != nil || !strings.HasPrefix(f.Name, "kit-") || f.Size == 0 {
		t.Fatalf("got %s (%v), want a backup's name and size", made.body, err)
	}
	onDisk, err := os.ReadFile(filepath.Join(dir, f.Name))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, method, url, token string
		status                   int
		want                     string // in the body
	}{
		{"a super-admin lists the backup", http.MethodGet, base, root, 200, `"name":"` + f.Name + `"`},
		{"a super-admin downloads it", http.MethodGet, base + "/" + f.Name, root, 200, "manifest.json"},
		{"a name the store does not hold is a 404", http.MethodGet, base + "/kit-none.tar", root, 404, "no such backup"},
		{"a name that climbs out is a 400", http.MethodGet, base + "/..%2Fkit.tar", root, 400, `\".\" or \"..\" segment`},
		{"a team owner may not list backups", http.MethodGet, base, owner, 403, "admin role required"},
		{"a team owner may not make one", http.MethodPost, base, owner, 403, "admin role required"},
		{"a team owner may not download one", http.MethodGet, base + "/" + f.Name, owner, 403, "admin role required"},
		{"no caller may list backups", http.MethodGet, base, "", 401, ""},
		{"no caller may make one", http.MethodPost, base, "", 401, ""},
		{"no caller may download one", http.MethodGet, base + "/" + f.Name, "", 401, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := do(t, tc.method, tc.url, tc.token, "", nil)
			if res.status != tc.status || !strings.Contains(string(res.body), tc.want) {
				t.Fatalf("got %d %.200s, want %d with %q", res.status, res.body, tc.status, tc.want)
			}
			if tc.status == 200 && strings.HasSuffix(tc.url, ".tar") {
				if !bytes.Equal(res.body, onDisk) || res.header.Get("Content-Type") != "application/x-tar" ||
					!strings.Contains(res.header.Get("Content-Disposition"), `attachment; filename="`+f.Name+`"`) {
					t.Errorf("got %d bytes as %q, %q; want the archive's %d as an attachment", len(res.body),
						res.header.Get("Content-Type"), res.header.Get("Content-Disposition"), len(onDisk))
				}
			}
		})
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("got %d files in the backup store, want the one backup: refused calls wrote nothing", len(entries))
	}

	t.Run("without a backup store every route is a 404 saying so", func(t *testing.T) {
		none := kittest.NewApp(t, kit.Config{Logger: quietLogger()})
		admin := none.Token(none.Admin("root"))
		for _, m := range []string{http.MethodGet, http.MethodPost} {
			res := do(t, m, none.Server.URL+"/api/super-admin/backups", admin, "", nil)
			if res.status != 404 || !strings.Contains(string(res.body), "no backup store") {
				t.Errorf("%s: got %d %s, want 404 no backup store", m, res.status, res.body)
			}
		}
	})
}
