package kit_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/internal/testkit"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/kittest"
	"github.com/collectionkit/kit/teamauth"
)

// changesURL is the change stream of team in w, with query.
func (w *world) changesURL(team, query string) string {
	u := w.srv.URL + "/api/teams/" + team + "/kit-changes"
	if query != "" {
		u += "?" + query
	}
	return u
}

// stream opens the change stream as caller and reads up to its ready
// event.
func (w *world) stream(t *testing.T, caller, query string, header ...string) (*sseStream, string) {
	t.Helper()
	s, res := openStream(t, w.changesURL("acme", query), w.tokens[caller], header...)
	if s == nil {
		t.Fatalf("open stream: got %d %s, want 200", res.status, res.body)
	}
	_, id := s.ready(t)
	return s, id
}

func TestChangeStreamRefusesBadRequestsBeforeOpening(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		w := newWorld(t, e)
		cases := []struct {
			name, team, caller, query string
			status                    int
			body                      string
		}{
			{"an anonymous caller gets 401", "acme", "", "", 401,
				`{"status":401,"statusText":"Unauthorized","message":"authentication required"}`},
			{"an unknown token gets 401", "acme", "bad", "", 401,
				`{"status":401,"statusText":"Unauthorized","message":"invalid token"}`},
			{"a member of another team gets 403", "acme", "gina", "", 403,
				`{"status":403,"statusText":"Forbidden","message":"not a member of this team"}`},
			{"a banned member gets 403", "acme", "ben", "", 403,
				`{"status":403,"statusText":"Forbidden","message":"user is banned"}`},
			{"a global admin who is no member gets 403", "acme", "root", "", 403,
				`{"status":403,"statusText":"Forbidden","message":"not a member of this team"}`},
			{"an unknown team gets 404", "nowhere", "alice", "", 404,
				`{"status":404,"statusText":"Not Found","message":"team not found"}`},
			{"an unknown collection gets 400 naming the parameter", "acme", "alice", "collections=shopProducts,nope", 400,
				`{"status":400,"statusText":"Bad Request","message":"collections: unknown collection \"nope\"","data":{"param":"collections"}}`},
			{"an empty collections parameter gets 400", "acme", "alice", "collections=", 400,
				`{"status":400,"statusText":"Bad Request","message":"collections: unknown collection \"\"","data":{"param":"collections"}}`},
		}
		before := w.snapshot(t)
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				token := w.tokens[c.caller]
				if c.caller == "bad" {
					token = "kit_not-a-real-token"
				}
				s, res := openStream(t, w.changesURL(c.team, c.query), token)
				if s != nil {
					t.Fatalf("got an open stream, want %d", c.status)
				}
				if res.status != c.status {
					t.Errorf("got status %d, want %d", res.status, c.status)
				}
				if got := strings.TrimSpace(res.body); got != c.body {
					t.Errorf("got body %s, want %s", got, c.body)
				}
			})
		}
		if n := kittest.RowsChanged(before, w.snapshot(t)); n != 0 {
			t.Errorf("got %d rows changed, want 0", n)
		}
	})
}

