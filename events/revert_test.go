package events_test

import (
	"encoding/json"
	"errors"
	"maps"
	"strings"
	"testing"

	"github.com/collectionkit/kit/events"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
)

// revertPath is the revert route of event id in acme.
func revertPath(id string) string { return "/api/teams/acme/kit-events/" + id + "/revert" }

func TestRevert(t *testing.T) {
	t.Parallel()
	type step struct{ caller, method, path, body string }
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		scenarios := []struct {
			name  string
			setup []step
			// event picks the event to revert: the first one of this
			// operation and item ("update {miaProduct}"), or an id as is.
			event  string
			caller string
			body   string
			status int
			// want are the record's values after the revert (on success).
			want     map[string]any
			contains []string
		}{
			{name: "a member's update is undone: the old values are written back",
				setup: []step{{"mia", "PATCH", products + "/{miaProduct}", `{"title":"Renamed","price":"12.50","dimensions":{"w":3},"stock":4}`}},
				event: "update {miaProduct}", caller: "mia", status: 200,
				want: map[string]any{"title": "mia's product", "price": "9.99", "dimensions": map[string]any{"w": 1.0, "h": 2.0}, "stock": nil}},
			{name: "only the event's fields are written back; later changes of other fields stay",
				setup: []step{
					{"mia", "PATCH", products + "/{miaProduct}", `{"title":"Renamed"}`},
					{"mia", "PATCH", products + "/{miaProduct}", `{"stock":9}`}},
				event: "update {miaProduct}", caller: "mia", status: 200,
				want: map[string]any{"title": "mia's product", "stock": 9.0}},
			{name: "a field changed since the event is a 409 naming it, and nothing is written",
				setup: []step{
					{"mia", "PATCH", products + "/{miaProduct}", `{"title":"Renamed"}`},
					{"alice", "PATCH", products + "/{miaProduct}", `{"title":"Renamed again"}`}},
				event: "update {miaProduct}", caller: "mia", status: 409,
				contains: []string{`"fields":{"title":"changed since the event"}`}},
			{name: "force overwrites a field changed since the event",
				setup: []step{
					{"mia", "PATCH", products + "/{miaProduct}", `{"title":"Renamed"}`},
					{"alice", "PATCH", products + "/{miaProduct}", `{"title":"Renamed again"}`}},
				event: "update {miaProduct}", caller: "mia", body: `{"force":true}`, status: 200,
				want: map[string]any{"title": "mia's product"}},
			{name: "a record deleted since the event is a 409, even forced",
				setup: []step{
					{"mia", "PATCH", "/api/teams/acme/app-notes/{miaNote}", `{"body":"edited"}`},
					{"mia", "DELETE", "/api/teams/acme/app-notes/{miaNote}", ""}},
				event: "update {miaNote}", caller: "mia", body: `{"force":true}`, status: 409,
				contains: []string{"deleted since the event"}},
			{name: "an event of another team is a 404, as an unknown id",
				setup: []step{{"gina", "PATCH", "/api/teams/globex/shop-products/{ginaProduct}", `{"title":"Gina's"}`}},
				event: "update {ginaProduct}", caller: "alice", status: 404,
				contains: []string{`"message":"no such event in this team"`}},
			{name: "an unknown event id is a 404",
				event: "0190a000-0000-7000-8000-000000000000", caller: "alice", status: 404,
				contains: []string{`"message":"no such event in this team"`}},
			{name: "a create event is a 400: only updates are reverted",
				setup: []step{{"mia", "PATCH", "/api/teams/acme/app-notes/{miaNote}", `{"body":"edited"}`}},
				event: "create", caller: "mia", status: 400,
				contains: []string{"only an update event can be reverted"}},
			{name: "a member may not revert a change of a teammate's record: 403",
				setup: []step{{"max", "PATCH", "/api/teams/acme/app-notes/{maxNote}", `{"body":"edited"}`}},
				event: "update {maxNote}", caller: "mia", status: 403},
			{name: "a team owner may revert a member's change",
				setup: []step{{"max", "PATCH", "/api/teams/acme/app-notes/{maxNote}", `{"body":"edited"}`}},
				event: "update {maxNote}", caller: "alice", status: 200,
				want: map[string]any{"body": "max's note"}},
			{name: "an unknown body field is a 400 naming it",
				setup: []step{{"mia", "PATCH", products + "/{miaProduct}", `{"title":"Renamed"}`}},
				event: "update {miaProduct}", caller: "mia", body: `{"forced":true}`, status: 400,
				contains: []string{`"forced":"unknown field"`}},
			{name: "a malformed body is a 400",
				setup: []step{{"mia", "PATCH", products + "/{miaProduct}", `{"title":"Renamed"}`}},
				event: "update {miaProduct}", caller: "mia", body: `{"force":`, status: 400},
			{name: "force of the wrong type is a 400 naming it",
				setup: []step{{"mia", "PATCH", products + "/{miaProduct}", `{"title":"Renamed"}`}},
				event: "update {miaProduct}", caller: "mia", body: `{"force":"yes"}`, status: 400,
				contains: []string{`"force":"has the wrong type"`}},
			{name: "a caller without credentials is a 401",
				setup: []step{{"mia", "PATCH", products + "/{miaProduct}", `{"title":"Renamed"}`}},
				event: "update {miaProduct}", caller: "", status: 401},
		}
		for _, sc := range scenarios {
			t.Run(sc.name, func(t *testing.T) {
				t.Parallel()
				w := newWorld(t, e, events.Config{})
				for _, s := range sc.setup {
					if res := w.do(t, s.method, s.path, s.caller, s.body); res.status >= 300 && s.method != "DELETE" || res.status >= 400 {
						t.Fatalf("setup %s %s: got %d %s", s.method, s.path, res.status, res.body)
					}
				}
				id := pickEvent(t, w, sc.event)
				before, stored := w.snapshot(t), len(w.stored(t))
				res := w.do(t, "POST", revertPath(id), sc.caller, sc.body)
				if res.status != sc.status {
					t.Fatalf("got %d %s, want %d", res.status, res.body, sc.status)
				}
				for _, s := range sc.contains {
					if !strings.Contains(res.body, w.expand(s)) {
						t.Errorf("got body %s, want it to contain %s", res.body, s)
					}
				}
				if sc.status != 200 {
					if after := w.snapshot(t); !maps.Equal(after, before) {
						t.Errorf("got rows changed by a refused revert:\nbefore %v\nafter  %v", before, after)
					}
					if n := len(w.stored(t)); n != stored {
						t.Errorf("got %d events after a refused revert, want %d", n, stored)
					}
					return
				}
				var rec map[string]any
				if err := json.Unmarshal([]byte(res.body), &rec); err != nil {
					t.Fatal(err)
				}
				for k, v := range sc.want {
					if got, _ := json.Marshal(rec[k]); string(got) != mustJSON(t, v) {
						t.Errorf("got %s = %s, want %s", k, got, mustJSON(t, v))
					}
				}
				// The revert is an update of its own, naming the event.
				all := w.stored(t)
				last := all[len(all)-1]
				if len(all) != stored+1 || last.Operation != "update" || last.Metadata["revertOf"] != id {
					t.Errorf("got %d events, last %+v; want one more update with revertOf %s", len(all), last, id)
				}
			})
		}
	})
}

