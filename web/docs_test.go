package web

import (
	"context"
	"fmt"
	"html"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
)

// TestDocsSite builds the documentation site (VitePress over ../docs, npm
// run docs:build) into a temporary folder and checks every link of every
// page and of ../README.md: a page or file it names must exist, and so
// must the heading or element its fragment names. VitePress itself fails
// the build on a link to a missing page. Links to the repository on
// GitHub (https://github.com/collectionkit/kit/blob/main/...) must name a
// file or folder of this checkout; other external links are not fetched.
// It skips, saying so, without Node.js, or with -short.
func TestDocsSite(t *testing.T) {
	requireNode(t)
	if testing.Short() {
		t.Skip("-short: skipping the documentation site build (VitePress)")
	}
	consultSources(t)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	installDependencies(ctx, t)
	out := t.TempDir()
	start := time.Now()
	if log, err := npm(ctx, "run", "docs:build", "--", "--outDir", out); err != nil {
		t.Fatalf("npm run docs:build: %v\n%s", err, log)
	}
	t.Logf("built the site in %s", time.Since(start).Round(100*time.Millisecond))

	site, err := readSite(out)
	if err != nil {
		t.Fatal(err)
	}
	problems := site.check("..")
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	problems = append(problems, site.checkMarkdown("..", "README.md", string(readme))...)
	for _, p := range problems {
		t.Error(p)
	}
	links := 0
	for _, pg := range site.pages {
		links += len(pg.links)
	}
	t.Logf("checked %d links of %d pages and the README", links, len(site.pages))
	if len(site.pages) < 15 {
		t.Errorf("got %d pages, want every page of docs/", len(site.pages))
	}
}

// repoURL is how the pages link to files of the repository.
const repoURL = "https://github.com/collectionkit/kit/"

// site is a built documentation site: for each page (its path under the
// site's root, "schemas.html"), the ids of its elements and the links of
// its content.
type site struct {
	pages map[string]*page
}

type page struct {
	ids   map[string]bool
	links []string
}

var (
	idAttr   = regexp.MustCompile(`\sid="([^"]*)"`)
	hrefAttr = regexp.MustCompile(`<a\s[^>]*?href="([^"]*)"`)
	// mainContent is the part of a VitePress page that the Markdown
	// source wrote: the theme's navigation is checked once, on its own.
	mainContent = regexp.MustCompile(`(?s)<main class="main">.*</main>`)
)

// readSite reads every HTML page under dir.
func readSite(dir string) (*site, error) {
	s := &site{pages: map[string]*page{}}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".html") {
			return err
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		pg := &page{ids: map[string]bool{}}
		for _, m := range idAttr.FindAllStringSubmatch(string(raw), -1) {
			pg.ids[html.UnescapeString(m[1])] = true
		}
		content := string(raw)
		if m := mainContent.FindString(content); m != "" {
			content = m
		}
		for _, m := range hrefAttr.FindAllStringSubmatch(content, -1) {
			pg.links = append(pg.links, html.UnescapeString(m[1]))
		}
		s.pages[filepath.ToSlash(rel)] = pg
		return nil
	})
	return s, err
}

// resolve names the page a site path leads to ("/schemas", "/schemas.html",
// "/decisions/", "/"), "" when none does.
func (s *site) resolve(p string) string {
	p = strings.TrimPrefix(p, "/")
	for _, c := range []string{p, p + ".html", strings.TrimSuffix(p, "/") + "/index.html", p + "index.html"} {
		if _, ok := s.pages[c]; ok {
			return c
		}
	}
	return ""
}

// check returns a sentence for every broken link of the site's pages;
// repo is the checkout the GitHub links are checked against.
func (s *site) check(repo string) []string {
	var problems []string
	names := make([]string, 0, len(s.pages))
	for n := range s.pages {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		if name == "404.html" {
			continue
		}
		for _, link := range s.pages[name].links {
			if why := s.checkSiteLink(repo, name, link); why != "" {
				problems = append(problems, fmt.Sprintf("docs site %s: link %q: %s", name, link, why))
			}
		}
	}
	return problems
}

