package admin_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// selectValue picks value in the select of css, as a user does (a change event).
func selectValue(css, value string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => { const s = document.querySelector(%s); s.value = %s; s.dispatchEvent(new Event('change', {bubbles: true})) })()`, jsString(css), jsString(value)))
}

// fill replaces the value of the input of css with value, as a user who
// selects all and types: an input event empties it, then the keys.
func fill(css, value string) chromedp.Action[chromedp.Void] {
	clear := chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => { const el = document.querySelector(%s); el.value = ''; el.dispatchEvent(new Event('input', {bubbles: true})) })()`, jsString(css)))
	if value == "" {
		return clear
	}
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		if _, err := clear(ctx, t); err != nil {
			return chromedp.Void{}, err
		}
		return chromedp.SendKeys(chromedp.CSS(css), value)(ctx, t)
	}
}

// dragTo drags the element of from by its center onto the upper quarter
// of the element of to, in small mouse steps (SortableJS's fallback
// follows the pointer; the upper part places the dragged item before the
// target).
func (p *tab) dragTo(from, to string) {
	p.t.Helper()
	box := func(css string) []float64 {
		return eval[[]float64](p, fmt.Sprintf(`(() => { const r = document.querySelector(%s).getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2, r.top + r.height / 4] })()`, jsString(css)))
	}
	a, b := box(from), box(to)
	p.do(chromedp.DragAndDropXY(a[0], a[1], b[0], b[2], 30))
}

// eventually checks cond until it holds, failing t after 30 s; for state
// the browser changes through the server after a UI action.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 30 s for %s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// productCount is the number of acme's products in the database.
func (w *world) productCount(t *testing.T) int {
	t.Helper()
	return len(w.titles(t, "shopProducts", "title"))
}

func TestBrowserTable(t *testing.T) {
	w := newWorld(t)
	p := newTab(t, w)
	p.signIn("/teams/acme/collections/shopProducts")
	p.waitText("[data-kit-summary]", "Showing 1 to 10 of 25 results")

	t.Run("the page is titled with the collection's name while the sidebar shows its adminNav label", func(t *testing.T) {
		p.step(t)
		if got, want := eval[string](p, `document.querySelector('main h1')?.textContent.trim()`), "Products"; got != want {
			t.Errorf("got the title %q, want %q (displayName, the one a phone shows)", got, want)
		}
		if got, want := eval[string](p, `document.querySelector('nav a[href$="/collections/shopProducts"]')?.textContent.trim()`), "Catalogue"; got != want {
			t.Errorf("got the sidebar entry %q, want %q (adminNav.label)", got, want)
		}
	})

	t.Run("search waits for the typing to pause, asks the server once and resets to page 1", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Click(chromedp.CSS(`button[aria-label="Next page"]`)))
		p.waitText("[data-kit-summary]", "Showing 11 to 20 of 25 results")
		before := len(w.searches.all())
		p.do(chromedp.SendKeys(chromedp.CSS("input[type=search]"), "LAMP"))
		p.waitRows("Lamp C", "Lamp B", "Lamp A")
		p.waitText("[data-kit-summary]", "Showing 1 to 3 of 3 results")
		var searched []string
		for _, s := range w.searches.all()[before:] {
			if s != "" {
				searched = append(searched, s)
			}
		}
		if !slices.Equal(searched, []string{"LAMP"}) {
			t.Errorf("got search requests %q, want one for %q (the input is debounced)", searched, "LAMP")
		}
		p.do(fill("input[type=search]", "\b"))
		p.waitText("[data-kit-summary]", "of 25 results")
	})

	t.Run("a sortable header sorts ascending, a second click descending", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Click(chromedp.CSS("[data-kit-sort=title]")))
		p.waitRows("Lamp A", "Lamp B", "Lamp C", "Widget 01", "Widget 02", "Widget 03", "Widget 04", "Widget 05", "Widget 06", "Widget 07")
		if !eval[bool](p, `!!document.querySelector('th[aria-sort=ascending] [data-kit-sort=title]')`) {
			t.Error("got no aria-sort=ascending on the title header, want it")
		}
		p.do(chromedp.Click(chromedp.CSS("[data-kit-sort=title]")))
		p.waitRows("Widget 22", "Widget 21", "Widget 20", "Widget 19", "Widget 18", "Widget 17", "Widget 16", "Widget 15", "Widget 14", "Widget 13")
	})

	t.Run("next shows the second page", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Click(chromedp.CSS(`button[aria-label="Next page"]`)))
		p.waitText("[data-kit-summary]", "Showing 11 to 20 of 25 results")
		p.waitRows("Widget 12", "Widget 11", "Widget 10", "Widget 09", "Widget 08", "Widget 07", "Widget 06", "Widget 05", "Widget 04", "Widget 03")
	})

	t.Run("a page size of 5 shows five rows from page 1", func(t *testing.T) {
		p.step(t)
		p.do(selectValue("nav[aria-label=Pagination] select", "5"))
		p.waitText("[data-kit-summary]", "Showing 1 to 5 of 25 results")
		p.waitRows("Widget 22", "Widget 21", "Widget 20", "Widget 19", "Widget 18")
		p.waitText("nav[aria-label=Pagination] [aria-current=page]", "1")
	})

	t.Run("a filter narrows the list on the server", func(t *testing.T) {
		p.step(t)
		p.do(
			chromedp.Click(chromedp.CSS("[data-test=toggle-filters]")),
			selectValue("[data-test=filter-field]", "stock"),
			selectValue("[data-test=filter-op]", "gt"),
			chromedp.SendKeys(chromedp.CSS("[data-test=filter-value]"), "19"),
			chromedp.Click(chromedp.CSS("[data-test=filter-add]")),
		)
		p.waitText("[data-kit-summary]", "Showing 1 to 3 of 3 results")
		p.waitRows("Widget 22", "Widget 21", "Widget 20")
		p.checkAccessibility("the products list with filters")
	})

	t.Run("the columns menu hides and shows a column", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Click(chromedp.CSS("[data-kit-columns] summary")), chromedp.Click(chromedp.CSS("input[data-kit-column=price]")))
		p.waitFor("the price column to be hidden", `!document.querySelector('[data-kit-row] [data-kit-cell=price]')`)
		p.do(chromedp.Click(chromedp.CSS("input[data-kit-column=id]")))
		p.waitFor("the id column to be shown", `!!document.querySelector('[data-kit-row] [data-kit-cell=id]')`)
		p.checkAccessibility("the products list with the columns menu open")
	})
}

