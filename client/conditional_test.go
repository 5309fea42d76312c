package client_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/collectionkit/kit/client"
	"github.com/collectionkit/kit/internal/testdb"
)

func TestConditionalWrites(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		s := newServer(t, e)
		// A cache, to show ItemWithETag never answers from it.
		mia := s.client(t, "mia", client.WithCache(client.NewCache(100)))
		alice := s.client(t, "alice")
		wantPrecondition := func(t *testing.T, err error, current string) *client.Error {
			t.Helper()
			wantStatus(t, err, http.StatusPreconditionFailed, client.ErrPrecondition)
			var kerr *client.Error
			if !errors.As(err, &kerr) {
				t.Fatalf("got %v, want a *client.Error", err)
			}
			if kerr.ETag() != current {
				t.Errorf("ETag of the 412: got %q, want the current %q", kerr.ETag(), current)
			}
			if _, ok := kerr.Data["current"].(map[string]any); !ok {
				t.Errorf("data.current: got %v, want the current record", kerr.Data["current"])
			}
			return kerr
		}
		for _, key := range []string{"shopProducts", "shopCategories"} {
			products := mia.Team("acme").Collection(key)
			theirs := alice.Team("acme").Collection(key)
			t.Run(key+": CreateWithETag and ItemWithETag answer the same ETag", func(t *testing.T) {
				rec, etag, err := products.CreateWithETag(t.Context(), map[string]any{"title": "Lamp"})
				if err != nil || etag == "" {
					t.Fatalf("got %q, %v, want an ETag", etag, err)
				}
				if _, err := products.Item(t.Context(), rec["id"].(string)); err != nil { // cached now
					t.Fatal(err)
				}
				if _, err := theirs.Update(t.Context(), rec["id"].(string), map[string]any{"title": "Lamp 2"}); err != nil {
					t.Fatal(err)
				}
				_, fresh, err := products.ItemWithETag(t.Context(), rec["id"].(string))
				if err != nil || fresh == etag || fresh == "" {
					t.Errorf("ItemWithETag after another's update: got %q, %v, want a new ETag (not %q from a cache)", fresh, err, etag)
				}
			})
			t.Run(key+": an update with the ETag read applies and answers the next ETag", func(t *testing.T) {
				rec, etag, err := products.CreateWithETag(t.Context(), map[string]any{"title": "Desk"})
				if err != nil {
					t.Fatal(err)
				}
				id := rec["id"].(string)
				got, next, err := products.UpdateWithETag(t.Context(), id, map[string]any{"title": "Desk 2"}, client.IfMatch(etag))
				if err != nil || got["title"] != "Desk 2" {
					t.Fatalf("got %v, %v, want the Desk 2", got, err)
				}
				if _, now, _ := products.ItemWithETag(t.Context(), id); now != next || next == etag {
					t.Errorf("ETag: got %q from the update and %q from a read, want the same new one (old %q)", next, now, etag)
				}
				if _, err := products.Update(t.Context(), id, map[string]any{"title": "Desk 3"}, client.IfMatch(next)); err != nil {
					t.Errorf("a second update with the update's ETag: got %v, want it applied", err)
				}
			})
			t.Run(key+": the second of two edits from the same ETag is ErrPrecondition and the first's data stays", func(t *testing.T) {
				rec, etag, err := products.CreateWithETag(t.Context(), map[string]any{"title": "Chair"})
				if err != nil {
					t.Fatal(err)
				}
				id := rec["id"].(string)
				_, first, err := theirs.UpdateWithETag(t.Context(), id, map[string]any{"title": "alice's chair"}, client.IfMatch(etag))
				if err != nil {
					t.Fatal(err)
				}
				_, err = products.Update(t.Context(), id, map[string]any{"title": "mia's chair"}, client.IfMatch(etag))
				kerr := wantPrecondition(t, err, first)
				if cur, _ := kerr.Data["current"].(map[string]any); cur["title"] != "alice's chair" {
					t.Errorf("data.current: got %v, want alice's chair", cur)
				}
				now, _, err := products.ItemWithETag(t.Context(), id)
				if err != nil || now["title"] != "alice's chair" {
					t.Errorf("stored: got %v, %v, want alice's chair", now, err)
				}
				if _, err := products.Update(t.Context(), id, map[string]any{"title": "mia's chair"}, client.IfMatch(kerr.ETag())); err != nil {
					t.Errorf("a retry with the 412's ETag: got %v, want it applied", err)
				}
			})
			t.Run(key+": DeleteIfMatch deletes only the version read", func(t *testing.T) {
				rec, etag, err := products.CreateWithETag(t.Context(), map[string]any{"title": "Shelf"})
				if err != nil {
					t.Fatal(err)
				}
				id := rec["id"].(string)
				_, current, err := theirs.UpdateWithETag(t.Context(), id, map[string]any{"title": "Shelf 2"})
				if err != nil {
					t.Fatal(err)
				}
				wantPrecondition(t, products.DeleteIfMatch(t.Context(), id, etag), current)
				if _, _, err := products.ItemWithETag(t.Context(), id); err != nil {
					t.Errorf("after the refused delete: got %v, want the record", err)
				}
				if err := products.DeleteIfMatch(t.Context(), id, current); err != nil {
					t.Fatal(err)
				}
				_, _, err = products.ItemWithETag(t.Context(), id)
				wantStatus(t, err, http.StatusNotFound, client.ErrNotFound)
			})
		}
		t.Run("Move with a stale ETag is ErrPrecondition and moves nothing", func(t *testing.T) {
			folders := alice.Team("acme").Collection("docsFolders")
			root, _, err := folders.CreateWithETag(t.Context(), map[string]any{"title": "R"})
			if err != nil {
				t.Fatal(err)
			}
			node, etag, err := folders.CreateWithETag(t.Context(), map[string]any{"title": "N", "parentId": root["id"]})
			if err != nil {
				t.Fatal(err)
			}
			id := node["id"].(string)
			_, current, err := folders.UpdateWithETag(t.Context(), id, map[string]any{"title": "N2"})
			if err != nil {
				t.Fatal(err)
			}
			_, err = folders.Move(t.Context(), id, "", client.OrderEnd, client.IfMatch(etag))
			wantPrecondition(t, err, current)
			moved, err := folders.Move(t.Context(), id, "", client.OrderEnd, client.IfMatch(current))
			if err != nil || moved["parentId"] != nil {
				t.Errorf("a move with the current ETag: got %v, %v, want a root", moved, err)
			}
		})
	})
}
