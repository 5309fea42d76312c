package client_test

import (
	"net/http"
	"testing"

	"github.com/collectionkit/kit/client"
	"github.com/collectionkit/kit/internal/testdb"
)

func TestTrash(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		s := newServer(t, e)
		ctx := t.Context()
		drafts := s.client(t, "mia").Team("acme").Collection("appDrafts")
		rec, err := drafts.Create(ctx, map[string]any{"body": "first draft"})
		if err != nil {
			t.Fatal(err)
		}
		id := rec["id"].(string)
		if err := drafts.Delete(ctx, id); err != nil {
			t.Fatal(err)
		}
		t.Run("Trash lists the deleted record with its data", func(t *testing.T) {
			page, err := drafts.Trash(ctx, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Items) != 1 || page.Items[0].ID != id || page.Items[0].Record["body"] != "first draft" || page.Pagination.TotalItems != 1 {
				t.Fatalf("got %+v, want the one deleted draft", page)
			}
		})
		t.Run("Restore puts it back with the same id", func(t *testing.T) {
			got, err := drafts.Restore(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if got["id"] != id || got["body"] != "first draft" {
				t.Errorf("got %v, want the draft back", got)
			}
		})
		t.Run("Restore of a record not in the trash is ErrNotFound", func(t *testing.T) {
			_, err := drafts.Restore(ctx, id)
			wantStatus(t, err, http.StatusNotFound, client.ErrNotFound)
		})
		t.Run("Purge removes it for good", func(t *testing.T) {
			if err := drafts.Delete(ctx, id); err != nil {
				t.Fatal(err)
			}
			if err := drafts.Purge(ctx, id); err != nil {
				t.Fatal(err)
			}
			page, err := drafts.Trash(ctx, 1, 10)
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Items) != 0 {
				t.Errorf("got %d trashed, want 0", len(page.Items))
			}
			wantStatus(t, drafts.Purge(ctx, id), http.StatusNotFound, client.ErrNotFound)
		})
		t.Run("the trash of a collection without softDelete is ErrNotFound", func(t *testing.T) {
			_, err := s.client(t, "mia").Team("acme").Collection("appNotes").Trash(ctx, 0, 0)
			wantStatus(t, err, http.StatusNotFound, client.ErrNotFound)
		})
	})
}