// pickEvent returns the id of the first stored event matching spec ("op
// {placeholder}", or "op" alone), or spec itself when it matches none of
// those forms (an id).
func pickEvent(t *testing.T, w *world, spec string) string {
	t.Helper()
	op, item, _ := strings.Cut(spec, " ")
	switch kit.Operation(op) {
	case kit.OpCreate, kit.OpUpdate, kit.OpDelete:
	default:
		return spec
	}
	for _, ev := range w.stored(t) {
		if ev.Operation == op && (item == "" || ev.ItemID == w.expand(item)) {
			return ev.ID
		}
	}
	if op == string(kit.OpCreate) {
		// The seed is written before Install: create one to revert.
		res := w.do(t, "POST", "/api/teams/acme/app-notes", "mia", `{"body":"new"}`)
		if res.status != 201 {
			t.Fatalf("create: got %d %s", res.status, res.body)
		}
		return pickEvent(t, w, spec)
	}
	t.Fatalf("no event %q among %+v", spec, w.stored(t))
	return ""
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRevertInGo(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		w := newWorld(t, e, events.Config{})
		ctx := t.Context()
		mia := w.actors["mia"]
		notes := w.k.Records("appNotes")
		if _, err := notes.Update(ctx, mia, w.ids["miaNote"], map[string]any{"body": "first"}); err != nil {
			t.Fatal(err)
		}
		id := pickEvent(t, w, "update {miaNote}")
		if _, err := notes.Update(ctx, mia, w.ids["miaNote"], map[string]any{"body": "second"}); err != nil {
			t.Fatal(err)
		}
		t.Run("a changed field is a *RevertConflictError matching ErrRevertConflict", func(t *testing.T) {
			_, err := w.tr.Revert(ctx, mia, id, events.RevertOptions{})
			var ce *events.RevertConflictError
			if !errors.As(err, &ce) || !errors.Is(err, events.ErrRevertConflict) || ce.Fields["body"] == "" || kit.StatusOf(err) != 409 {
				t.Fatalf("got %v, want a 409 *RevertConflictError naming body", err)
			}
		})
		t.Run("forced, the old value comes back", func(t *testing.T) {
			rec, err := w.tr.Revert(ctx, mia, id, events.RevertOptions{Force: true})
			if err != nil {
				t.Fatal(err)
			}
			if rec["body"] != "mia's note" {
				t.Errorf("got body %v, want mia's note", rec["body"])
			}
		})
		t.Run("an event of another team is kit.ErrNotFound", func(t *testing.T) {
			_, err := w.tr.Revert(ctx, w.actors["gina"], id, events.RevertOptions{Force: true})
			if !errors.Is(err, kit.ErrNotFound) || kit.StatusOf(err) != 404 {
				t.Fatalf("got %v, want a 404 matching kit.ErrNotFound", err)
			}
		})
	})
}