func TestChangeStreamDeliversCommittedChanges(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		w := newWorld(t, e)
		s, readyID := w.stream(t, "mia", "")

		t.Run("a create over HTTP arrives with its correlation id and the referenced collection's key", func(t *testing.T) {
			res := w.do(t, "POST", "/api/teams/acme/shop-products", "mia", "application/json",
				`{"title":"Lamp","categoryId":"{acmeCategory}"}`, "X-Correlation-Id", "corr-create-1")
			if res.status != 201 {
				t.Fatalf("create: got %d %s, want 201", res.status, res.body)
			}
			var rec map[string]any
			testkit.DecodeJSON(t, res.body, &rec)
			got := s.change(t)
			if got.Operation != kit.OpCreate || got.Collection != "shopProducts" || got.ItemID != rec["id"] {
				t.Errorf("got %+v, want a create of shopProducts %v", got, rec["id"])
			}
			if got.CorrelationID != "corr-create-1" {
				t.Errorf("got correlation id %q, want corr-create-1", got.CorrelationID)
			}
			if want := []string{"collection:shopProducts:*", "collection:shopCategories:*"}; !slices.Equal(got.Invalidate, want) {
				t.Errorf("got invalidate %v, want %v", got.Invalidate, want)
			}
			if ready, _ := strconv.ParseInt(readyID, 10, 64); got.ID <= ready {
				t.Errorf("got id %d, want one after the ready position %d", got.ID, ready)
			}
			if got.Timestamp == 0 {
				t.Error("got timestamp 0, want the mutation's time")
			}
		})
		t.Run("an update and a delete arrive in commit order", func(t *testing.T) {
			if res := w.do(t, "PATCH", "/api/teams/acme/shop-products/{miaProduct}", "mia", "application/json", `{"stock":3}`); res.status != 200 {
				t.Fatalf("update: got %d %s", res.status, res.body)
			}
			if res := w.do(t, "DELETE", "/api/teams/acme/app-notes/"+w.createNote(t, "mia"), "mia", "", ""); res.status != 204 {
				t.Fatalf("delete: got %d %s", res.status, res.body)
			}
			update, create, del := s.change(t), s.change(t), s.change(t)
			if update.Operation != kit.OpUpdate || update.ItemID != w.ids["miaProduct"] {
				t.Errorf("got %+v, want the update of miaProduct", update)
			}
			if create.Operation != kit.OpCreate || del.Operation != kit.OpDelete || del.ItemID != create.ItemID {
				t.Errorf("got %+v then %+v, want a create and a delete of one note", create, del)
			}
			if !(update.ID < create.ID && create.ID < del.ID) {
				t.Errorf("got ids %d, %d, %d, want increasing", update.ID, create.ID, del.ID)
			}
			if want := []string{"collection:appNotes:*"}; !slices.Equal(del.Invalidate, want) {
				t.Errorf("got invalidate %v, want %v", del.Invalidate, want)
			}
		})
		t.Run("a write through the Go record API arrives like an HTTP write", func(t *testing.T) {
			rec, err := w.k.Records("shopCategories").Create(t.Context(), w.actor("alice"), map[string]any{"title": "From Go"})
			if err != nil {
				t.Fatal(err)
			}
			got := s.change(t)
			if got.Operation != kit.OpCreate || got.Collection != "shopCategories" || got.ItemID != rec["id"] || got.CorrelationID == "" {
				t.Errorf("got %+v, want a create of shopCategories %v with a correlation id", got, rec["id"])
			}
		})
		t.Run("another team's changes never arrive", func(t *testing.T) {
			if res := w.do(t, "POST", "/api/teams/globex/app-notes", "gina", "application/json", `{"body":"globex"}`); res.status != 201 {
				t.Fatalf("create in globex: got %d", res.status)
			}
			id := w.createNote(t, "alice")
			if got := s.change(t); got.ItemID != id {
				t.Errorf("got %+v, want acme's note %s (globex's change must not arrive)", got, id)
			}
		})
	})
}

// createNote creates an app note in acme as caller and returns its id.
func (w *world) createNote(t *testing.T, caller string) string {
	t.Helper()
	res := w.do(t, "POST", "/api/teams/acme/app-notes", caller, "application/json", `{"body":"note"}`)
	if res.status != 201 {
		t.Fatalf("create note: got %d %s", res.status, res.body)
	}
	var rec map[string]any
	testkit.DecodeJSON(t, res.body, &rec)
	return rec["id"].(string)
}

// actor returns the Actor of a seeded member of acme.
func (w *world) actor(name string) kit.Actor {
	role := map[string]teamauth.Role{"alice": teamauth.RoleOwner, "adam": teamauth.RoleAdmin}[name]
	if role == "" {
		role = teamauth.RoleMember
	}
	// As a request's actor: the group-commit tests queue writes behind
	// HoldWrites, where an in-memory database's reads wait for the writer.
	return kit.ActorOfARequest(kit.Actor{UserID: w.ids[name], TeamID: w.ids["acme"], Role: role})
}

func TestChangeStreamNarrowsToCollections(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		w := newWorld(t, e)
		s, _ := w.stream(t, "alice", "collections=shopCategories,app-notes")
		if res := w.do(t, "POST", "/api/teams/acme/shop-products", "alice", "application/json", `{"title":"Skipped"}`); res.status != 201 {
			t.Fatalf("create product: got %d", res.status)
		}
		id := w.createNote(t, "alice")
		if got := s.change(t); got.Collection != "appNotes" || got.ItemID != id {
			t.Errorf("got %+v, want the note %s (products were not asked for)", got, id)
		}
	})
}

