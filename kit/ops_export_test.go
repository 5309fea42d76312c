package kit_test

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/collectionkit/kit/internal/testdb"
)

// exportPath is the export route of the desk's tasks with query q.
func exportPath(q string) string { return deskTasks + "/export?" + q }

// csvRows parses a CSV body, failing t when it is no CSV.
func csvRows(t *testing.T, body string) [][]string {
	t.Helper()
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatalf("got no CSV (%v): %s", err, body)
	}
	return rows
}

// column returns the values of column name of rows (the first is the
// header).
func column(t *testing.T, rows [][]string, name string) []string {
	t.Helper()
	i := slices.Index(rows[0], name)
	if i < 0 {
		t.Fatalf("got header %v, want a column %s", rows[0], name)
	}
	var out []string
	for _, r := range rows[1:] {
		out = append(out, r[i])
	}
	return out
}

func TestExport(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		d := newDesk(t, e)
		// Cells a spreadsheet would run as formulas, and their neighbours.
		for _, body := range []string{
			`{"title":"=cmd|' /C calc'!A0","sku":"F-1","stock":-5}`,
			`{"title":"+1+1","sku":"F-2"}`,
			`{"title":"-2-2","sku":"F-3"}`,
			`{"title":"@SUM(A1)","sku":"F-4"}`,
			`{"title":"\tTAB","sku":"F-5"}`,
			`{"title":"\rCR","sku":"F-6"}`,
			`{"title":"'=quoted","sku":"F-7"}`,
			`{"title":"a = b","sku":"F-8"}`,
		} {
			if res := d.do(t, "POST", deskTasks, "mia", body); res.status != 201 {
				t.Fatalf("create %s: got %d %s", body, res.status, res.body)
			}
		}
		t.Run("CSV has a header of the attributes and one row per record of the team", func(t *testing.T) {
			res := d.do(t, "GET", exportPath("format=csv&sortBy=sku&sortDirection=asc"), "max", "")
			if res.status != 200 {
				t.Fatalf("got %d %s, want 200", res.status, res.body)
			}
			if ct := res.header.Get("Content-Type"); ct != "text/csv; charset=utf-8" {
				t.Errorf("got Content-Type %q, want text/csv; charset=utf-8", ct)
			}
			if cd := res.header.Get("Content-Disposition"); cd != `attachment; filename="desk-tasks.csv"` {
				t.Errorf("got Content-Disposition %q", cd)
			}
			rows := csvRows(t, res.body)
			want := []string{"id", "teamId", "owner", "title", "sku", "price", "stock", "isActive", "dueAt", "categoryId", "createdAt", "updatedAt", "createdBy", "updatedBy"}
			if !slices.Equal(rows[0], want) {
				t.Errorf("got header %v, want %v", rows[0], want)
			}
			skus := column(t, rows, "sku")
			wantSKUs := []string{"F-1", "F-2", "F-3", "F-4", "F-5", "F-6", "F-7", "F-8", "MAX-1", "MIA-1"}
			if !slices.Equal(skus, wantSKUs) {
				t.Errorf("got skus %v, want %v (acme's, sorted; never globex's)", skus, wantSKUs)
			}
			mia := rows[len(rows)-1]
			got := map[string]string{}
			for i, name := range rows[0] {
				got[name] = mia[i]
			}
			for k, v := range map[string]string{"id": d.ids["miaItem"], "price": "9.99", "stock": "3", "isActive": "true",
				"dueAt": "2026-12-01T00:00:00Z", "categoryId": d.ids["acmeCategory"], "owner": d.ids["mia"]} {
				if got[k] != v {
					t.Errorf("got %s = %q, want %q", k, got[k], v)
				}
			}
			if got["createdAt"] == "" || got["updatedBy"] != d.ids["mia"] {
				t.Errorf("got metadata %v, want createdAt and updatedBy set", got)
			}
		})
		t.Run("CSV cells that start a formula are escaped with an apostrophe; numbers are not", func(t *testing.T) {
			rows := csvRows(t, d.do(t, "GET", exportPath("sortBy=sku&sortDirection=asc&filter="+url.QueryEscape(`{"sku":{"startsWith":"F-"}}`)), "mia", "").body)
			want := []string{"'=cmd|' /C calc'!A0", "'+1+1", "'-2-2", "'@SUM(A1)", "'\tTAB", "'\rCR", "''=quoted", "a = b"}
			if got := column(t, rows, "title"); !slices.Equal(got, want) {
				t.Errorf("got titles %q, want %q", got, want)
			}
			if got := column(t, rows, "stock")[0]; got != "-5" {
				t.Errorf("got stock %q, want -5 (a number is no formula)", got)
			}
		})
		t.Run("the filter, search and sort of the list apply", func(t *testing.T) {
			for _, tc := range []struct {
				name, query string
				want        []string
			}{
				{"filter", "filter=" + url.QueryEscape(`{"sku":"MAX-1"}`), []string{"MAX-1"}},
				{"search", "search=mia", []string{"MIA-1"}},
				{"sort", "sortBy=sku&sortDirection=desc&filter=" + url.QueryEscape(`{"sku":{"in":["MIA-1","MAX-1","F-1"]}}`), []string{"MIA-1", "MAX-1", "F-1"}},
			} {
				res := d.do(t, "GET", exportPath(tc.query), "mia", "")
				if res.status != 200 {
					t.Fatalf("%s: got %d %s", tc.name, res.status, res.body)
				}
				if got := column(t, csvRows(t, res.body), "sku"); !slices.Equal(got, tc.want) {
					t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
				}
			}
		})
		t.Run("JSON is one array of the records as the API answers them", func(t *testing.T) {
			res := d.do(t, "GET", exportPath("format=json&search=mia"), "mia", "")
			var recs []map[string]any
			if err := json.Unmarshal([]byte(res.body), &recs); err != nil || res.status != 200 {
				t.Fatalf("got %d %s (%v), want a JSON array", res.status, res.body, err)
			}
			if len(recs) != 1 || recs[0]["sku"] != "MIA-1" || recs[0]["price"] != "9.99" || res.header.Get("Content-Type") != "application/json" {
				t.Errorf("got %v (%s), want mia's task", recs, res.header.Get("Content-Type"))
			}
		})
		t.Run("an export with no match is a header, an empty array, or nothing", func(t *testing.T) {
			none := url.QueryEscape(`{"sku":"none"}`)
			for format, want := range map[string]string{"csv": "id,teamId,owner,title,sku,price,stock,isActive,dueAt,categoryId,createdAt,updatedAt,createdBy,updatedBy\n", "json": "[]\n", "ndjson": ""} {
				if res := d.do(t, "GET", exportPath("format="+format+"&filter="+none), "mia", ""); res.status != 200 || res.body != want {
					t.Errorf("%s: got %d %q, want 200 %q", format, res.status, res.body, want)
				}
			}
		})
		t.Run("NDJSON is one record per line", func(t *testing.T) {
			res := d.do(t, "GET", exportPath("format=ndjson"), "mia", "")
			if res.status != 200 || res.header.Get("Content-Type") != "application/x-ndjson" {
				t.Fatalf("got %d %s", res.status, res.header.Get("Content-Type"))
			}
			sc := bufio.NewScanner(strings.NewReader(res.body))
			n := 0
			for sc.Scan() {
				var rec map[string]any
				if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
					t.Fatalf("line %d: %v: %s", n+1, err, sc.Text())
				}
				n++
			}
			if n != 10 {
				t.Errorf("got %d lines, want 10", n)
			}
		})
	})
}

