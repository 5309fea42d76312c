package admin_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
	"github.com/collectionkit/kit/kit"
)

// TestBrowserExport: the Export buttons of a collection download every
// record the list's search and sort select (not only the page shown), as
// the server writes them: a CSV whose first line is the header.
func TestBrowserExport(t *testing.T) {
	w := newWorld(t)
	p := newTab(t, w)
	dir := t.TempDir()
	yes := true
	if _, err := chromedp.CallBrowser(p.ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
		Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dir, EventsEnabled: &yes,
	}); err != nil {
		t.Fatalf("allow downloads: %v", err)
	}
	p.signIn("/teams/acme/collections/shopProducts?q=Lamp&sort=-title")
	p.waitRows("Lamp C", "Lamp B", "Lamp A")

	// download waits for the file name to be whole in dir and returns its lines.
	download := func(t *testing.T, name string) []string {
		t.Helper()
		path := filepath.Join(dir, name)
		deadline := time.Now().Add(30 * time.Second)
		for {
			b, err := os.ReadFile(path)
			if err == nil && len(b) > 0 {
				return strings.Split(strings.TrimSpace(string(b)), "\n")
			}
			if time.Now().After(deadline) {
				entries, _ := os.ReadDir(dir)
				t.Fatalf("got no %s after 30 s (the folder holds %v), want the download", name, entries)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}

	t.Run("Export CSV downloads the searched records in the list's order, the header first", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Click(chromedp.CSS("[data-test=export-csv]")))
		lines := download(t, "shop-products.csv")
		header := strings.Split(strings.TrimRight(lines[0], "\r"), ",")
		if len(header) < 3 || header[0] != "id" || header[1] != "teamId" || !strings.Contains(lines[0], "title") {
			t.Fatalf("got the first line %q, want the header id,teamId,…,title,…", lines[0])
		}
		title := -1
		for i, h := range header {
			if h == "title" {
				title = i
			}
		}
		var got []string
		for _, l := range lines[1:] {
			got = append(got, strings.Split(strings.TrimRight(l, "\r"), ",")[title])
		}
		if want := []string{"Lamp C", "Lamp B", "Lamp A"}; strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("got the rows %q, want %q", got, want)
		}
		p.waitText("[data-test=toasts]", "shop-products.csv")
	})

	t.Run("Export JSON downloads every page of an unsearched list", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Navigate(w.srv.URL + "/admin/teams/acme/collections/shopProducts"))
		p.waitFor("the first page", `document.querySelectorAll('[data-kit-row]').length === 10`)
		p.do(chromedp.Click(chromedp.CSS("[data-test=export-json]")))
		lines := download(t, "shop-products.json")
		body := strings.Join(lines, "\n")
		if n := strings.Count(body, `"title"`); n != 25 {
			t.Errorf("got %d records in the JSON, want all 25 of acme (not the page of 10)", n)
		}
		if strings.Contains(body, "Globex") {
			t.Errorf("got another team's records in the export: %s", body)
		}
	})
}

// TestBrowserTrashAndRestore: a task deleted in the admin goes to its
// collection's trash, where Restore puts it back with the same id and
// Delete for good (after a confirmation) removes it.
func TestBrowserTrashAndRestore(t *testing.T) {
	w := newWorld(t)
	p := newTab(t, w)
	p.signIn("/teams/acme/collections/workTasks")
	p.waitRows("Task 1", "Task 2", "Task 3", "Task 4")
	remove := func(title string) {
		p.do(chromedp.Click(chromedp.CSS(fmt.Sprintf(`[data-kit-row-delete][aria-label="Delete %s"]`, title))))
		p.confirmDelete()
	}

	t.Run("deleted tasks show in the trash", func(t *testing.T) {
		p.step(t)
		remove("Task 2")
		p.waitRows("Task 1", "Task 3", "Task 4")
		remove("Task 3")
		p.waitRows("Task 1", "Task 4")
		p.do(chromedp.Click(chromedp.CSS("[data-test=trash-link]")))
		p.waitFor("the two trashed tasks", `document.querySelectorAll('[data-test=trash-title]').length === 2`)
		got := eval[[]string](p, `[...document.querySelectorAll('[data-test=trash-title]')].map(e => e.innerText.trim())`)
		if strings.Join(got, "|") != "Task 3|Task 2" {
			t.Errorf("got the trash %q, want Task 3, Task 2 (newest first)", got)
		}
		p.checkAccessibility("the trash")
	})

	t.Run("Restore puts the task back with its id", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Click(chromedp.CSS(`[data-test=trash-restore][aria-label="Restore Task 2"]`)))
		p.waitText("[data-test=toasts]", "Task 2 restored.")
		p.waitFor("Task 2 to leave the trash", `[...document.querySelectorAll('[data-test=trash-title]')].map(e => e.innerText.trim()).join() === 'Task 3'`)
		rec, err := w.k.Records("workTasks").Get(t.Context(), w.alice, w.ids["Task 2"])
		if err != nil {
			t.Fatalf("got %v reading the restored task, want it back", err)
		}
		if rec["title"] != "Task 2" {
			t.Errorf("got title %v, want Task 2", rec["title"])
		}
	})

	t.Run("Delete for good asks first, and Cancel keeps the task", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Click(chromedp.CSS(`[data-test=trash-purge][aria-label="Delete for good: Task 3"]`)), chromedp.WaitVisible(chromedp.CSS("[data-test=trash-confirm]")))
		p.checkAccessibility("the purge confirmation")
		p.do(chromedp.Click(chromedp.CSS("[data-test=trash-cancel]")), chromedp.WaitNotPresent(chromedp.CSS("[data-test=trash-confirm]")))
		if n := trashed(t, w); n != 1 {
			t.Errorf("got %d tasks in the trash after Cancel, want 1", n)
		}
	})

	t.Run("Delete for good, confirmed, empties the trash", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Click(chromedp.CSS(`[data-test=trash-purge][aria-label="Delete for good: Task 3"]`)), chromedp.Click(chromedp.CSS("[data-test=trash-confirm]")))
		p.waitText("[data-test=toasts]", "Task 3 deleted for good.")
		p.waitFor("the empty trash", `!!document.querySelector('[data-test=trash-empty]')`)
		if n := trashed(t, w); n != 0 {
			t.Errorf("got %d tasks in the trash, want 0", n)
		}
		p.do(chromedp.Click(chromedp.CSS("[data-test=trash-back]")))
		// A restored record of a sortable collection goes back last.
		p.waitRows("Task 1", "Task 4", "Task 2")
	})
}

