package kit_test

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
)

const importPath = deskTasks + "/import"

func TestImport(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		scenarios := []struct {
			name        string
			contentType string
			body        string
			caller      string
			status      int
			// imported is how many tasks the team gains (on a 201).
			imported int
			contains []string
			// rejected are the report's entries, as line:row:field:reason
			// prefixes.
			rejected []string
		}{
			{name: "CSV rows are created, each through the create's validation",
				contentType: "text/csv", caller: "mia", status: 201, imported: 3,
				body:     "title,sku,price,stock,isActive,dueAt,categoryId\nHammer,T-1,9.50,4,true,2026-12-24T00:00:00Z,{acmeCategory}\nSaw,T-2,,,,,\n\"Nails, small\",T-3,0.05,1000,false,,\n",
				contains: []string{`"imported":3`, `"correlationId":"`}},
			{name: "the columns kit keeps are ignored, so an export imports as it is",
				contentType: "text/csv", caller: "mia", status: 201, imported: 1,
				body: "id,teamId,owner,title,sku,createdAt,updatedAt,createdBy,updatedBy\nx,y,z,Kept,T-9,2020-01-01T00:00:00Z,,,\n"},
			{name: "a JSON array of objects is imported",
				contentType: "application/json", caller: "mia", status: 201, imported: 2,
				body: `[{"title":"One","sku":"J-1","price":"1.00"},` + "\n" + `{"title":"Two","stock":2}]`},
			{name: "NDJSON is imported, one object per line",
				contentType: "application/x-ndjson", caller: "mia", status: 201, imported: 2,
				body: "{\"title\":\"One\"}\n\n{\"title\":\"Two\",\"isActive\":true}\n"},
			{name: "a header with an unknown column is a 400 naming it, and nothing is written",
				contentType: "text/csv", caller: "mia", status: 400,
				body:     "title,colour\nHammer,red\n",
				rejected: []string{"1:0:colour:unknown column"}},
			{name: "a wrong header (another collection's) is a 400 naming each column and the missing required field",
				contentType: "text/csv", caller: "mia", status: 400,
				body:     "body\nhello\n",
				rejected: []string{"1:0:body:unknown column", "1:0:title:the header has no column for this required field"}},
			{name: "a column named twice is a 400",
				contentType: "text/csv", caller: "mia", status: 400,
				body:     "title,title\na,b\n",
				rejected: []string{"1:0:title:the header names this column twice"}},
			{name: "bad values are a 400 naming every row, line and field; nothing is written",
				contentType: "text/csv", caller: "mia", status: 400,
				body:     "title,price,stock\nGood,1.00,1\nBad price,abc,1\nGood again,2.00,2\n,3.00,lots\n",
				rejected: []string{"3:2:price:", "5:4:stock:", "5:4:title:is required"}},
			{name: "a multi-line cell counts its lines",
				contentType: "text/csv", caller: "mia", status: 400,
				body:     "title,stock\n\"two\nlines\",1\nBad,x\n",
				rejected: []string{"4:2:stock:"}},
			{name: "a reference to a record the team does not have is a 400 naming the field; the rows before it are not written",
				contentType: "text/csv", caller: "mia", status: 400,
				body:     "title,categoryId\nFine,{acmeCategory}\nLost,{ginaItem}\n",
				rejected: []string{"3:2:categoryId:refers to no deskCategories record of this team"}},
			{name: "a unique value the team has is a 400 naming it",
				contentType: "text/csv", caller: "mia", status: 400,
				body:     "title,sku\nCopy,MIA-1\n",
				rejected: []string{"2:1:sku:sku must be unique in the team"}},
			{name: "a unique value repeated in the file is a 400 on its second row",
				contentType: "text/csv", caller: "mia", status: 400,
				body:     "title,sku\nOne,D-1\nTwo,D-1\nThree,D-2\n",
				rejected: []string{"3:2:sku:sku must be unique in the team"}},
			{name: "an unknown field of a JSON row is a 400 naming its line",
				contentType: "application/json", caller: "mia", status: 400,
				body:     "[\n{\"title\":\"a\"},\n{\"title\":\"b\",\"colour\":\"red\"}\n]",
				rejected: []string{"3:2:colour:unknown field"}},
			{name: "malformed CSV is a 400 naming the line",
				contentType: "text/csv", caller: "mia", status: 400,
				body:     "title,stock\nok,1\nbad\"quote,2\n",
				rejected: []string{"3:0::malformed CSV"}},
			{name: "a row with too many cells is a 400",
				contentType: "text/csv", caller: "mia", status: 400,
				body:     "title\na,b\n",
				rejected: []string{"2:0::malformed CSV"}},
			{name: "malformed JSON is a 400",
				contentType: "application/json", caller: "mia", status: 400,
				body:     `[{"title":"a"},{"title":]`,
				rejected: []string{"1:0::malformed JSON"}},
			{name: "a JSON body that is no array is a 400",
				contentType: "application/json", caller: "mia", status: 400,
				body:     `{"title":"a"}`,
				rejected: []string{"1:0::the body must be a JSON array"}},
			{name: "an empty CSV is a 400",
				contentType: "text/csv", caller: "mia", status: 400, body: "",
				rejected: []string{"1:0::the CSV is empty"}},
			{name: "a header alone imports nothing",
				contentType: "text/csv", caller: "mia", status: 201, body: "title\n", contains: []string{`"imported":0`}},
			{name: "another media type is a 415",
				contentType: "application/xml", caller: "mia", status: 415, body: "<tasks/>"},
			{name: "a charset other than UTF-8 is a 415",
				contentType: "text/csv; charset=latin1", caller: "mia", status: 415, body: "title\na\n"},
			{name: "bytes that are not UTF-8 are a 400",
				contentType: "text/csv", caller: "mia", status: 400, body: "title\n\xff\xfe\n"},
			{name: "a body over the import limit is a 413, and nothing is written",
				contentType: "text/csv", caller: "mia", status: 413,
				body:     "title\n" + strings.Repeat("a task of many words\n", 500),
				contains: []string{`"limit":4096`}},
			{name: "a caller of another team is refused",
				contentType: "text/csv", caller: "gina", status: 403, body: "title\na\n"},
			{name: "an anonymous caller is refused",
				contentType: "text/csv", status: 401, body: "title\na\n"},
		}
		for _, sc := range scenarios {
			t.Run(sc.name, func(t *testing.T) {
				t.Parallel()
				d := newDesk(t, e, func(c *kit.Config) { c.MaxImportBytes = 4096 })
				before, changes, total := d.snapshot(t), d.count(t, "kit_changes"), d.total(t, deskTasks, "mia")
				r := d.site.Do(t, "POST", importPath, sc.caller, sc.contentType, sc.body)
				if r.Status != sc.status {
					t.Fatalf("got %d %s, want %d", r.Status, r.Body, sc.status)
				}
				for _, s := range sc.contains {
					if !strings.Contains(r.Body, s) {
						t.Errorf("got %s, want it to contain %s", r.Body, s)
					}
				}
				if sc.rejected != nil {
					var body struct {
						Data struct {
							Rejected []kit.RejectedRow `json:"rejected"`
						} `json:"data"`
					}
					if err := json.Unmarshal([]byte(r.Body), &body); err != nil {
						t.Fatal(err)
					}
					var got []string
					for _, rr := range body.Data.Rejected {
						got = append(got, strings.Join([]string{itoa(rr.Line), itoa(rr.Row), rr.Field, rr.Reason}, ":"))
					}
					if len(got) != len(sc.rejected) {
						t.Fatalf("got rejected %q, want %q", got, sc.rejected)
					}
					for i, want := range sc.rejected {
						if !strings.HasPrefix(got[i], want) {
							t.Errorf("rejected %d: got %q, want it to start with %q", i, got[i], want)
						}
					}
				}
				if sc.status != 201 {
					if after := d.snapshot(t); !maps.Equal(after, before) {
						t.Errorf("got rows written by a refused import")
					}
					if n := d.count(t, "kit_changes"); n != changes {
						t.Errorf("got %d change log rows, want %d", n, changes)
					}
					return
				}
				if n := d.total(t, deskTasks, "mia"); n != total+sc.imported {
					t.Errorf("got %d tasks, want %d", n, total+sc.imported)
				}
			})
		}
	})
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestImportRoundTrip exports a team's tasks, formulas and all, and
// imports them into another team: the values come back as they were, with
// one correlation id on every change.
func TestImportRoundTrip(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		d := newDesk(t, e)
		for _, title := range []string{`=cmd|' /C calc'!A0`, "+1", "'=quoted", "plain, with a comma", "multi\nline"} {
			body, _ := json.Marshal(map[string]any{"title": title, "stock": -1.5, "isActive": false})
			if res := d.do(t, "POST", deskTasks, "mia", string(body)); res.status != 201 {
				t.Fatalf("got %d %s", res.status, res.body)
			}
		}
		for _, format := range []string{"csv", "json", "ndjson"} {
			t.Run(format, func(t *testing.T) {
				// categoryId names acme's category: export without it.
				exp := d.do(t, "GET", deskTasks+"/export?format="+format+`&filter={"sku":null}`, "mia", "")
				if exp.status != 200 {
					t.Fatalf("export: got %d %s", exp.status, exp.body)
				}
				ct := map[string]string{"csv": "text/csv", "json": "application/json", "ndjson": "application/x-ndjson"}[format]
				r := d.site.Do(t, "POST", "/api/teams/globex/desk-tasks/import", "gina", ct, exp.body)
				if r.Status != 201 {
					t.Fatalf("import: got %d %s", r.Status, r.Body)
				}
				var res kit.ImportResult
				if err := json.Unmarshal([]byte(r.Body), &res); err != nil || res.Imported != 5 {
					t.Fatalf("got %s, want 5 imported", r.Body)
				}
				var page kit.List
				list := d.do(t, "GET", `/api/teams/globex/desk-tasks?pageSize=100&filter={"sku":null}`, "gina", "")
				if err := json.Unmarshal([]byte(list.body), &page); err != nil {
					t.Fatal(err)
				}
				var titles []string
				for _, rec := range page.Items {
					titles = append(titles, rec["title"].(string))
					if rec["stock"] != -1.5 || rec["isActive"] != false || rec["owner"] != d.ids["gina"] {
						t.Errorf("got %v, want stock -1.5, isActive false, owned by gina", rec)
					}
				}
				slices.Sort(titles)
				want := []string{"'=quoted", "+1", "=cmd|' /C calc'!A0", "multi\nline", "plain, with a comma"}
				if !slices.Equal(titles, want) {
					t.Errorf("got titles %q, want %q", titles, want)
				}
				var ids int
				if err := d.k.DB().QueryRowContext(t.Context(), "SELECT count(DISTINCT correlation_id) FROM kit_changes WHERE correlation_id = ?", res.CorrelationID).Scan(&ids); err != nil || ids != 1 {
					t.Errorf("got %d change correlation ids (%v), want the import's", ids, err)
				}
				// Make room for the next format.
				if res := d.do(t, "DELETE", "/api/teams/globex/desk-tasks?ids="+idsOf(page.Items), "gina", ""); res.status != 204 {
					t.Fatalf("cleanup: got %d %s", res.status, res.body)
				}
			})
		}
	})
}

func idsOf(recs []kit.Record) string {
	var ids []string
	for _, r := range recs {
		ids = append(ids, r["id"].(string))
	}
	return strings.Join(ids, ",")
}
