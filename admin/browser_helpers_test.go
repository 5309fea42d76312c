package admin_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/chromedp"
	"github.com/collectionkit/kit/admin"
	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/events"
	"github.com/collectionkit/kit/external"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/kittest"
	"github.com/collectionkit/kit/teamauth"
)

// The browser tests drive Debian's Chromium, headless, against a real kit
// server (httptest, accounts, the events add-on and admin.Handler) seeded
// by each test. One browser serves the package; each test has its own tab
// and its own Kit on a fresh in-memory SQLite database. Each test saves a
// screenshot of its last page under testdata/out (ignored by git). Without
// Chromium they skip, saying so.

// browser is the one Chromium of the package, started by the first test
// that needs it and stopped by TestMain.
var browser struct {
	once   sync.Once
	ctx    context.Context
	stop   func()
	reason string // why the browser tests skip, when they do
}

func TestMain(m *testing.M) {
	code := m.Run()
	if browser.stop != nil {
		browser.stop()
	}
	os.Exit(code)
}

// chromiumPath finds Chromium: $KIT_CHROMIUM, else chromium (Debian's
// package), chromium-browser or google-chrome on the PATH.
func chromiumPath() string {
	if p := os.Getenv("KIT_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "/usr/bin/chromium"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

func startBrowser() {
	path := chromiumPath()
	if path == "" {
		browser.reason = "Chromium is not installed: skipping the admin app's browser tests (apt-get install chromium, or set KIT_CHROMIUM)"
		return
	}
	dir, err := os.MkdirTemp("", "kit-admin-chromium-")
	if err != nil {
		browser.reason = fmt.Sprintf("no user data dir for Chromium: %v", err)
		return
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.UserDataDir(dir),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		// English, whatever the machine's locale: the flows read the
		// admin's English words (the German flow asks for German itself).
		chromedp.Flag("lang", "en-US"),
		chromedp.WindowSize(1280, 900),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	browser.stop = func() {
		cancel()
		cancelAlloc()
		os.RemoveAll(dir)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		browser.reason = fmt.Sprintf("Chromium (%s) did not start: %v", path, err)
		return
	}
	browser.ctx = ctx
}

// schemas of the test world: products (paginated, restful, in a
// slideover), categories (a tree, in a modal), tasks (sortable, their
// deletes kept in the trash) and notes (a workspace, hidden from the
// sidebar), samples (a field of every type) and media (kind media).
var schemas = fstest.MapFS{
	"shop/products.json": {Data: []byte(`{
		"title": {"type": "string", "meta": {"required": true, "label": "Title"}},
		"sku": {"type": "string", "meta": {"label": "SKU", "unique": true}},
		"price": {"type": "decimal", "meta": {"required": true, "label": "Price", "precision": 10, "scale": 2}},
		"stock": {"type": "number", "meta": {"label": "Stock"}},
		"isActive": {"type": "boolean", "meta": {"label": "Active"}},
		"categoryId": {"type": "string", "refTarget": "categories", "meta": {"label": "Category"}}
	}`)},
	"shop/categories.json": {Data: []byte(`{"title": {"type": "string", "meta": {"required": true, "label": "Title"}}}`)},
	"work/tasks.json":      {Data: []byte(`{"title": {"type": "string", "meta": {"required": true, "label": "Title"}}}`)},
	// notes are a workspace: the list with the selected note beside it.
	"work/notes.json": {Data: []byte(`{
		"title": {"type": "string", "meta": {"required": true, "label": "Title"}},
		"body": {"type": "text", "meta": {"label": "Body"}},
		"pinned": {"type": "boolean", "meta": {"label": "Pinned"}}
	}`)},
	// samples has a field of every type, for the flow that types into each.
	"work/samples.json": {Data: []byte(`{
		"title": {"type": "string", "meta": {"required": true, "label": "Title"}},
		"body": {"type": "text", "meta": {"label": "Body"}},
		"count": {"type": "number", "meta": {"label": "Count", "integer": true}},
		"price": {"type": "decimal", "meta": {"label": "Price", "precision": 8, "scale": 2}},
		"isDone": {"type": "boolean", "meta": {"label": "Done"}},
		"dueAt": {"type": "date", "meta": {"label": "Due"}},
		"dimensions": {"type": "json", "meta": {"label": "Dimensions"}},
		"variants": {"type": "repeater", "meta": {"label": "Variants"}},
		"tags": {"type": "array", "meta": {"label": "Tags"}},
		"photo": {"type": "image", "meta": {"label": "Photo", "thumbs": ["40x40"]}},
		"manual": {"type": "file", "meta": {"label": "Manual", "maxSize": 1024}},
		"categoryId": {"type": "string", "refTarget": "categories", "meta": {"label": "Category"}}
	}`)},
	// media is a media collection: a grid of previews of its photos, with a list of attachments.
	"work/media.json": {Data: []byte(`{
		"title": {"type": "string", "meta": {"required": true, "label": "Title"}},
		"photo": {"type": "image", "meta": {"label": "Photo", "thumbs": ["60x60"]}},
		"attachments": {"type": "file", "meta": {"label": "Attachments", "multiple": true, "maxFiles": 5}}
	}`)},
	"kit.config.json": {Data: []byte(`{
		"shopProducts": {"fetchStrategy": "restful", "adminNav": {"icon": "i-lucide-package", "label": "Catalogue", "order": 1},
			"defaultPagination": {"pageSize": 10, "sortBy": "createdAt", "sortDirection": "desc"}},
		"shopCategories": {"hierarchy": {"enabled": true}, "container": "modal", "adminNav": {"icon": "i-lucide-folder-tree", "order": 2}},
		"workTasks": {"sortable": {"enabled": true}, "softDelete": true, "adminNav": {"icon": "i-lucide-list", "order": 3}},
		"workNotes": {"layout": "workspace", "adminNav": {"enabled": false}},
		"workSamples": {"adminNav": {"enabled": false}},
		"workMedia": {"kind": "media", "adminNav": {"enabled": false}}
	}`)},
}

// world is a kit server with the admin app, seeded: team acme (Alice
// owner) with 25 products (22 widgets, 3 lamps), a category tree and four
// tasks; team globex (Alice admin) with two products of its own.
type world struct {
	k        *kit.Kit
	srv      *httptest.Server
	email    string
	password string
	alice    kit.Actor // Alice in acme
	ids      map[string]string
	searches *searchLog
}

// searchLog records the search terms of product list requests.
type searchLog struct {
	mu    sync.Mutex
	terms []string
}

func (l *searchLog) add(term string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.terms = append(l.terms, term)
}

func (l *searchLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.terms...)
}

func newWorld(t *testing.T) *world {
	t.Helper()
	return newWorldWith(t, nil)
}

// newWorldWith is newWorld with the Kit's config changed by tweak first
// (when not nil).
func newWorldWith(t *testing.T, tweak func(*kit.Config)) *world {
	t.Helper()
	ctx := t.Context()
	suppliers, err := external.DefineExternalCollection(external.Config{
		Name:   "suppliers",
		Schema: json.RawMessage(`{"properties": {"country": {"type": "string"}}}`),
		Handler: external.CreateExternalCollectionHandler(func(*http.Request) ([]external.Item, error) {
			return []external.Item{{"id": "s1", "title": "Anvils Inc", "country": "US"}, {"id": "s2", "title": "Rockets Ltd", "country": "UK"}}, nil
		}, func(i external.Item) (external.Item, error) { return i, nil }),
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg := kit.Config{Schemas: schemas, Definitions: []collections.Definition{suppliers.Definition()},
		Files: kit.FilesConfig{Dir: filepath.Join(t.TempDir(), "kit-files")}}
	if tweak != nil {
		tweak(&cfg)
	}
	k := kittest.NewKit(t, cfg)
	external.MustRegister(ctx, k, suppliers)
	if _, err := events.Install(ctx, k, events.Config{}); err != nil {
		t.Fatalf("install events: %v", err)
	}
	acc := k.Accounts()
	w := &world{k: k, email: "alice@acme.example", password: "correct horse battery", ids: map[string]string{}, searches: &searchLog{}}
	alice, err := acc.CreateUser(ctx, teamauth.User{Name: "Alice", Email: w.email})
	if err != nil {
		t.Fatal(err)
	}
	if err := acc.SetPassword(ctx, alice.ID, w.password); err != nil {
		t.Fatal(err)
	}
	acme, err := acc.CreateTeam(ctx, teamauth.Team{Name: "Acme", Slug: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	globex, err := acc.CreateTeam(ctx, teamauth.Team{Name: "Globex", Slug: "globex"})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []struct {
		team *teamauth.Team
		role teamauth.Role
	}{{acme, teamauth.RoleOwner}, {globex, teamauth.RoleAdmin}} {
		if _, err := acc.AddMember(ctx, m.team.ID, alice.ID, m.role); err != nil {
			t.Fatal(err)
		}
	}
	w.alice = kit.Actor{UserID: alice.ID, TeamID: acme.ID, Role: teamauth.RoleOwner}
	atGlobex := kit.Actor{UserID: alice.ID, TeamID: globex.ID, Role: teamauth.RoleAdmin}

	for i := 1; i <= 22; i++ {
		w.create(t, w.alice, "shopProducts", fmt.Sprintf("Widget %02d", i), kit.Record{"price": fmt.Sprintf("%d.00", i), "stock": i})
	}
	for _, name := range []string{"Lamp A", "Lamp B", "Lamp C"} {
		w.create(t, w.alice, "shopProducts", name, kit.Record{"price": "30.00"})
	}
	for _, name := range []string{"Globex Gadget", "Globex Gizmo"} {
		w.create(t, atGlobex, "shopProducts", name, kit.Record{"price": "5.00"})
	}
	w.create(t, w.alice, "shopCategories", "Tools", nil)
	w.create(t, w.alice, "shopCategories", "Hammers", kit.Record{"parentId": w.ids["Tools"]})
	w.create(t, w.alice, "shopCategories", "Garden", nil)
	for _, name := range []string{"Task 1", "Task 2", "Task 3", "Task 4"} {
		w.create(t, w.alice, "workTasks", name, nil)
	}

	api := k.Handler()
	mux := http.NewServeMux()
	mux.Handle(k.Config().Prefix+"/", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/shop-products") {
			w.searches.add(r.URL.Query().Get("search"))
		}
		api.ServeHTTP(rw, r)
	}))
	mux.Handle("/admin/", http.StripPrefix("/admin", admin.Handler(k)))
	w.srv = httptest.NewServer(mux)
	t.Cleanup(w.srv.Close)
	return w
}

// create makes a record titled title (with more fields) as a and keeps its
// id under the title.
func (w *world) create(t *testing.T, a kit.Actor, key, title string, more kit.Record) kit.Record {
	t.Helper()
	data := kit.Record{"title": title}
	for k, v := range more {
		data[k] = v
	}
	rec, err := w.k.Records(key).Create(t.Context(), a, data)
	if err != nil {
		t.Fatalf("seed %s %q: %v", key, title, err)
	}
	w.ids[title] = rec["id"].(string)
	return rec
}

// titles lists the titles of a collection of acme, in the order of sort.
func (w *world) titles(t *testing.T, key, sort string) []string {
	t.Helper()
	list, err := w.k.Records(key).List(t.Context(), w.alice, url.Values{"sort": {sort}, "pageSize": {"100"}})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range list.Items {
		out = append(out, fmt.Sprint(r["title"]))
	}
	return out
}

// tab is one browser tab of a test, on a world.
type tab struct {
	t   *testing.T
	ctx context.Context
	w   *world
	vp  viewport // the viewport the test set
	// who names the tab's user in its screenshots when a test drives
	// several sessions ("" for Alice's).
	who string
}

// desktop is the viewport a tab starts with.
var desktop = viewport{1280, 900, false}

// viewport is an emulated screen: its size, and whether it is a phone's.
type viewport struct {
	width, height int64
	mobile        bool
}

// action emulates v.
func (v viewport) action() chromedp.Action[chromedp.Void] {
	if v.mobile {
		return chromedp.EmulateViewport(v.width, v.height, chromedp.EmulateMobile)
	}
	return chromedp.EmulateViewport(v.width, v.height)
}

// setViewport emulates a screen of width x height (mobile: a phone's)
// for the rest of the test; 0, 0 goes back to the desktop the tab started with.
func (p *tab) setViewport(width, height int64, mobile bool) {
	p.t.Helper()
	p.vp = viewport{width, height, mobile}
	if width == 0 {
		p.vp = desktop
	}
	p.do(p.vp.action())
}

// The screens every step is shown on: a laptop's and a phone's.
var shotViewports = []viewport{{1440, 900, false}, {390, 844, true}}

// newTab opens a tab (skipping the test without Chromium); when the test
// ends it saves a screenshot to testdata/out/<test>.png and closes the tab.
// With chromedp.WithNewBrowserContext() the tab has cookies of its own: a
// second user's session.
func newTab(t *testing.T, w *world, opts ...chromedp.ContextOption) *tab {
	t.Helper()
	browser.once.Do(startBrowser)
	if browser.ctx == nil {
		t.Skip(browser.reason)
	}
	ctx, cancel := chromedp.NewContext(browser.ctx, opts...)
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank"), desktop.action()); err != nil {
		cancel()
		t.Fatalf("open a tab: %v", err)
	}
	p := &tab{t: t, ctx: ctx, w: w, vp: desktop}
	watchPolicyViolations(t, ctx)
	t.Cleanup(func() {
		p.screenshot()
		cancel()
	})
	return p
}

// watchPolicyViolations fails t when the page of ctx reports a Content
// Security Policy violation (Chromium logs each one to the console as a
// "Content Security Policy" error): every flow then also proves that the
// admin runs under its policy.
func watchPolicyViolations(t *testing.T, ctx context.Context) {
	var mu sync.Mutex
	var violations []string
	err := chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*cdplog.EventEntryAdded); ok && strings.Contains(e.Entry.Text, "Content Security Policy") {
			mu.Lock()
			violations = append(violations, e.Entry.Text)
			mu.Unlock()
		}
	})
	if err == nil {
		_, err = chromedp.Call(ctx, cdplog.Enable, cdp.Empty{})
	}
	if err != nil {
		t.Fatalf("watch the console log: %v", err)
	}
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, v := range violations {
			t.Errorf("got a Content Security Policy violation, want none: %s", v)
		}
	})
}