// checkSiteLink says what is wrong with a link of the page from, "" when
// nothing is.
func (s *site) checkSiteLink(repo, from, link string) string {
	u, err := url.Parse(link)
	if err != nil {
		return err.Error()
	}
	switch {
	case u.Scheme == "mailto":
		return ""
	case u.Scheme != "" || u.Host != "":
		return checkRepoLink(repo, link)
	case u.Path == "" && u.Fragment == "":
		return ""
	}
	target := from
	if u.Path != "" {
		p := u.Path
		if !strings.HasPrefix(p, "/") {
			p = path.Join(path.Dir("/"+from), p)
		}
		if target = s.resolve(p); target == "" {
			return "no such page"
		}
	}
	if u.Fragment != "" && !s.pages[target].ids[u.Fragment] {
		return fmt.Sprintf("no element with id %q in %s", u.Fragment, target)
	}
	return ""
}

// checkRepoLink checks a link to this repository on GitHub against the
// checkout at repo; it accepts any other external link.
func checkRepoLink(repo, link string) string {
	rest, ok := strings.CutPrefix(link, repoURL)
	if !ok {
		return ""
	}
	rest, _, _ = strings.Cut(rest, "#")
	for _, kind := range []string{"blob/main/", "tree/main/"} {
		if p, ok := strings.CutPrefix(rest, kind); ok {
			if _, err := os.Stat(filepath.Join(repo, filepath.FromSlash(strings.TrimSuffix(p, "/")))); err != nil {
				return "no such file or folder in the repository"
			}
			return ""
		}
	}
	if rest == "" {
		return ""
	}
	return "a repository link must be " + repoURL + "blob/main/<path> or tree/main/<path>"
}

var (
	mdLink    = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)\)`)
	mdHeading = regexp.MustCompile(`(?m)^#{1,6}\s+(.+?)\s*#*\s*$`)
	fence     = regexp.MustCompile("(?ms)^```.*?^```")
	codeSpan  = regexp.MustCompile("`[^`\n]*`")
)

// checkMarkdown checks the links of a Markdown file outside the site (the
// README), named name under repo: a link into docs/ must name a built page
// and one of its ids, any other relative link a file or folder of the
// checkout, a fragment of the file itself one of its headings (as GitHub
// makes their ids).
func (s *site) checkMarkdown(repo, name, text string) []string {
	var problems []string
	body := codeSpan.ReplaceAllString(fence.ReplaceAllString(text, ""), "")
	own := map[string]bool{}
	for _, m := range mdHeading.FindAllStringSubmatch(fence.ReplaceAllString(text, ""), -1) {
		own[githubSlug(m[1])] = true
	}
	for _, m := range mdLink.FindAllStringSubmatch(body, -1) {
		link := m[1]
		if why := s.checkMarkdownLink(repo, name, link, own); why != "" {
			problems = append(problems, fmt.Sprintf("%s: link %q: %s", name, link, why))
		}
	}
	return problems
}

func (s *site) checkMarkdownLink(repo, from, link string, own map[string]bool) string {
	u, err := url.Parse(link)
	if err != nil {
		return err.Error()
	}
	if u.Scheme != "" || u.Host != "" {
		return checkRepoLink(repo, link)
	}
	if u.Path == "" {
		if !own[u.Fragment] {
			return "no such heading"
		}
		return ""
	}
	p := path.Join(path.Dir(from), u.Path)
	if _, err := os.Stat(filepath.Join(repo, filepath.FromSlash(p))); err != nil {
		return "no such file or folder"
	}
	if docPage, ok := strings.CutPrefix(p, "docs/"); ok && strings.HasSuffix(docPage, ".md") {
		target := s.resolve(strings.TrimSuffix(docPage, ".md"))
		if target == "" {
			return "not a page of the docs site"
		}
		if u.Fragment != "" && !s.pages[target].ids[u.Fragment] {
			return fmt.Sprintf("no heading with id %q in %s", u.Fragment, target)
		}
	} else if u.Fragment != "" {
		return "a fragment into a file that is not a page"
	}
	return ""
}

