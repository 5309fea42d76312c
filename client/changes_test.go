package client_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/collectionkit/kit/client"
	"github.com/collectionkit/kit/internal/testdb"
)

// waitLimit only keeps a broken test from hanging; no test asserts on how
// long anything takes.
const waitLimit = 15 * time.Second

// subscription runs Team.Subscribe on a goroutine and records what it
// sees.
type subscription struct {
	changes  chan client.Change
	connects chan struct{}
	resets   chan struct{}
	done     chan error
	cancel   context.CancelFunc
}

func subscribe(t *testing.T, team *client.Team, opts client.SubscribeOptions) *subscription {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	s := &subscription{changes: make(chan client.Change, 100), connects: make(chan struct{}, 100),
		resets: make(chan struct{}, 100), done: make(chan error, 1), cancel: cancel}
	opts.OnChange = func(c client.Change) { s.changes <- c }
	opts.OnConnect = func() { s.connects <- struct{}{} }
	opts.OnReset = func() { s.resets <- struct{}{} }
	go func() { s.done <- team.Subscribe(ctx, opts) }()
	t.Cleanup(func() {
		cancel()
		<-s.done
	})
	return s
}

func receive[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitLimit):
		t.Fatalf("no %s came", what)
		var zero T
		return zero
	}
}

func TestSubscribeInvalidatesTheCacheFromOtherWriters(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		s := newServer(t, e)
		cache := client.NewCache(0)
		c := s.client(t, "mia", client.WithCache(cache))
		acme := c.Team("acme")
		ctx := t.Context()
		sub := subscribe(t, acme, client.SubscribeOptions{})
		receive(t, sub.connects, "connect")
		for _, key := range []string{"shopProducts", "shopCategories", "appNotes"} {
			if _, err := acme.Collection(key).List(ctx, client.Query{}); err != nil {
				t.Fatal(err)
			}
		}
		id := s.seed(t, "alice", "shopProducts", map[string]any{"title": "Written by Go code on the server"})
		got := receive(t, sub.changes, "change")
		if got.Operation != "create" || got.Collection != "shopProducts" || got.ItemID != id {
			t.Errorf("got %+v, want the create of %s", got, id)
		}
		if got, want := cachedCollections(cache), []string{"appNotes"}; !slices.Equal(got, want) {
			t.Errorf("got cached %q after the change, want %q (products and the categories they reference dropped)", got, want)
		}
	})
}

func TestSubscribeResumesAfterABrokenConnection(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		s := newServer(t, e)
		acme := s.client(t, "mia").Team("acme")
		sub := subscribe(t, acme, client.SubscribeOptions{MinBackoff: 50 * time.Millisecond, Collections: []string{"appNotes"}})
		receive(t, sub.connects, "connect")
		var want []string
		want = append(want, s.seed(t, "alice", "appNotes", map[string]any{"body": "before"}))
		receive(t, sub.changes, "first change")
		s.srv.CloseClientConnections()
		for range 3 {
			want = append(want, s.seed(t, "alice", "appNotes", map[string]any{"body": "while away"}))
		}
		receive(t, sub.connects, "reconnect")
		got := []string{want[0]}
		for range 3 {
			got = append(got, receive(t, sub.changes, "change").ItemID)
		}
		if !slices.Equal(got, want) {
			t.Errorf("got %v, want %v (each once, in order)", got, want)
		}
		select {
		case c := <-sub.changes:
			t.Errorf("got an extra change %+v", c)
		default:
		}
	})
}

func TestSubscribeStopsOnRefusals(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		s := newServer(t, e)
		cases := []struct {
			name, user, team string
			collections      []string
			status           int
			sentinel         error
		}{
			{"a member of another team is refused with 403", "gina", "acme", nil, 403, client.ErrForbidden},
			{"an anonymous caller is refused with 401", "", "acme", nil, 401, client.ErrUnauthorized},
			{"an unknown team is a 404", "mia", "nowhere", nil, 404, client.ErrNotFound},
			{"an unknown collection is a 400", "mia", "acme", []string{"nope"}, 400, client.ErrBadRequest},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				err := s.client(t, c.user).Team(c.team).Subscribe(t.Context(), client.SubscribeOptions{Collections: c.collections})
				wantStatus(t, err, c.status, c.sentinel)
			})
		}
	})
}

func TestSubscribeResetDropsTheCache(t *testing.T) {
	s := newServer(t, testdb.EngineSQLite)
	cache := client.NewCache(0)
	c := s.client(t, "mia", client.WithCache(cache))
	acme := c.Team("acme")
	if _, err := acme.Collection("appNotes").List(t.Context(), client.Query{}); err != nil {
		t.Fatal(err)
	}
	sub := subscribe(t, acme, client.SubscribeOptions{LastEventID: "not-a-position"})
	receive(t, sub.resets, "reset")
	receive(t, sub.connects, "connect")
	if keys := cache.Keys(); len(keys) != 0 {
		t.Errorf("got cached %q after a reset, want nothing", keys)
	}
}
