package events_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/events"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
)

// TestTrashEvents tracks a delete into the trash, a restore and a purge.
func TestTrashEvents(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		w := newWorld(t, e, events.Config{}, func(c *kit.Config) {
			c.Definitions = append(c.Definitions, collections.Definition{Name: "drafts", Layer: "app",
				Config: &collections.Config{SoftDelete: true}, Fields: []collections.Field{{Name: "body", Type: collections.TypeText}}})
		})
		res := w.do(t, "POST", "/api/teams/acme/app-drafts", "mia", `{"body":"draft"}`)
		if res.status != 201 {
			t.Fatalf("create: got %d %s", res.status, res.body)
		}
		var created struct{ ID string }
		if err := json.Unmarshal([]byte(res.body), &created); err != nil {
			t.Fatal(err)
		}
		id := created.ID
		for _, s := range []struct{ method, path string }{
			{"DELETE", "/api/teams/acme/app-drafts/" + id},
			{"POST", "/api/teams/acme/app-drafts/" + id + "/restore"},
			{"DELETE", "/api/teams/acme/app-drafts/" + id},
			{"DELETE", "/api/teams/acme/app-drafts/" + id + "/trash"},
		} {
			if res := w.do(t, s.method, s.path, "mia", ""); res.status >= 300 {
				t.Fatalf("%s %s: got %d %s", s.method, s.path, res.status, res.body)
			}
		}
		evs := w.stored(t)
		if len(evs) != 5 {
			t.Fatalf("got %d events, want 5 (create, delete, restore, delete, purge)", len(evs))
		}
		want := []string{"create", "delete", "restore", "delete", "purge"}
		for i, ev := range evs {
			if ev.Operation != want[i] || ev.ItemID != id {
				t.Errorf("event %d: got %s of %s, want %s of %s", i, ev.Operation, ev.ItemID, want[i], id)
			}
		}
		if evs[1].Metadata["trashed"] != true || evs[3].Metadata["trashed"] != true {
			t.Errorf("got metadata %v and %v, want trashed: true on the deletes", evs[1].Metadata, evs[3].Metadata)
		}
		if len(evs[2].Changes) != 1 || evs[2].Changes[0].FieldName != "body" || *evs[2].Changes[0].NewValue != `"draft"` {
			t.Errorf("got restore changes %+v, want body set to \"draft\"", evs[2].Changes)
		}
		if res := w.do(t, "GET", "/api/teams/acme/kit-events?operation=restore", "mia", ""); res.status != 200 || !strings.Contains(res.body, `"totalItems":1`) {
			t.Errorf("got %d %s, want one restore event listed", res.status, res.body)
		}
	})
}