// step makes t (a subtest) the tab's test: failures go to it and a
// screenshot of the page is saved when it ends.
func (p *tab) step(t *testing.T) {
	p.t = t
	t.Cleanup(p.screenshot)
}

// do runs actions, failing the test (with the page's text) when one fails
// or they take over 30 s.
func (p *tab) do(actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		p.t.Fatalf("browser: %v\npage %s:\n%s", err, p.location(), p.bodyText())
	}
}

// eval evaluates a JavaScript expression and decodes its value into T.
func eval[T any](p *tab, expr string) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		p.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

func (p *tab) location() string {
	ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
	defer cancel()
	u, _ := chromedp.Run(ctx, chromedp.Evaluate[string]("location.href"))
	return u
}

// path is the page's location without its query string.
func (p *tab) path() string {
	p.t.Helper()
	return eval[string](p, "location.pathname")
}

func (p *tab) bodyText() string {
	ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
	defer cancel()
	s, _ := chromedp.Run(ctx, chromedp.Evaluate[string]("document.body ? document.body.innerText : ''"))
	return s
}

// waitFor polls a JavaScript predicate until it is true (30 s at most).
func (p *tab) waitFor(what, predicate string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 30*time.Second)
	defer cancel()
	for {
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](predicate))
		if err == nil {
			return
		}
		// A document replaced while the predicate was polled (a navigation
		// still settling) takes its execution context along: poll the new
		// one until the deadline.
		if strings.Contains(err.Error(), "Cannot find context with specified id") && ctx.Err() == nil {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		p.t.Fatalf("waiting for %s: %v\npage %s:\n%s", what, err, p.location(), p.bodyText())
	}
}