func TestBrowserForms(t *testing.T) {
	w := newWorld(t)
	p := newTab(t, w)
	p.signIn("/teams/acme/collections/shopProducts")
	p.waitText("[data-kit-summary]", "of 25 results")

	t.Run("a create without the required fields shows the server's messages and writes nothing", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Click(chromedp.CSS("[data-kit-create]")), chromedp.WaitVisible(chromedp.CSS("[data-kit-form=create] #kit-field-title")))
		if got := eval[string](p, `document.querySelector('[data-kit-container]').dataset.kitContainer`); got != "slideover" {
			t.Errorf("got the form in a %q, want the default slideover", got)
		}
		p.checkAccessibility("the create form")
		p.do(chromedp.Click(chromedp.CSS("[data-kit-submit]")))
		p.waitText("[data-kit-field=title] [data-kit-error]", "is required")
		p.waitText("[data-kit-field=price] [data-kit-error]", "is required")
		if got := w.productCount(t); got != 25 {
			t.Errorf("got %d products, want 25 (nothing written)", got)
		}
		p.checkAccessibility("the create form with errors")
	})

	t.Run("a create through the form stores the record and lists it", func(t *testing.T) {
		p.step(t)
		p.do(
			chromedp.SendKeys(chromedp.CSS("#kit-field-title"), "Hammock"),
			chromedp.SendKeys(chromedp.CSS("#kit-field-price"), "89.5"),
			chromedp.SendKeys(chromedp.CSS("#kit-field-stock"), "7"),
			chromedp.Click(chromedp.CSS("[data-kit-submit]")),
			chromedp.WaitNotPresent(chromedp.CSS("[data-kit-form]")),
		)
		p.waitText("[data-kit-summary]", "of 26 results")
		if got := p.rowTitles(); len(got) == 0 || got[0] != "Hammock" {
			t.Errorf("got rows %v, want Hammock first (newest)", got)
		}
		rec, err := w.k.Records("shopProducts").List(t.Context(), w.alice, map[string][]string{"search": {"Hammock"}})
		if err != nil || len(rec.Items) != 1 || rec.Items[0]["price"] != "89.50" || rec.Items[0]["stock"] != float64(7) {
			t.Errorf("got %v (%v), want one Hammock at 89.50 with stock 7", rec, err)
		}
	})

	t.Run("an edit saves the changed field", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Click(chromedp.CSS(`[data-kit-edit][aria-label="Edit Lamp C"]`)), chromedp.WaitVisible(chromedp.CSS("#kit-field-title")))
		p.do(fill("#kit-field-title", "Lamp C (red)"), chromedp.Click(chromedp.CSS("[data-kit-submit]")))
		p.do(chromedp.WaitNotPresent(chromedp.CSS("[data-kit-form]")))
		p.waitFor("the edited title in the list", `[...document.querySelectorAll('[data-kit-cell=title]')].some(td => td.innerText.trim() === 'Lamp C (red)')`)
		rec, err := w.k.Records("shopProducts").Get(t.Context(), w.alice, w.ids["Lamp C"])
		if err != nil || rec["title"] != "Lamp C (red)" || rec["price"] != "30.00" {
			t.Errorf("got %v (%v), want the title changed and the price kept", rec, err)
		}
	})

	t.Run("a stale edit shows the conflict and does not overwrite", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Click(chromedp.CSS(`[data-kit-edit][aria-label="Edit Lamp B"]`)), chromedp.WaitVisible(chromedp.CSS("#kit-field-price")))
		// Someone else changes the record while the form is open.
		if _, err := w.k.Records("shopProducts").Update(t.Context(), w.alice, w.ids["Lamp B"], kit.Record{"title": "Lamp B (theirs)"}); err != nil {
			t.Fatal(err)
		}
		p.do(fill("#kit-field-price", "31.00"), chromedp.Click(chromedp.CSS("[data-kit-submit]")))
		p.waitText("[data-kit-conflict]", "Lamp B (theirs)")
		rec, err := w.k.Records("shopProducts").Get(t.Context(), w.alice, w.ids["Lamp B"])
		if err != nil || rec["title"] != "Lamp B (theirs)" || rec["price"] != "30.00" {
			t.Errorf("got %v (%v), want their title and the old price (nothing overwritten)", rec, err)
		}
		p.checkAccessibility("the edit form with a conflict")

		p.do(chromedp.Click(chromedp.CSS("[data-kit-reload]")))
		p.waitFor("the form to hold their title", `document.querySelector('#kit-field-title').value === 'Lamp B (theirs)'`)
		p.do(fill("#kit-field-price", "31.00"), chromedp.Click(chromedp.CSS("[data-kit-submit]")))
		p.do(chromedp.WaitNotPresent(chromedp.CSS("[data-kit-form]")))
		rec, err = w.k.Records("shopProducts").Get(t.Context(), w.alice, w.ids["Lamp B"])
		if err != nil || rec["title"] != "Lamp B (theirs)" || rec["price"] != "31.00" {
			t.Errorf("got %v (%v), want their title and the new price", rec, err)
		}
	})

	t.Run("bulk delete removes the selected rows after a confirmation", func(t *testing.T) {
		p.step(t)
		if got := eval[bool](p, `document.querySelector('[data-kit-delete]').disabled`); !got {
			t.Error("got the delete button enabled with nothing selected, want it disabled")
		}
		p.do(
			chromedp.Click(chromedp.CSS(`[aria-label="Select Widget 22"]`)),
			chromedp.Click(chromedp.CSS(`[aria-label="Select Widget 21"]`)),
		)
		p.waitText("[data-kit-delete] [data-kit-count]", "2")
		p.do(chromedp.Click(chromedp.CSS("[data-kit-delete]")))
		p.waitText("[data-kit-confirm]", "Delete these 2 items?")
		if got := eval[[]string](p, `[...document.querySelectorAll('[data-kit-confirm-names] li')].map(li => li.innerText)`); !slices.Equal(got, []string{"Widget 22", "Widget 21"}) {
			t.Errorf("got the confirmation naming %v, want Widget 22 and Widget 21", got)
		}
		p.checkAccessibility("the delete confirmation")
		p.confirmDelete()
		p.waitText("[data-kit-summary]", "of 24 results")
		titles := w.titles(t, "shopProducts", "title")
		if slices.Contains(titles, "Widget 22") || slices.Contains(titles, "Widget 21") || len(titles) != 24 {
			t.Errorf("got products %v, want 24 without Widget 21 and 22", titles)
		}
	})
}