// githubSlug is the id GitHub gives a heading, as the site's slugify
// (docs/.vitepress/config.mts) makes it: lower case, every character but
// letters, marks, digits, connectors (_), hyphens and spaces dropped, each
// space a hyphen.
func githubSlug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsNumber(r) || unicode.Is(unicode.Pc, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestLinkCheck runs the link checks of TestDocsSite over a small site
// of three pages and over Markdown links, against this checkout.
func TestLinkCheck(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"index.html":              `<main class="main"><h1 id="kit">kit</h1><a href="#kit">x</a></main>`,
		"schemas.html":            `<main class="main"><h2 id="names">Names</h2></main>`,
		"decisions/0001-x.html":   `<main class="main"><h1 id="x">x</h1></main>`,
		"assets/not-a-page.txt":   `ignored`,
		"decisions/readme.unused": `ignored`,
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := readSite(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(s.pages); got != 3 {
		t.Fatalf("got %d pages, want 3", got)
	}
	for _, tc := range []struct {
		name, from, link, want string
	}{
		{"a page and a heading of it", "index.html", "/schemas#names", ""},
		{"a clean URL relative to a page in a folder", "decisions/0001-x.html", "../schemas#names", ""},
		{"a fragment of the page itself", "index.html", "#kit", ""},
		{"a missing heading", "index.html", "/schemas#nope", `no element with id "nope" in schemas.html`},
		{"a missing fragment of the page itself", "schemas.html", "#kit", `no element with id "kit" in schemas.html`},
		{"a missing page", "index.html", "/nope", "no such page"},
		{"a repository file", "index.html", repoURL + "blob/main/README.md", ""},
		{"a repository folder", "index.html", repoURL + "tree/main/examples/ratelimit", ""},
		{"a missing repository file", "index.html", repoURL + "blob/main/nope.go", "no such file or folder in the repository"},
		{"a repository link of another branch", "index.html", repoURL + "blob/v1/README.md", "a repository link must be " + repoURL + "blob/main/<path> or tree/main/<path>"},
		{"another site", "index.html", "https://example.com/x#y", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := s.checkSiteLink("..", tc.from, tc.link); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}

	readme := "# kit\n\n## Where to go next\n\n```\n[not a link](nope.md)\n```\n" +
		"[a](docs/schemas.md#names) [b](docs/schemas.md#nope) [c](docs/nope.md) [d](LICENSE) " +
		"[e](#where-to-go-next) [f](#nowhere) [g](LICENSE#x) [h](docs/decisions/)\n"
	got := s.checkMarkdown("..", "README.md", readme)
	want := []string{
		`README.md: link "docs/schemas.md#nope": no heading with id "nope" in schemas.html`,
		`README.md: link "docs/nope.md": no such file or folder`,
		`README.md: link "#nowhere": no such heading`,
		`README.md: link "LICENSE#x": a fragment into a file that is not a page`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestGitHubSlug(t *testing.T) {
	for heading, want := range map[string]string{
		"Where to go next":                                 "where-to-go-next",
		"SQLite's checkpoints and the baseline":            "sqlites-checkpoints-and-the-baseline",
		"What `totalItems` costs":                          "what-totalitems-costs",
		"Expensive lists: scan slots, 503 and Retry-After": "expensive-lists-scan-slots-503-and-retry-after",
		"?ids= by primary key":                             "ids-by-primary-key",
		"_txlock=immediate":                                "_txlockimmediate",
		"Ärger über Straßen":                               "ärger-über-straßen",
	} {
		if got := githubSlug(heading); got != want {
			t.Errorf("githubSlug(%q): got %q, want %q", heading, got, want)
		}
	}
}