func TestChangeStreamSkipsRolledBackWrites(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		w := newWorld(t, e)
		w.k.OnMutationTx(func(ctx context.Context, tx bun.Tx, m *kit.Mutation) error {
			if body, _ := m.Data["body"].(string); body == "refuse" {
				return errors.New("refused by the listener")
			}
			return nil
		})
		s, _ := w.stream(t, "alice", "")
		cases := []struct {
			name, path, body string
			status           int
		}{
			{"a listener's error rolls the create back", "/api/teams/acme/app-notes", `{"body":"refuse"}`, 500},
			{"a unique conflict is a 409", "/api/teams/acme/shop-products", `{"title":"Dup","sku":"MIA-1"}`, 409},
			{"a reference to another team's record is a 400", "/api/teams/acme/shop-products", `{"title":"X","categoryId":"{globexCategory}"}`, 400},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				if res := w.do(t, "POST", c.path, "alice", "application/json", c.body); res.status != c.status {
					t.Fatalf("got %d %s, want %d", res.status, res.body, c.status)
				}
			})
		}
		id := w.createNote(t, "alice")
		if got := s.change(t); got.ItemID != id {
			t.Errorf("got %+v, want the committed note %s first (nothing of the failed writes)", got, id)
		}
	})
}

func TestChangeStreamResumes(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		w := newWorld(t, e, func(c *kit.Config) { c.Changes.MaxRetained = 2 })
		s, start := w.stream(t, "alice", "")
		s.cancel()
		var want []string
		for range 3 {
			want = append(want, w.createNote(t, "alice"))
		}
		t.Run("Last-Event-ID gets exactly the missing changes in order", func(t *testing.T) {
			s, _ := openStream(t, w.changesURL("acme", ""), w.tokens["alice"], "Last-Event-ID", start)
			backlog, _ := s.ready(t)
			var got []string
			for _, ev := range backlog {
				got = append(got, decodeChange(t, ev).ItemID)
			}
			// The changes the instance had not read yet when the stream
			// opened come right after ready, as live ones.
			for len(got) < len(want) {
				got = append(got, s.change(t).ItemID)
			}
			if !slices.Equal(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
			next := w.createNote(t, "alice")
			if c := s.change(t); c.ItemID != next {
				t.Errorf("got %s after the backlog, want the live %s", c.ItemID, next)
			}
		})
		t.Run("the lastEventId parameter resumes the same way", func(t *testing.T) {
			s, _ := openStream(t, w.changesURL("acme", "lastEventId="+start+"&collections=appNotes"), w.tokens["alice"])
			backlog, _ := s.ready(t)
			var got []string
			for _, ev := range backlog {
				got = append(got, decodeChange(t, ev).ItemID)
			}
			for len(got) < len(want)+1 {
				got = append(got, s.change(t).ItemID)
			}
			if !slices.Equal(got[:len(want)], want) {
				t.Errorf("got %v, want it to start with %v", got, want)
			}
		})
		resets := []struct{ name, id string }{
			{"a malformed Last-Event-ID gets a reset", "abc"},
			{"a negative Last-Event-ID gets a reset", "-1"},
			{"a Last-Event-ID beyond the log gets a reset", "999999999"},
		}
		for _, c := range resets {
			t.Run(c.name, func(t *testing.T) {
				s, _ := openStream(t, w.changesURL("acme", ""), w.tokens["alice"], "Last-Event-ID", c.id)
				before, readyID := s.ready(t)
				if len(before) != 1 || before[0].kind != "reset" || before[0].id != readyID {
					t.Errorf("got %v before ready %s, want one reset at the ready position", before, readyID)
				}
			})
		}
		t.Run("a Last-Event-ID older than the retained window gets a reset", func(t *testing.T) {
			if _, err := kit.PruneChanges(t.Context(), w.k); err != nil {
				t.Fatal(err)
			}
			s, _ := openStream(t, w.changesURL("acme", ""), w.tokens["alice"], "Last-Event-ID", start)
			before, _ := s.ready(t)
			if len(before) != 1 || before[0].kind != "reset" {
				t.Errorf("got %v, want one reset", before)
			}
		})
	})
}