func TestBrowserTreeAndOrder(t *testing.T) {
	w := newWorld(t)
	p := newTab(t, w)
	p.signIn("/teams/acme/collections/shopCategories")
	p.waitFor("the tree", `document.querySelectorAll('[data-kit-tree-node]').length === 3`)
	p.checkAccessibility("the categories tree")

	t.Run("dragging a root node onto a child moves it under that child's parent", func(t *testing.T) {
		p.step(t)
		p.dragTo(fmt.Sprintf(`[data-kit-tree-node=%q] > div [data-kit-drag-handle]`, w.ids["Garden"]), fmt.Sprintf(`[data-kit-tree-node=%q] > div [data-kit-card-title]`, w.ids["Hammers"]))
		var rec kit.Record
		eventually(t, "Garden stored under Tools", func() bool {
			rec, _ = w.k.Records("shopCategories").Get(t.Context(), w.alice, w.ids["Garden"])
			return rec["parentId"] == w.ids["Tools"]
		})
		p.waitFor("Garden shown under Tools", fmt.Sprintf(`!!document.querySelector('[data-kit-tree-node=%q] [data-kit-tree-node=%q]')`, w.ids["Tools"], w.ids["Garden"]))
	})

	t.Run("a category form opens in the configured modal", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Click(chromedp.CSS(`[data-test=edit][aria-label="Edit Tools"]`)), chromedp.WaitVisible(chromedp.CSS("[data-kit-form=update] #kit-field-title")))
		if got := eval[string](p, `document.querySelector('[data-kit-container]').dataset.kitContainer`); got != "modal" {
			t.Errorf("got the form in a %q, want modal", got)
		}
		p.do(chromedp.KeyEvent("\x1b"), chromedp.WaitNotPresent(chromedp.CSS("[data-kit-form]")))
	})

	t.Run("dragging a task by its handle reorders the tasks", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Navigate(w.srv.URL + "/admin/teams/acme/collections/workTasks"))
		p.waitRows("Task 1", "Task 2", "Task 3", "Task 4")
		p.checkAccessibility("the sortable tasks")
		p.dragTo(fmt.Sprintf(`tr[data-kit-row=%q] [data-kit-drag-handle]`, w.ids["Task 4"]), fmt.Sprintf(`tr[data-kit-row=%q] [data-kit-cell=title]`, w.ids["Task 1"]))
		want := []string{"Task 4", "Task 1", "Task 2", "Task 3"}
		var got []string
		eventually(t, fmt.Sprintf("the stored order %v", want), func() bool {
			got = w.titles(t, "workTasks", "order")
			return slices.Equal(got, want)
		})
		p.waitRows(want...)
	})
}

