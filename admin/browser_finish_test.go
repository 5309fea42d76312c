package admin_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/collectionkit/kit/kit"
)

// waitToast waits for a toast of kind holding text.
func (p *tab) waitToast(kind, text string) {
	p.t.Helper()
	p.waitFor(fmt.Sprintf("a %s toast %q", kind, text), fmt.Sprintf(
		`[...document.querySelectorAll('[data-test=toast][data-kind=%s]')].some(t => t.innerText.includes(%s))`, kind, jsString(text)))
}

func TestBrowserFeedbackAndDialogs(t *testing.T) {
	w := newWorld(t)
	p := newTab(t, w)
	p.signIn("/teams/acme/collections/shopProducts")
	p.waitText("[data-kit-summary]", "of 25 results")

	t.Run("opening a form focuses its first field; closing it gives the focus back to the button that opened it", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Focus(chromedp.CSS("[data-kit-create]")), chromedp.SendKeys(chromedp.CSS("[data-kit-create]"), kb.Enter))
		p.waitFor("the title field to have the focus", `document.activeElement?.id === 'kit-field-title'`)
		p.do(chromedp.SendKeys(chromedp.CSS("#kit-field-title"), kb.Escape), chromedp.WaitNotPresent(chromedp.CSS("[data-kit-form]")))
		p.waitFor("the create button to have the focus back", `document.activeElement?.matches('[data-kit-create]')`)
	})

	t.Run("a refused create shows a toast and the server's message under the field, in words", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Click(chromedp.CSS("[data-kit-create]")), chromedp.WaitVisible(chromedp.CSS("#kit-field-title")), chromedp.Click(chromedp.CSS("[data-kit-submit]")))
		p.waitToast("error", "Not saved: check the marked fields.")
		p.waitText("[data-kit-field=title] [data-kit-error]", "Title is required.")
		p.waitText("[data-kit-message]", "Not saved:")
		if got := eval[string](p, `document.querySelector('[data-kit-message]').innerText`); strings.Contains(got, "invalid body") {
			t.Errorf("got the form's message %q, want words, not the server's raw message", got)
		}
		if got := w.productCount(t); got != 25 {
			t.Errorf("got %d products, want 25 (nothing written)", got)
		}
		p.checkAccessibility("the create form with a toast")
	})

	t.Run("a create shows a toast naming the record", func(t *testing.T) {
		p.step(t)
		p.do(fill("#kit-field-title", "Hammock"), chromedp.SendKeys(chromedp.CSS("#kit-field-price"), "89.50"), chromedp.Click(chromedp.CSS("[data-kit-submit]")))
		p.do(chromedp.WaitNotPresent(chromedp.CSS("[data-kit-form]")))
		p.waitToast("success", "Product “Hammock” created.")
	})

	t.Run("a save shows a toast naming the record", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Click(chromedp.CSS(`[data-kit-edit][aria-label="Edit Lamp C"]`)), chromedp.WaitVisible(chromedp.CSS("[data-kit-form=update] #kit-field-title")))
		p.waitFor("the record to load", `document.querySelector('#kit-field-title').value === 'Lamp C'`)
		p.do(fill("#kit-field-stock", "4"), chromedp.Click(chromedp.CSS("[data-kit-submit]")), chromedp.WaitNotPresent(chromedp.CSS("[data-kit-form]")))
		p.waitToast("success", "Product “Lamp C” saved.")
	})

	t.Run("a delete confirmation names the record, and the delete shows a toast", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Click(chromedp.CSS(`[data-kit-row-delete][aria-label="Delete Lamp B"]`)))
		p.waitText("[data-kit-confirm]", "Delete “Lamp B”? This cannot be undone.")
		if got := eval[string](p, `document.activeElement?.matches('[data-kit-cancel]') ? 'cancel' : document.activeElement?.tagName`); got != "cancel" {
			t.Errorf("got the focus on %s in the delete confirmation, want Cancel", got)
		}
		p.checkAccessibility("the delete confirmation")
		p.confirmDelete()
		p.waitToast("success", "Product “Lamp B” deleted.")
		if slices.Contains(w.titles(t, "shopProducts", "title"), "Lamp B") {
			t.Error("got Lamp B still stored, want it deleted")
		}
	})
}