func TestChangeStreamEndsWhenAccessEnds(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		cases := []struct {
			name   string
			revoke func(t *testing.T, w *world)
		}{
			{"a removed member's stream ends", func(t *testing.T, w *world) {
				if err := w.k.Accounts().RemoveMember(t.Context(), w.ids["acme"], w.ids["mia"]); err != nil {
					t.Fatal(err)
				}
			}},
			{"a banned member's stream ends", func(t *testing.T, w *world) {
				if err := w.k.Accounts().SetBanned(t.Context(), w.ids["mia"], true); err != nil {
					t.Fatal(err)
				}
			}},
			{"a revoked token's stream ends", func(t *testing.T, w *world) {
				_, err := w.k.DB().NewUpdate().Table("kit_tokens").Set("revoked_at = ?", time.Now().UTC()).
					Where("user_id = ?", w.ids["mia"]).Exec(t.Context())
				if err != nil {
					t.Fatal(err)
				}
			}},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				w := newWorld(t, e)
				s, _ := w.stream(t, "mia", "")
				other, _ := w.stream(t, "max", "")
				c.revoke(t, w)
				s.waitEnd(t)
				id := w.createNote(t, "alice")
				if got := other.change(t); got.ItemID != id {
					t.Errorf("got %+v on max's stream, want the note %s", got, id)
				}
			})
		}
		t.Run("an ended session's stream ends", func(t *testing.T) {
			w := newWorld(t, e)
			secret, _, err := w.k.Accounts().CreateSession(t.Context(), w.ids["mia"])
			if err != nil {
				t.Fatal(err)
			}
			s, res := openStream(t, w.changesURL("acme", ""), "", "Cookie", "kit_session="+secret)
			if s == nil {
				t.Fatalf("open stream with the session: got %d %s", res.status, res.body)
			}
			s.ready(t)
			if err := w.k.Accounts().EndSession(t.Context(), secret); err != nil {
				t.Fatal(err)
			}
			s.waitEnd(t)
		})
	})
}

func TestChangeStreamSendsHeartbeats(t *testing.T) {
	w := newWorld(t, testdb.EngineSQLite, func(c *kit.Config) { c.Changes.Heartbeat = 20 * time.Millisecond })
	s, _ := w.stream(t, "alice", "")
	timer := time.NewTimer(waitLimit)
	defer timer.Stop()
	for {
		select {
		case ev := <-s.events:
			if ev.kind == ":" && ev.data == "heartbeat" {
				return
			}
		case <-timer.C:
			t.Fatal("no heartbeat came")
		}
	}
}

func TestChangeStreamAcrossInstances(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		open := testdb.Shared(t, e)
		kits := make([]*kit.Kit, 2)
		for i := range kits {
			k, err := kit.Open(t.Context(), kit.Config{DB: open(), Definitions: shopDefinitions()})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { k.Close() })
			kits[i] = k
		}
		seed, err := testkit.SeedWorld(t.Context(), kits[0], shopWorld)
		if err != nil {
			t.Fatal(err)
		}
		a := serveWorld(t, kits[0], seed)
		b := serveWorld(t, kits[1], seed)
		sa, _ := a.stream(t, "alice", "")
		sb, _ := b.stream(t, "alice", "")
		t.Run("each instance's subscribers see the other's writes in one order", func(t *testing.T) {
			var want []string
			for i := range 4 {
				w := a
				if i%2 == 1 {
					w = b
				}
				want = append(want, w.createNote(t, "alice"))
			}
			for name, s := range map[string]*sseStream{"a": sa, "b": sb} {
				var got []string
				for range want {
					got = append(got, s.change(t).ItemID)
				}
				if !slices.Equal(got, want) {
					t.Errorf("instance %s: got %v, want %v", name, got, want)
				}
			}
		})
		t.Run("concurrent writes on both instances each arrive once, in increasing positions", func(t *testing.T) {
			const writers, each = 6, 5
			ids := make([][]string, writers)
			errs := testkit.AtOnce(writers, func(i int) error {
				k := kits[i%2]
				for range each {
					rec, err := k.Records("appNotes").Create(t.Context(), seed.Actors["alice"], map[string]any{"body": "concurrent"})
					if err != nil {
						return err
					}
					ids[i] = append(ids[i], rec["id"].(string))
				}
				return nil
			})
			want := map[string]bool{}
			for i, err := range errs {
				if err != nil {
					t.Fatalf("writer %d: %v", i, err)
				}
				for _, id := range ids[i] {
					want[id] = true
				}
			}
			for name, s := range map[string]*sseStream{"a": sa, "b": sb} {
				got, last := map[string]bool{}, int64(0)
				for range want {
					c := s.change(t)
					if c.ID <= last {
						t.Errorf("instance %s: got position %d after %d, want increasing", name, c.ID, last)
					}
					last = c.ID
					if got[c.ItemID] || !want[c.ItemID] {
						t.Errorf("instance %s: got %s twice or unasked", name, c.ItemID)
					}
					got[c.ItemID] = true
				}
			}
		})
		t.Run("a restart mid-stream loses nothing that committed", func(t *testing.T) {
			_, last := a.stream(t, "alice", "")
			if err := a.k.Close(); err != nil {
				t.Fatal(err)
			}
			var want []string
			for range 3 {
				want = append(want, b.createNote(t, "alice"))
			}
			cfg := kit.Config{DB: open(), Definitions: shopDefinitions()}
			restarted, err := kit.Open(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { restarted.Close() })
			r := serveWorld(t, restarted, seed)
			s, _ := openStream(t, r.changesURL("acme", ""), r.tokens["alice"], "Last-Event-ID", last)
			backlog, _ := s.ready(t)
			var got []string
			for _, ev := range backlog {
				got = append(got, decodeChange(t, ev).ItemID)
			}
			if !slices.Equal(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	})
}