func TestExportRefusals(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		d := newDesk(t, e)
		for _, tc := range []struct {
			name, path, caller string
			status             int
			contains           string
		}{
			{"an unknown format is a 400 naming format", exportPath("format=xlsx"), "mia", 400, `"param":"format"`},
			{"format given twice is a 400 naming format", exportPath("format=csv&format=json"), "mia", 400, `"param":"format"`},
			{"a page is a 400 naming it: an export holds every match", exportPath("page=2"), "mia", 400, `"param":"page"`},
			{"ids is a 400 naming it", exportPath("ids={miaItem}"), "mia", 400, `"param":"ids"`},
			{"a bad filter is a 400 naming filter", exportPath("filter=" + url.QueryEscape(`{"nope":1}`)), "mia", 400, `"param":"filter"`},
			{"a bad sort is a 400 naming it", exportPath("sortBy=nope"), "mia", 400, `"param":"sort`},
			{"a caller of another team is refused", exportPath(""), "gina", 403, ""},
			{"an anonymous caller is refused", exportPath(""), "", 401, ""},
			{"an unknown collection is a 404", "/api/teams/acme/desk-nothing/export", "mia", 404, "collection not found"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res := d.do(t, "GET", tc.path, tc.caller, "")
				if res.status != tc.status || !strings.Contains(res.body, d.site.Expand(tc.contains)) {
					t.Errorf("got %d %s, want %d with %s", res.status, res.body, tc.status, tc.contains)
				}
				if strings.HasPrefix(res.header.Get("Content-Type"), "text/csv") {
					t.Errorf("got Content-Type %s on a refusal, want JSON", res.header.Get("Content-Type"))
				}
			})
		}
	})
}