// trashed counts acme's trashed tasks.
func trashed(t *testing.T, w *world) int {
	t.Helper()
	page, err := w.k.Records("workTasks").Trash(t.Context(), w.alice, map[string][]string{"pageSize": {"100"}})
	if err != nil {
		t.Fatal(err)
	}
	return len(page.Items)
}

// TestBrowserRevert: an update event's detail offers Revert; confirmed, the
// old value is back. When the field changed since, the 409's fields are
// shown with Revert anyway, which overwrites the later change.
func TestBrowserRevert(t *testing.T) {
	w := newWorld(t)
	products := w.k.Records("shopProducts")
	id := w.ids["Widget 05"]
	if _, err := products.Update(t.Context(), w.alice, id, kit.Record{"price": "7.25"}); err != nil {
		t.Fatal(err)
	}
	price := func(t *testing.T) string {
		t.Helper()
		rec, err := products.Get(t.Context(), w.alice, id)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(rec["price"])
	}
	p := newTab(t, w)
	p.signIn("/teams/acme/activity?operation=update")
	p.waitFor("the update", `document.querySelector('[data-kit-event]')?.dataset.kitOperation === 'update'`)
	open := func() {
		p.do(chromedp.Click(chromedp.CSS("[data-kit-event-open]")), chromedp.WaitVisible(chromedp.CSS("[aria-modal] [data-test=revert-start]")))
	}

	t.Run("Revert asks first, and Cancel writes nothing", func(t *testing.T) {
		p.step(t)
		open()
		p.do(chromedp.Click(chromedp.CSS("[data-test=revert-start]")), chromedp.WaitVisible(chromedp.CSS("[data-test=revert-confirm]")))
		p.checkAccessibility("the revert confirmation")
		p.do(chromedp.Click(chromedp.CSS("[data-test=revert-cancel]")), chromedp.WaitVisible(chromedp.CSS("[data-test=revert-start]")))
		if got := price(t); got != "7.25" {
			t.Errorf("got price %s after Cancel, want 7.25", got)
		}
	})

	t.Run("a field changed since shows the conflict, and Revert anyway writes the old value", func(t *testing.T) {
		p.step(t)
		if _, err := products.Update(t.Context(), w.alice, id, kit.Record{"price": "9.00"}); err != nil {
			t.Fatal(err)
		}
		p.do(chromedp.Click(chromedp.CSS("[data-test=revert-start]")), chromedp.Click(chromedp.CSS("[data-test=revert-confirm]")))
		p.waitText("[data-test=revert-conflicts]", "price")
		if got := price(t); got != "9.00" {
			t.Errorf("got price %s after the refused revert, want 9.00 (nothing written)", got)
		}
		p.checkAccessibility("the revert conflict")
		p.do(chromedp.Click(chromedp.CSS("[data-test=revert-force]")))
		p.waitText("[data-test=toasts]", "Change reverted.")
		if got := price(t); got != "5.00" {
			t.Errorf("got price %s after Revert anyway, want 5.00 (the value before the event)", got)
		}
	})
}

