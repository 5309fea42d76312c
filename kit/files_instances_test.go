package kit_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/kittest"
	"github.com/collectionkit/kit/teamauth"
)

// TestTwoInstancesShareTheirFiles runs two Kits (two pools, two HTTP
// servers) on one database and one store with one URL secret: a file
// uploaded through one is listed, downloaded (with a token and with the
// signed URL) and deleted through the other.
func TestTwoInstancesShareTheirFiles(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		t.Parallel()
		for _, sc := range fileStores() {
			t.Run("on "+sc.name, func(t *testing.T) {
				t.Parallel()
				fc, bucket := sc.open(t)
				fc.URLSecret = []byte("one secret for the whole cluster, 32+ bytes")
				open := testdb.Shared(t, e)
				defs := []collections.Definition{productMediaDef(), datasheetsDef()}
				a := kittest.NewApp(t, kit.Config{DB: open(), Definitions: defs, Logger: quietLogger(), Files: fc})
				b := kittest.NewApp(t, kit.Config{DB: open(), Definitions: defs, Logger: quietLogger(), Files: fc})
				team, alice := a.Team("acme"), a.User("alice")
				a.AddMember(team, alice, teamauth.RoleOwner)
				token := a.Token(alice)
				path := "/api/teams/" + team.ID + "/shop-productMedia"
				w := &fileWorld{app: a, bucket: bucket}
				photo := pngOf(t, 12, 9)
				created := w.send(t, "POST", a.Server.URL+path, token, valueP("title", "shared"), fileP("photo", "p.png", photo))
				if created.status != 201 {
					t.Fatalf("create on instance A: got %d %s", created.status, created.body)
				}
				id := created.json(t)["id"].(string)

				got := do(t, "GET", b.Server.URL+path+"/"+id+"/files/photo/p.png", token, "", nil)
				if got.status != 200 || !bytes.Equal(got.body, photo) {
					t.Errorf("download on instance B: got %d and %d bytes, want 200 and the upload", got.status, len(got.body))
				}
				u := fileOf(t, created.json(t), "photo")["url"].(string)
				if s := do(t, "GET", b.Server.URL+u, "", "", nil); s.status != 200 {
					t.Errorf("A's signed URL on instance B: got %d, want 200", s.status)
				}
				if d := do(t, "DELETE", b.Server.URL+path+"/"+id, token, "", nil); d.status != http.StatusNoContent {
					t.Fatalf("delete on instance B: got %d %s", d.status, d.body)
				}
				if keys := w.blobs(t); len(keys) != 0 {
					t.Errorf("got %v left after B's delete, want none", keys)
				}
				if s := do(t, "GET", a.Server.URL+path+"/"+id+"/files/photo/p.png", token, "", nil); s.status != 404 || !strings.Contains(string(s.body), "file not found") {
					t.Errorf("download on instance A after the delete: got %d %s, want 404", s.status, s.body)
				}
			})
		}
	})
}
