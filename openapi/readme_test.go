package openapi_test

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// readmeRoutes is the heading of the section of docs/http-api.md whose
// table is the route contract.
const readmeRoutes = "## Routes and statuses"

// TestREADMERouteTableMatchesTheDocument parses the docs' route table
// (Method | Path | Success | Errors | Notes) and compares it with the
// document's paths, methods and statuses, both ways. The document's
// concrete paths are made generic first: a stored collection's apiPath is
// {apiPath}, an external one's {externalApiPath}, a registry key in the
// super-admin route {collection}; every collection must answer the same
// statuses on a generic route.
func TestREADMERouteTableMatchesTheDocument(t *testing.T) {
	f := newFixture(t)
	doc := f.document(t)

	generic := map[string][]int{} // "METHOD path" -> statuses
	replacements := []struct{ re, with string }{
		{`^/api/teams/\{team\}/teamPeople`, "/api/teams/{team}/{externalApiPath}"},
		{`^/api/teams/\{team\}/(shop-products|shop-categories|blog-posts|app-tasks)`, "/api/teams/{team}/{apiPath}"},
		{`^/api/super-admin/(shopProducts|shopCategories|blogPosts|appTasks)/`, "/api/super-admin/{collection}/"},
	}
	for path, item := range doc["paths"].(map[string]any) {
		g := path
		for _, r := range replacements {
			g = regexp.MustCompile(r.re).ReplaceAllString(g, r.with)
		}
		for method, o := range item.(map[string]any) {
			var statuses []int
			for code := range o.(map[string]any)["responses"].(map[string]any) {
				n, _ := strconv.Atoi(code)
				statuses = append(statuses, n)
			}
			sort.Ints(statuses)
			key := strings.ToUpper(method) + " " + g
			if prev, ok := generic[key]; ok && !slices.Equal(prev, statuses) {
				t.Errorf("%s: got statuses %v for one collection and %v for another, want one set", key, prev, statuses)
			}
			generic[key] = statuses
		}
	}

	readme, err := os.ReadFile("../docs/http-api.md")
	if err != nil {
		t.Fatal(err)
	}
	table := readmeTable(t, string(readme))
	for key, want := range generic {
		got, ok := table[key]
		if !ok {
			t.Errorf("docs/http-api.md %q: got no row for %s, want | %s | %s |", readmeRoutes, key,
				strings.Replace(key, " ", " | `", 1)+"`", statusCells(want))
			continue
		}
		if !slices.Equal(got, want) {
			t.Errorf("docs/http-api.md %s: got statuses %v, want the document's %v", key, got, want)
		}
	}
	for key := range table {
		if _, ok := generic[key]; !ok {
			t.Errorf("docs/http-api.md %s: got a row the document does not describe, want none", key)
		}
	}
}

// readmeTable returns the rows of the table under readmeRoutes: "METHOD
// path" -> the statuses of its Success and Errors cells.
func readmeTable(t *testing.T, readme string) map[string][]int {
	t.Helper()
	_, section, ok := strings.Cut(readme, "\n"+readmeRoutes)
	if !ok {
		t.Fatalf("docs/http-api.md: got no %q section", readmeRoutes)
	}
	rows := map[string][]int{}
	inTable := false
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "|") {
			if inTable {
				break
			}
			continue
		}
		inTable = true
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if len(cells) < 4 || cells[0] == "Method" || strings.HasPrefix(cells[0], "-") {
			continue
		}
		key := cells[0] + " " + strings.Trim(cells[1], "`")
		var statuses []int
		for _, f := range strings.Fields(cells[2] + " " + cells[3]) {
			n, err := strconv.Atoi(strings.Trim(f, ","))
			if err != nil {
				t.Errorf("docs/http-api.md %s: got status %q, want a number", key, f)
				continue
			}
			statuses = append(statuses, n)
		}
		sort.Ints(statuses)
		if _, dup := rows[key]; dup {
			t.Errorf("docs/http-api.md: got %s twice, want one row", key)
		}
		rows[key] = statuses
	}
	if len(rows) == 0 {
		t.Fatalf("docs/http-api.md: got no rows under %q", readmeRoutes)
	}
	return rows
}

func statusCells(statuses []int) string {
	var ok, errs []string
	for _, s := range statuses {
		if s < 400 {
			ok = append(ok, strconv.Itoa(s))
		} else {
			errs = append(errs, strconv.Itoa(s))
		}
	}
	return fmt.Sprintf("%s | %s", strings.Join(ok, " "), strings.Join(errs, " "))
}
