package admin_test

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserUploadedFiles: an image uploaded to a record through the API
// shows in the table and in the form by its signed URL, and deleting the
// record in the admin removes its blob.
func TestBrowserUploadedFiles(t *testing.T) {
	w := newWorld(t)
	token, _, err := w.k.Accounts().CreateToken(t.Context(), w.alice.UserID, "files")
	if err != nil {
		t.Fatal(err)
	}
	c, _ := w.k.Collections().Get("workSamples")
	var pic, body bytes.Buffer
	_ = png.Encode(&pic, image.NewRGBA(image.Rect(0, 0, 6, 4)))
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("title", "Uploaded sample")
	part, _ := mw.CreateFormFile("photo", "sample.png")
	_, _ = part.Write(pic.Bytes())
	_ = mw.Close()
	req, _ := http.NewRequest("POST", w.srv.URL+"/api/teams/acme/"+c.APIPath(), &body)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 201 {
		t.Fatalf("upload: got %d %s", res.StatusCode, raw)
	}
	blobs := func() int { return countBlobs(w) }
	if n := blobs(); n != 1 {
		t.Fatalf("got %d blobs after the upload, want 1", n)
	}

	p := newTab(t, w)
	p.signIn("/teams/acme/collections/workSamples")
	row := `[...document.querySelectorAll('[data-kit-row]')].find(r => r.innerText.includes('Uploaded sample'))`
	t.Run("the table shows the uploaded image, loaded by its signed URL", func(t *testing.T) {
		p.waitFor("the image to load", fmt.Sprintf(`(%s?.querySelector('[data-kit-cell=photo] img')?.naturalWidth ?? 0) > 0`, row))
	})
	t.Run("the form shows the file by its name and thumbnail, with no URL box over it", func(t *testing.T) {
		p.do(chromedp.Click(chromedp.CSS(`[data-kit-edit][aria-label="Edit Uploaded sample"]`)), chromedp.WaitVisible(chromedp.CSS("[data-kit-form=update] #kit-field-title")))
		p.waitFor("the file in the form", `[...document.querySelectorAll('[data-kit-form] [data-kit-file]')].some(a => a.innerText === 'sample.png')`)
		p.waitFor("its thumbnail to load", `(document.querySelector('[data-kit-form] [data-kit-files] img')?.naturalWidth ?? 0) > 0 && document.querySelector('[data-kit-form] [data-kit-files] img').src.includes('thumb=40x40')`)
		p.do(chromedp.Click(chromedp.CSS("[data-kit-cancel]")), chromedp.WaitNotPresent(chromedp.CSS("[data-kit-form]")))
	})
	t.Run("deleting the record in the admin removes its blob", func(t *testing.T) {
		p.do(chromedp.Click(chromedp.CSS(`[data-kit-row-delete][aria-label="Delete Uploaded sample"]`)))
		p.confirmDelete()
		p.waitFor("the row to go", fmt.Sprintf(`!%s`, row))
		if n := blobs(); n != 0 {
			t.Errorf("got %d blobs after the delete, want 0", n)
		}
	})
}

// countBlobs counts the files in the world's blob directory: the uploads
// and the thumbnails made of them.
func countBlobs(w *world) int {
	n := 0
	_ = filepath.WalkDir(w.k.Config().Files.Dir, func(_ string, e os.DirEntry, err error) error {
		if err == nil && e.Type().IsRegular() {
			n++
		}
		return nil
	})
	return n
}