func TestCloseStreamsEndsOpenStreamsAndServesNewOnes(t *testing.T) {
	w := newWorld(t, testdb.EngineSQLite)
	s, _ := w.stream(t, "alice", "")
	w.k.CloseStreams()
	s.waitEnd(t)
	again, _ := w.stream(t, "alice", "")
	id := w.createNote(t, "alice")
	if got := again.change(t); got.ItemID != id {
		t.Errorf("got %+v on a stream opened after CloseStreams, want the note %s", got, id)
	}
}

func TestChangeStreamIsOffWhenDisabled(t *testing.T) {
	w := newWorld(t, testdb.EngineSQLite, func(c *kit.Config) { c.Changes.Disabled = true })
	s, res := openStream(t, w.changesURL("acme", ""), w.tokens["alice"])
	if s != nil || res.status != http.StatusNotFound {
		t.Fatalf("got status %d, want 404", res.status)
	}
	var n int
	if err := w.k.DB().NewSelect().Table("kit_changes").ColumnExpr("count(*)").Scan(t.Context(), &n); err != nil {
		t.Fatal(err)
	}
	before := n
	w.createNote(t, "alice")
	if err := w.k.DB().NewSelect().Table("kit_changes").ColumnExpr("count(*)").Scan(t.Context(), &n); err != nil {
		t.Fatal(err)
	}
	if n != before {
		t.Errorf("got %d change rows after a write, want %d", n, before)
	}
}

func TestChangeStreamInSQLiteGroupCommits(t *testing.T) {
	w := newWorld(t, testdb.EngineSQLite)
	w.k.OnMutationTx(func(ctx context.Context, tx bun.Tx, m *kit.Mutation) error {
		if body, _ := m.Data["body"].(string); body == "refuse" {
			return errors.New("refused by the listener")
		}
		return nil
	})
	s, _ := w.stream(t, "alice", "")
	release := kit.HoldWrites(w.k)
	bodies := []string{"first", "refuse", "second"}
	ids := make([]string, len(bodies))
	errs := make(chan error, len(bodies))
	for i, body := range bodies {
		go func() {
			rec, err := w.k.Records("appNotes").Create(context.Background(), w.actor("alice"), map[string]any{"body": body})
			if err == nil {
				ids[i] = rec["id"].(string)
			}
			errs <- err
		}()
		for kit.QueuedWrites(w.k) < i+1 { // one by one, so the group's order is known
			time.Sleep(time.Millisecond)
		}
	}
	release()
	failed := 0
	for range bodies {
		if err := <-errs; err != nil {
			failed++
		}
	}
	if failed != 1 {
		t.Fatalf("got %d failed writes in the group, want 1", failed)
	}
	first, second := s.change(t), s.change(t)
	if first.ItemID != ids[0] || second.ItemID != ids[2] || second.ID != first.ID+1 {
		t.Errorf("got %s (%d) then %s (%d), want %s then %s at consecutive positions", first.ItemID, first.ID, second.ItemID, second.ID, ids[0], ids[2])
	}
}

func TestChangeStreamReportsAnAdminDeleteWithoutListeners(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		k, seed := worlds.Open(t, e, "shop", kit.Config{Definitions: shopDefinitions()}, shopWorld)
		w := serveWorld(t, k, seed)
		s, _ := w.stream(t, "alice", "")
		if res := w.do(t, "DELETE", "/api/teams/acme/shop-products/{maxProduct}", "adam", "", ""); res.status != 204 {
			t.Fatalf("delete: got %d %s, want 204", res.status, res.body)
		}
		if got := s.change(t); got.Operation != kit.OpDelete || got.ItemID != w.ids["maxProduct"] {
			t.Errorf("got %+v, want the delete of maxProduct", got)
		}
	})
}

