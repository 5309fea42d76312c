package admin_test

import (
	"context"
	"regexp"
	"slices"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// preferLanguage makes the tab's browser prefer lang (navigator.languages
// and Accept-Language) and format for it by default (Intl), as a browser
// set up in that language does.
func (p *tab) preferLanguage(lang string) {
	p.t.Helper()
	ua := eval[string](p, "navigator.userAgent")
	p.do(chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		if _, err := cdp.Call(ctx, tg, emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{UserAgent: ua, AcceptLanguage: lang}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, tg, emulation.SetLocaleOverride, emulation.SetLocaleOverrideParams{Locale: lang})
		return err
	}))
}

func TestBrowserGerman(t *testing.T) {
	w := newWorld(t)
	p := newTab(t, w)
	p.preferLanguage("de-DE")

	t.Run("a browser that prefers German shows the sign-in page in German", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Navigate(w.srv.URL+"/admin/"), chromedp.WaitVisible(chromedp.CSS("#email")))
		p.waitText("h1", "Bei kit anmelden")
		if got := eval[[]string](p, `[document.documentElement.lang, document.querySelector('label[for=password]').innerText, document.querySelector('button[type=submit]').innerText, document.querySelector('[data-test=locale]').value]`); !slices.Equal(got, []string{"de", "Passwort", "Anmelden", "de"}) {
			t.Errorf("got [html lang, password label, submit, switch] %q, want German", got)
		}
		p.do(
			chromedp.SendKeys(chromedp.CSS("#email"), w.email),
			chromedp.SendKeys(chromedp.CSS("#password"), "not the password"),
			chromedp.Click(chromedp.CSS("button[type=submit]")),
		)
		p.waitText("[data-test=signin-error]", "E-Mail oder Passwort ist falsch.")
		p.checkAccessibility("the German sign-in page")
	})

	t.Run("the collection page speaks German, with numbers and dates in German", func(t *testing.T) {
		p.step(t)
		p.do(
			chromedp.Navigate(w.srv.URL+"/admin/teams/acme/collections/shopProducts"),
			chromedp.WaitVisible(chromedp.CSS("#email")),
			chromedp.SendKeys(chromedp.CSS("#email"), w.email),
			chromedp.SendKeys(chromedp.CSS("#password"), w.password),
			chromedp.Click(chromedp.CSS("button[type=submit]")),
			chromedp.WaitVisible(chromedp.CSS("[data-test=me-name]")),
		)
		p.waitText("[data-kit-summary]", "1 bis 10 von 25 Ergebnissen")
		got := eval[[]string](p, `[
			document.querySelector('nav[aria-label=Sammlungen] [data-test=nav-activity]')?.innerText.trim() ?? '',
			document.querySelector('[data-test=sign-out]').innerText,
			document.querySelector('[data-kit-create] .md\\:inline').innerText.trim(),
			document.querySelector('th[data-kit-column=createdAt]').innerText.replace(/[▲▼↕]/g, '').trim(),
			document.querySelector('[data-kit-row] [data-kit-edit]').innerText.trim(),
			document.querySelector('[data-kit-row] [data-kit-cell=price]').innerText.trim(),
		]`)
		want := []string{"Aktivität", "Abmelden", "Product anlegen", "Angelegt", "Bearbeiten", "30,00"}
		if !slices.Equal(got, want) {
			t.Errorf("got [sidebar activity, sign out, create, created column, edit, Lamp C's price] %q, want %q", got, want)
		}
		// de-DE's medium date: 28.11.2026, 10:20.
		if date := eval[string](p, `document.querySelector('[data-kit-row] [data-kit-cell=createdAt]').innerText.trim()`); !regexp.MustCompile(`^\d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}$`).MatchString(date) {
			t.Errorf("got the created date %q, want de-DE's dd.mm.yyyy, hh:mm", date)
		}
		p.checkAccessibility("the German products list")
	})

	t.Run("a form and its messages are German", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Click(chromedp.CSS("[data-kit-create]")), chromedp.WaitVisible(chromedp.CSS("#kit-field-price")))
		p.do(chromedp.SendKeys(chromedp.CSS("#kit-field-price"), "1.234"), chromedp.Click(chromedp.CSS("[data-kit-submit]")))
		p.waitText("[data-kit-field=price] [data-kit-error]", "Price darf höchstens 2 Stellen nach dem Dezimalpunkt haben.")
		got := eval[[]string](p, `[document.querySelector('[role=dialog] h2').innerText, document.querySelector('[data-kit-submit]').innerText.trim(), document.querySelector('[data-kit-cancel]').innerText.trim()]`)
		if want := []string{"Product anlegen", "Anlegen", "Abbrechen"}; !slices.Equal(got, want) {
			t.Errorf("got [title, submit, cancel] %q, want %q", got, want)
		}
		if got := w.productCount(t); got != 25 {
			t.Errorf("got %d products, want 25 (nothing written)", got)
		}
		p.checkAccessibility("the German create form")
		p.do(chromedp.Click(chromedp.CSS("[data-kit-cancel]")), chromedp.WaitNotPresent(chromedp.CSS("[data-kit-form]")))
	})

	t.Run("the activity page is German", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Click(chromedp.CSS("[data-test=nav-activity]")))
		p.waitText("[data-test=activity] h1", "Aktivität")
		p.waitText("[data-kit-event]", "angelegt")
		got := eval[[]string](p, `[document.querySelector('[data-kit-activity-filters]').getAttribute('aria-label'), document.querySelector('[data-kit-filter=operation] option').innerText, document.querySelector('[data-kit-day] h2').innerText]`)
		if want := []string{"Aktivität filtern", "Alle Vorgänge", "HEUTE"}; !slices.Equal(got, want) {
			t.Errorf("got [filter label, first operation, day] %q, want %q", got, want)
		}
		p.checkAccessibility("the German activity page")
	})

	t.Run("the switch turns the app English, and the choice outlives a reload", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.SetValue(chromedp.CSS("[data-test=locale]"), "en"), chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-test=locale]').dispatchEvent(new Event('change'))`))
		p.waitText("[data-test=activity] h1", "Activity")
		p.do(chromedp.Reload())
		p.waitText("[data-test=activity] h1", "Activity")
		if got := eval[[]string](p, `[document.documentElement.lang, document.querySelector('[data-test=sign-out]').innerText]`); !slices.Equal(got, []string{"en", "Sign out"}) {
			t.Errorf("got [html lang, sign out] %q after a reload, want English", got)
		}
	})
}