// writePNG writes a w x h PNG to dir/name and returns its path.
func writePNG(t *testing.T, dir, name string, w, h int) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+2], img.Pix[i+3] = 0x25, 0xeb, 0xff
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestBrowserFileInput: in the admin, an image picked in the create form
// is uploaded with the record and shows in the table by its thumbnail;
// picking another in the edit form replaces it (its blob and thumbnail
// go); a file larger than the field takes is refused before any upload;
// deleting the record removes every blob.
func TestBrowserFileInput(t *testing.T) {
	w := newWorld(t)
	dir := t.TempDir()
	first := writePNG(t, dir, "first.png", 120, 80)
	second := writePNG(t, dir, "second.png", 90, 60)
	p := newTab(t, w)
	p.signIn("/teams/acme/collections/workSamples")
	row := `[...document.querySelectorAll('[data-kit-row]')].find(r => r.innerText.includes('Picked sample'))`
	thumb := row + `?.querySelector('[data-kit-cell=photo] img')`

	t.Run("the create form shows the photo field's limits and takes a picked image", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Click(chromedp.CSS("[data-kit-create]")), chromedp.WaitVisible(chromedp.CSS("#kit-field-title")))
		p.waitFor("the limits", `document.querySelector('[data-kit-field=photo] [data-kit-file-limits]')?.innerText.includes('10 MB')`)
		p.do(chromedp.SendKeys(chromedp.CSS("#kit-field-title"), "Picked sample"))
		p.do(chromedp.SetUploadFiles(chromedp.CSS("#kit-field-photo"), []string{first}))
		p.waitFor("the picked image's preview", `(document.querySelector('[data-kit-field=photo] [data-kit-picked-preview]')?.naturalWidth ?? 0) === 120`)
		p.do(chromedp.ScrollIntoView(chromedp.CSS("[data-kit-field=photo]")))
	})
	t.Run("saving uploads it, and the table shows its thumbnail", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Click(chromedp.CSS("[data-kit-submit]")), chromedp.WaitNotPresent(chromedp.CSS("[data-kit-form]")))
		p.waitFor("the thumbnail to load", fmt.Sprintf(`(%s?.naturalWidth ?? 0) > 0 && %s.src.includes('thumb=40x40')`, thumb, thumb))
		if got := eval[int](p, thumb+`.naturalWidth`); got > 40 {
			t.Errorf("got a thumbnail %d pixels wide, want at most 40", got)
		}
		if n := countBlobs(w); n < 1 {
			t.Errorf("got %d blobs after the upload, want the image's", n)
		}
	})
	t.Run("the edit form refuses a file over the field's limit before any upload", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Click(chromedp.CSS(`[data-kit-edit][aria-label="Edit Picked sample"]`)), chromedp.WaitVisible(chromedp.CSS("[data-kit-form=update] #kit-field-title")))
		p.waitFor("the stored image", `[...document.querySelectorAll('[data-kit-form] [data-kit-file]')].some(a => a.innerText === 'first.png')`)
		big := filepath.Join(dir, "big.pdf")
		if err := os.WriteFile(big, append([]byte("%PDF-1.4\n"), make([]byte, 2048)...), 0o600); err != nil {
			t.Fatal(err)
		}
		p.do(chromedp.SetUploadFiles(chromedp.CSS("#kit-field-manual"), []string{big}))
		p.waitText("[data-kit-field=manual] [data-kit-file-refused]", "Manual: big.pdf is larger than 1 kB.")
		p.do(chromedp.ScrollIntoView(chromedp.CSS("[data-kit-field=manual]")))
		if eval[bool](p, `!!document.querySelector('[data-kit-field=manual] [data-kit-picked-file]')`) {
			t.Error("got the refused file among the picked ones, want it left out")
		}
	})
	t.Run("picking another image in the edit form replaces the stored one and its blobs", func(t *testing.T) {
		p.step(t)
		before := countBlobs(w)
		p.do(chromedp.SetUploadFiles(chromedp.CSS("#kit-field-photo"), []string{second}))
		p.waitFor("the new image's preview", `(document.querySelector('[data-kit-field=photo] [data-kit-picked-preview]')?.naturalWidth ?? 0) === 90`)
		p.do(chromedp.Click(chromedp.CSS("[data-kit-submit]")), chromedp.WaitNotPresent(chromedp.CSS("[data-kit-form]")))
		p.waitFor("the new thumbnail", fmt.Sprintf(`(%s?.naturalWidth ?? 0) > 0 && %s.title === 'second.png'`, thumb, thumb))
		if n := countBlobs(w); n > before {
			t.Errorf("got %d blobs after the replacement, had %d: the old image's are still there", n, before)
		}
	})
	t.Run("deleting the record removes every blob", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Click(chromedp.CSS(`[data-kit-row-delete][aria-label="Delete Picked sample"]`)))
		p.confirmDelete()
		p.waitFor("the row to go", fmt.Sprintf(`!%s`, row))
		if n := countBlobs(w); n != 0 {
			t.Errorf("got %d blobs after the delete, want 0", n)
		}
	})
}
