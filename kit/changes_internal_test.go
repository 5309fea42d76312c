package kit

import (
	"testing"
	"time"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/teamauth"
)

func TestChangeHubDisconnectsASlowSubscriber(t *testing.T) {
	k, err := Open(t.Context(), Config{SQLitePath: ":memory:" + t.Name(), Changes: ChangesConfig{Buffer: 1},
		Definitions: []collections.Definition{{Name: "notes", Fields: []collections.Field{{Name: "body", Type: collections.TypeText}}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	slow := &changeSub{teamID: "t1", ch: make(chan *changeFrame, 1), dropped: make(chan struct{})}
	if _, err := k.hub.subscribe(t.Context(), slow); err != nil {
		t.Fatal(err)
	}
	actor := Actor{UserID: "u1", TeamID: "t1", Role: teamauth.RoleOwner}
	for range 2 {
		if _, err := k.Records("appNotes").Create(t.Context(), actor, map[string]any{"body": "x"}); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-slow.dropped:
	case <-time.After(15 * time.Second): // only keeps a broken test from hanging
		t.Fatal("the subscriber that read nothing was kept")
	}
	k.hub.mu.Lock()
	count := k.hub.count
	k.hub.mu.Unlock()
	if count != 0 {
		t.Errorf("got %d subscribers after the drop, want 0", count)
	}
	if got := len(slow.ch); got != 1 {
		t.Errorf("got %d buffered events, want the buffer's 1", got)
	}
}

func TestChangeHubKeepsASubscriberThatKeepsUpWhenAnotherProcessCommitsMoreThanItsBuffer(t *testing.T) {
	path := t.TempDir() + "/kit.db"
	defs := []collections.Definition{{Name: "notes", Fields: []collections.Field{{Name: "body", Type: collections.TypeText}}}}
	writer, err := Open(t.Context(), Config{SQLitePath: path, Definitions: defs})
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	// The reader learns of the writer's changes only by its poll, which
	// comes long after the writer committed them all.
	reader, err := Open(t.Context(), Config{SQLitePath: path, Definitions: defs,
		Changes: ChangesConfig{Buffer: 8, PollInterval: 300 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	sub := &changeSub{teamID: "t1", ch: make(chan *changeFrame, 8), dropped: make(chan struct{})}
	if _, err := reader.hub.subscribe(t.Context(), sub); err != nil {
		t.Fatal(err)
	}
	defer reader.hub.unsubscribe(sub)
	const writes = 40
	actor := Actor{UserID: "u1", TeamID: "t1", Role: teamauth.RoleOwner}
	for range writes {
		if _, err := writer.Records("appNotes").Create(t.Context(), actor, map[string]any{"body": "x"}); err != nil {
			t.Fatal(err)
		}
	}
	got := 0
	deadline := time.After(15 * time.Second) // only keeps a broken test from hanging
	for got < writes {
		select {
		case <-sub.ch:
			got++
		case <-sub.dropped:
			t.Fatalf("got the subscriber dropped after %d of %d changes, want it kept: it read every change at once", got, writes)
		case <-deadline:
			t.Fatalf("got %d of %d changes", got, writes)
		}
	}
}
