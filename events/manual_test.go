package events_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/collectionkit/kit/events"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/internal/testkit"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/kittest"
	"github.com/collectionkit/kit/teamauth"
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
				caller: "mia", body: `{"operation":"create","collection":"shopProducts","itemId":"{miaProduct}","data":{"title":"Imported","id":"{miaProduct}","owner":"x","stock":2}}`,
				status: 201, events: 1, items: []string{"{miaProduct}"},
				changes:  `[{"fieldName":"title","oldValue":null,"newValue":"\"Imported\""},{"fieldName":"stock","oldValue":null,"newValue":"2"}]`,
				contains: []string{`"items":[{`, `"teamId":"{acme}"`, `"userId":"{mia}"`, `"userName":"Mia"`, `"source":"manual"`}},
			{name: "a create may take its fields from result",
				caller: "mia", body: `{"operation":"create","collection":"shopProducts","itemId":"{miaProduct}","result":{"id":"{miaProduct}","title":"From result"}}`,
				status: 201, events: 1, items: []string{"{miaProduct}"}, changes: `[{"fieldName":"title","oldValue":null,"newValue":"\"From result\""}]`},
			{name: "an update stores only the changed fields of updates against beforeData",
				caller: "mia", body: `{"operation":"update","collection":"shopProducts","itemId":"{miaProduct}","updates":{"title":"Same","stock":3},"beforeData":{"title":"Same","stock":1}}`,
				status: 201, events: 1, items: []string{"{miaProduct}"}, changes: `[{"fieldName":"stock","oldValue":"1","newValue":"3"}]`},
			{name: "an update without updates compares beforeData with result",
				caller: "mia", body: `{"operation":"update","collection":"shopProducts","itemId":"{miaProduct}","result":{"title":"New","stock":1},"beforeData":{"title":"Old","stock":1}}`,
				status: 201, events: 1, changes: `[{"fieldName":"title","oldValue":"\"Old\"","newValue":"\"New\""}]`},
			{name: "a delete of several ids writes one event per id with no changes",
				caller: "alice", body: `{"operation":"delete","collection":"appNotes","itemIds":["{miaNote}","{maxNote}","{miaNote2}"],"beforeData":{"body":"secret"}}`,
				status: 201, events: 3, items: []string{"{miaNote}", "{maxNote}", "{miaNote2}"}, changes: `[]`, notContains: []string{"secret"}},
			{name: "the collection may be named by its API path and is stored by key",
				caller: "mia", body: `{"operation":"delete","collection":"shop-products","itemId":"{miaProduct}"}`,
				status: 201, events: 1, contains: []string{`"collectionName":"shopProducts"`}},
			{name: "the team may be named by id in the route",
				path: "/api/teams/{acme}/kit-collection-events", caller: "max", body: `{"operation":"delete","collection":"appNotes","itemId":"{maxNote}"}`,
				status: 201, events: 1, contains: []string{`"teamId":"{acme}"`, `"userName":"Max"`}},
			{name: "a team owner may track a change of any record of the team",
				caller: "alice", body: `{"operation":"update","collection":"appNotes","itemId":"{maxNote}","updates":{"body":"edited"},"beforeData":{"body":"max's note"}}`,
				status: 201, events: 1, items: []string{"{maxNote}"}, changes: `[{"fieldName":"body","oldValue":"\"max's note\"","newValue":"\"edited\""}]`},

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
			{name: "a member of another team cannot track into the team", caller: "gina", body: `{"operation":"delete","collection":"shopProducts","itemId":"{miaProduct}"}`, status: 403},
			{name: "an anonymous caller cannot track", body: `{"operation":"delete","collection":"shopProducts","itemId":"{miaProduct}"}`, status: 401},
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
				testkit.DecodeJSON(t, res.body, &body)
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

