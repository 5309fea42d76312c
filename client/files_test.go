package client_test

import (
	"bytes"
	"errors"
	"image"
	"image/png"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/collectionkit/kit/client"
	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/kittest"
	"github.com/collectionkit/kit/teamauth"
)

func TestClientFiles(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		t.Parallel()
		def := collections.Definition{Name: "posters", Layer: "shop", Config: &collections.Config{FetchStrategy: "restful"}, Fields: []collections.Field{
			{Name: "title", Type: collections.TypeString},
			{Name: "picture", Type: collections.TypeImage, Meta: collections.FieldMeta{Thumbs: []string{"8x8"}}},
			{Name: "papers", Type: collections.TypeFile, Meta: collections.FieldMeta{Multiple: true}},
		}}
		app := kittest.NewApp(t, kit.Config{DB: testdb.Open(t, e), Definitions: []collections.Definition{def},
			Files: kit.FilesConfig{Dir: filepath.Join(t.TempDir(), "files")}})
		team, alice, gina := app.Team("acme"), app.User("alice"), app.User("gina")
		app.AddMember(team, alice, teamauth.RoleOwner)
		c, err := client.New(app.Server.URL+"/api", client.WithToken(app.Token(alice)))
		if err != nil {
			t.Fatal(err)
		}
		posters := c.Team("acme").Collection("shopPosters")
		var pic bytes.Buffer
		_ = png.Encode(&pic, image.NewGray(image.Rect(0, 0, 16, 12)))
		picture := pic.Bytes()

		rec, err := posters.CreateWithFiles(t.Context(), client.FileChanges{Values: map[string]any{"title": "Sunset"}, Uploads: []client.Upload{
			{Field: "picture", Name: "sunset.png", Body: bytes.NewReader(picture)},
			{Field: "papers", Name: "a.txt", Body: strings.NewReader("alpha")},
			{Field: "papers", Name: "ünïcode b.txt", Body: strings.NewReader("beta")},
		}})
		if err != nil {
			t.Fatalf("CreateWithFiles: %v", err)
		}
		id := rec["id"].(string)
		t.Run("an upload answers the files with their metadata", func(t *testing.T) {
			p := client.FilesOf(rec, "picture")
			if rec["title"] != "Sunset" || len(p) != 1 || p[0].Name != "sunset.png" || p[0].Width != 16 || p[0].Height != 12 {
				t.Errorf("got %v, want Sunset with sunset.png 16x12", rec)
			}
			if names := client.FilesOf(rec, "papers"); len(names) != 2 || names[1].Name != "ünïcode_b.txt" {
				t.Errorf("papers: got %v, want a.txt and ünïcode_b.txt", names)
			}
		})
		t.Run("a download reads the bytes uploaded, and a thumbnail its size", func(t *testing.T) {
			f := client.FilesOf(rec, "picture")[0]
			rc, err := c.Download(t.Context(), f, "")
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(rc)
			rc.Close()
			if !bytes.Equal(got, picture) {
				t.Errorf("got %d bytes, want the %d uploaded", len(got), len(picture))
			}
			rc, err = c.Download(t.Context(), f, "8x8")
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			if cfg, err := png.DecodeConfig(rc); err != nil || cfg.Width != 8 || cfg.Height != 8 {
				t.Errorf("thumbnail: got %dx%d (%v), want 8x8", cfg.Width, cfg.Height, err)
			}
		})
		t.Run("the signed URL works without the client's token", func(t *testing.T) {
			anon, _ := client.New(app.Server.URL + "/api")
			rc, err := anon.Download(t.Context(), client.FilesOf(rec, "picture")[0], "")
			if err != nil {
				t.Fatalf("got %v, want the file", err)
			}
			rc.Close()
		})
		t.Run("append, remove and read back", func(t *testing.T) {
			up, err := posters.UpdateFiles(t.Context(), id, client.FileChanges{Uploads: []client.Upload{{Field: "papers", Name: "c.txt", Body: strings.NewReader("gamma"), Append: true}}})
			if err != nil {
				t.Fatal(err)
			}
			if n := len(client.FilesOf(up, "papers")); n != 3 {
				t.Errorf("after append: got %d papers, want 3", n)
			}
			up, err = posters.RemoveFile(t.Context(), id, "papers", "a.txt")
			if err != nil {
				t.Fatal(err)
			}
			got := client.FilesOf(up, "papers")
			if len(got) != 2 || got[0].Name != "ünïcode_b.txt" || got[1].Name != "c.txt" {
				t.Errorf("after remove: got %v, want ünïcode_b.txt, c.txt", got)
			}
		})
		t.Run("a refused upload is an *Error naming the field", func(t *testing.T) {
			_, err := posters.CreateWithFiles(t.Context(), client.FileChanges{Uploads: []client.Upload{{Field: "picture", Name: "x.png", Body: strings.NewReader("not an image")}}})
			var ce *client.Error
			if !errors.As(err, &ce) || ce.Status != 415 || !strings.Contains(ce.Error(), "picture") {
				t.Errorf("got %v, want a 415 naming picture", err)
			}
		})
		t.Run("another team's member cannot download with a token", func(t *testing.T) {
			other, _ := client.New(app.Server.URL+"/api", client.WithToken(app.Token(gina)))
			f := client.FilesOf(rec, "picture")[0]
			f.URL = f.URL[:strings.Index(f.URL, "?")] // the bare path, unsigned
			if _, err := other.Download(t.Context(), f, ""); err == nil {
				t.Error("got the file, want an error")
			}
		})
	})
}
