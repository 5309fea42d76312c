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

// TestBrowserUploadedFiles: an image uploaded to a record (through the
// API: the admin's upload input is still to come) shows in the table and
// in the form by its signed URL, and deleting the record in the admin
// removes its blob.
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
	dir := w.k.Config().Files.Dir
	blobs := func() int {
		n := 0
		_ = filepath.WalkDir(dir, func(_ string, e os.DirEntry, err error) error {
			if err == nil && e.Type().IsRegular() {
				n++
			}
			return nil
		})
		return n
	}
	if n := blobs(); n != 1 {
		t.Fatalf("got %d blobs after the upload, want 1", n)
	}

	p := newTab(t, w)
	p.signIn("/teams/acme/collections/workSamples")
	row := `[...document.querySelectorAll('[data-kit-row]')].find(r => r.innerText.includes('Uploaded sample'))`
	t.Run("the table shows the uploaded image, loaded by its signed URL", func(t *testing.T) {
		p.waitFor("the image to load", fmt.Sprintf(`(%s?.querySelector('[data-kit-cell=photo] img')?.naturalWidth ?? 0) === 6`, row))
	})
	t.Run("the form shows the file by its name and image, with no URL box over it", func(t *testing.T) {
		p.do(chromedp.Click(chromedp.CSS(`[data-kit-edit][aria-label="Edit Uploaded sample"]`)), chromedp.WaitVisible(chromedp.CSS("[data-kit-form=update] #kit-field-title")))
		p.waitFor("the file in the form", `[...document.querySelectorAll('[data-kit-form] [data-kit-file]')].some(a => a.innerText === 'sample.png')`)
		p.waitFor("its preview to load", `(document.querySelector('[data-kit-form] [data-kit-files] img')?.naturalWidth ?? 0) === 6`)
		p.do(chromedp.Click(chromedp.CSS("[data-kit-cancel]")), chromedp.WaitNotPresent(chromedp.CSS("[data-kit-form]")))
	})
	t.Run("deleting the record in the admin removes its blob", func(t *testing.T) {
		p.do(chromedp.Click(chromedp.CSS(`[data-kit-row-delete][aria-label="Delete Uploaded sample"]`)))
		p.do(chromedp.Click(chromedp.CSS("[data-kit-form=delete] [data-kit-submit]")), chromedp.WaitNotPresent(chromedp.CSS("[data-kit-form]")))
		p.waitFor("the row to go", fmt.Sprintf(`!%s`, row))
		if n := blobs(); n != 0 {
			t.Errorf("got %d blobs after the delete, want 0", n)
		}
	})
}
