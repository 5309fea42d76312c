package events_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/collectionkit/kit/events"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/internal/testkit"
	"github.com/collectionkit/kit/kit"
)

// listWorld seeds events through real mutations and dates them:
//
//	{e1} 2026-01-10T12:00:00Z  mia   create shopProducts {e1Item}
//	{e2} 2026-01-11T08:00:00Z  mia   update shopProducts {miaProduct}
//	{e3} 2026-01-11T23:59:59Z  alice create appNotes    {e3Item}
//	{e4} 2026-01-12T00:00:00Z  max   create shopProducts {e4Item}
//	{e5} 2026-01-13T09:30:00Z  mia   delete shopProducts {miaProduct}
//	{g1} 2026-01-11T10:00:00Z  gina  create shopProducts (team globex)
func listWorld(t *testing.T, e testdb.Engine) *world {
	t.Helper()
	w := newWorld(t, e, events.Config{})
	steps := []struct {
		name, caller, method, path, body, at string
	}{
		{"e1", "mia", "POST", products, `{"title":"First"}`, "2026-01-10T12:00:00Z"},
		{"e2", "mia", "PATCH", products + "/{miaProduct}", `{"stock":7}`, "2026-01-11T08:00:00Z"},
		{"e3", "alice", "POST", "/api/teams/acme/app-notes", `{"body":"note"}`, "2026-01-11T23:59:59Z"},
		{"e4", "max", "POST", products, `{"title":"Max's second"}`, "2026-01-12T00:00:00Z"},
		{"e5", "mia", "DELETE", products + "/{miaProduct}", "", "2026-01-13T09:30:00Z"},
		{"g1", "gina", "POST", "/api/teams/globex/shop-products", `{"title":"Globex thing"}`, "2026-01-11T10:00:00Z"},
	}
	for _, s := range steps {
		res := w.do(t, s.method, s.path, s.caller, s.body)
		if res.status >= 300 {
			t.Fatalf("seed %s: got %d (%s)", s.name, res.status, res.body)
		}
		all := w.stored(t)
		last := all[len(all)-1]
		for _, e := range all {
			if !slices.Contains(w.idList(), e.ID) {
				last = e
			}
		}
		w.ids[s.name], w.ids[s.name+"Item"] = last.ID, last.ItemID
		at, _ := time.Parse(time.RFC3339, s.at)
		w.backdate(t, last.ID, at)
	}
	return w
}

// idList returns the seeded ids.
func (w *world) idList() []string {
	out := make([]string, 0, len(w.ids))
	for _, v := range w.ids {
		out = append(out, v)
	}
	return out
}

type listBody struct {
	Items      []events.Event `json:"items"`
	Pagination kit.Pagination `json:"pagination"`
}