// TestBrowserImport: a CSV chosen on a collection's import page shows its
// first rows; a file with a bad value lists the rejected row and writes
// nothing; a good file creates every row.
func TestBrowserImport(t *testing.T) {
	w := newWorld(t)
	dir := t.TempDir()
	file := func(name, body string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	bad := file("bad.csv", "title,price\nImported 1,1.50\nImported 2,not a number\n")
	good := file("good.csv", "title,price\nImported 1,1.50\nImported 2,2.00\n")
	count := func(t *testing.T) int {
		t.Helper()
		list, err := w.k.Records("shopProducts").List(t.Context(), w.alice, map[string][]string{"search": {"Imported"}})
		if err != nil {
			t.Fatal(err)
		}
		return len(list.Items)
	}
	p := newTab(t, w)
	p.signIn("/teams/acme/collections/shopProducts")
	p.do(chromedp.Click(chromedp.CSS("[data-test=import-link]")), chromedp.WaitVisible(chromedp.CSS("[data-test=import-file]")))

	t.Run("a chosen CSV shows its header and first rows", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.SetUploadFiles(chromedp.CSS("[data-test=import-file]"), []string{bad}))
		p.waitFor("the preview", `document.querySelectorAll('[data-test=import-preview] tbody tr').length === 2`)
		got := eval[[]string](p, `[...document.querySelectorAll('[data-test=import-preview] tr')].map(tr => [...tr.children].map(c => c.innerText.trim()).join(' | '))`)
		if want := []string{"title | price", "Imported 1 | 1.50", "Imported 2 | not a number"}; strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("got the preview %q, want %q", got, want)
		}
		p.checkAccessibility("the import preview")
	})

	t.Run("a bad value lists the rejected row and imports nothing", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Click(chromedp.CSS("[data-test=import-send]")))
		p.waitFor("the rejected rows", `document.querySelectorAll('[data-test=import-rejected] tbody tr').length === 1`)
		got := eval[string](p, `[...document.querySelector('[data-test=import-rejected] tbody tr').children].slice(0, 3).map(c => c.innerText.trim()).join(' | ')`)
		if got != "3 | 2 | price" {
			t.Errorf("got the rejected row %q, want 3 | 2 | price (line, row, field)", got)
		}
		if n := count(t); n != 0 {
			t.Errorf("got %d imported records after the refusal, want 0", n)
		}
		p.checkAccessibility("the rejected rows")
	})

	t.Run("a good file creates every row and returns to the collection", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.SetUploadFiles(chromedp.CSS("[data-test=import-file]"), []string{good}))
		p.waitFor("the new preview", `!document.querySelector('[data-test=import-rejected]') && document.querySelectorAll('[data-test=import-preview] tbody tr').length === 2`)
		p.do(chromedp.Click(chromedp.CSS("[data-test=import-send]")))
		p.waitText("[data-test=toasts]", "2 records imported.")
		p.waitFor("the collection", `!!document.querySelector('[data-test=collection-shopProducts]')`)
		if n := count(t); n != 2 {
			t.Errorf("got %d imported records, want 2", n)
		}
	})
}

// TestBrowserTrashPages: a trash of more entries than a page shows them
// a page at a time; Next shows the rest, and a bigger page size all.
func TestBrowserTrashPages(t *testing.T) {
	w := newWorld(t)
	for i := 1; i <= 25; i++ {
		title := fmt.Sprintf("Old task %02d", i)
		w.create(t, w.alice, "workTasks", title, nil)
		if err := w.k.Records("workTasks").Delete(t.Context(), w.alice, w.ids[title]); err != nil {
			t.Fatal(err)
		}
	}
	p := newTab(t, w)
	count := `document.querySelectorAll('[data-test=trash-title]').length`

	t.Run("the first page shows 20 of the 25 entries, newest first", func(t *testing.T) {
		p.step(t)
		p.signIn("/teams/acme/collections/workTasks/trash")
		p.waitFor("a page of 20", count+` === 20`)
		if first := eval[string](p, `document.querySelector('[data-test=trash-title]').innerText.trim()`); first != "Old task 25" {
			t.Errorf("got %q first, want Old task 25 (the newest)", first)
		}
		p.waitText("[data-test=trash-pagination]", "25")
	})

	t.Run("the next page shows the other 5", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Click(chromedp.CSS(`[data-test=trash-pagination] button[aria-label="Next page"]`)))
		p.waitFor("the last 5", count+` === 5`)
		if last := eval[string](p, `[...document.querySelectorAll('[data-test=trash-title]')].pop().innerText.trim()`); last != "Old task 01" {
			t.Errorf("got %q last, want Old task 01 (the oldest)", last)
		}
	})

	t.Run("a page size of 50 shows every entry", func(t *testing.T) {
		p.step(t)
		eval[bool](p, `(() => { const s = document.querySelector('[data-test=trash-pagination] select'); s.value = '50'; return s.dispatchEvent(new Event('change')) })()`)
		p.waitFor("all 25", count+` === 25`)
		p.checkAccessibility("the trash's pages")
	})
}