func TestChangeStreamReportsABulkDeleteAsOneChange(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		w := newWorld(t, e)
		s, _ := w.stream(t, "alice", "")
		a, b := w.createNote(t, "alice"), w.createNote(t, "alice")
		s.change(t)
		s.change(t)
		if res := w.do(t, "DELETE", "/api/teams/acme/app-notes?ids="+a+","+b, "alice", "", ""); res.status != 204 {
			t.Fatalf("bulk delete: got %d %s, want 204", res.status, res.body)
		}
		got := s.change(t)
		if got.Operation != kit.OpDelete || got.ItemID != "" || !slices.Equal(got.ItemIDs, []string{a, b}) {
			t.Errorf("got %+v, want one delete with itemIds [%s %s]", got, a, b)
		}
	})
}

func TestChangeStreamUnderTheFanoutBudget(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		t.Run("a stream's writes count towards the budget", func(t *testing.T) {
			w := newWorld(t, e)
			s, _ := w.stream(t, "alice", "")
			id := w.createNote(t, "alice")
			if got := s.change(t); got.ItemID != id {
				t.Fatalf("got %+v, want the note %s", got, id)
			}
			deadline := time.Now().Add(waitLimit) // the count follows the write
			for kit.StreamWriteTime(w.k) == 0 && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			if got := kit.StreamWriteTime(w.k); got <= 0 {
				t.Errorf("got stream write time %v, want more than 0", got)
			}
		})
		t.Run("with every delivery stretched to the longest interval, every change arrives once and in order", func(t *testing.T) {
			w := newWorld(t, e, func(c *kit.Config) {
				// Any write time is more than the share: every delivery
				// waits MaxDeliveryInterval.
				c.Changes.FanoutShare = 1e-9
				c.Changes.MaxDeliveryInterval = 50 * time.Millisecond
			})
			s, _ := w.stream(t, "alice", "")
			var want []string
			for range 20 {
				want = append(want, w.createNote(t, "alice"))
			}
			var got []string
			last := int64(0)
			for range want {
				c := s.change(t)
				if c.ID <= last {
					t.Errorf("got id %d after %d, want increasing", c.ID, last)
				}
				last = c.ID
				got = append(got, c.ItemID)
			}
			if !slices.Equal(got, want) {
				t.Errorf("got items %v, want %v", got, want)
			}
		})
	})
}

// countingListener records the size of every write to the connections it
// accepts.
type countingListener struct {
	net.Listener
	mu     sync.Mutex
	writes []int
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: c, l: l}, nil
}

// take returns the sizes of the writes since the last take.
func (l *countingListener) take() []int {
	l.mu.Lock()
	defer l.mu.Unlock()
	w := l.writes
	l.writes = nil
	return w
}

type countingConn struct {
	net.Conn
	l *countingListener
}

func (c *countingConn) Write(p []byte) (int, error) {
	c.l.mu.Lock()
	c.l.writes = append(c.l.writes, len(p))
	c.l.mu.Unlock()
	return c.Conn.Write(p)
}

func TestChangeStreamSendsADeliveryInOneWrite(t *testing.T) {
	w := newWorld(t, testdb.EngineSQLite)
	srv := httptest.NewUnstartedServer(w.k.Handler())
	l := &countingListener{Listener: srv.Listener}
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close) // after the stream's cleanup, which closes it
	s, res := openStream(t, srv.URL+"/api/teams/acme/kit-changes", w.tokens["alice"])
	if s == nil {
		t.Fatalf("open stream: got %d %s, want 200", res.status, res.body)
	}
	s.ready(t)
	l.take()
	// One group commit of 40 creates is one delivery of about 9 KB, more
	// than net/http's 4 KB connection buffer.
	const creates = 40
	release := kit.HoldWrites(w.k)
	errs := make(chan error, creates)
	for range creates {
		go func() {
			_, err := w.k.Records("appNotes").Create(context.Background(), w.actor("alice"), map[string]any{"body": "x"})
			errs <- err
		}()
	}
	for kit.QueuedWrites(w.k) < creates {
		time.Sleep(time.Millisecond)
	}
	release()
	for range creates {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for range creates {
		s.change(t)
	}
	writes := l.take()
	total := 0
	for _, n := range writes {
		total += n
	}
	if total <= 4096 {
		t.Fatalf("got %d bytes written, want more than 4 KB", total)
	}
	if len(writes) != 1 {
		t.Errorf("got %d writes %v for one delivery, want 1", len(writes), writes)
	}
}