func TestListEndpoint(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		w := listWorld(t, e)
		const list = "/api/teams/acme/kit-events"
		all := []string{"e5", "e4", "e3", "e2", "e1"}
		scenarios := []struct {
			name        string
			query       string
			caller      string
			status      int
			want        []string // event placeholders in answer order
			total       int
			page        *kit.Pagination
			contains    []string
			notContains []string
		}{
			{name: "a member lists the team's events newest first", query: "", caller: "max", status: 200, want: all, total: 5,
				page: &kit.Pagination{CurrentPage: 1, PageSize: 50, TotalItems: 5, TotalPages: 1, SortBy: "timestamp", SortDirection: "desc"}},
			{name: "the team may be named by id as well as by slug", query: "", caller: "max", status: 200, want: all, total: 5},
			{name: "collectionName keeps one collection's events", query: "?collectionName=shopProducts", caller: "mia", status: 200, want: []string{"e5", "e4", "e2", "e1"}, total: 4},
			{name: "collectionName of another collection", query: "?collectionName=appNotes", caller: "mia", status: 200, want: []string{"e3"}, total: 1},
			{name: "collectionName may be the apiPath", query: "?collectionName=shop-products", caller: "mia", status: 200, want: []string{"e5", "e4", "e2", "e1"}, total: 4},
			{name: "collectionName may be the name the schema gives", query: "?collectionName=products", caller: "mia", status: 200, want: []string{"e5", "e4", "e2", "e1"}, total: 4},
			{name: "collectionName of no collection is a 400 naming the accepted forms", query: "?collectionName=nothing", caller: "mia", status: 400,
				contains: []string{`"param":"collectionName"`, `"message":"invalid collectionName: \"nothing\" names no collection: give a registry key (shopCategories), an apiPath (shop-categories) or the name of one collection (categories)"`}},
			{name: "collectionName in another case is a 400", query: "?collectionName=ShopProducts", caller: "mia", status: 400, contains: []string{`"param":"collectionName"`}},
			{name: "operation create", query: "?operation=create", caller: "mia", status: 200, want: []string{"e4", "e3", "e1"}, total: 3},
			{name: "operation update", query: "?operation=update", caller: "mia", status: 200, want: []string{"e2"}, total: 1},
			{name: "operation delete", query: "?operation=delete", caller: "mia", status: 200, want: []string{"e5"}, total: 1},
			{name: "userId keeps one user's events", query: "?userId={mia}", caller: "max", status: 200, want: []string{"e5", "e2", "e1"}, total: 3},
			{name: "itemId keeps one record's history", query: "?itemId={miaProduct}", caller: "max", status: 200, want: []string{"e5", "e2"}, total: 2},
			{name: "dateFrom as a date starts at the beginning of that day", query: "?dateFrom=2026-01-11", caller: "mia", status: 200, want: []string{"e5", "e4", "e3", "e2"}, total: 4},
			{name: "dateTo as a date ends at the end of that day", query: "?dateTo=2026-01-11", caller: "mia", status: 200, want: []string{"e3", "e2", "e1"}, total: 3},
			{name: "RFC 3339 bounds are inclusive", query: "?dateFrom=2026-01-11T08:00:00Z&dateTo=2026-01-12T00:00:00Z", caller: "mia", status: 200, want: []string{"e4", "e3", "e2"}, total: 3},
			{name: "an RFC 3339 bound with an offset is read in UTC", query: "?dateFrom=2026-01-12T01:00:00%2B01:00", caller: "mia", status: 200, want: []string{"e5", "e4"}, total: 2},
			{name: "filters combine", query: "?operation=create&userId={mia}&collectionName=shopProducts", caller: "mia", status: 200, want: []string{"e1"}, total: 1},
			{name: "page and pageSize select a page", query: "?page=2&pageSize=2", caller: "mia", status: 200, want: []string{"e3", "e2"}, total: 5,
				page: &kit.Pagination{CurrentPage: 2, PageSize: 2, TotalItems: 5, TotalPages: 3, SortBy: "timestamp", SortDirection: "desc"}},
			{name: "the last page is partial", query: "?page=3&pageSize=2", caller: "mia", status: 200, want: []string{"e1"}, total: 5},
			{name: "a page past the end is empty", query: "?page=4&pageSize=2", caller: "mia", status: 200, want: []string{}, total: 5},
			{name: "pageSize 100 is allowed", query: "?pageSize=100", caller: "mia", status: 200, want: all, total: 5},
			{name: "a teamId in the query never switches the team", query: "?teamId={globex}", caller: "mia", status: 200, want: all, total: 5, notContains: []string{"{g1}"}},
			{name: "unknown parameters are ignored", query: "?sort=oldest", caller: "mia", status: 200, want: all, total: 5},

			{name: "a bad operation is a 400 naming it", query: "?operation=rename", caller: "mia", status: 400, contains: []string{`"param":"operation"`}},
			{name: "page 0 is a 400 naming page", query: "?page=0", caller: "mia", status: 400, contains: []string{`"param":"page"`}},
			{name: "a page that is not a number is a 400 naming page", query: "?page=two", caller: "mia", status: 400, contains: []string{`"param":"page"`}},
			{name: "pageSize 0 is a 400 naming pageSize", query: "?pageSize=0", caller: "mia", status: 400, contains: []string{`"param":"pageSize"`}},
			{name: "pageSize over 100 is a 400 naming pageSize", query: "?pageSize=101", caller: "mia", status: 400, contains: []string{`"param":"pageSize"`, "100"}},
			{name: "a dateFrom that is no date is a 400 naming it", query: "?dateFrom=11/01/2026", caller: "mia", status: 400, contains: []string{`"param":"dateFrom"`}},
			{name: "a dateTo that is no date is a 400 naming it", query: "?dateTo=2026-13-01", caller: "mia", status: 400, contains: []string{`"param":"dateTo"`}},
			{name: "a dateTo before dateFrom is a 400 naming dateTo", query: "?dateFrom=2026-01-12&dateTo=2026-01-11", caller: "mia", status: 400, contains: []string{`"param":"dateTo"`}},
			{name: "an enrichUserData that is no boolean is a 400 naming it", query: "?enrichUserData=maybe", caller: "mia", status: 400, contains: []string{`"param":"enrichUserData"`}},
			{name: "a parameter given twice is a 400 naming it", query: "?operation=create&operation=delete", caller: "mia", status: 400, contains: []string{`"param":"operation"`}},
			{name: "a NUL byte in a filter is a 400 naming it", query: "?itemId=a%00b", caller: "mia", status: 400, contains: []string{`"param":"itemId"`}},

			{name: "a member of another team is refused and sees no events", query: "", caller: "gina", status: 403, notContains: []string{"{e1}", "{e5}", "{miaProduct}"}},
			{name: "a super-admin who is not a member is refused", query: "", caller: "root", status: 403},
			{name: "an anonymous caller is refused", query: "", caller: "", status: 401},
			{name: "an unknown team answers 404", query: "", caller: "mia", status: 404},
		}
		for _, sc := range scenarios {
			t.Run(sc.name, func(t *testing.T) {
				path := list + sc.query
				switch sc.name {
				case "the team may be named by id as well as by slug":
					path = "/api/teams/{acme}/kit-events"
				case "an unknown team answers 404":
					path = "/api/teams/nope/kit-events"
				}
				res := w.do(t, "GET", path, sc.caller, "")
				if res.status != sc.status {
					t.Fatalf("status: got %d, want %d (body %s)", res.status, sc.status, res.body)
				}
				testkit.CheckBody(t, res.body, sc.contains, sc.notContains, w.ids)
				if sc.want == nil {
					return
				}
				var body listBody
				testkit.DecodeJSON(t, res.body, &body)
				got := make([]string, len(body.Items))
				for i, e := range body.Items {
					got[i] = e.ID
					if e.TeamID != w.ids["acme"] {
						t.Errorf("item %d team: got %s, want acme's %s", i, e.TeamID, w.ids["acme"])
					}
					if e.User != nil {
						t.Errorf("item %d user: got %+v, want none without enrichUserData", i, e.User)
					}
				}
				want := make([]string, len(sc.want))
				for i, p := range sc.want {
					want[i] = w.ids[p]
				}
				if !slices.Equal(got, want) {
					t.Errorf("events: got %v, want %v (%v)", got, want, sc.want)
				}
				if body.Pagination.TotalItems != sc.total {
					t.Errorf("totalItems: got %d, want %d", body.Pagination.TotalItems, sc.total)
				}
				if sc.page != nil && body.Pagination != *sc.page {
					t.Errorf("pagination: got %+v, want %+v", body.Pagination, *sc.page)
				}
			})
		}

		t.Run("each event carries the KitEvent fields", func(t *testing.T) {
			res := w.do(t, "GET", list+"?itemId={miaProduct}&operation=update", "mia", "")
			var body listBody
			testkit.DecodeJSON(t, res.body, &body)
			if len(body.Items) != 1 {
				t.Fatalf("items: got %d, want 1", len(body.Items))
			}
			e := body.Items[0]
			want := events.Event{ID: w.ids["e2"], TeamID: w.ids["acme"], Timestamp: time.Date(2026, 1, 11, 8, 0, 0, 0, time.UTC),
				Operation: "update", CollectionName: "shopProducts", ItemID: w.ids["miaProduct"], UserID: w.ids["mia"], UserName: "Mia"}
			if e.ID != want.ID || e.TeamID != want.TeamID || !e.Timestamp.Equal(want.Timestamp) || e.Operation != want.Operation ||
				e.CollectionName != want.CollectionName || e.ItemID != want.ItemID || e.UserID != want.UserID || e.UserName != want.UserName {
				t.Errorf("event: got %+v, want %+v", e, want)
			}
			if changesJSON(e.Changes) != `[{"fieldName":"stock","oldValue":null,"newValue":"7"}]` {
				t.Errorf("changes: got %s, want stock from null to 7", changesJSON(e.Changes))
			}
			if _, ok := e.Metadata["correlationId"]; !ok {
				t.Errorf("metadata: got %v, want a correlationId", e.Metadata)
			}
		})

		t.Run("a member of the other team sees only that team's events", func(t *testing.T) {
			res := w.do(t, "GET", "/api/teams/globex/kit-events", "gina", "")
			var body listBody
			testkit.DecodeJSON(t, res.body, &body)
			if len(body.Items) != 1 || body.Items[0].ID != w.ids["g1"] || body.Pagination.TotalItems != 1 {
				t.Fatalf("globex events: got %s, want only {g1}", res.body)
			}
		})

		t.Run("the list route takes no POST", func(t *testing.T) {
			if res := w.do(t, "POST", list, "mia", `{}`); res.status != 405 {
				t.Fatalf("status: got %d, want 405", res.status)
			}
		})
	})
}

