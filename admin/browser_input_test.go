package admin_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestBrowserFormKeepsWhatWasTyped types into a field of every type of
// workSamples, as a user does, saves, and compares the stored record with
// what the form showed: nothing typed is rewritten, reverted or dropped,
// and a field that shows an error keeps the form from saving.
func TestBrowserFormKeepsWhatWasTyped(t *testing.T) {
	w := newWorld(t)
	p := newTab(t, w)
	p.signIn("/teams/acme/collections/workSamples")
	p.do(chromedp.WaitVisible(chromedp.CSS("[data-kit-create]")))

	t.Run("a new repeater item starts empty and keeps the JSON typed into it", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Click(chromedp.CSS("[data-kit-create]")), chromedp.WaitVisible(chromedp.CSS("[data-kit-form=create] #kit-field-title")))
		p.do(chromedp.Click(chromedp.CSS("[data-kit-field=variants] [data-kit-add]")), chromedp.WaitVisible(chromedp.CSS("#kit-field-variants-0")))
		if got := eval[string](p, `document.querySelector('#kit-field-variants-0').value`); got != "" {
			t.Errorf("got a new item holding %q, want it empty", got)
		}
		p.do(chromedp.SendKeys(chromedp.CSS("#kit-field-variants-0"), `{"size": "XL"}`), chromedp.Click(chromedp.CSS("#kit-field-title")))
		if got, want := eval[string](p, `document.querySelector('#kit-field-variants-0').value`), `{"size": "XL"}`; got != want {
			t.Errorf("got the item holding %q after leaving it, want %q as typed", got, want)
		}
		if eval[bool](p, `!!document.querySelector('[data-kit-field=variants] [data-kit-error]')`) {
			t.Error("got an error under a valid item, want none")
		}
	})

	t.Run("an item that does not parse keeps its text, shows why, and blocks the save", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Click(chromedp.CSS("[data-kit-field=variants] [data-kit-add]")), chromedp.WaitVisible(chromedp.CSS("#kit-field-variants-1")))
		p.do(
			chromedp.SendKeys(chromedp.CSS("#kit-field-title"), "Blocked"),
			chromedp.SendKeys(chromedp.CSS("#kit-field-variants-1"), `{"size": "S"`),
			chromedp.Click(chromedp.CSS("[data-kit-submit]")),
		)
		p.waitText("[data-kit-blocked]", "Variants item 2 is not valid JSON yet")
		p.waitText("[data-kit-field=variants] [data-kit-error]", "Variants item 2 is not valid JSON yet")
		if got := eval[string](p, `document.activeElement.id`); got != "kit-field-variants-1" {
			t.Errorf("got focus on %q, want the item in error", got)
		}
		if got, want := eval[string](p, `document.querySelector('#kit-field-variants-1').value`), `{"size": "S"`; got != want {
			t.Errorf("got the item holding %q, want %q as typed", got, want)
		}
		if got := w.count(t, "workSamples"); got != 0 {
			t.Errorf("got %d samples stored, want 0 (the save was blocked)", got)
		}
		p.checkAccessibility("the create form with an item in error")
		p.do(chromedp.Click(chromedp.CSS(`[aria-label="Remove Variants item 2"]`)))
		p.waitFor("the error to go", `!document.querySelector('[data-kit-field=variants] [data-kit-error]') && !document.querySelector('[data-kit-blocked]')`)
	})

	t.Run("a number the browser cannot read keeps its text and blocks the save", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.SendKeys(chromedp.CSS("#kit-field-count"), "1e"), chromedp.Click(chromedp.CSS("[data-kit-submit]")))
		p.waitText("[data-kit-blocked]", "Count must be a number.")
		if got := w.count(t, "workSamples"); got != 0 {
			t.Errorf("got %d samples stored, want 0 (the save was blocked)", got)
		}
		p.do(fill("#kit-field-count", ""))
	})

	t.Run("every field type typed into is stored as the form showed it", func(t *testing.T) {
		p.step(t)
		p.do(
			fill("#kit-field-title", "Desk lamp"),
			chromedp.SendKeys(chromedp.CSS("#kit-field-body"), "Warm light\nfor the desk"),
			chromedp.SendKeys(chromedp.CSS("#kit-field-count"), "12"),
			chromedp.SendKeys(chromedp.CSS("#kit-field-price"), "19.90"),
			chromedp.Click(chromedp.CSS("#kit-field-isDone")),
			chromedp.Click(chromedp.CSS("#kit-field-dueAt")),
			chromedp.SendKeys(chromedp.CSS("#kit-field-dueAt"), "03152026"),
			chromedp.SendKeys(chromedp.CSS("#kit-field-dimensions"), `{"heightCm": 40, "note": "tall"}`),
			chromedp.Click(chromedp.CSS("[data-kit-field=tags] [data-kit-add]")),
			chromedp.SendKeys(chromedp.CSS("#kit-field-tags-0"), "lighting"),
			chromedp.Click(chromedp.CSS("[data-kit-field=tags] [data-kit-add]")),
			chromedp.SendKeys(chromedp.CSS("#kit-field-tags-1"), "42"),
		)
		p.waitFor("the categories to load", `!!document.querySelector('#kit-field-categoryId option[value="`+w.ids["Garden"]+`"]')`)
		p.do(selectValue("#kit-field-categoryId", w.ids["Garden"]))
		p.do(chromedp.SendKeys(chromedp.CSS("#kit-field-title"), kb.End))
		p.do(chromedp.Click(chromedp.CSS("[data-kit-submit]")), chromedp.WaitNotPresent(chromedp.CSS("[data-kit-form]")))

		list := w.list(t, "workSamples")
		if len(list) != 1 {
			t.Fatalf("got %d samples stored, want 1", len(list))
		}
		got := list[0]
		want := map[string]any{
			"title":      "Desk lamp",
			"body":       "Warm light\nfor the desk",
			"count":      float64(12),
			"price":      "19.90",
			"isDone":     true,
			"dimensions": map[string]any{"heightCm": float64(40), "note": "tall"},
			"variants":   []any{map[string]any{"size": "XL"}},
			"tags":       []any{"lighting", "42"},
			"photo":      nil, // image and file fields take files (TestBrowserFileInput)
			"manual":     nil,
			"categoryId": w.ids["Garden"],
		}
		for k, v := range want {
			if !reflect.DeepEqual(normalize(got[k]), v) {
				t.Errorf("got %s = %#v, want %#v", k, got[k], v)
			}
		}
		if due, _ := normalize(got["dueAt"]).(string); len(due) < 10 || due[:10] != "2026-03-15" {
			t.Errorf("got dueAt = %#v, want 2026-03-15", got["dueAt"])
		}
		w.ids["Desk lamp"] = got["id"].(string)
	})

	t.Run("the edit form shows the stored record as it was typed", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Click(chromedp.CSS(`[data-kit-edit][aria-label="Edit Desk lamp"]`)), chromedp.WaitVisible(chromedp.CSS("[data-kit-form=update] #kit-field-title")))
		p.waitFor("the record to load", `document.querySelector('#kit-field-title').value === 'Desk lamp'`)
		got := eval[map[string]any](p, `Object.fromEntries(['title', 'body', 'count', 'price', 'dueAt', 'tags-0', 'tags-1', 'categoryId'].map(k => [k, document.querySelector('#kit-field-' + k).value]))`)
		want := map[string]any{"title": "Desk lamp", "body": "Warm light\nfor the desk", "count": "12", "price": "19.90", "dueAt": "2026-03-15", "tags-0": "lighting", "tags-1": "42",
			"categoryId": w.ids["Garden"]}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("got the edit form showing %v, want %v", got, want)
		}
		var variant, dims any
		_ = json.Unmarshal([]byte(eval[string](p, `document.querySelector('#kit-field-variants-0').value`)), &variant)
		_ = json.Unmarshal([]byte(eval[string](p, `document.querySelector('#kit-field-dimensions').value`)), &dims)
		if !reflect.DeepEqual(variant, map[string]any{"size": "XL"}) || !reflect.DeepEqual(dims, map[string]any{"heightCm": float64(40), "note": "tall"}) {
			t.Errorf("got variant %v and dimensions %v, want the stored values", variant, dims)
		}
		if !eval[bool](p, `document.querySelector('#kit-field-isDone').checked`) {
			t.Error("got Done unchecked, want checked")
		}
		p.checkAccessibility("the edit form of every field type")
		p.do(chromedp.Click(chromedp.CSS("[data-kit-cancel]")), chromedp.WaitNotPresent(chromedp.CSS("[data-kit-form]")))
	})
}

// normalize turns JSON numbers of a stored record into float64, as the
// test's wanted values are written.
func normalize(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return v
	}
	return out
}

// list returns acme's records of a collection, newest first.
func (w *world) list(t *testing.T, key string) []map[string]any {
	t.Helper()
	page, err := w.k.Records(key).List(t.Context(), w.alice, map[string][]string{"sort": {"-createdAt"}, "pageSize": {"100"}})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]map[string]any, len(page.Items))
	copy(out, page.Items)
	return out
}

// count is the number of acme's records of a collection.
func (w *world) count(t *testing.T, key string) int {
	t.Helper()
	return len(w.list(t, key))
}