func TestBrowserActivityAndTeams(t *testing.T) {
	w := newWorld(t)
	if _, err := w.k.Records("shopProducts").Update(t.Context(), w.alice, w.ids["Widget 04"], kit.Record{"categoryId": w.ids["Garden"]}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.k.Records("shopProducts").Update(t.Context(), w.alice, w.ids["Widget 05"], kit.Record{"price": "7.25"}); err != nil {
		t.Fatal(err)
	}
	p := newTab(t, w)
	p.signIn("/teams/acme/activity")
	p.waitFor("the events", `document.querySelectorAll('[data-kit-event]').length > 0`)
	p.checkAccessibility("the activity log")

	t.Run("the activity log opens an update's detail with its changes as a diff", func(t *testing.T) {
		p.step(t)
		if got := eval[string](p, `document.querySelector('[data-kit-event]').dataset.kitOperation`); got != "update" {
			t.Errorf("got the newest event %q, want the update", got)
		}
		p.do(chromedp.Click(chromedp.CSS("[data-kit-event-open]")), chromedp.WaitVisible(chromedp.CSS("[aria-modal] [data-kit-changes]")))
		got := eval[[]string](p, `[...document.querySelectorAll('[aria-modal] [data-kit-changes] tbody tr')].map(tr => [...tr.children].map(c => c.innerText.trim()).join(' | '))`)
		if !slices.Contains(got, `Price | 5.00 | 7.25`) {
			t.Errorf("got the diff rows %q, want Price | 5.00 | 7.25 (the field's label)", got)
		}
		p.checkAccessibility("the activity log with a diff")
		p.do(chromedp.Click(chromedp.CSS("[aria-modal] [data-kit-close]")), chromedp.WaitNotPresent(chromedp.CSS("[aria-modal]")))
	})

	t.Run("an event reads as the user, the record's title and the referenced record's title, with a link to the record", func(t *testing.T) {
		p.step(t)
		if got := eval[string](p, `document.querySelector('[data-kit-event-open]').innerText.trim()`); got != "Alice updated Product “Widget 05”" {
			t.Errorf("got the newest event reading %q, want Alice updated Product “Widget 05”", got)
		}
		p.do(chromedp.Click(chromedp.CSS(`[data-kit-event]:nth-child(2) [data-kit-event-toggle]`)))
		p.waitFor("the category change", `!!document.querySelector('[data-kit-change=categoryId]')`)
		if got := eval[string](p, `[...document.querySelector('[data-kit-change=categoryId]').children].map(c => c.innerText.trim()).join(' | ')`); got != "Category | — | Garden" {
			t.Errorf("got the category change %q, want Category | — | Garden (the referenced record's title)", got)
		}
		p.do(chromedp.Click(chromedp.CSS("[data-kit-event-link]")))
		p.waitFor("the record's form", `document.querySelector('#kit-field-title')?.value === 'Widget 05'`)
		if got := p.path(); got != "/admin/teams/acme/collections/shopProducts" {
			t.Errorf("got %s, want the record's collection", got)
		}
		p.do(chromedp.Navigate(w.srv.URL + "/admin/teams/acme/activity"))
		p.waitFor("the events", `document.querySelectorAll('[data-kit-event]').length > 0`)
	})

	t.Run("a record's activity lists only that record's events", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Navigate(w.srv.URL + "/admin/teams/acme/collections/shopProducts"))
		p.waitText("[data-kit-summary]", "of 25 results")
		p.do(chromedp.Click(chromedp.CSS(`[data-kit-edit][aria-label="Edit Lamp A"]`)), chromedp.WaitVisible(chromedp.CSS("[data-test=record-activity]")))
		p.checkAccessibility("the edit form with the record's activity link")
		p.do(chromedp.Click(chromedp.CSS("[data-test=record-activity]")))
		p.waitFor("one event", `document.querySelectorAll('[data-kit-event]').length === 1 && location.search.includes('itemId=')`)
		if got := eval[string](p, `document.querySelector('[data-kit-event]').dataset.kitOperation`); got != "create" {
			t.Errorf("got %q, want the record's create event", got)
		}
	})

	t.Run("switching team shows only that team's records", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Navigate(w.srv.URL + "/admin/teams/acme/collections/shopProducts"))
		p.waitText("[data-kit-summary]", "of 25 results")
		p.do(selectValue("[data-test=team-switcher]", "globex"))
		p.waitRows("Globex Gizmo", "Globex Gadget")
		if got := p.path(); got != "/admin/teams/globex/collections/shopProducts" {
			t.Errorf("got location %s, want globex's products", got)
		}
		p.waitText("[data-kit-summary]", "Showing 1 to 2 of 2 results")
	})

	t.Run("a phone-width screen hides the sidebar behind a menu button", func(t *testing.T) {
		p.step(t)
		p.setViewport(390, 844, true)
		defer p.setViewport(0, 0, false)
		p.do(chromedp.Navigate(w.srv.URL + "/admin/teams/acme/collections/shopProducts"))
		p.waitText("[data-kit-summary]", "of 25 results")
		if eval[bool](p, `!!document.querySelector('#sidebar').offsetParent`) {
			t.Error("got the sidebar shown on a phone, want it behind the menu button")
		}
		if got := eval[string](p, `document.querySelector('[data-kit-create]').innerText.replace('+', '').trim()`); got != "Create" {
			t.Errorf("got the create button %q, want 'Create' on a small screen", got)
		}
		p.checkAccessibility("the products list on a phone")
		p.screenshot()
	})
}

