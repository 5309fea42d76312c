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
