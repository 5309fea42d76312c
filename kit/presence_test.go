package kit_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/kittest"
)

// presenceURL is the presence channel of team in w, with query.
func (w *world) presenceURL(team, query string) string {
	u := w.srv.URL + "/api/teams/" + team + "/kit-presence"
	if query != "" {
		u += "?" + w.expand(query)
	}
	return u
}

// presenceStream is an open presence stream of one caller.
type presenceStream struct {
	*sseStream
	who string
}

// present opens the presence channel of team as caller and reads its
// first event.
func (w *world) present(t *testing.T, caller, team, query string) (*presenceStream, kit.PresenceEvent) {
	t.Helper()
	s, res := openStream(t, w.presenceURL(team, query), w.tokens[caller])
	if s == nil {
		t.Fatalf("open presence as %s: got %d %s, want 200", caller, res.status, res.body)
	}
	p := &presenceStream{s, caller}
	return p, p.event(t)
}

// event reads the next event, which must be a presence event.
func (p *presenceStream) event(t *testing.T) kit.PresenceEvent {
	t.Helper()
	ev := p.next(t)
	if ev.kind != "presence" {
		t.Fatalf("got a %q event (%s) on %s's stream, want presence", ev.kind, ev.data, p.who)
	}
	var out kit.PresenceEvent
	if err := json.Unmarshal([]byte(ev.data), &out); err != nil {
		t.Fatalf("decode presence %q: %v", ev.data, err)
	}
	if out.Viewers == nil {
		t.Fatalf("got viewers null in %s, want a list", ev.data)
	}
	return out
}

// viewers is the event's viewers as "name" or "name:item,item" strings,
// with seeded ids put back as their placeholders.
func (w *world) viewers(ev kit.PresenceEvent) []string {
	names := map[string]string{}
	for k, v := range w.ids {
		names[v] = k
	}
	var out []string
	for _, v := range ev.Viewers {
		s := v.Name
		if len(v.Items) > 0 {
			items := make([]string, len(v.Items))
			for i, id := range v.Items {
				items[i] = "{" + names[id] + "}"
			}
			s += ":" + strings.Join(items, ",")
		}
		out = append(out, s)
	}
	return out
}

// expectViewers reads events of p until one shows want (in order), and
// fails when an event lists a name of never, or none shows want in time.
func (w *world) expectViewers(t *testing.T, p *presenceStream, want []string, never ...string) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for time.Now().Before(deadline) {
		got := w.viewers(p.event(t))
		for _, v := range got {
			if slices.Contains(never, strings.Split(v, ":")[0]) {
				t.Fatalf("got %s on %s's presence (%v), want them never listed", v, p.who, got)
			}
		}
		if slices.Equal(got, want) {
			return
		}
	}
	t.Fatalf("no presence event on %s's stream showed %v", p.who, want)
}

