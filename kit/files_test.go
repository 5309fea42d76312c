package kit_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/files"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/internal/tests3"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/kittest"
	"github.com/collectionkit/kit/teamauth"
)

// productMediaDef is a collection with every kind of file field.
func productMediaDef() collections.Definition {
	return collections.Definition{Name: "productMedia", Layer: "shop", Fields: []collections.Field{
		{Name: "title", Type: collections.TypeString, Meta: collections.FieldMeta{Required: true}},
		{Name: "stock", Type: collections.TypeNumber},
		{Name: "isActive", Type: collections.TypeBoolean},
		{Name: "photo", Type: collections.TypeImage, Meta: collections.FieldMeta{Thumbs: []string{"20x20", "10x0"}, MaxSize: 64 << 10}},
		{Name: "manual", Type: collections.TypeFile, Meta: collections.FieldMeta{MimeTypes: []string{"application/pdf", "text/*"}, MaxSize: 4096}},
		{Name: "gallery", Type: collections.TypeImage, Meta: collections.FieldMeta{Multiple: true, MaxFiles: 3}},
		{Name: "attachments", Type: collections.TypeFile, Meta: collections.FieldMeta{Multiple: true}},
		{Name: "contract", Type: collections.TypeFile, Meta: collections.FieldMeta{}},
	}}
}

// datasheetsDef has a required file field.
func datasheetsDef() collections.Definition {
	return collections.Definition{Name: "datasheets", Layer: "shop", Fields: []collections.Field{
		{Name: "sheet", Type: collections.TypeFile, Meta: collections.FieldMeta{Required: true}},
	}}
}

// fileStoreCase is one of the stores the file suites run on.
type fileStoreCase struct {
	name string
	// open returns the Files config of a new store private to t and a
	// view of the same store for the test's checks.
	open func(t *testing.T) (kit.FilesConfig, files.Bucket)
}

func fileStores() []fileStoreCase {
	return []fileStoreCase{
		{"the local directory", func(t *testing.T) (kit.FilesConfig, files.Bucket) {
			dir := filepath.Join(t.TempDir(), "kit-files")
			return kit.FilesConfig{Dir: dir}, files.Dir{Root: dir}
		}},
		{"an S3-compatible server", func(t *testing.T) (kit.FilesConfig, files.Bucket) {
			srv := tests3.Start(t)
			u := srv.BucketURL("kit-test")
			b, err := files.NewS3(files.S3Options{URL: u, AccessKey: srv.AccessKey, SecretKey: srv.SecretKey})
			if err != nil {
				t.Fatal(err)
			}
			return kit.FilesConfig{S3URL: u, S3AccessKey: srv.AccessKey, S3SecretKey: srv.SecretKey}, b
		}},
	}
}

// fileWorld is a served Kit with productMedia, team acme (owner alice,
// member mia) and team globex (owner gina).
type fileWorld struct {
	app    *kittest.App
	bucket files.Bucket
	alice  string // tokens
	mia    string
	gina   string
	// aliceActor is alice in acme, for the Go record API.
	aliceActor kit.Actor
	base       string // productMedia's URL in acme
	sheets     string // datasheets' URL in acme
}

// eachFileWorld runs fn on every engine and every store.
func eachFileWorld(t *testing.T, fn func(t *testing.T, w *fileWorld)) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		t.Parallel()
		for _, sc := range fileStores() {
			t.Run("on "+sc.name, func(t *testing.T) {
				t.Parallel()
				cfg, b := sc.open(t)
				fn(t, newFileWorld(t, e, cfg, b))
			})
		}
	})
}

