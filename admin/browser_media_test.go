package admin_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/collectionkit/kit/kit"
)

// TestBrowserMediaGrid: a collection of kind media opens as a grid of
// previews, paged like the table: an image uploaded in the create form
// shows as a tile with its thumbnail, name and size, and a click on the
// tile opens the record's form.
func TestBrowserMediaGrid(t *testing.T) {
	w := newWorld(t)
	for i := 1; i <= 20; i++ {
		w.create(t, w.alice, "workMedia", fmt.Sprintf("Media %02d", i), nil)
	}
	pic := writePNG(t, t.TempDir(), "sunset.png", 120, 80)
	p := newTab(t, w)
	p.signIn("/teams/acme/collections/workMedia")
	tile := `[...document.querySelectorAll('[data-test=media-tile]')].find(b => b.querySelector('[data-test=media-name]')?.innerText === 'sunset.png')`

	t.Run("the collection opens as a grid of tiles, not a table", func(t *testing.T) {
		p.step(t)
		p.waitFor("20 tiles", `document.querySelectorAll('[data-test=media-tile]').length === 20`)
		if eval[bool](p, `!!document.querySelector('[data-kit-table]')`) {
			t.Error("got a table on a media collection's page, want the grid alone")
		}
	})
	t.Run("an image uploaded in the create form shows as a tile with its thumbnail, name and size", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Click(chromedp.CSS("[data-kit-create]")), chromedp.WaitVisible(chromedp.CSS("#kit-field-title")))
		p.do(chromedp.SendKeys(chromedp.CSS("#kit-field-title"), "Sunset"))
		p.do(chromedp.SetUploadFiles(chromedp.CSS("#kit-field-photo"), []string{pic}))
		p.waitFor("the picked image's preview", `(document.querySelector('[data-kit-field=photo] [data-kit-picked-preview]')?.naturalWidth ?? 0) === 120`)
		p.do(chromedp.Click(chromedp.CSS("[data-kit-submit]")), chromedp.WaitNotPresent(chromedp.CSS("[data-kit-form]")))
		p.waitFor("the tile's thumbnail to load", fmt.Sprintf(`(%s?.querySelector('[data-test=media-thumb]')?.naturalWidth ?? 0) > 0`, tile))
		if src := eval[string](p, tile+`.querySelector('[data-test=media-thumb]').src`); !containsAll(src, "thumb=60x60", "sig=") {
			t.Errorf("got the tile's image at %s, want the signed 60x60 thumbnail", src)
		}
		if got := eval[int](p, tile+`.querySelector('[data-test=media-thumb]').naturalWidth`); got != 60 {
			t.Errorf("got a thumbnail %d pixels wide, want 60", got)
		}
		if got := eval[string](p, tile+`.querySelector('[data-test=media-size]').innerText`); got == "" || got == "\u00a0" {
			t.Error("got no size under the tile, want the file's size")
		}
	})
	t.Run("the grid is paged like the table: 21 records are 20 on the first page and one on the second", func(t *testing.T) {
		p.step(t)
		p.waitText("[data-test=media-grid] [data-kit-summary]", "Showing 1 to 20 of 21 results")
		// The create's toast sits over the pagination's corner: dismiss it.
		p.do(chromedp.Click(chromedp.CSS(`[data-test=toast] .toast-close`)), chromedp.WaitNotPresent(chromedp.CSS(`[data-test=toast]`)))
		p.do(chromedp.Click(chromedp.CSS(`[data-test=media-grid] [aria-label="Next page"]`)))
		p.waitFor("the second page", `document.querySelectorAll('[data-test=media-tile]').length === 1`)
		if got := eval[string](p, `document.querySelector('[data-test=media-name]').innerText`); got != "Media 01" {
			t.Errorf("got %q on page 2, want the oldest record, Media 01", got)
		}
		p.do(chromedp.Click(chromedp.CSS(`[data-test=media-grid] [aria-label="Previous page"]`)))
		p.waitFor("the first page", `document.querySelectorAll('[data-test=media-tile]').length === 20`)
	})
	t.Run("a click on a tile opens the record's form", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Click(chromedp.CSS(`[data-test=media-tile][aria-label="Open sunset.png"]`)))
		p.waitFor("the update form with the record", `document.querySelector('[data-kit-form=update] #kit-field-title')?.value === 'Sunset'`)
		p.waitFor("its stored image", `[...document.querySelectorAll('[data-kit-form] [data-kit-file]')].some(a => a.innerText === 'sunset.png')`)
		p.do(chromedp.Click(chromedp.CSS("[data-kit-cancel]")), chromedp.WaitNotPresent(chromedp.CSS("[data-kit-form]")))
	})
}