func TestPresenceRefusesBadRequestsBeforeOpening(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		w := newWorld(t, e)
		long := strings.Repeat("x", 201)
		cases := []struct {
			name, method, team, caller, query string
			status                            int
			body                              string
		}{
			{"an anonymous caller gets 401", "GET", "acme", "", "collection=shopProducts", 401,
				`{"status":401,"statusText":"Unauthorized","message":"authentication required"}`},
			{"an unknown token gets 401", "GET", "acme", "bad", "collection=shopProducts", 401,
				`{"status":401,"statusText":"Unauthorized","message":"invalid token"}`},
			{"a member of another team gets 403", "GET", "acme", "gina", "collection=shopProducts", 403,
				`{"status":403,"statusText":"Forbidden","message":"not a member of this team"}`},
			{"a banned member gets 403", "GET", "acme", "ben", "collection=shopProducts", 403,
				`{"status":403,"statusText":"Forbidden","message":"user is banned"}`},
			{"a global admin who is no member gets 403", "GET", "acme", "root", "collection=shopProducts", 403,
				`{"status":403,"statusText":"Forbidden","message":"not a member of this team"}`},
			{"an unknown team gets 404", "GET", "nowhere", "alice", "collection=shopProducts", 404,
				`{"status":404,"statusText":"Not Found","message":"team not found"}`},
			{"no collection gets 400 naming the parameter", "GET", "acme", "alice", "", 400,
				`{"status":400,"statusText":"Bad Request","message":"collection: required","data":{"param":"collection"}}`},
			{"an empty collection gets 400", "GET", "acme", "alice", "collection=", 400,
				`{"status":400,"statusText":"Bad Request","message":"collection: required","data":{"param":"collection"}}`},
			{"two collections get 400", "GET", "acme", "alice", "collection=shopProducts&collection=app-notes", 400,
				`{"status":400,"statusText":"Bad Request","message":"collection: give one collection","data":{"param":"collection"}}`},
			{"an unknown collection gets 400", "GET", "acme", "alice", "collection=nope", 400,
				`{"status":400,"statusText":"Bad Request","message":"collection: unknown collection \"nope\"","data":{"param":"collection"}}`},
			{"a record of another team gets 404, like a missing one", "GET", "acme", "alice", "collection=shopProducts&item={ginaProduct}", 404,
				`{"status":404,"statusText":"Not Found","message":"item: no such record","data":{"param":"item"}}`},
			{"a missing record gets 404", "GET", "acme", "alice", "collection=shopProducts&item=019a0000-0000-7000-8000-000000000000", 404,
				`{"status":404,"statusText":"Not Found","message":"item: no such record","data":{"param":"item"}}`},
			{"an item of 201 characters gets 400", "GET", "acme", "alice", "collection=shopProducts&item=" + long, 400,
				`{"status":400,"statusText":"Bad Request","message":"item: not a record id","data":{"param":"item"}}`},
			{"an item with a control character gets 400", "GET", "acme", "alice", "collection=shopProducts&item=" + url.QueryEscape("a\x01b"), 400,
				`{"status":400,"statusText":"Bad Request","message":"item: not a record id","data":{"param":"item"}}`},
			{"an item that is not UTF-8 gets 400 (kit's check of every query value)", "GET", "acme", "alice", "collection=shopProducts&item=%ff", 400,
				`{"status":400,"statusText":"Bad Request","message":"invalid item: the value is not valid UTF-8 text without NUL","data":{"param":"item"}}`},
			{"two items get 400", "GET", "acme", "alice", "collection=shopProducts&item={miaProduct}&item={maxProduct}", 400,
				`{"status":400,"statusText":"Bad Request","message":"item: give one record id","data":{"param":"item"}}`},
			{"a POST gets 405", "POST", "acme", "alice", "collection=shopProducts", 405, ""},
		}
		before := w.snapshot(t)
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				var res response
				if c.method == "GET" {
					token := w.tokens[c.caller]
					if c.caller == "bad" {
						token = "kit_not-a-real-token"
					}
					s, r := openStream(t, w.presenceURL(c.team, c.query), token)
					if s != nil {
						t.Fatalf("got an open stream, want %d", c.status)
					}
					res = r
				} else {
					res = w.do(t, c.method, "/api/teams/"+c.team+"/kit-presence?"+c.query, c.caller, "application/json", "{}")
				}
				if res.status != c.status {
					t.Errorf("got status %d, want %d", res.status, c.status)
				}
				if got := strings.TrimSpace(res.body); c.body != "" && got != c.body {
					t.Errorf("got body %s, want %s", got, c.body)
				}
			})
		}
		if n := kittest.RowsChanged(before, w.snapshot(t)); n != 0 {
			t.Errorf("got %d rows changed, want 0", n)
		}
		t.Run("no refused request left a presence behind", func(t *testing.T) {
			_, first := w.present(t, "max", "acme", "collection=shopProducts")
			if got := w.viewers(first); len(got) != 0 {
				t.Errorf("got viewers %v, want none", got)
			}
		})
	})
}