// postAs creates a record of acme through the HTTP API with a bearer
// token, as another session does, and returns the answer's status.
func (w *world) postAs(t *testing.T, token, apiPath, body string) int {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, w.srv.URL+"/api/teams/acme/"+apiPath, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

func TestBrowserLive(t *testing.T) {
	w := newWorld(t)
	ctx := t.Context()
	acc := w.k.Accounts()
	bob, err := acc.CreateUser(ctx, teamauth.User{Name: "Bob", Email: "bob@acme.example"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := acc.AddMember(ctx, w.alice.TeamID, bob.ID, teamauth.RoleMember); err != nil {
		t.Fatal(err)
	}
	token, _, err := acc.CreateToken(ctx, bob.ID, "another session")
	if err != nil {
		t.Fatal(err)
	}
	p := newTab(t, w)
	p.signIn("/teams/acme/collections/shopProducts")
	p.waitText("[data-kit-summary]", "Showing 1 to 10 of 25 results")

	t.Run("a record another session creates through the API appears in the open table without a reload", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Evaluate[chromedp.Void](`window.kitNoReload = true`))
		if got := w.postAs(t, token, "shop-products", `{"title": "Zeppelin", "price": "9.99"}`); got != http.StatusCreated {
			t.Fatalf("got status %d creating as Bob, want 201", got)
		}
		p.waitText("[data-kit-summary]", "Showing 1 to 10 of 26 results")
		if got := p.rowTitles(); len(got) == 0 || got[0] != "Zeppelin" {
			t.Errorf("got rows %v, want Zeppelin first (newest)", got)
		}
		if !eval[bool](p, `window.kitNoReload === true`) {
			t.Error("got the page reloaded, want the table refreshed in place")
		}
	})

	t.Run("the open activity log shows another session's write without a reload", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Click(chromedp.CSS("[data-test=nav-activity]")))
		p.waitFor("the events", `document.querySelectorAll('[data-kit-event]').length > 0`)
		p.do(chromedp.Evaluate[chromedp.Void](`window.kitNoReload = true`))
		if got := w.postAs(t, token, "work-tasks", `{"title": "Task from Bob"}`); got != http.StatusCreated {
			t.Fatalf("got status %d creating as Bob, want 201", got)
		}
		p.waitFor("Bob's create at the top of the log", `(document.querySelector('[data-kit-event]')?.innerText ?? '').includes('Bob created')`)
		p.checkAccessibility("the live activity log")
		if !eval[bool](p, `window.kitNoReload === true`) {
			t.Error("got the page reloaded, want the log refreshed in place")
		}
	})
}