// waitText waits until the element of css contains text.
func (p *tab) waitText(css, text string) {
	p.t.Helper()
	p.waitFor(fmt.Sprintf("%q in %s", text, css), fmt.Sprintf(`(document.querySelector(%s)?.innerText ?? '').includes(%s)`, jsString(css), jsString(text)))
}

// confirmDelete presses Delete in the open delete confirmation and waits
// for the form to close. The button stays disabled while the form reads
// the records' titles, and a click before that does nothing, as for a
// person: so it waits for the button to be enabled first.
func (p *tab) confirmDelete() {
	p.t.Helper()
	submit := chromedp.CSS("[data-kit-form=delete] [data-kit-submit]")
	p.do(chromedp.WaitEnabled(submit), chromedp.Click(submit), chromedp.WaitNotPresent(chromedp.CSS("[data-kit-form]")))
}

// rowTitles returns the title cells of the table, top to bottom.
func (p *tab) rowTitles() []string {
	p.t.Helper()
	return eval[[]string](p, `[...document.querySelectorAll('[data-kit-row] [data-kit-cell=title]')].map(td => td.innerText.trim())`)
}

// waitRows waits until the table shows exactly want (titles, in order).
func (p *tab) waitRows(want ...string) {
	p.t.Helper()
	b, _ := json.Marshal(want)
	p.waitFor(fmt.Sprintf("the rows %v", want), fmt.Sprintf(
		`JSON.stringify([...document.querySelectorAll('[data-kit-row] [data-kit-cell=title]')].map(td => td.innerText.trim())) === %s`, jsString(string(b))))
}

