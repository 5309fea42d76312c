package admin_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// TestBrowserBackups: a super-admin's Backups page makes a backup with
// Back up now, lists it with its size and time, and downloads the
// archive as stored. A user who is no super-admin has no Backups link.
func TestBrowserBackups(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "backups")
	w := newWorldWith(t, func(cfg *kit.Config) {
		cfg.SQLitePath = filepath.Join(dir, "kit.db")
		cfg.Backups = kit.BackupConfig{Dir: store, Interval: -1}
	})
	p := newTab(t, w)

	t.Run("a user who is no super-admin has no Backups link", func(t *testing.T) {
		p.step(t)
		p.signIn("/teams/acme/collections/shopProducts")
		if n := eval[int](p, `document.querySelectorAll('[data-test=nav-backups]').length`); n != 0 {
			t.Errorf("got %d Backups links, want none", n)
		}
		p.do(chromedp.Click(chromedp.CSS("[data-test=sign-out]")), chromedp.WaitVisible(chromedp.CSS("#email")))
	})

	admin := "admin"
	if _, err := w.k.Accounts().UpdateUser(t.Context(), w.alice.UserID, teamauth.UserPatch{Role: &admin}); err != nil {
		t.Fatal(err)
	}
	downloads := t.TempDir()
	yes := true
	if _, err := chromedp.CallBrowser(p.ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
		Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllow, DownloadPath: downloads, EventsEnabled: &yes,
	}); err != nil {
		t.Fatalf("allow downloads: %v", err)
	}
	var name string

	t.Run("Back up now makes a backup and lists it", func(t *testing.T) {
		p.step(t)
		p.signIn("/teams/acme/collections/shopProducts")
		p.do(chromedp.Click(chromedp.CSS("[data-test=nav-backups]")))
		p.waitFor("the empty list", `!!document.querySelector('[data-test=backups-empty]')`)
		p.do(chromedp.Click(chromedp.CSS("[data-test=backup-now]")))
		p.waitText("[data-test=toasts]", "made.")
		p.waitFor("the backup in the list", `document.querySelectorAll('[data-test=backup-name]').length === 1`)
		name = eval[string](p, `document.querySelector('[data-test=backup-name]').innerText.trim()`)
		entries, _ := os.ReadDir(store)
		if len(entries) != 1 || entries[0].Name() != name {
			t.Fatalf("got the store %v, want the one backup %q", entries, name)
		}
		if size := eval[string](p, `document.querySelector('[data-test=backup-size]').innerText`); !strings.Contains(size, "kB") && !strings.Contains(size, "MB") {
			t.Errorf("got the size %q, want it in kB or MB", size)
		}
		p.checkAccessibility("the backups")
	})

	t.Run("Download saves the archive as stored", func(t *testing.T) {
		p.step(t)
		p.do(chromedp.Click(chromedp.CSS("[data-test=backup-download]")))
		want, err := os.ReadFile(filepath.Join(store, name))
		if err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			got, err := os.ReadFile(filepath.Join(downloads, name))
			if err == nil && bytes.Equal(got, want) {
				return
			}
			if time.Now().After(deadline) {
				entries, _ := os.ReadDir(downloads)
				t.Fatalf("got no whole %s after 30 s (the folder holds %v), want the %d bytes stored", name, entries, len(want))
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
}