// tabTo presses Tab until the focused element has the accessible label
// label (at most 60 times), as a keyboard user reaches a control.
func (p *tab) tabTo(label string) {
	p.t.Helper()
	for range 60 {
		if eval[bool](p, fmt.Sprintf(`document.activeElement?.getAttribute('aria-label') === %s`, jsString(label))) {
			return
		}
		p.do(chromedp.KeyEvent(kb.Tab))
	}
	p.t.Fatalf("pressed Tab 60 times without reaching %q", label)
}

// stored returns a category's parent and order as stored.
func (w *world) stored(t *testing.T, key, title string) (any, any) {
	t.Helper()
	rec, err := w.k.Records(key).Get(t.Context(), w.alice, w.ids[title])
	if err != nil {
		t.Fatal(err)
	}
	return rec["parentId"], rec["order"]
}

func TestBrowserKeyboard(t *testing.T) {
	w := newWorld(t)
	p := newTab(t, w)
	p.signIn("/teams/acme/collections/shopCategories")
	p.waitFor("the tree", `document.querySelectorAll('[data-kit-tree-node]').length === 3`)

	// Each step presses a key on the focused handle, then waits for the
	// store, for the tree to show the node in its new place, and for the
	// focus to be on the moved node's handle (the next key goes there).
	press := func(t *testing.T, key, title string, parent any, order float64) {
		t.Helper()
		p.do(chromedp.KeyEvent(key))
		eventually(t, fmt.Sprintf("%s stored under %v at %v", title, parent, order), func() bool {
			gotParent, gotOrder := w.stored(t, "shopCategories", title)
			return gotParent == parent && gotOrder == order
		})
		list := ""
		if parent != nil {
			list = parent.(string)
		}
		p.waitFor(fmt.Sprintf("%s shown under %v at %v", title, parent, order), fmt.Sprintf(
			`(() => { const li = document.querySelector('[data-kit-tree-node=' + JSON.stringify(%s) + ']'); const l = li?.parentElement;
			return l?.getAttribute('data-kit-tree-children') === %s && [...l.children].filter(e => e.matches('[data-kit-tree-node]')).indexOf(li) === %v })()`,
			jsString(w.ids[title]), jsString(list), order))
		p.waitFor("the focus on the moved node's handle", fmt.Sprintf(`document.activeElement?.getAttribute('aria-label') === %s`, jsString("Move "+title)))
	}

	t.Run("a tree node moves with the arrow keys on its handle: into the node above, up, and out again", func(t *testing.T) {
		p.step(t)
		p.tabTo("Move Garden")
		press(t, kb.ArrowRight, "Garden", w.ids["Tools"], 1)
		p.waitFor("Garden shown under Tools", fmt.Sprintf(`!!document.querySelector('[data-kit-tree-node=%q] [data-kit-tree-node=%q]')`, w.ids["Tools"], w.ids["Garden"]))
		press(t, kb.ArrowUp, "Garden", w.ids["Tools"], 0)
		press(t, kb.ArrowLeft, "Garden", nil, 1)
		p.waitFor("Garden shown as a root after Tools", fmt.Sprintf(`[...document.querySelectorAll('[data-kit-tree] > [data-kit-tree-node]')].map(li => li.dataset.kitTreeNode).join() === %s`, jsString(w.ids["Tools"]+","+w.ids["Garden"])))
		p.checkAccessibility("the categories tree, moved by keyboard")
	})

	t.Run("a sortable collection reorders with Arrow Up and Arrow Down on a row's handle", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Navigate(w.srv.URL + "/admin/teams/acme/collections/workTasks"))
		p.waitRows("Task 1", "Task 2", "Task 3", "Task 4")
		p.tabTo("Move Task 3")
		p.do(chromedp.KeyEvent(kb.ArrowUp), chromedp.KeyEvent(kb.ArrowUp))
		want := []string{"Task 3", "Task 1", "Task 2", "Task 4"}
		var got []string
		eventually(t, fmt.Sprintf("the stored order %v", want), func() bool {
			got = w.titles(t, "workTasks", "order")
			return slices.Equal(got, want)
		})
		p.waitRows(want...)
		p.waitFor("the focus on Task 3's handle", `document.activeElement?.getAttribute('aria-label') === 'Move Task 3'`)
		p.do(chromedp.KeyEvent(kb.ArrowDown))
		want = []string{"Task 1", "Task 3", "Task 2", "Task 4"}
		eventually(t, fmt.Sprintf("the stored order %v", want), func() bool {
			got = w.titles(t, "workTasks", "order")
			return slices.Equal(got, want)
		})
		p.waitRows(want...)
	})
}