// TestManualEventsCannotBeForged: a manual event about a record is
// accepted only from a caller who could have made the change (issue 16,
// item 3.8). Another team's record and a missing one answer the identical
// 404, a teammate's record the caller may not change a 403, exactly as
// the change itself would; nothing is written, no attempt is counted and
// no record changes.
func TestManualEventsCannotBeForged(t *testing.T) {
	t.Parallel()
	const (
		notFound  = `{"status":404,"statusText":"Not Found","message":"record not found"}`
		noDelete  = `{"status":403,"statusText":"Forbidden","message":"a member may delete only the records they own; team admins and owners may delete any"}`
		noUpdate  = `{"status":403,"statusText":"Forbidden","message":"a member may update only the records they own; team admins and owners may update any"}`
		noCreator = `{"status":403,"statusText":"Forbidden","message":"only the record's owner, or a team admin or owner, may account for its creation"}`
	)
	cases := []struct {
		name, caller, body string
		status             int
		want               string // the exact body
	}{
		{"a member's delete of a teammate's record is a 403", "max",
			`{"operation":"delete","collection":"shopProducts","itemId":"{miaProduct}","beforeData":{"title":"made up"}}`, 403, noDelete},
		{"a member's update of a teammate's record is a 403", "max",
			`{"operation":"update","collection":"shopProducts","itemId":"{miaProduct}","updates":{"price":"0.01"},"beforeData":{"price":"9.99"}}`, 403, noUpdate},
		{"a member's create of a teammate's record is a 403", "max",
			`{"operation":"create","collection":"appNotes","itemId":"{miaNote}","data":{"body":"mine now"}}`, 403, noCreator},
		{"a delete of several ids with one teammate's record among the caller's own is a 403", "mia",
			`{"operation":"delete","collection":"appNotes","itemIds":["{miaNote}","{maxNote}"]}`, 403, noDelete},
		{"a member's delete of another team's record is a 404", "mia",
			`{"operation":"delete","collection":"shopProducts","itemId":"{ginaProduct}","beforeData":{"title":"gina's product"}}`, 404, notFound},
		{"an owner's delete of another team's record is the same 404", "alice",
			`{"operation":"delete","collection":"shopProducts","itemId":"{ginaProduct}"}`, 404, notFound},
		{"an update of another team's record is the same 404", "alice",
			`{"operation":"update","collection":"appNotes","itemId":"{ginaNote}","updates":{"body":"x"}}`, 404, notFound},
		{"a delete of a missing record is the same 404", "mia",
			`{"operation":"delete","collection":"shopProducts","itemId":"a"}`, 404, notFound},
		{"a create naming no record is the same 404", "mia",
			`{"operation":"create","collection":"shopProducts","itemId":"ext-1","data":{"title":"Imported"}}`, 404, notFound},
		{"a record named under another collection is the same 404", "mia",
			`{"operation":"delete","collection":"appNotes","itemId":"{miaProduct}"}`, 404, notFound},
		{"a delete of several ids with one of another team is the same 404", "mia",
			`{"operation":"delete","collection":"app-notes","itemIds":["{miaNote}","{ginaNote}"]}`, 404, notFound},
	}
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel() // each case has its own world
				w := newWorld(t, e, events.Config{})
				before := w.snapshot(t)
				res := w.do(t, "POST", track, tc.caller, tc.body)
				if res.status != tc.status {
					t.Errorf("status: got %d, want %d", res.status, tc.status)
				}
				if got := strings.TrimSpace(res.body); got != tc.want {
					t.Errorf("body:\n got %s\nwant %s", got, tc.want)
				}
				if n := w.count(t, "kit_events"); n != 0 {
					t.Errorf("events: got %d, want 0", n)
				}
				if h := w.tr.Health(); h.Total != 0 || h.Failed != 0 {
					t.Errorf("health: got total %d failed %d, want no attempt", h.Total, h.Failed)
				}
				if n := kittest.RowsChanged(before, w.snapshot(t)); n != 0 {
					t.Errorf("rows changed: got %d, want 0", n)
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
				res := w.do(t, "POST", track, "mia", `{"operation":"delete","collection":"shopProducts","itemId":"{miaProduct}"}`)
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

// TestTrackAsFromGo uses Tracker.TrackAs without HTTP: the actor's rights
// decide, as they do for the record API; Track, for host code, checks
// shape only.
func TestTrackAsFromGo(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		w := newWorld(t, e, events.Config{})
		ctx := context.Background()
		del := func(id string) events.TrackOptions {
			return events.TrackOptions{Operation: "delete", Collection: "shopProducts", ItemID: w.expand(id)}
		}
		cases := []struct {
			name  string
			actor string
			opts  events.TrackOptions
			is    error // nil: tracked
		}{
			{"the record's owner may track its delete", "mia", del("{miaProduct}"), nil},
			{"a teammate may not", "max", del("{miaProduct}"), kit.ErrForbidden},
			{"another team's record is not found", "mia", del("{ginaProduct}"), kit.ErrNotFound},
			{"a missing record is not found", "alice", del("x"), kit.ErrNotFound},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				evs, err := w.tr.TrackAs(ctx, w.actors[tc.actor], tc.opts)
				if tc.is == nil {
					if err != nil || len(evs) != 1 || evs[0].ItemID != tc.opts.ItemID {
						t.Fatalf("got %v, %v; want one event for %s", evs, err, tc.opts.ItemID)
					}
					return
				}
				if !errors.Is(err, tc.is) || evs != nil {
					t.Errorf("got %v, %v; want no events and %v", evs, err, tc.is)
				}
			})
		}
		if _, err := w.tr.TrackAs(ctx, kit.Actor{UserID: w.ids["mia"]}, del("{miaProduct}")); !errors.Is(err, teamauth.ErrTeamMissing) {
			t.Errorf("no team: got %v, want ErrTeamMissing", err)
		}
		if evs, err := w.tr.Track(ctx, w.ids["acme"], w.ids["max"], del("not-a-record")); err != nil || len(evs) != 1 {
			t.Errorf("Track for host code: got %v, %v; want one event, unchecked", evs, err)
		}
		if n := w.count(t, "kit_events"); n != 2 {
			t.Errorf("events: got %d, want 2 (mia's delete and the host's)", n)
		}
	})
}
