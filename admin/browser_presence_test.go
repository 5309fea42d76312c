package admin_test

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/collectionkit/kit/teamauth"
)

// addUser creates a user with a password, a member of team (a slug) with
// role, and returns the user's id.
func (w *world) addUser(t *testing.T, name, email, team string, role teamauth.Role) string {
	t.Helper()
	ctx := t.Context()
	acc := w.k.Accounts()
	u, err := acc.CreateUser(ctx, teamauth.User{Name: name, Email: email})
	if err != nil {
		t.Fatal(err)
	}
	if err := acc.SetPassword(ctx, u.ID, w.password); err != nil {
		t.Fatal(err)
	}
	tm, err := acc.Team(ctx, team)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := acc.AddMember(ctx, tm.ID, u.ID, role); err != nil {
		t.Fatal(err)
	}
	return u.ID
}

func TestBrowserPresence(t *testing.T) {
	w := newWorld(t)
	bob := w.addUser(t, "Bob Stone", "bob@acme.example", "acme", teamauth.RoleMember)
	greta := w.addUser(t, "Greta", "greta@globex.example", "globex", teamauth.RoleOwner)
	alice := newTab(t, w)
	alice.setViewport(1440, 900, false)
	alice.signIn("/teams/acme/collections/shopProducts")
	alice.waitText("[data-kit-summary]", "of 25 results")
	// Bob and Greta sign in in browser contexts of their own: other sessions.
	bobTab := newTab(t, w, chromedp.WithNewBrowserContext())
	gretaTab := newTab(t, w, chromedp.WithNewBrowserContext())
	onAlice := func(user string) string { return fmt.Sprintf(`[data-kit-presence-user=%q]`, user) }
	bobTab.who, gretaTab.who = "bob", "greta"

	t.Run("a member who opens the same collection appears by its title to the others, and sees them", func(t *testing.T) {
		alice.step(t)
		bobTab.t = t
		gretaTab.t = t
		gretaTab.signInAs("/teams/globex/collections/shopProducts", "greta@globex.example", w.password)
		gretaTab.waitText("[data-kit-summary]", "of 2 results")
		bobTab.signInAs("/teams/acme/collections/shopProducts", "bob@acme.example", w.password)
		bobTab.waitText("[data-kit-summary]", "of 25 results")
		alice.waitFor("Bob by the title", fmt.Sprintf(`!!document.querySelector('main h1')?.parentElement.querySelector(%s)`, jsString(onAlice(bob))))
		if got := eval[string](alice, fmt.Sprintf(`document.querySelector(%s).innerText.trim()`, jsString(onAlice(bob)))); got != "BS" {
			t.Errorf("got Bob's face %q, want his initials BS", got)
		}
		if got := eval[string](alice, `document.querySelector('main [data-kit-presence-names]').innerText`); got != "Also here: Bob Stone" {
			t.Errorf("got %q for assistive technology, want 'Also here: Bob Stone'", got)
		}
		bobTab.waitFor("Alice on Bob's page", fmt.Sprintf(`!!document.querySelector(%s)`, jsString(onAlice(w.alice.UserID))))
		alice.checkAccessibility("a collection with someone else on it")
	})

	t.Run("the record a member has open shows in its row, and in the form of anyone else who opens it", func(t *testing.T) {
		alice.step(t)
		bobTab.t = t
		bobTab.do(chromedp.Click(chromedp.CSS(`[data-kit-edit][aria-label="Edit Lamp C"]`)))
		bobTab.waitFor("Bob's form", `document.querySelector('#kit-field-title')?.value === 'Lamp C'`)
		row := fmt.Sprintf(`[data-kit-row=%q] [data-kit-cell=presence] %s`, w.ids["Lamp C"], onAlice(bob))
		alice.waitFor("Bob in Lamp C's row", fmt.Sprintf(`!!document.querySelector(%s)`, jsString(row)))
		if n := eval[int](alice, fmt.Sprintf(`document.querySelectorAll('[data-kit-row] [data-kit-cell=presence] %s').length`, onAlice(bob))); n != 1 {
			t.Errorf("got Bob in %d rows, want in Lamp C's only", n)
		}
		alice.do(chromedp.Click(chromedp.CSS(`[data-kit-edit][aria-label="Edit Lamp C"]`)))
		alice.waitFor("the form", `document.querySelector('#kit-field-title')?.value === 'Lamp C'`)
		alice.waitText("[data-kit-container] [data-kit-presence-names]", "Also viewing this record: Bob Stone")
		alice.checkAccessibility("a form of a record someone else has open")
		alice.do(chromedp.Click(chromedp.CSS("[data-kit-cancel]")), chromedp.WaitNotPresent(chromedp.CSS("[data-kit-form]")))
	})

	t.Run("a member of another team never appears", func(t *testing.T) {
		alice.step(t)
		if eval[bool](alice, fmt.Sprintf(`!!document.querySelector(%s)`, jsString(onAlice(greta)))) {
			t.Error("got Greta (globex) on acme's products, want her never shown")
		}
		gretaTab.t = t
		if eval[bool](gretaTab, `!!document.querySelector('[data-kit-presence]')`) {
			t.Error("got someone shown to Greta on globex's products, want nobody: no one else of globex is there")
		}
	})

	t.Run("a member who leaves the collection disappears", func(t *testing.T) {
		alice.step(t)
		bobTab.t = t
		bobTab.do(chromedp.Click(chromedp.CSS("[data-kit-cancel]")), chromedp.WaitNotPresent(chromedp.CSS("[data-kit-form]")))
		bobTab.do(chromedp.Click(chromedp.CSS("[data-test=nav-workTasks]")))
		bobTab.waitRows("Task 1", "Task 2", "Task 3", "Task 4")
		alice.waitFor("Bob gone", fmt.Sprintf(`!document.querySelector(%s)`, jsString(onAlice(bob))))
		if eval[bool](alice, `!!document.querySelector('[data-kit-column=presence]')`) {
			t.Error("got the presence column with nobody else here, want it gone")
		}
	})
}