func TestBrowserReferences(t *testing.T) {
	w := newWorld(t)
	for title, category := range map[string]string{"Lamp A": w.ids["Tools"], "Lamp B": w.ids["Hammers"]} {
		if _, err := w.k.Records("shopProducts").Update(t.Context(), w.alice, w.ids[title], kit.Record{"categoryId": category}); err != nil {
			t.Fatal(err)
		}
	}
	p := newTab(t, w)
	p.signIn("/teams/acme/collections/shopProducts")
	p.waitText("[data-kit-summary]", "of 25 results")
	cell := func(title string) string {
		return fmt.Sprintf(`(document.querySelector('[data-kit-row=%q] [data-kit-cell=categoryId]')?.innerText ?? '').trim()`, w.ids[title])
	}

	t.Run("a reference column shows the referenced record's title", func(t *testing.T) {
		p.step(t)
		p.waitFor("the categories' titles", fmt.Sprintf(`%s === 'Tools' && %s === 'Hammers'`, cell("Lamp A"), cell("Lamp B")))
		if got := eval[string](p, cell("Widget 22")); got != "" {
			t.Errorf("got %q for a product without a category, want nothing", got)
		}
		p.checkAccessibility("the products list with reference titles")
	})

	t.Run("renaming the referenced record renames the cell", func(t *testing.T) {
		p.step(t)
		if _, err := w.k.Records("shopCategories").Update(t.Context(), w.alice, w.ids["Tools"], kit.Record{"title": "Tools and more"}); err != nil {
			t.Fatal(err)
		}
		p.waitFor("the new title", fmt.Sprintf(`%s === 'Tools and more'`, cell("Lamp A")))
	})
}