// TestEnrichUserData renames one user and deletes another after their
// events: the snapshot stays, the enrichment shows the present.
func TestEnrichUserData(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		w := listWorld(t, e)
		ctx := context.Background()
		if _, err := w.k.DB().ExecContext(ctx, "UPDATE kit_users SET name = 'Mia Renamed', image = 'https://img.test/new.png' WHERE id = ?", w.ids["mia"]); err != nil {
			t.Fatal(err)
		}
		if _, err := w.k.DB().ExecContext(ctx, "DELETE FROM kit_users WHERE id = ?", w.ids["max"]); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name, query string
			enriched    bool
		}{
			{"enrichUserData=true adds each user's current name and image", "?enrichUserData=true", true},
			{"enrichUserData=false adds nothing", "?enrichUserData=false", false},
			{"without enrichUserData nothing is added", "", false},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res := w.do(t, "GET", "/api/teams/acme/kit-events"+tc.query, "alice", "")
				if res.status != 200 {
					t.Fatalf("status: got %d, want 200 (%s)", res.status, res.body)
				}
				var body listBody
				testkit.DecodeJSON(t, res.body, &body)
				if len(body.Items) != 5 {
					t.Fatalf("items: got %d, want 5", len(body.Items))
				}
				for _, e := range body.Items {
					var wantSnapshot string
					var wantUser *events.UserInfo
					switch e.UserID {
					case w.ids["mia"]:
						wantSnapshot, wantUser = "Mia", &events.UserInfo{ID: w.ids["mia"], Name: "Mia Renamed", Image: "https://img.test/new.png"}
					case w.ids["alice"]:
						wantSnapshot, wantUser = "Alice", &events.UserInfo{ID: w.ids["alice"], Name: "Alice", Image: "https://img.test/alice.png"}
					case w.ids["max"]:
						wantSnapshot, wantUser = "Max", &events.UserInfo{ID: w.ids["max"]}
					}
					if e.UserName != wantSnapshot {
						t.Errorf("userName: got %q, want the snapshot %q", e.UserName, wantSnapshot)
					}
					if !tc.enriched {
						wantUser = nil
					}
					if (e.User == nil) != (wantUser == nil) || (e.User != nil && *e.User != *wantUser) {
						t.Errorf("user of %s: got %+v, want %+v", e.UserName, e.User, wantUser)
					}
				}
				if tc.enriched == strings.Contains(res.body, `"user":`) {
					return
				}
				t.Errorf("body: got %s, want a user member only when enriched", res.body)
			})
		}
	})
}

// TestParseQuery covers the Go side of the list parameters.
func TestParseQuery(t *testing.T) {
	t.Parallel()
	q, err := events.ParseQuery(map[string][]string{"dateTo": {"2026-01-11"}, "pageSize": {"10"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2026, 1, 11, 23, 59, 59, 999999000, time.UTC); !q.DateTo.Equal(want) {
		t.Errorf("dateTo: got %s, want %s", q.DateTo, want)
	}
	if q.Page != 1 || q.PageSize != 10 {
		t.Errorf("page: got %d of %d, want 1 of 10", q.Page, q.PageSize)
	}
}