func TestBrowserTablesFit(t *testing.T) {
	w := newWorld(t)
	for i := 1; i <= 3; i++ {
		w.create(t, w.alice, "workSamples", fmt.Sprintf("Sample %d with a title long enough to be cut in its cell", i), kit.Record{
			"body":       strings.Repeat("A body that goes on and on. ", 8),
			"count":      1200 * i,
			"price":      fmt.Sprintf("%d.50", i),
			"isDone":     i%2 == 0,
			"dueAt":      "2026-03-15",
			"dimensions": map[string]any{"heightCm": 40, "widthCm": 20},
			"variants":   []any{map[string]any{"size": "S"}, map[string]any{"size": "M"}, map[string]any{"size": "L"}},
			"tags":       []any{"red", "green", "blue", "amber", "teal"},
			"photo":      "data:image/gif;base64,R0lGODlhAQABAAAAACw=",
			"manual":     "https://example.com/docs/manual.pdf",
			"categoryId": w.ids["Garden"],
		})
	}
	p := newTab(t, w)
	p.signIn("/teams/acme/collections/workSamples")

	for _, width := range []int64{1280, 1440} {
		t.Run(fmt.Sprintf("at %d px the table fits its pane and scrolls inside it, the title and the actions stuck", width), func(t *testing.T) {
			p.step(t)
			p.setViewport(width, 900, false)
			p.waitFor("the rows", `document.querySelectorAll('[data-kit-row]').length === 3`)
			if got := eval[[]float64](p, `[document.documentElement.scrollWidth, innerWidth]`); got[0] > got[1] {
				t.Errorf("got the page %v px wide in a %v px window, want no sideways scroll of the page", got[0], got[1])
			}
			frame := eval[[]float64](p, `(() => { const f = document.querySelector('[data-kit-table-frame]').getBoundingClientRect(); const m = document.querySelector('main').getBoundingClientRect(); return [f.left, f.right, m.right] })()`)
			if frame[1] > frame[2] {
				t.Errorf("got the table frame ending at %v px, past its pane at %v px", frame[1], frame[2])
			}
			p.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-kit-table-frame]').scrollLeft = 100000`))
			edit := eval[[]float64](p, `(() => { const r = document.querySelector('[data-kit-edit]').getBoundingClientRect(); return [r.left, r.right] })()`)
			if edit[0] < frame[0] || edit[1] > frame[1] {
				t.Errorf("got Edit at %v..%v px, want it inside the frame %v..%v", edit[0], edit[1], frame[0], frame[1])
			}
			title := eval[[]float64](p, `(() => { const r = document.querySelector('[data-kit-row] [data-kit-cell=title]').getBoundingClientRect(); return [r.left, r.right] })()`)
			if title[0] < frame[0] || title[0] > frame[0]+100 {
				t.Errorf("got the title cell at %v px with the table scrolled to its end, want it stuck at the frame's left (%v px)", title[0], frame[0])
			}
			if got := eval[[]bool](p, `[...document.querySelectorAll('[data-kit-row]:first-child td')].map(td => td.scrollHeight <= 48)`); slices.Contains(got, false) {
				t.Errorf("got cells taller than one line (%v), want every cell on one line", got)
			}
			p.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-kit-table-frame]').scrollLeft = 0`))
		})
	}

	t.Run("cells show values by type: numbers right-aligned, dates by the locale, badges, chips, summaries and linked titles", func(t *testing.T) {
		p.step(t)
		cell := func(key, js string) string {
			return eval[string](p, fmt.Sprintf(`(() => { const td = document.querySelector('[data-kit-row] [data-kit-cell=%s]'); return %s })()`, key, js))
		}
		if got := cell("count", `getComputedStyle(td).textAlign`); got != "right" {
			t.Errorf("got the count aligned %q, want right", got)
		}
		if got, want := cell("count", `td.innerText.trim()`), eval[string](p, `new Intl.NumberFormat().format(3600)`); got != want {
			t.Errorf("got count %q, want %q (Intl)", got, want)
		}
		if got, want := cell("dueAt", `td.innerText.trim()`), eval[string](p, `new Intl.DateTimeFormat(undefined, {dateStyle: 'medium', timeZone: 'UTC'}).format(new Date('2026-03-15T00:00:00Z'))`); got != want {
			t.Errorf("got the date %q, want %q (Intl, the browser's locale)", got, want)
		}
		if got := cell("isDone", `td.querySelector('.badge')?.innerText`); got != "No" && got != "Yes" {
			t.Errorf("got the boolean cell %q, want a Yes/No badge", got)
		}
		if got := cell("tags", `[...td.querySelectorAll('.chip')].map(c => c.innerText).join(',') + ' ' + td.innerText.match(/\+\d+/)?.[0]`); got != "red,green,blue +2" {
			t.Errorf("got tags %q, want three chips and +2", got)
		}
		if got := cell("variants", `td.innerText.trim()`); got != "3 items" {
			t.Errorf("got variants %q, want '3 items'", got)
		}
		if got := cell("dimensions", `td.innerText.trim()`); got != "heightCm: 40, widthCm: 20" {
			t.Errorf("got dimensions %q, want a summary", got)
		}
		if got := cell("photo", `td.querySelector('img')?.getAttribute('src') ?? ''`); !strings.HasPrefix(got, "data:image/gif") {
			t.Errorf("got the image cell %q, want a thumbnail", got)
		}
		if got := cell("title", `td.title || td.querySelector('[title]')?.title || ''`); !strings.HasPrefix(got, "Sample 3 with a title long enough") {
			t.Errorf("got the title cell's hover text %q, want the full title", got)
		}
		p.waitFor("the category's title", `document.querySelector('[data-kit-row] [data-kit-cell=categoryId] a')?.innerText === 'Garden'`)
		p.checkAccessibility("a wide table")
		p.do(chromedp.Click(chromedp.CSS("[data-kit-row] [data-kit-cell=categoryId] a")))
		p.waitFor("the category's form", `document.querySelector('#kit-field-title')?.value === 'Garden'`)
		if got := p.path(); got != "/admin/teams/acme/collections/shopCategories" {
			t.Errorf("got %s, want the category's collection", got)
		}
		p.do(chromedp.Click(chromedp.CSS("[data-kit-cancel]")), chromedp.WaitNotPresent(chromedp.CSS("[data-kit-form]")))
		p.setViewport(0, 0, false)
	})
}

