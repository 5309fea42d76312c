package admin_test

import (
	"slices"
	"testing"

	"github.com/chromedp/chromedp"
)

func TestBrowserSignInAndList(t *testing.T) {
	w := newWorld(t)
	p := newTab(t, w)

	t.Run("a wrong password is refused on the sign-in page", func(t *testing.T) {
		p.step(t)
		p.do(
			chromedp.Navigate(w.srv.URL+"/admin/"),
			chromedp.WaitVisible(chromedp.CSS("#email")),
			chromedp.SendKeys(chromedp.CSS("#email"), w.email),
			chromedp.SendKeys(chromedp.CSS("#password"), "not the password"),
			chromedp.Click(chromedp.CSS("button[type=submit]")),
		)
		p.waitText("[data-test=signin-error]", "Invalid email or password.")
		p.checkAccessibility("the sign-in page")
	})

	t.Run("signing in shows the first collection of the sidebar, a page of it", func(t *testing.T) {
		p.step(t)
		p.signIn("/")
		p.waitText("[data-kit-summary]", "Showing 1 to 10 of 25 results")
		if got, want := p.path(), "/admin/teams/acme/collections/shopProducts"; got != want {
			t.Errorf("got location %s, want %s", got, want)
		}
		if got, want := p.rowTitles(), []string{"Lamp C", "Lamp B", "Lamp A", "Widget 22", "Widget 21", "Widget 20", "Widget 19", "Widget 18", "Widget 17", "Widget 16"}; !slices.Equal(got, want) {
			t.Errorf("got rows %v, want %v (newest first)", got, want)
		}
		p.checkAccessibility("the products list")
	})

	t.Run("the sidebar lists the collections by adminNav order, with adminNav.label where set, and hides enabled false", func(t *testing.T) {
		p.step(t)
		got := eval[[]string](p, `[...document.querySelectorAll('nav[aria-label=Collections] a')].map(a => a.innerText.trim())`)
		if want := []string{"Catalogue", "Categories", "Tasks", "Suppliers", "Activity"}; !slices.Equal(got, want) {
			t.Errorf("got sidebar %v, want %v", got, want)
		}
	})

	t.Run("an external collection is listed read-only", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Click(chromedp.CSS("[data-test=nav-suppliers]")))
		p.waitRows("Anvils Inc", "Rockets Ltd")
		if got := eval[[]bool](p, `['[data-test=readonly]', '[data-kit-create]', '[data-kit-row] input[type=checkbox]', '[data-kit-edit]', '[data-kit-delete]'].map(s => !!document.querySelector(s))`); !slices.Equal(got, []bool{true, false, false, false, false}) {
			t.Errorf("got [read-only badge, create, select, edit, delete] present = %v, want only the badge", got)
		}
		p.checkAccessibility("an external collection")
	})

	t.Run("a deep link after sign-in opens that page", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Navigate(w.srv.URL + "/admin/teams/acme/collections/workTasks"))
		p.waitRows("Task 1", "Task 2", "Task 3", "Task 4")
	})
}
