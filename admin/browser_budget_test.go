package admin_test

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// firstPageBudget is the most gzipped JavaScript the first page (the
// sign-in page) may load, in bytes: 250 kB.
const firstPageBudget = 250_000

// loadedScripts returns the JavaScript files of the build the page has
// loaded so far (the entry, its preloads and the chunks of the pages
// shown), as paths under dist.
func (p *tab) loadedScripts() []string {
	p.t.Helper()
	urls := eval[[]string](p, `[...new Set(performance.getEntriesByType('resource').map(e => new URL(e.name).pathname).filter(u => u.endsWith('.js')))]`)
	var out []string
	for _, u := range urls {
		i := strings.Index(u, "/assets/")
		if i < 0 {
			p.t.Fatalf("got a script %s outside the build's assets", u)
		}
		out = append(out, filepath.Join("dist", filepath.FromSlash(u[i+1:])))
	}
	return out
}

// gzippedSize is the size of the files gzipped one by one at the default
// level (as a server compresses them, and as Vite reports them).
func gzippedSize(t *testing.T, files []string) int {
	t.Helper()
	total := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatalf("read %s: %v", f, err)
		}
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		_, _ = zw.Write(raw)
		_ = zw.Close()
		total += buf.Len()
	}
	return total
}

func TestBrowserFirstPageJavaScriptBudget(t *testing.T) {
	w := newWorld(t)
	p := newTab(t, w)

	t.Run("the sign-in page loads at most 250 kB of gzipped JavaScript", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Navigate(w.srv.URL+"/admin/"), chromedp.WaitVisible(chromedp.CSS("#email")))
		scripts := p.loadedScripts()
		size := gzippedSize(t, scripts)
		t.Logf("the sign-in page loads %d scripts, %.1f kB gzipped (budget %d kB)", len(scripts), float64(size)/1000, firstPageBudget/1000)
		if len(scripts) == 0 {
			t.Fatal("got no scripts loaded, want the app's")
		}
		if size > firstPageBudget {
			t.Errorf("got %d bytes of gzipped JavaScript on the first page, want at most %d", size, firstPageBudget)
		}
	})

	t.Run("a collection's page after signing in is measured too", func(t *testing.T) {
		p.step(t)
		p.do(
			chromedp.SendKeys(chromedp.CSS("#email"), w.email),
			chromedp.SendKeys(chromedp.CSS("#password"), w.password),
			chromedp.Click(chromedp.CSS("button[type=submit]")),
		)
		p.waitText("[data-kit-summary]", "of 25 results")
		scripts := p.loadedScripts()
		t.Logf("with a collection's page: %d scripts, %.1f kB gzipped", len(scripts), float64(gzippedSize(t, scripts))/1000)
	})
}