// signIn opens the app at path (below /admin) and signs in as Alice.
func (p *tab) signIn(path string) {
	p.t.Helper()
	p.signInAs(path, p.w.email, p.w.password)
}

// signInAs opens the app at path (below /admin) and signs in with email
// and password.
func (p *tab) signInAs(path, email, password string) {
	p.t.Helper()
	p.do(
		chromedp.Navigate(p.w.srv.URL+"/admin"+path),
		chromedp.WaitVisible(chromedp.CSS("#email")),
		chromedp.SendKeys(chromedp.CSS("#email"), email),
		chromedp.SendKeys(chromedp.CSS("#password"), password),
		chromedp.Click(chromedp.CSS("button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS("[data-test=me-name]")),
	)
	// The collections arrive after the user: until then the sidebar's
	// entries, and Sign out below them, are not where they will be, and a
	// click would land on whatever moves under it. A team's sidebar must say
	// aria-busy="false" (a sidebar that drops the attribute fails here);
	// a page without a team has no entries to wait for.
	p.waitFor("the sidebar's collections", `!document.querySelector('#sidebar nav') || !!document.querySelector('#sidebar nav[aria-busy=false]')`)
}

// outDir is where the screenshots go: testdata/out, ignored by git.
const outDir = "testdata/out"

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// screenshot saves the page as testdata/out/<test name>[_<who>]_1440x900.png
// and _390x844.png (a phone's screen), then puts back the test's viewport.
func (p *tab) screenshot() {
	ctx, cancel := context.WithTimeout(p.ctx, 30*time.Second)
	defer cancel()
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		p.t.Logf("screenshot: %v", err)
		return
	}
	// settle waits two frames and a little more, for the layout of the new size.
	settle := chromedp.Evaluate[chromedp.Void](`new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 150))))`, chromedp.EvalAwaitPromise)
	defer func() {
		if err := chromedp.Do(ctx, p.vp.action(), settle); err != nil {
			p.t.Logf("screenshot: put back the viewport: %v", err)
		}
	}()
	for _, v := range shotViewports {
		err := chromedp.Do(ctx, v.action(), settle)
		var png []byte
		if err == nil {
			png, err = chromedp.Run(ctx, chromedp.CaptureScreenshot())
		}
		if err != nil {
			p.t.Logf("screenshot at %dx%d: %v", v.width, v.height, err)
			return
		}
		who := ""
		if p.who != "" {
			who = "_" + p.who
		}
		name := filepath.Join(outDir, fmt.Sprintf("%s%s_%dx%d.png", unsafeName.ReplaceAllString(p.t.Name(), "_"), who, v.width, v.height))
		if err := os.WriteFile(name, png, 0o644); err != nil {
			p.t.Logf("screenshot: %v", err)
			return
		}
		p.t.Logf("screenshot: %s", name)
	}
}

// axeSource is axe-core's browser build, installed by npm ci in web/.
const axeSource = "../web/node_modules/axe-core/axe.min.js"

// checkAccessibility runs axe-core on the page and fails the test for each
// serious or critical violation. Without axe-core installed it says so and
// checks nothing.
func (p *tab) checkAccessibility(page string) {
	p.t.Helper()
	src, err := os.ReadFile(axeSource)
	if err != nil {
		p.t.Logf("axe-core is not installed (%v): run npm ci in web/ to check %s for accessibility", err, page)
		return
	}
	if !eval[bool](p, `typeof window.axe === 'object'`) {
		p.do(chromedp.Evaluate[chromedp.Void](string(src)))
	}
	found := eval[[]string](p, `axe.run(document, {resultTypes: ['violations']}).then(r => r.violations
		.filter(v => v.impact === 'serious' || v.impact === 'critical')
		.map(v => v.impact + ' ' + v.id + ': ' + v.help + ' at ' + v.nodes.map(n => n.target.join(' ')).join(', ')))`)
	for _, v := range found {
		p.t.Errorf("axe-core on %s: %s", page, v)
	}
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
