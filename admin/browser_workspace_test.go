package admin_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/collectionkit/kit/kit"
)

func TestBrowserWorkspace(t *testing.T) {
	w := newWorld(t)
	for _, n := range []struct {
		title, body string
		pinned      bool
	}{{"Groceries", "Milk, eggs, bread", true}, {"Standup", "Ship the workspace", false}, {"Ideas", "A dark theme", false}} {
		w.create(t, w.alice, "workNotes", n.title, kit.Record{"body": n.body, "pinned": n.pinned})
	}
	p := newTab(t, w)
	p.setViewport(1440, 900, false)
	p.signIn("/teams/acme/collections/workNotes")
	p.waitFor("the notes", `document.querySelectorAll('[data-kit-select]').length === 3`)
	detail := func() string {
		return eval[string](p, `document.querySelector('[data-kit-detail-title]')?.innerText ?? ''`)
	}
	item := func() string { return eval[string](p, `new URLSearchParams(location.search).get('item') ?? ''`) }

	t.Run("at 1440 px the list and the selected note's detail sit side by side, the note's id in the URL", func(t *testing.T) {
		p.step(t)
		p.waitText("[data-kit-detail-empty]", "Select a record in the list to see it here.")
		p.do(chromedp.Click(chromedp.CSS(fmt.Sprintf(`[data-kit-select=%q]`, w.ids["Standup"]))))
		p.waitText("[data-kit-detail-title]", "Standup")
		p.waitText(`[data-kit-detail-value="body"]`, "Ship the workspace")
		if got := eval[string](p, `document.querySelector('[data-kit-detail-label="pinned"]').innerText.trim()`); got != "Pinned" {
			t.Errorf("got the label %q, want the field's label Pinned", got)
		}
		if got := eval[string](p, `document.querySelector('[data-kit-detail-value="pinned"] .badge')?.innerText ?? ''`); got != "No" {
			t.Errorf("got the pinned value %q, want a No badge (the table's cell)", got)
		}
		if got := item(); got != w.ids["Standup"] {
			t.Errorf("got ?item=%s, want Standup's id %s", got, w.ids["Standup"])
		}
		boxes := eval[[]float64](p, `(() => { const l = document.querySelector('[data-kit-list]').getBoundingClientRect(); const d = document.querySelector('[data-kit-workspace-detail]').getBoundingClientRect(); return [l.right, d.left, l.top, d.top] })()`)
		if boxes[1] < boxes[0] || boxes[3]-boxes[2] > 1 {
			t.Errorf("got the list ending at x=%v and the detail starting at x=%v (tops %v, %v), want them side by side", boxes[0], boxes[1], boxes[2], boxes[3])
		}
		if got := eval[string](p, `document.querySelector('[aria-current=true]')?.dataset.kitSelect ?? ''`); got != w.ids["Standup"] {
			t.Errorf("got the current card %q, want Standup's", got)
		}
		p.checkAccessibility("the workspace with a note selected")
	})

	t.Run("a reload shows the same note, and Arrow Down selects the next one", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Reload())
		p.waitText("[data-kit-detail-title]", "Standup")
		p.do(chromedp.Focus(chromedp.CSS(fmt.Sprintf(`[data-kit-select=%q]`, w.ids["Standup"]))), chromedp.KeyEvent(kb.ArrowDown))
		p.waitText("[data-kit-detail-title]", "Groceries")
		p.waitFor("Groceries in the URL", fmt.Sprintf(`new URLSearchParams(location.search).get('item') === %q`, w.ids["Groceries"]))
		if got := eval[string](p, `document.activeElement?.dataset?.kitSelect ?? ''`); got != w.ids["Groceries"] {
			t.Errorf("got the focus on %q, want on Groceries' card", got)
		}
	})

	t.Run("Edit in the detail opens the form; the saved note shows in the detail and is stored", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Click(chromedp.CSS("[data-kit-workspace-detail] [data-kit-edit]")))
		p.waitFor("the note to load", `document.querySelector('#kit-field-title')?.value === 'Groceries'`)
		p.do(fill("#kit-field-body", "Milk, eggs, bread, coffee"), chromedp.Click(chromedp.CSS("[data-kit-submit]")), chromedp.WaitNotPresent(chromedp.CSS("[data-kit-form]")))
		p.waitText(`[data-kit-detail-value="body"]`, "Milk, eggs, bread, coffee")
		rec, err := w.k.Records("workNotes").Get(t.Context(), w.alice, w.ids["Groceries"])
		if err != nil {
			t.Fatal(err)
		}
		if got := rec["body"]; got != "Milk, eggs, bread, coffee" {
			t.Errorf("got the stored body %q, want the one saved", got)
		}
	})

	t.Run("Delete in the detail deletes the note and clears the selection", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Click(chromedp.CSS("[data-kit-workspace-detail] [data-kit-row-delete]")))
		p.waitText("[data-kit-confirm]", "Groceries")
		p.confirmDelete()
		p.waitText("[data-kit-detail-empty]", "Select a record")
		p.waitFor("no item in the URL", `!new URLSearchParams(location.search).has('item')`)
		p.waitFor("two notes", `document.querySelectorAll('[data-kit-select]').length === 2`)
		if got := w.titles(t, "workNotes", "title"); strings.Join(got, ",") != "Ideas,Standup" {
			t.Errorf("got the notes %v stored, want Ideas and Standup", got)
		}
	})

	t.Run("on a phone one pane shows at a time: the detail with a button back to the list", func(t *testing.T) {
		p.step(t)
		p.setViewport(390, 844, true)
		p.waitFor("the list pane", `document.querySelector('[data-kit-workspace]')?.dataset.kitWorkspacePane === 'list'`)
		if eval[bool](p, `!!document.querySelector('[data-kit-workspace-detail]')`) {
			t.Error("got the detail pane beside the list on a phone, want the list alone")
		}
		p.do(chromedp.Click(chromedp.CSS(fmt.Sprintf(`[data-kit-select=%q]`, w.ids["Ideas"]))))
		p.waitText("[data-kit-detail-title]", "Ideas")
		if eval[bool](p, `!!document.querySelector('[data-kit-list]')`) {
			t.Error("got the list beside the detail on a phone, want the detail alone")
		}
		if got := detail(); got != "Ideas" {
			t.Errorf("got the detail of %q, want Ideas", got)
		}
		p.checkAccessibility("the workspace's detail on a phone")
		p.do(chromedp.Click(chromedp.CSS("[data-kit-workspace-back]")))
		p.waitFor("the list pane", `document.querySelector('[data-kit-workspace]')?.dataset.kitWorkspacePane === 'list'`)
		p.waitFor("the focus back on Ideas' card", fmt.Sprintf(`document.activeElement?.dataset?.kitSelect === %q`, w.ids["Ideas"]))
		if got := item(); got != "" {
			t.Errorf("got ?item=%s after going back, want none", got)
		}
		p.setViewport(0, 0, false)
	})
}