func newFileWorld(t *testing.T, e testdb.Engine, fc kit.FilesConfig, b files.Bucket) *fileWorld {
	t.Helper()
	app := kittest.NewApp(t, kit.Config{DB: testdb.Open(t, e), Definitions: []collections.Definition{productMediaDef(), datasheetsDef()},
		Logger: quietLogger(), Files: fc})
	acme, globex := app.Team("acme"), app.Team("globex")
	alice, mia, gina := app.User("alice"), app.User("mia"), app.User("gina")
	aliceActor := app.AddMember(acme, alice, teamauth.RoleOwner)
	app.AddMember(acme, mia, teamauth.RoleMember)
	app.AddMember(globex, gina, teamauth.RoleOwner)
	return &fileWorld{app: app, bucket: b, aliceActor: aliceActor, alice: app.Token(alice), mia: app.Token(mia), gina: app.Token(gina),
		base: app.Server.URL + "/api/teams/" + acme.ID + "/shop-productMedia", sheets: app.Server.URL + "/api/teams/" + acme.ID + "/shop-datasheets"}
}

// part is one part of a multipart body: a file when filename is set
// (filenameSet for an empty one), else a form value.
type part struct {
	name, filename, contentType string
	filenameSet                 bool
	body                        []byte
}

func fileP(name, filename string, body []byte) part {
	return part{name: name, filename: filename, filenameSet: true, body: body}
}
func valueP(name, value string) part { return part{name: name, body: []byte(value)} }

// multipartBody encodes parts.
func multipartBody(t testing.TB, parts ...part) (string, []byte) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		if p.filenameSet {
			// Written by hand: multipart.Writer would escape the names
			// the tests send on purpose.
			h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; %s`, p.name, filenameParam(p.filename)))
			ct := p.contentType
			if ct == "" {
				ct = "application/octet-stream"
			}
			h.Set("Content-Type", ct)
		} else {
			h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q`, p.name))
		}
		pw, err := mw.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = pw.Write(p.body)
	}
	_ = mw.Close()
	return mw.FormDataContentType(), buf.Bytes()
}

// filenameParam is the filename parameter of a Content-Disposition: a
// quoted string of printable ASCII as sent, anything else in RFC 2231's
// filename*=UTF-8”percent-encoded form (as browsers and curl send
// names that a quoted string cannot hold).
func filenameParam(name string) string {
	plain := true
	for i := 0; i < len(name); i++ {
		if c := name[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			plain = false
		}
	}
	if plain {
		return `filename="` + name + `"`
	}
	return "filename*=UTF-8''" + url.PathEscape(name)
}

type answer struct {
	status int
	header http.Header
	body   []byte
}

func (a answer) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(a.body, &m); err != nil {
		t.Fatalf("answer %d is not a JSON object: %s", a.status, a.body)
	}
	return m
}

func do(t testing.TB, method, url, token, contentType string, body io.Reader, headers ...string) answer {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, raw}
}

func (w *fileWorld) send(t testing.TB, method, url, token string, parts ...part) answer {
	t.Helper()
	ct, body := multipartBody(t, parts...)
	return do(t, method, url, token, ct, bytes.NewReader(body))
}

// blobs lists the store's keys, sorted.
func (w *fileWorld) blobs(t testing.TB) []string {
	t.Helper()
	var keys []string
	if err := w.bucket.Walk(context.Background(), "", func(i files.Info) error {
		keys = append(keys, i.Key)
		return nil
	}); err != nil {
		t.Fatalf("walk the store: %v", err)
	}
	sort.Strings(keys)
	return keys
}

// rows counts the records of both collections.
func (w *fileWorld) rows(t testing.TB) int {
	t.Helper()
	return countRows(t, w.app.Kit, "shop_product_media") + countRows(t, w.app.Kit, "shop_datasheets")
}

