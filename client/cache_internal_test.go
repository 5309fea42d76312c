package client

import "testing"

func TestAnAnswerRequestedBeforeAnInvalidationIsNotCached(t *testing.T) {
	cache := NewCache(0)
	gen := cache.generation()
	cache.Invalidate("collection:shopProducts:")
	cache.setSince(gen, "collection:appNotes:acme:list?", []byte("{}"))
	if _, ok := cache.Get("collection:appNotes:acme:list?"); ok {
		t.Errorf("got the answer cached, want it dropped: an invalidation happened while it was on its way")
	}
	cache.setSince(cache.generation(), "collection:appNotes:acme:list?", []byte("{}"))
	if _, ok := cache.Get("collection:appNotes:acme:list?"); !ok {
		t.Errorf("got no answer cached, want it cached when nothing was invalidated meanwhile")
	}
}
