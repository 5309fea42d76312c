package events_test

import (
	"context"
	"strings"
	"testing"

	"github.com/collectionkit/kit/events"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/internal/testkit"
)

const track = "/api/teams/acme/kit-collection-events"

func TestManualTracking(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		scenarios := []struct {
			name        string
			path        string
			caller      string
			contentType string
			body        string
			status      int
			events      int    // events written
			changes     string // changes of the first event, when set
			items       []string
			contains    []string
			notContains []string
		}{
			{name: "a create is tracked with the data's fields for the route's team and the caller",
				caller: "mia", body: `{"operation":"create","collection":"shopProducts","itemId":"ext-1","data":{"title":"Imported","id":"ext-1","owner":"x","stock":2}}`,
				status: 201, events: 1, items: []string{"ext-1"},
				changes:  `[{"fieldName":"title","oldValue":null,"newValue":"\"Imported\""},{"fieldName":"stock","oldValue":null,"newValue":"2"}]`,
				contains: []string{`"items":[{`, `"teamId":"{acme}"`, `"userId":"{mia}"`, `"userName":"Mia"`, `"source":"manual"`}},
			{name: "a create may take its fields from result",
				caller: "mia", body: `{"operation":"create","collection":"shopProducts","itemId":"ext-2","result":{"id":"ext-2","title":"From result"}}`,
				status: 201, events: 1, items: []string{"ext-2"}, changes: `[{"fieldName":"title","oldValue":null,"newValue":"\"From result\""}]`},
			{name: "an update stores only the changed fields of updates against beforeData",
				caller: "mia", body: `{"operation":"update","collection":"shopProducts","itemId":"{miaProduct}","updates":{"title":"Same","stock":3},"beforeData":{"title":"Same","stock":1}}`,
				status: 201, events: 1, items: []string{"{miaProduct}"}, changes: `[{"fieldName":"stock","oldValue":"1","newValue":"3"}]`},
			{name: "an update without updates compares beforeData with result",
				caller: "mia", body: `{"operation":"update","collection":"shopProducts","itemId":"{miaProduct}","result":{"title":"New","stock":1},"beforeData":{"title":"Old","stock":1}}`,
				status: 201, events: 1, changes: `[{"fieldName":"title","oldValue":"\"Old\"","newValue":"\"New\""}]`},
			{name: "a delete of several ids writes one event per id with no changes",
				caller: "mia", body: `{"operation":"delete","collection":"shopProducts","itemIds":["a","b","c"],"beforeData":{"title":"secret"}}`,
				status: 201, events: 3, items: []string{"a", "b", "c"}, changes: `[]`, notContains: []string{"secret"}},
			{name: "the collection may be named by its API path and is stored by key",
				caller: "mia", body: `{"operation":"delete","collection":"shop-products","itemId":"a"}`,
				status: 201, events: 1, contains: []string{`"collectionName":"shopProducts"`}},
			{name: "the team may be named by id in the route",
				path: "/api/teams/{acme}/kit-collection-events", caller: "max", body: `{"operation":"delete","collection":"appNotes","itemId":"n"}`,
				status: 201, events: 1, contains: []string{`"teamId":"{acme}"`, `"userName":"Max"`}},

			{name: "a missing operation is a 400 naming it", caller: "mia", body: `{"collection":"shopProducts","itemId":"a"}`, status: 400,
				contains: []string{`"operation":"is required"`}},
			{name: "an operation other than create, update and delete is a 400 naming it", caller: "mia", body: `{"operation":"move","collection":"shopProducts","itemId":"a"}`, status: 400,
				contains: []string{`"operation":"must be create, update or delete"`}},
			{name: "a missing collection is a 400 naming it", caller: "mia", body: `{"operation":"create","itemId":"a"}`, status: 400,
				contains: []string{`"collection":"is required"`}},
			{name: "an unknown collection is a 400 naming it", caller: "mia", body: `{"operation":"create","collection":"shopThings","itemId":"a"}`, status: 400,
				contains: []string{`"collection":"names no registered collection"`}},
			{name: "a missing item is a 400 naming itemId", caller: "mia", body: `{"operation":"update","collection":"shopProducts"}`, status: 400,
				contains: []string{`"itemId":"is required"`}},
			{name: "several ids outside a delete are a 400 naming itemIds", caller: "mia", body: `{"operation":"update","collection":"shopProducts","itemIds":["a","b"]}`, status: 400,
				contains: []string{`"itemIds":`}},
			{name: "an empty id is a 400 naming itemIds", caller: "mia", body: `{"operation":"delete","collection":"shopProducts","itemIds":["a",""]}`, status: 400,
				contains: []string{`"itemIds":"must not hold empty ids"`}},
			{name: "a teamId in the body is a 400: the team comes from the route", caller: "mia", body: `{"operation":"delete","collection":"shopProducts","itemId":"a","teamId":"{globex}"}`, status: 400,
				contains: []string{`"teamId":"unknown field"`}},
			{name: "a userId in the body is a 400: the user comes from the credentials", caller: "mia", body: `{"operation":"delete","collection":"shopProducts","itemId":"a","userId":"{alice}"}`, status: 400,
				contains: []string{`"userId":"unknown field"`}},
			{name: "data that is not an object is a 400 naming it", caller: "mia", body: `{"operation":"create","collection":"shopProducts","itemId":"a","data":"title"}`, status: 400,
				contains: []string{`"data":"has the wrong type"`}},
			{name: "a body that is not an object is a 400", caller: "mia", body: `["create"]`, status: 400, contains: []string{"JSON object"}},
			{name: "malformed JSON is a 400", caller: "mia", body: `{"operation":`, status: 400, contains: []string{"malformed"}},
			{name: "an empty body is a 400", caller: "mia", body: ` `, status: 400, contains: []string{"empty"}},
			{name: "bytes that are not UTF-8 are a 400, not an event holding U+FFFD", caller: "mia", body: "{\"operation\":\"create\",\"collection\":\"shopProducts\",\"itemId\":\"a\",\"data\":{\"title\":\"a\xffb\"}}", status: 400,
				contains: []string{"not valid UTF-8"}},
			{name: "a lone surrogate escape is a 400", caller: "mia", body: `{"operation":"create","collection":"shopProducts","itemId":"a","data":{"title":"\ud800"}}`, status: 400,
				contains: []string{"lone UTF-16 surrogate"}},
			{name: "a body that is not JSON is a 415", caller: "mia", contentType: "text/plain", body: `operation=create`, status: 415},
			{name: "a member of another team cannot track into the team", caller: "gina", body: `{"operation":"delete","collection":"shopProducts","itemId":"a"}`, status: 403},
			{name: "an anonymous caller cannot track", body: `{"operation":"delete","collection":"shopProducts","itemId":"a"}`, status: 401},
			{name: "the tracking route takes no GET", caller: "mia", status: 405},
		}
		for _, sc := range scenarios {
			t.Run(sc.name, func(t *testing.T) {
				t.Parallel() // each case has its own world
				w := newWorld(t, e, events.Config{})
				path := sc.path
				if path == "" {
					path = track
				}
				method := "POST"
				if sc.body == "" {
					method = "GET"
				}
				var header []string
				if sc.contentType != "" {
					header = []string{"Content-Type", sc.contentType}
				}
				res := w.do(t, method, path, sc.caller, sc.body, header...)
				if res.status != sc.status {
					t.Fatalf("status: got %d, want %d (body %s)", res.status, sc.status, res.body)
				}
				testkit.CheckBody(t, res.body, sc.contains, sc.notContains, w.ids)
				got := w.stored(t)
				if len(got) != sc.events {
					t.Fatalf("events: got %d, want %d", len(got), sc.events)
				}
				if sc.events == 0 {
					return
				}
				var body listBody
				decodeJSON(t, res.body, &body)
				if len(body.Items) != sc.events {
					t.Errorf("answered events: got %d, want %d", len(body.Items), sc.events)
				}
				for i, e := range got {
					if e.TeamID != w.ids["acme"] || e.Metadata["source"] != "manual" {
						t.Errorf("event %d: got team %s source %v, want acme and manual", i, e.TeamID, e.Metadata["source"])
					}
					if i < len(sc.items) && e.ItemID != w.expand(sc.items[i]) {
						t.Errorf("event %d item: got %s, want %s", i, e.ItemID, w.expand(sc.items[i]))
					}
				}
				if sc.changes != "" && changesJSON(got[0].Changes) != sc.changes {
					t.Errorf("changes:\n got %s\nwant %s", changesJSON(got[0].Changes), sc.changes)
				}
				if h := w.tr.Health(); h.Total != 1 || h.Failed != 0 {
					t.Errorf("health: got total %d failed %d, want 1 and 0", h.Total, h.Failed)
				}
			})
		}
	})
}