func TestBrowserStateInTheURL(t *testing.T) {
	w := newWorld(t)
	p := newTab(t, w)
	p.signIn("/teams/acme/collections/shopProducts")
	p.waitText("[data-kit-summary]", "of 25 results")

	t.Run("search, sort, page and page size go into the query string", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.SendKeys(chromedp.CSS("input[type=search]"), "Widget"))
		p.waitText("[data-kit-summary]", "of 22 results")
		p.do(chromedp.Click(chromedp.CSS("[data-kit-sort=price]")))
		p.waitRows("Widget 01", "Widget 02", "Widget 03", "Widget 04", "Widget 05", "Widget 06", "Widget 07", "Widget 08", "Widget 09", "Widget 10")
		p.do(selectValue(`nav[aria-label=Pagination] select`, "5"))
		p.waitText("[data-kit-summary]", "Showing 1 to 5 of 22 results")
		p.do(chromedp.Click(chromedp.CSS(`button[aria-label="Next page"]`)))
		p.waitRows("Widget 06", "Widget 07", "Widget 08", "Widget 09", "Widget 10")
		p.waitFor("the query string", `new URLSearchParams(location.search).toString() === 'q=Widget&sort=price&page=2&size=5'`)
	})

	t.Run("a reload keeps them", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Reload())
		p.waitRows("Widget 06", "Widget 07", "Widget 08", "Widget 09", "Widget 10")
		p.waitText("[data-kit-summary]", "Showing 6 to 10 of 22 results")
		if got := eval[string](p, `document.querySelector('input[type=search]').value`); got != "Widget" {
			t.Errorf("got the search box holding %q, want Widget", got)
		}
	})

	t.Run("a filter goes into the query string, and back after leaving the page keeps it all", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Click(chromedp.CSS("[data-test=toggle-filters]")))
		p.do(selectValue("[data-test=filter-field]", "price"), selectValue("[data-test=filter-op]", "gt"), chromedp.SendKeys(chromedp.CSS("[data-test=filter-value]"), "20"), chromedp.Click(chromedp.CSS("[data-test=filter-add]")))
		p.waitText("[data-kit-summary]", "of 2 results")
		p.do(chromedp.Click(chromedp.CSS("[data-test=nav-workTasks]")))
		p.waitRows("Task 1", "Task 2", "Task 3", "Task 4")
		p.do(chromedp.NavigateBack())
		p.waitRows("Widget 21", "Widget 22")
		if got := eval[string](p, `new URLSearchParams(location.search).get('filter')`); got != `[["price","gt","20"]]` {
			t.Errorf("got filter %q in the URL, want the price filter", got)
		}
	})
}