func TestPresenceShowsOnlyOtherMembersOfTheTeam(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		// The streams belong to the whole test (a subtest's stream would
		// close when it ends); the subtests read what they show.
		w := newWorld(t, e)
		alice, first := w.present(t, "alice", "acme", "collection=shopProducts")
		t.Run("the first to open a collection sees nobody", func(t *testing.T) {
			if got := w.viewers(first); len(got) != 0 {
				t.Errorf("got viewers %v, want none", got)
			}
		})

		// gina is in globex, on a collection of the same key: she must
		// never appear to acme's members, nor they to her.
		gina, ginaFirst := w.present(t, "gina", "globex", "collection=shopProducts&item={ginaProduct}")
		mia, miaFirst := w.present(t, "mia", "acme", "collection=shop-products&item={miaProduct}")
		t.Run("a member who opens a record appears to the others with it, and sees them", func(t *testing.T) {
			if got, want := w.viewers(miaFirst), []string{"alice"}; !slices.Equal(got, want) {
				t.Errorf("got mia's viewers %v, want %v", got, want)
			}
			w.expectViewers(t, alice, []string{"mia:{miaProduct}"}, "gina")
		})

		w.present(t, "max", "acme", "collection=shopProducts&item={maxProduct}")
		t.Run("a member of another team never appears, and sees nobody of it", func(t *testing.T) {
			if got := w.viewers(ginaFirst); len(got) != 0 {
				t.Errorf("got gina's first viewers %v, want none", got)
			}
			w.expectViewers(t, alice, []string{"mia:{miaProduct}", "max:{maxProduct}"}, "gina")
			w.expectViewers(t, mia, []string{"alice", "max:{maxProduct}"}, "gina")
			select {
			case ev := <-gina.events:
				if ev.kind != ":" {
					t.Errorf("got %s %s on gina's stream, want nothing: no one of globex came or went", ev.kind, ev.data)
				}
			case <-time.After(200 * time.Millisecond):
			}
		})

		second, secondFirst := w.present(t, "alice", "acme", "collection=shopProducts&item={maxProduct}")
		t.Run("the caller's own other views are not listed; their records are", func(t *testing.T) {
			if got := w.viewers(secondFirst); !slices.Equal(got, []string{"mia:{miaProduct}", "max:{maxProduct}"}) {
				t.Errorf("got alice's second view listing %v, want mia and max only", got)
			}
			w.expectViewers(t, mia, []string{"alice:{maxProduct}", "max:{maxProduct}"}, "gina")
			second.cancel()
			w.expectViewers(t, mia, []string{"alice", "max:{maxProduct}"}, "gina")
		})

		w.present(t, "adam", "acme", "collection=shopCategories")
		t.Run("a member on another collection is not listed", func(t *testing.T) {
			select {
			case ev := <-alice.events:
				if ev.kind == "presence" && strings.Contains(ev.data, "adam") {
					t.Errorf("got %s on alice's products presence, want adam (on categories) unlisted", ev.data)
				}
			case <-time.After(200 * time.Millisecond):
			}
		})

		t.Run("a member who closes the collection disappears", func(t *testing.T) {
			mia.cancel()
			w.expectViewers(t, alice, []string{"max:{maxProduct}"}, "gina")
		})
	})
}

func TestPresenceEndsWhenAccessEnds(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		w := newWorld(t, e)
		alice, _ := w.present(t, "alice", "acme", "collection=shopProducts")
		mia, _ := w.present(t, "mia", "acme", "collection=shopProducts")
		w.expectViewers(t, alice, []string{"mia"})
		if err := w.k.Accounts().RemoveMember(t.Context(), w.ids["acme"], w.ids["mia"]); err != nil {
			t.Fatal(err)
		}
		mia.waitEnd(t)
		w.expectViewers(t, alice, []string{})
	})
}

func TestPresenceLimitsStreamsPerUser(t *testing.T) {
	w := newWorld(t, testdb.EngineSQLite, func(c *kit.Config) { c.Presence.MaxPerUser = 2 })
	w.present(t, "alice", "acme", "collection=shopProducts")
	w.present(t, "alice", "acme", "collection=shopCategories")
	s, res := openStream(t, w.presenceURL("acme", "collection=shopProducts"), w.tokens["alice"])
	if s != nil || res.status != http.StatusTooManyRequests {
		t.Fatalf("got status %d for a third stream, want 429", res.status)
	}
	if got, want := strings.TrimSpace(res.body), `{"status":429,"statusText":"Too Many Requests","message":"too many open presence streams for this user in this team"}`; got != want {
		t.Errorf("got body %s, want %s", got, want)
	}
	// Another user is not limited by alice's streams.
	w.present(t, "mia", "acme", "collection=shopProducts")
}

func TestPresenceClosesOnClosePresence(t *testing.T) {
	w := newWorld(t, testdb.EngineSQLite)
	s, _ := w.present(t, "alice", "acme", "collection=shopProducts")
	w.k.ClosePresence()
	s.waitEnd(t)
	// Streams opened afterwards stay open.
	later, _ := w.present(t, "alice", "acme", "collection=shopProducts")
	w.present(t, "mia", "acme", "collection=shopProducts")
	w.expectViewers(t, later, []string{"mia"})
}

func TestPresenceSendsHeartbeats(t *testing.T) {
	w := newWorld(t, testdb.EngineSQLite, func(c *kit.Config) { c.Presence.Heartbeat = 20 * time.Millisecond })
	s, _ := w.present(t, "alice", "acme", "collection=shopProducts")
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

func TestPresenceIsOffWhenDisabled(t *testing.T) {
	w := newWorld(t, testdb.EngineSQLite, func(c *kit.Config) { c.Presence.Disabled = true })
	s, res := openStream(t, w.presenceURL("acme", "collection=shopProducts"), w.tokens["alice"])
	if s != nil || res.status != http.StatusNotFound {
		t.Fatalf("got status %d, want 404", res.status)
	}
	doc, err := w.k.OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := doc.Paths["/api/teams/{team}/kit-presence"]; ok {
		t.Error("got the presence route in the OpenAPI document while it is off, want it left out")
	}
}