// TestManualTrackingFailure fails the insert: manual tracking answers 500
// whatever the mode, since writing the event is all it does.
func TestManualTrackingFailure(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		for _, f := range statementFailures(e) {
			t.Run(string(f), func(t *testing.T) {
				w := newWorld(t, e, mode(events.ModeSilent))
				repair, cause := w.breakTracking(t, f)
				res := w.do(t, "POST", track, "mia", `{"operation":"delete","collection":"shopProducts","itemId":"a"}`)
				repair()
				if res.status != 500 || strings.Contains(res.body, cause) {
					t.Fatalf("status: got %d %s, want 500 without the cause", res.status, res.body)
				}
				if h := w.tr.Health(); h.Total != 1 || h.Failed != 1 || !strings.Contains(h.LastError, cause) {
					t.Errorf("health: got %+v, want 1 attempt and 1 failure with %q", h, cause)
				}
				if n := w.count(t, "kit_events"); n != 0 {
					t.Errorf("events: got %d, want 0", n)
				}
			})
		}
	})
}

// TestTrackFromGo uses Tracker.Track without HTTP: the user's name comes
// from the directory.
func TestTrackFromGo(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		w := newWorld(t, e, events.Config{})
		evs, err := w.tr.Track(context.Background(), w.ids["acme"], w.ids["alice"], events.TrackOptions{
			Operation: "update", Collection: "shopProducts", ItemID: "x",
			BeforeData: map[string]any{"title": "A"}, Updates: map[string]any{"title": "B"},
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) != 1 || evs[0].UserName != "Alice" || changesJSON(evs[0].Changes) != `[{"fieldName":"title","oldValue":"\"A\"","newValue":"\"B\""}]` {
			t.Fatalf("events: got %+v, want one update of title by Alice", evs)
		}
		if _, err := w.tr.Track(context.Background(), "", w.ids["alice"], events.TrackOptions{}); err == nil {
			t.Errorf("no team: got no error, want one")
		}
	})
}