func TestBrowserPhone(t *testing.T) {
	w := newWorld(t)
	p := newTab(t, w)
	p.signIn("/teams/acme")
	p.setViewport(390, 844, true)
	p.do(chromedp.Navigate(w.srv.URL + "/admin/teams/acme/collections/shopProducts"))
	p.waitText("[data-kit-summary]", "of 25 results")

	t.Run("at 390 px the products show as a list of cards, with no table and no sideways scroll", func(t *testing.T) {
		p.step(t)
		if got, want := eval[string](p, `document.querySelector('main h1')?.textContent.trim()`), "Products"; got != want {
			t.Errorf("got the title %q, want %q (the desktop's)", got, want)
		}
		if got := eval[string](p, `document.querySelector('[data-kit-layout]').dataset.kitLayout`); got != "list" {
			t.Errorf("got the %q layout, want list (the mobile-friendly preset below lg)", got)
		}
		if got := eval[int](p, `document.querySelectorAll('table, [data-kit-table]').length`); got != 0 {
			t.Errorf("got %d tables, want none on a phone", got)
		}
		if got, want := eval[int](p, `document.querySelectorAll('[data-kit-list] [data-kit-card-title]').length`), eval[int](p, `Number(document.querySelector('nav[aria-label=Pagination] select').value)`); got != want {
			t.Errorf("got %d cards, want a page of %d", got, want)
		}
		if sw, cw := eval[int](p, `document.documentElement.scrollWidth`), eval[int](p, `document.documentElement.clientWidth`); sw > cw {
			t.Errorf("got a page %d px wide in a %d px viewport, want no sideways scroll", sw, cw)
		}
		p.checkAccessibility("the products list on a phone")
	})

	t.Run("a search narrows the cards on the server", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.SendKeys(chromedp.CSS("input[type=search]"), "lamp"))
		p.waitText("[data-kit-summary]", "Showing 1 to 3 of 3 results")
		if got := w.searches.all(); !slices.Contains(got, "lamp") {
			t.Errorf("got search requests %q, want one for %q", got, "lamp")
		}
		p.do(fill("input[type=search]", ""))
		p.waitText("[data-kit-summary]", "of 25 results")
	})

	t.Run("a card's Edit opens the form; a saved change shows in the list", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Click(chromedp.CSS(`[data-kit-edit][aria-label="Edit Lamp C"]`)), chromedp.WaitVisible(chromedp.CSS("#kit-field-title")))
		p.checkAccessibility("the edit form on a phone")
		p.do(fill("#kit-field-title", "Lamp C (red)"), chromedp.Click(chromedp.CSS("[data-kit-submit]")))
		p.do(chromedp.WaitNotPresent(chromedp.CSS("[data-kit-form]")))
		p.waitFor("the edited title in the list", `[...document.querySelectorAll('[data-kit-card-title]')].some(h => h.innerText.trim() === 'Lamp C (red)')`)
		rec, err := w.k.Records("shopProducts").Get(t.Context(), w.alice, w.ids["Lamp C"])
		if err != nil || rec["title"] != "Lamp C (red)" || rec["price"] != "30.00" {
			t.Errorf("got %v (%v), want the title changed and the price kept", rec, err)
		}
		p.checkAccessibility("the products list on a phone after an edit")
	})

	t.Run("a card's Delete asks for a confirmation and removes the record", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Click(chromedp.CSS(`[data-kit-row-delete][aria-label="Delete Lamp B"]`)))
		p.confirmDelete()
		p.waitText("[data-kit-summary]", "of 24 results")
		if titles := w.titles(t, "shopProducts", "title"); slices.Contains(titles, "Lamp B") || len(titles) != 24 {
			t.Errorf("got products %v, want 24 without Lamp B", titles)
		}
	})

	t.Run("a record another session creates appears in the open list without a reload", func(t *testing.T) {
		p.step(t)
		token, _, err := w.k.Accounts().CreateToken(t.Context(), w.alice.UserID, "another session")
		if err != nil {
			t.Fatal(err)
		}
		p.do(chromedp.Evaluate[chromedp.Void](`window.kitNoReload = true`))
		if got := w.postAs(t, token, "shop-products", `{"title": "Zeppelin", "price": "9.99"}`); got != http.StatusCreated {
			t.Fatalf("got status %d creating as another session, want 201", got)
		}
		p.waitText("[data-kit-summary]", "of 25 results")
		if got := eval[string](p, `document.querySelector('[data-kit-list] [data-kit-card-title]').innerText.trim()`); got != "Zeppelin" {
			t.Errorf("got the first card %q, want Zeppelin (newest)", got)
		}
		if !eval[bool](p, `window.kitNoReload === true`) {
			t.Error("got the page reloaded, want the list refreshed in place")
		}
	})
}