// TestBrowserMultipleFiles: a multiple file field in the admin takes two
// picked files, then in the edit form loses one and gains another; the
// stored list follows, in order, and the removed file's blob goes.
func TestBrowserMultipleFiles(t *testing.T) {
	w := newWorld(t)
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	a, b, c := write("a.txt", "first file\n"), write("b.txt", "second file\n"), write("c.txt", "third file\n")
	p := newTab(t, w)
	p.signIn("/teams/acme/collections/workMedia")
	names := func() []string {
		list, err := w.k.Records("workMedia").List(t.Context(), w.alice, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range list.Items {
			if r["title"] == "Files" {
				var out []string
				for _, f := range kit.FilesOf(r, "attachments") {
					out = append(out, f.Name)
				}
				return out
			}
		}
		return nil
	}

	t.Run("two files picked in the create form are stored as the list", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Click(chromedp.CSS("[data-kit-create]")), chromedp.WaitVisible(chromedp.CSS("#kit-field-title")))
		p.do(chromedp.SendKeys(chromedp.CSS("#kit-field-title"), "Files"))
		p.do(chromedp.SetUploadFiles(chromedp.CSS("#kit-field-attachments"), []string{a, b}))
		p.waitFor("both picked", `document.querySelectorAll('[data-kit-field=attachments] [data-kit-picked-file]').length === 2`)
		p.do(chromedp.Click(chromedp.CSS("[data-kit-submit]")), chromedp.WaitNotPresent(chromedp.CSS("[data-kit-form]")))
		p.waitFor("the record's tile", `[...document.querySelectorAll('[data-test=media-name]')].some(e => e.innerText === 'a.txt')`)
		if got, want := names(), []string{"a.txt", "b.txt"}; !slices.Equal(got, want) {
			t.Errorf("got the stored list %v, want %v", got, want)
		}
		if n := countBlobs(w); n != 2 {
			t.Errorf("got %d blobs, want 2", n)
		}
	})
	t.Run("removing one and appending another in the edit form stores the new list and removes the old blob", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Click(chromedp.CSS(`[data-test=media-tile][aria-label="Open a.txt"]`)))
		p.waitFor("the stored files", `document.querySelectorAll('[data-kit-form] [data-kit-field=attachments] [data-kit-stored]').length === 2`)
		p.do(chromedp.Click(chromedp.CSS(`[data-kit-field=attachments] [data-kit-stored="a.txt"] [data-kit-file-remove]`)))
		p.waitFor("a.txt marked for removal", `!!document.querySelector('[data-kit-field=attachments] [data-kit-stored="a.txt"][data-kit-removed]')`)
		p.do(chromedp.SetUploadFiles(chromedp.CSS("#kit-field-attachments"), []string{c}))
		p.waitFor("c.txt picked", `!!document.querySelector('[data-kit-field=attachments] [data-kit-picked-file="c.txt"]')`)
		p.do(chromedp.Click(chromedp.CSS("[data-kit-submit]")), chromedp.WaitNotPresent(chromedp.CSS("[data-kit-form]")))
		p.waitFor("the tile to show the new first file", `[...document.querySelectorAll('[data-test=media-name]')].some(e => e.innerText === 'b.txt')`)
		if got, want := names(), []string{"b.txt", "c.txt"}; !slices.Equal(got, want) {
			t.Errorf("got the stored list %v, want %v", got, want)
		}
		if n := countBlobs(w); n != 2 {
			t.Errorf("got %d blobs after the change, want 2 (a.txt's gone)", n)
		}
	})
}

// containsAll reports whether s holds every one of parts.
func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
