package client_test

import (
	"net/http"
	"testing"

	"github.com/collectionkit/kit/client"
	"github.com/collectionkit/kit/internal/testdb"
)

func TestEvents(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		s := newServer(t, e)
		c := s.client(t, "mia", client.WithUserAgent("shop-sync/1.0"))
		acme := c.Team("acme")
		ctx := t.Context()
		rec, err := acme.Collection("shopCategories").Create(ctx, map[string]any{"title": "Tools"})
		if err != nil {
			t.Fatal(err)
		}
		id := rec["id"].(string)
		if _, err := acme.Collection("shopCategories").Update(ctx, id, map[string]any{"title": "Hand tools"}); err != nil {
			t.Fatal(err)
		}
		t.Run("the list holds the client's changes, newest first", func(t *testing.T) {
			page, err := acme.Events(ctx, client.EventQuery{CollectionName: "shopCategories", ItemID: id})
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Items) != 2 || page.Items[0].Operation != "update" || page.Items[1].Operation != "create" {
				t.Fatalf("got %+v, want an update then a create", page.Items)
			}
			ev := page.Items[0]
			if ev.UserID != s.ids["mia"] || ev.UserName != "mia" || ev.TeamID != s.ids["acme"] {
				t.Errorf("got user %s %q team %s, want mia of acme", ev.UserID, ev.UserName, ev.TeamID)
			}
			if len(ev.Changes) != 1 || ev.Changes[0].FieldName != "title" || ev.Changes[0].NewValue == nil || *ev.Changes[0].NewValue != `"Hand tools"` {
				t.Errorf("got changes %+v, want title to \"Hand tools\"", ev.Changes)
			}
			if ev.Metadata["userAgent"] != "shop-sync/1.0" {
				t.Errorf("got metadata %v, want the client's user agent", ev.Metadata)
			}
			if page.Pagination.TotalItems != 2 || page.Pagination.CurrentPage != 1 {
				t.Errorf("got pagination %+v, want 2 items on page 1", page.Pagination)
			}
		})
		t.Run("enrichUserData adds the user's current data", func(t *testing.T) {
			page, err := acme.Events(ctx, client.EventQuery{Operation: "create", PageSize: 1, EnrichUserData: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Items) != 1 || page.Items[0].User == nil || page.Items[0].User.Name != "mia" {
				t.Errorf("got %+v, want one event with user mia", page.Items)
			}
		})
		t.Run("Track records a change made outside kit", func(t *testing.T) {
			evs, err := acme.Track(ctx, client.TrackOptions{
				Operation:  "update",
				Collection: "shopCategories",
				ItemID:     id,
				Updates:    map[string]any{"title": "Tools again"},
				BeforeData: map[string]any{"title": "Hand tools"},
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(evs) != 1 || evs[0].Operation != "update" || evs[0].Metadata["source"] != "manual" {
				t.Fatalf("got %+v, want one manual update event", evs)
			}
			page, err := acme.Events(ctx, client.EventQuery{ItemID: id})
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Items) != 3 || page.Items[0].ID != evs[0].ID {
				t.Errorf("got %d events, newest %v; want 3 with the tracked one first", len(page.Items), page.Items)
			}
		})
		t.Run("Track of an unknown collection is a 400 naming the field", func(t *testing.T) {
			_, err := acme.Track(ctx, client.TrackOptions{Operation: "create", Collection: "nothing", ItemID: "x"})
			wantStatus(t, err, http.StatusBadRequest, client.ErrBadRequest)
		})
		t.Run("a bad list parameter is a 400", func(t *testing.T) {
			_, err := acme.Events(ctx, client.EventQuery{DateFrom: "yesterday"})
			wantStatus(t, err, http.StatusBadRequest, client.ErrBadRequest)
		})
		t.Run("a global admin reads the tracking health", func(t *testing.T) {
			h, err := s.client(t, "root").SuperAdmin().EventsHealth(ctx)
			if err != nil {
				t.Fatal(err)
			}
			// The create, the update and the manual update above.
			if h.Total != 3 || h.Failed != 0 || h.LastError != nil || h.LastErrorTime != nil {
				t.Errorf("got %+v, want 3 attempts and no failure", h)
			}
		})
		t.Run("a team member may not read the tracking health", func(t *testing.T) {
			_, err := c.SuperAdmin().EventsHealth(ctx)
			wantStatus(t, err, http.StatusForbidden, client.ErrForbidden)
		})
		t.Run("RevertEvent writes an update's old values back, refusing a field changed since unless forced", func(t *testing.T) {
			page, err := acme.Events(ctx, client.EventQuery{ItemID: id, Operation: "update"})
			if err != nil {
				t.Fatal(err)
			}
			// Oldest first: the client's "Hand tools", then the manual one.
			first := page.Items[len(page.Items)-1]
			// The manual event changed nothing stored: the title is still
			// the event's new value.
			rec, err := acme.RevertEvent(ctx, first.ID, false)
			if err != nil {
				t.Fatal(err)
			}
			if rec["title"] != "Tools" {
				t.Errorf("got title %v, want Tools", rec["title"])
			}
			_, err = acme.Collection("shopCategories").Update(ctx, id, map[string]any{"title": "Other"})
			if err != nil {
				t.Fatal(err)
			}
			_, err = acme.RevertEvent(ctx, first.ID, false)
			wantStatus(t, err, http.StatusConflict, client.ErrConflict)
			if rec, err = acme.RevertEvent(ctx, first.ID, true); err != nil || rec["title"] != "Tools" {
				t.Errorf("got %v, %v; want title Tools when forced", rec, err)
			}
		})
		t.Run("RevertEvent of an unknown event is ErrNotFound", func(t *testing.T) {
			_, err := acme.RevertEvent(ctx, "0190a000-0000-7000-8000-000000000000", true)
			wantStatus(t, err, http.StatusNotFound, client.ErrNotFound)
		})
		t.Run("another team's events are forbidden", func(t *testing.T) {
			_, err := c.Team("globex").Events(ctx, client.EventQuery{})
			wantStatus(t, err, http.StatusForbidden, client.ErrForbidden)
		})
	})
}