// pngOf is a w×h PNG.
func pngOf(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for x := range w {
		for y := range h {
			img.Set(x, y, color.RGBA{uint8(x * 7), uint8(y * 5), 90, 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func jpegOf(t testing.TB, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, image.NewRGBA(image.Rect(0, 0, w, h)), nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func gifOf(t testing.TB, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := gif.Encode(&buf, image.NewPaletted(image.Rect(0, 0, w, h), color.Palette{color.Black, color.White}), nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// webp1x1 is a 1×1 lossless WebP image.
func webp1x1(t testing.TB) []byte {
	b, err := base64.StdEncoding.DecodeString("UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var pdfBytes = []byte("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n")

func fileOf(t testing.TB, rec map[string]any, field string) map[string]any {
	t.Helper()
	f, ok := rec[field].(map[string]any)
	if !ok {
		t.Fatalf("%s: got %#v, want a file object", field, rec[field])
	}
	return f
}

func filesOf(t testing.TB, rec map[string]any, field string) []map[string]any {
	t.Helper()
	list, ok := rec[field].([]any)
	if !ok {
		t.Fatalf("%s: got %#v, want a list of files", field, rec[field])
	}
	out := make([]map[string]any, len(list))
	for i, x := range list {
		out[i] = x.(map[string]any)
	}
	return out
}

func TestFileUploadsAndDownloads(t *testing.T) {
	t.Parallel()
	eachFileWorld(t, func(t *testing.T, w *fileWorld) {
		photo := pngOf(t, 40, 30)
		a := w.send(t, "POST", w.base, w.alice,
			valueP("title", "Lamp"), valueP("stock", "12"), valueP("isActive", "true"),
			fileP("photo", "lamp.png", photo), fileP("manual", "Manual v2.pdf", pdfBytes),
			fileP("gallery", "a.gif", gifOf(t, 3, 2)), fileP("gallery", "b.jpg", jpegOf(t, 5, 4)), fileP("gallery", "c.webp", webp1x1(t)))
		if a.status != http.StatusCreated {
			t.Fatalf("create: got %d %s, want 201", a.status, a.body)
		}
		rec := a.json(t)
		id := rec["id"].(string)

		t.Run("the form values are stored with their types", func(t *testing.T) {
			if rec["title"] != "Lamp" || rec["stock"] != 12.0 || rec["isActive"] != true {
				t.Errorf("got title %v stock %v isActive %v, want Lamp 12 true", rec["title"], rec["stock"], rec["isActive"])
			}
		})
		t.Run("an image answers its name, size, sniffed type, size in pixels and url", func(t *testing.T) {
			f := fileOf(t, rec, "photo")
			if f["name"] != "lamp.png" || f["size"] != float64(len(photo)) || f["contentType"] != "image/png" || f["width"] != 40.0 || f["height"] != 30.0 {
				t.Errorf("got %v, want lamp.png, %d bytes, image/png, 40x30", f, len(photo))
			}
			if _, hasKey := f["key"]; hasKey {
				t.Errorf("got the blob key in the answer %v, want it kept inside", f)
			}
			want := "/api/teams/" + w.app.IDs["acme"] + "/shop-productMedia/" + id + "/files/photo/lamp.png?"
			if u, _ := f["url"].(string); !strings.HasPrefix(u, want) {
				t.Errorf("url: got %q, want it to start with %q", u, want)
			}
		})
		t.Run("a sanitized name keeps its spaces as underscores", func(t *testing.T) {
			if f := fileOf(t, rec, "manual"); f["name"] != "Manual_v2.pdf" || f["contentType"] != "application/pdf" {
				t.Errorf("got %v, want Manual_v2.pdf as application/pdf", f)
			}
		})
		t.Run("a multiple field lists GIF, JPEG and WebP images in order with their sizes", func(t *testing.T) {
			g := filesOf(t, rec, "gallery")
			got := []string{}
			for _, f := range g {
				got = append(got, fmt.Sprintf("%v %v %vx%v", f["name"], f["contentType"], f["width"], f["height"]))
			}
			want := []string{"a.gif image/gif 3x2", "b.jpg image/jpeg 5x4", "c.webp image/webp 1x1"}
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("got %v, want %v", got, want)
			}
		})
		t.Run("each blob lies under team/collection/record", func(t *testing.T) {
			keys := w.blobs(t)
			if len(keys) != 5 {
				t.Fatalf("got %d blobs %v, want 5", len(keys), keys)
			}
			prefix := w.app.IDs["acme"] + "/shopProductMedia/" + id + "/"
			for _, k := range keys {
				if !strings.HasPrefix(k, prefix) {
					t.Errorf("key %q: want the prefix %q", k, prefix)
				}
			}
		})
		t.Run("the file downloads with its type, nosniff and an ETag", func(t *testing.T) {
			d := do(t, "GET", w.base+"/"+id+"/files/photo/lamp.png", w.mia, "", nil)
			if d.status != 200 || !bytes.Equal(d.body, photo) {
				t.Fatalf("got %d and %d bytes, want 200 and the %d bytes uploaded", d.status, len(d.body), len(photo))
			}
			if d.header.Get("Content-Type") != "image/png" || d.header.Get("X-Content-Type-Options") != "nosniff" || d.header.Get("ETag") == "" {
				t.Errorf("headers: got %v, want image/png, nosniff and an ETag", d.header)
			}
			if cd := d.header.Get("Content-Disposition"); !strings.HasPrefix(cd, "inline") {
				t.Errorf("Content-Disposition: got %q, want inline for a PNG", cd)
			}
			nm := do(t, "GET", w.base+"/"+id+"/files/photo/lamp.png", w.mia, "", nil, "If-None-Match", d.header.Get("ETag"))
			if nm.status != http.StatusNotModified {
				t.Errorf("If-None-Match: got %d, want 304", nm.status)
			}
			rg := do(t, "GET", w.base+"/"+id+"/files/photo/lamp.png", w.mia, "", nil, "Range", "bytes=0-7")
			if rg.status != http.StatusPartialContent || !bytes.Equal(rg.body, photo[:8]) {
				t.Errorf("Range: got %d %q, want 206 and the first 8 bytes", rg.status, rg.body)
			}
		})
		t.Run("a signed url serves the file without a token", func(t *testing.T) {
			u := fileOf(t, rec, "photo")["url"].(string)
			d := do(t, "GET", w.app.Server.URL+u, "", "", nil)
			if d.status != 200 || !bytes.Equal(d.body, photo) {
				t.Errorf("got %d, want 200 and the image", d.status)
			}
			tampered := strings.Replace(u, "sig=", "sig=x", 1)
			if d := do(t, "GET", w.app.Server.URL+tampered, "", "", nil); d.status != http.StatusUnauthorized {
				t.Errorf("a tampered signature without a token: got %d, want 401", d.status)
			}
			other := strings.Replace(u, "/photo/lamp.png", "/manual/Manual_v2.pdf", 1)
			if d := do(t, "GET", w.app.Server.URL+other, "", "", nil); d.status != http.StatusUnauthorized {
				t.Errorf("a signature of another file: got %d, want 401", d.status)
			}
		})
		t.Run("another team's member, a missing record and a missing file get the identical 404", func(t *testing.T) {
			foreign := do(t, "GET", strings.Replace(w.base, w.app.IDs["acme"], w.app.IDs["globex"], 1)+"/"+id+"/files/photo/lamp.png", w.gina, "", nil)
			missingRec := do(t, "GET", w.base+"/0190c0de-0000-7000-8000-000000000000/files/photo/lamp.png", w.alice, "", nil)
			missingFile := do(t, "GET", w.base+"/"+id+"/files/photo/other.png", w.alice, "", nil)
			notFile := do(t, "GET", w.base+"/"+id+"/files/title/Lamp", w.alice, "", nil)
			for name, d := range map[string]answer{"foreign": foreign, "missing record": missingRec, "missing file": missingFile, "not a file field": notFile} {
				if d.status != 404 || string(d.body) != string(missingFile.body) {
					t.Errorf("%s: got %d %s, want 404 %s", name, d.status, d.body, missingFile.body)
				}
			}
			outsider := do(t, "GET", w.base+"/"+id+"/files/photo/lamp.png", w.gina, "", nil)
			if list := do(t, "GET", w.base, w.gina, "", nil); outsider.status != list.status || outsider.status/100 != 4 {
				t.Errorf("a member of another team on this team's path: got %d, want %d as for a list of the team", outsider.status, list.status)
			}
		})
		t.Run("a thumbnail of a listed size is made once and kept in the store", func(t *testing.T) {
			d := do(t, "GET", w.base+"/"+id+"/files/photo/lamp.png?thumb=20x20", w.alice, "", nil)
			if d.status != 200 {
				t.Fatalf("got %d %s, want 200", d.status, d.body)
			}
			cfg, err := png.DecodeConfig(bytes.NewReader(d.body))
			if err != nil || cfg.Width != 20 || cfg.Height != 20 {
				t.Errorf("got %dx%d (%v), want a 20x20 PNG", cfg.Width, cfg.Height, err)
			}
			d = do(t, "GET", w.base+"/"+id+"/files/photo/lamp.png?thumb=10x0", w.alice, "", nil)
			if cfg, err := png.DecodeConfig(bytes.NewReader(d.body)); err != nil || cfg.Width != 10 || cfg.Height != 8 {
				t.Errorf("10x0: got %dx%d (%v), want 10x8 (the aspect kept)", cfg.Width, cfg.Height, err)
			}
			thumbs := 0
			for _, k := range w.blobs(t) {
				if strings.Contains(k, "/thumbs/") {
					thumbs++
				}
			}
			if thumbs != 2 {
				t.Errorf("got %d thumbnails stored, want 2", thumbs)
			}
			if d := do(t, "GET", w.base+"/"+id+"/files/photo/lamp.png?thumb=30x30", w.alice, "", nil); d.status != 400 || !strings.Contains(string(d.body), `"photo"`) {
				t.Errorf("an unlisted size: got %d %s, want 400 naming photo", d.status, d.body)
			}
		})
		t.Run("get, list and ?ids= answer the files the same way", func(t *testing.T) {
			l := do(t, "GET", w.base, w.alice, "", nil).json(t)
			item := l["items"].([]any)[0].(map[string]any)
			if fileOf(t, item, "photo")["name"] != "lamp.png" || len(filesOf(t, item, "gallery")) != 3 {
				t.Errorf("list item: got %v", item)
			}
			var byIDs []map[string]any
			_ = json.Unmarshal(do(t, "GET", w.base+"?ids="+id, w.alice, "", nil).body, &byIDs)
			if len(byIDs) != 1 || fileOf(t, byIDs[0], "manual")["name"] != "Manual_v2.pdf" {
				t.Errorf("?ids=: got %v", byIDs)
			}
		})
		t.Run("the audit trail records the files' metadata, never their bytes", func(t *testing.T) {
			var found bool
			for _, m := range w.app.Mutations() {
				if m.ItemID == id && m.Operation == kit.OpCreate {
					s, _ := m.Data["photo"].(string)
					found = strings.Contains(s, `"name":"lamp.png"`) && !strings.Contains(s, "PNG")
				}
			}
			if !found {
				t.Errorf("got no create mutation holding photo's metadata")
			}
		})
	})
}

func TestFileUpdatesReplaceAppendRemoveAndClear(t *testing.T) {
	t.Parallel()
	eachFileWorld(t, func(t *testing.T, w *fileWorld) {
		a := w.send(t, "POST", w.base, w.alice, valueP("title", "Desk"), fileP("photo", "one.png", pngOf(t, 4, 4)),
			fileP("attachments", "a.txt", []byte("alpha")), fileP("attachments", "b.txt", []byte("beta")))
		if a.status != 201 {
			t.Fatalf("create: got %d %s", a.status, a.body)
		}
		id := a.json(t)["id"].(string)
		url := w.base + "/" + id
		oldPhotoKeys := w.blobs(t)

		t.Run("a new photo replaces the old one, whose blob goes after the commit", func(t *testing.T) {
			u := w.send(t, "PATCH", url, w.alice, fileP("photo", "two.png", pngOf(t, 6, 6)))
			if u.status != 200 || fileOf(t, u.json(t), "photo")["name"] != "two.png" {
				t.Fatalf("got %d %s, want 200 with two.png", u.status, u.body)
			}
			keys := w.blobs(t)
			if len(keys) != 3 {
				t.Errorf("got %d blobs %v, want 3 (the old photo removed)", len(keys), keys)
			}
			for _, k := range keys {
				if strings.HasSuffix(k, "-one.png") {
					t.Errorf("the replaced blob %s is still stored (before: %v)", k, oldPhotoKeys)
				}
			}
		})
		t.Run("a form's file input left empty changes nothing", func(t *testing.T) {
			u := w.send(t, "PATCH", url, w.alice, valueP("title", "Desk 2"), fileP("photo", "", nil), fileP("attachments", "", nil))
			rec := u.json(t)
			if u.status != 200 || fileOf(t, rec, "photo")["name"] != "two.png" || len(filesOf(t, rec, "attachments")) != 2 {
				t.Errorf("got %d %s, want the files as they were", u.status, u.body)
			}
		})
		t.Run("field+ appends and a same name gets a suffix", func(t *testing.T) {
			u := w.send(t, "PATCH", url, w.alice, fileP("attachments+", "a.txt", []byte("again")))
			got := []string{}
			for _, f := range filesOf(t, u.json(t), "attachments") {
				got = append(got, f["name"].(string))
			}
			if strings.Join(got, ",") != "a.txt,b.txt,a-2.txt" {
				t.Errorf("got %v, want a.txt,b.txt,a-2.txt", got)
			}
		})
		t.Run("field- removes the file of that name", func(t *testing.T) {
			u := w.send(t, "PATCH", url, w.alice, valueP("attachments-", "b.txt"))
			if n := len(filesOf(t, u.json(t), "attachments")); n != 2 {
				t.Errorf("got %d files, want 2", n)
			}
			for _, k := range w.blobs(t) {
				if strings.HasSuffix(k, "-b.txt") {
					t.Errorf("the removed blob %s is still stored", k)
				}
			}
		})
		t.Run("a JSON update keeps the files it lists, in its order", func(t *testing.T) {
			body := `{"attachments":[{"name":"a-2.txt"}]}`
			u := do(t, "PATCH", url, w.alice, "application/json", strings.NewReader(body))
			list := filesOf(t, u.json(t), "attachments")
			if len(list) != 1 || list[0]["name"] != "a-2.txt" {
				t.Errorf("got %v, want only a-2.txt", list)
			}
		})
		for _, bad := range []string{"javascript:alert(1)", "data:image/png;base64,iVBORw0KGgo=", "java\\tscript:alert(1)", "file:///etc/passwd"} {
			t.Run("a JSON string "+bad+" for a file field is a 400 naming it and changes nothing", func(t *testing.T) {
				before := w.blobs(t)
				u := do(t, "PATCH", url, w.alice, "application/json", strings.NewReader(`{"photo":"`+bad+`"}`))
				if u.status != 400 || !strings.Contains(string(u.body), `"photo"`) {
					t.Errorf("got %d %s, want 400 naming photo", u.status, u.body)
				}
				if after := w.blobs(t); strings.Join(after, ",") != strings.Join(before, ",") {
					t.Errorf("blobs: got %v, want %v", after, before)
				}
			})
		}
		t.Run("an http(s) URL replaces the file with a link to one kept elsewhere", func(t *testing.T) {
			c := w.send(t, "POST", w.base, w.alice, valueP("title", "linked"), fileP("photo", "x.png", pngOf(t, 2, 2)))
			cid := c.json(t)["id"].(string)
			u := do(t, "PATCH", w.base+"/"+cid, w.alice, "application/json", strings.NewReader(`{"photo":"https://cdn.example.com/a.png"}`))
			if u.status != 200 || u.json(t)["photo"] != "https://cdn.example.com/a.png" {
				t.Fatalf("got %d %s, want 200 and the URL", u.status, u.body)
			}
			for _, k := range w.blobs(t) {
				if strings.Contains(k, cid) {
					t.Errorf("the replaced upload %s is still stored", k)
				}
			}
			if d := do(t, "GET", w.base+"/"+cid+"/files/photo/a.png", w.alice, "", nil); d.status != 404 {
				t.Errorf("the download route for a link: got %d, want 404 (kit serves only its own files)", d.status)
			}
			_ = do(t, "DELETE", w.base+"/"+cid, w.alice, "", nil)
		})
		t.Run("a URL the record already holds is taken back unchanged, whatever its scheme", func(t *testing.T) {
			legacy := "data:image/gif;base64,R0lGODlhAQABAAAAACw="
			rec, err := w.app.Kit.Records("shopProductMedia").Create(t.Context(), w.aliceActor, map[string]any{"title": "legacy", "photo": legacy})
			if err != nil {
				t.Fatal(err)
			}
			u := do(t, "PATCH", w.base+"/"+rec["id"].(string), w.alice, "application/json", strings.NewReader(`{"title":"renamed","photo":"`+legacy+`"}`))
			if u.status != 200 || u.json(t)["photo"] != legacy {
				t.Errorf("got %d %s, want 200 with the value kept", u.status, u.body)
			}
		})
		t.Run("a JSON null clears the field and removes its blob", func(t *testing.T) {
			u := do(t, "PATCH", url, w.alice, "application/json", strings.NewReader(`{"photo":null}`))
			if u.status != 200 || u.json(t)["photo"] != nil {
				t.Fatalf("got %d %s, want 200 and photo null", u.status, u.body)
			}
			for _, k := range w.blobs(t) {
				if strings.HasSuffix(k, ".png") {
					t.Errorf("the cleared photo's blob %s is still stored", k)
				}
			}
		})
		t.Run("deleting the record removes every blob it had", func(t *testing.T) {
			if d := do(t, "DELETE", url, w.alice, "", nil); d.status != 204 {
				t.Fatalf("delete: got %d", d.status)
			}
			if keys := w.blobs(t); len(keys) != 0 {
				t.Errorf("got %v, want no blob left", keys)
			}
		})
		t.Run("a bulk delete removes the blobs of every record", func(t *testing.T) {
			var ids []string
			for i := range 2 {
				c := w.send(t, "POST", w.base, w.alice, valueP("title", fmt.Sprint("T", i)), fileP("photo", "p.png", pngOf(t, 2, 2)))
				ids = append(ids, c.json(t)["id"].(string))
			}
			if d := do(t, "DELETE", w.base+"?ids="+strings.Join(ids, ","), w.alice, "", nil); d.status != 204 {
				t.Fatalf("bulk delete: got %d %s", d.status, d.body)
			}
			if keys := w.blobs(t); len(keys) != 0 {
				t.Errorf("got %v, want no blob left", keys)
			}
		})
	})
}

func TestABatchUpdatesARecordWithFilesItCreated(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		t.Parallel()
		fc, b := fileStores()[0].open(t)
		w := newFileWorld(t, e, fc, b)
		path := "/teams/" + w.app.IDs["acme"] + "/shop-productMedia"
		body := `{"requests":[{"method":"POST","url":"` + path + `","body":{"title":"in a batch"}},
			{"method":"PATCH","url":"` + path + `/{{0.id}}","body":{"stock":2,"photo":null}}]}`
		a := do(t, "POST", w.app.Server.URL+"/api/teams/"+w.app.IDs["acme"]+"/kit-batch", w.alice, "application/json", strings.NewReader(body))
		if a.status != 200 || !strings.Contains(string(a.body), `"stock":2`) {
			t.Errorf("got %d %s, want 200 with the update of the record the batch created", a.status, a.body)
		}
	})
}

func TestDeletingATeamRemovesItsFiles(t *testing.T) {
	t.Parallel()
	eachFileWorld(t, func(t *testing.T, w *fileWorld) {
		for i := range 2 {
			a := w.send(t, "POST", w.base, w.alice, valueP("title", fmt.Sprint("T", i)), fileP("photo", "p.png", pngOf(t, 3, 3)),
				fileP("attachments", "a.txt", []byte("a")))
			if a.status != 201 {
				t.Fatalf("create: got %d %s", a.status, a.body)
			}
		}
		if keys := w.blobs(t); len(keys) != 4 {
			t.Fatalf("got %d blobs before, want 4", len(keys))
		}
		d := do(t, "DELETE", w.app.Server.URL+"/api/teams/"+w.app.IDs["acme"]+"?force=true", w.alice, "", nil)
		if d.status != http.StatusNoContent {
			t.Fatalf("delete the team: got %d %s, want 204", d.status, d.body)
		}
		if keys := w.blobs(t); len(keys) != 0 {
			t.Errorf("got %v after the team's deletion, want no blob", keys)
		}
	})
}
