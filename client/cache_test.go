package client_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/collectionkit/kit/client"
	"github.com/collectionkit/kit/internal/testdb"
)

// cachedCollections returns the registry keys with cached answers.
func cachedCollections(cache *client.Cache) []string {
	var out []string
	for _, k := range cache.Keys() {
		key := strings.SplitN(strings.TrimPrefix(k, "collection:"), ":", 2)[0]
		if !slices.Contains(out, key) {
			out = append(out, key)
		}
	}
	slices.Sort(out)
	return out
}

func TestCacheInvalidationByReferences(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		s := newServer(t, e)
		cache := client.NewCache(0)
		c := s.client(t, "mia", client.WithCache(cache))
		acme := c.Team("acme")
		ctx := t.Context()
		catID := s.seed(t, "mia", "shopCategories", map[string]any{"title": "Tools"})
		s.seed(t, "mia", "appNotes", map[string]any{"body": "remember"})
		fill := func(t *testing.T) {
			t.Helper()
			for _, key := range []string{"shopProducts", "shopCategories", "appNotes"} {
				if _, err := acme.Collection(key).List(ctx, client.Query{}); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := acme.Collection("shopCategories").Item(ctx, catID); err != nil {
				t.Fatal(err)
			}
			if got, want := cachedCollections(cache), []string{"appNotes", "shopCategories", "shopProducts"}; !slices.Equal(got, want) {
				t.Fatalf("got cached %q, want %q", got, want)
			}
		}
		t.Run("a cached list is answered from the cache until invalidated", func(t *testing.T) {
			fill(t)
			s.seed(t, "mia", "appNotes", map[string]any{"body": "written by another program"})
			page, err := acme.Collection("appNotes").List(ctx, client.Query{})
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Items) != 1 {
				t.Fatalf("got %d notes, want the 1 cached", len(page.Items))
			}
			c.Invalidate(client.CollectionPrefix("appNotes"))
			page, err = acme.Collection("appNotes").List(ctx, client.Query{})
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Items) != 2 {
				t.Errorf("got %d notes after Invalidate, want 2", len(page.Items))
			}
		})
		t.Run("a mutation of shopProducts drops its own and its referenced shopCategories keys and keeps appNotes", func(t *testing.T) {
			cache.Invalidate("")
			fill(t)
			s.seed(t, "mia", "shopCategories", map[string]any{"title": "Written elsewhere"})
			if _, err := acme.Collection("shopProducts").Create(ctx, map[string]any{"title": "Saw", "price": "5.00", "categoryId": catID}); err != nil {
				t.Fatal(err)
			}
			if got, want := cachedCollections(cache), []string{"appNotes"}; !slices.Equal(got, want) {
				t.Errorf("got cached %q, want %q", got, want)
			}
			page, err := acme.Collection("shopCategories").List(ctx, client.Query{})
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Items) != 2 {
				t.Errorf("got %d categories, want 2 fetched afresh", len(page.Items))
			}
		})
		t.Run("a mutation of shopCategories, which references nothing, keeps shopProducts", func(t *testing.T) {
			cache.Invalidate("")
			fill(t)
			if _, err := acme.Collection("shopCategories").Update(ctx, catID, map[string]any{"title": "Hand tools"}); err != nil {
				t.Fatal(err)
			}
			if got, want := cachedCollections(cache), []string{"appNotes", "shopProducts"}; !slices.Equal(got, want) {
				t.Errorf("got cached %q, want %q", got, want)
			}
			rec, err := acme.Collection("shopCategories").Item(ctx, catID)
			if err != nil {
				t.Fatal(err)
			}
			if rec["title"] != "Hand tools" {
				t.Errorf("got title %v, want the updated Hand tools", rec["title"])
			}
		})
		t.Run("the keys name the collection, the team and the request", func(t *testing.T) {
			cache.Invalidate("")
			if _, err := acme.Collection("appNotes").List(ctx, client.Query{Page: 1, Search: "rem"}); err != nil {
				t.Fatal(err)
			}
			if got, want := cache.Keys(), []string{"collection:appNotes:acme:list?page=1&search=rem"}; !slices.Equal(got, want) {
				t.Errorf("got keys %q, want %q", got, want)
			}
		})
	})
}

func TestCacheLimit(t *testing.T) {
	cache := client.NewCache(2)
	for _, k := range []string{"collection:a:1", "collection:b:1", "collection:c:1"} {
		cache.Set(k, []byte("{}"))
	}
	if got, want := cache.Keys(), []string{"collection:b:1", "collection:c:1"}; !slices.Equal(got, want) {
		t.Errorf("got keys %q, want the newest two %q", got, want)
	}
	if _, ok := cache.Get("collection:a:1"); ok {
		t.Errorf("got the oldest answer, want it dropped")
	}
}

func TestOneClientIsSafeForConcurrentUse(t *testing.T) {
	s := newServer(t, testdb.EngineSQLite)
	c := s.client(t, "mia", client.WithCache(client.NewCache(0)))
	notes := c.Team("acme").Collection("appNotes")
	const workers = 8
	errs := make(chan error, workers)
	for i := range workers {
		go func() {
			rec, err := notes.Create(t.Context(), map[string]any{"body": strings.Repeat("n", i+1)})
			if err == nil {
				_, err = notes.List(t.Context(), client.Query{})
			}
			if err == nil {
				_, err = notes.Item(t.Context(), rec["id"].(string))
			}
			errs <- err
		}()
	}
	for range workers {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	page, err := notes.List(t.Context(), client.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if page.Pagination.TotalItems != workers {
		t.Errorf("got %d notes after every create returned, want %d: a cached list predating a create survived", page.Pagination.TotalItems, workers)
	}
}