func TestBrowserNotAMember(t *testing.T) {
	w := newWorld(t)
	p := newTab(t, w)
	p.signIn("/teams/initech/collections/shopProducts")

	t.Run("a team the user is not a member of says so, with no create button and no table", func(t *testing.T) {
		p.step(t)
		p.waitText("[data-test=not-member]", "You are not a member of this team")
		if got := eval[[]bool](p, `['[data-kit-create]', '[data-kit-table]', '[data-kit-summary]'].map(s => !!document.querySelector(s))`); slices.Contains(got, true) {
			t.Errorf("got [create, table, summary] present = %v, want none", got)
		}
		if got := eval[[]string](p, `[...document.querySelectorAll('[data-test=team-switcher] option:not([disabled])')].map(o => o.innerText.trim())`); !slices.Equal(got, []string{"Acme", "Globex"}) {
			t.Errorf("got the switcher listing %v, want the user's teams Acme and Globex", got)
		}
		p.checkAccessibility("the page of a team the user is not a member of")
		p.do(chromedp.Click(chromedp.CSS("[data-test=not-member] a")))
		p.waitText("[data-kit-summary]", "of 25 results")
	})
}

func TestBrowserDarkTheme(t *testing.T) {
	w := newWorld(t)
	p := newTab(t, w)
	dark := func(scheme string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
			return err
		})
	}
	p.signIn("/teams/acme/collections/shopProducts")
	p.waitText("[data-kit-summary]", "of 25 results")

	t.Run("the theme follows the system's preference, live", func(t *testing.T) {
		p.step(t)
		if eval[bool](p, `document.documentElement.classList.contains('dark')`) {
			t.Error("got the dark theme with a light system, want light")
		}
		p.do(dark("dark"))
		p.waitFor("the dark theme", `document.documentElement.classList.contains('dark')`)
		if got := eval[string](p, `getComputedStyle(document.body).backgroundColor`); got == "rgb(248, 250, 252)" {
			t.Errorf("got the light background %s in the dark theme", got)
		}
		p.checkAccessibility("the products list in the dark theme")
		p.do(chromedp.Click(chromedp.CSS("[data-kit-create]")), chromedp.WaitVisible(chromedp.CSS("#kit-field-title")))
		p.checkAccessibility("the create form in the dark theme")
		p.do(chromedp.Click(chromedp.CSS("[data-kit-cancel]")), chromedp.WaitNotPresent(chromedp.CSS("[data-kit-form]")))
	})

	t.Run("a chosen theme wins over the system's and is kept over a reload", func(t *testing.T) {
		p.step(t)
		p.do(selectValue("[data-test=theme]", "light"))
		p.waitFor("the light theme", `!document.documentElement.classList.contains('dark')`)
		p.do(chromedp.Reload())
		p.waitText("[data-kit-summary]", "of 25 results")
		if eval[bool](p, `document.documentElement.classList.contains('dark')`) {
			t.Error("got the dark theme after choosing light and reloading, want light")
		}
		p.do(selectValue("[data-test=theme]", "system"), dark("light"))
	})
}
