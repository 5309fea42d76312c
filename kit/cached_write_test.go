package kit_test

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/internal/testkit"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// cachedWriteWorld is two kits on one database, mia a member of acme with
// a token, one of her records, and a server on instance B.
type cachedWriteWorld struct {
	a, b   *kit.Kit
	seed   testkit.Seed
	token  string
	tokID  string
	id     string
	actor  kit.Actor
	server *httptest.Server
	logs   *testkit.Buffer // instance B's log
}

func newCachedWriteWorld(t *testing.T, e testdb.Engine) *cachedWriteWorld {
	t.Helper()
	open := testdb.Shared(t, e)
	logs := &testkit.Buffer{}
	w := &cachedWriteWorld{
		a:    newKitConfig(t, kit.Config{DB: open(), Definitions: restfulShopDefs()}),
		b:    newKitConfig(t, kit.Config{DB: open(), Definitions: restfulShopDefs(), Logger: slog.New(slog.NewTextHandler(logs, nil))}),
		logs: logs,
	}
	ctx := t.Context()
	seed, err := testkit.SeedWorld(ctx, w.a, testkit.World{
		Teams: []string{"acme"},
		Users: []testkit.WorldUser{
			{Name: "mia", Team: "acme", Role: teamauth.RoleMember},
			{Name: "other", Team: "acme", Role: teamauth.RoleMember},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	w.seed = seed
	token, tok, err := w.a.Accounts().CreateToken(ctx, seed.IDs["mia"], "second")
	if err != nil {
		t.Fatal(err)
	}
	w.token, w.tokID = token, tok.ID
	w.actor = kit.Actor{UserID: seed.IDs["mia"], TeamID: seed.IDs["acme"], Role: teamauth.RoleMember}
	rec, err := w.a.Records("shopProducts").Create(ctx, w.actor, map[string]any{"title": "Lamp", "status": "live"})
	if err != nil {
		t.Fatal(err)
	}
	w.id = rec["id"].(string)
	w.server = httptest.NewServer(w.b.Handler())
	t.Cleanup(w.server.Close)
	return w
}

// do sends method path with body (none when "") to instance B as mia and
// returns the status.
func (w *cachedWriteWorld) do(t *testing.T, method, path, body string) int {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), method, w.server.URL+path, strings.NewReader(body))
	if body == "" {
		req.Body = http.NoBody
	} else {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Authorization", "Bearer "+w.token)
	res, err := w.server.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// count returns how many of acme's products instance A sees.
func (w *cachedWriteWorld) count(t *testing.T) int {
	t.Helper()
	list, err := w.a.Records("shopProducts").List(t.Context(), w.actor, nil)
	if err != nil {
		t.Fatal(err)
	}
	return list.Pagination.TotalItems
}

// TestEveryKindOfWriteOnAnotherInstanceRefusesAnAuthorizationChange holds
// the writes that SQLite authorizes from the accounts cache and confirms
// in the write's own transaction to the rule of the multi-instance test:
// once a change is committed through instance A, the next create, update
// or delete on instance B is refused and writes nothing. A write that
// skipped the confirmation would answer 201, 200 or 204 from B's cache.
func TestEveryKindOfWriteOnAnotherInstanceRefusesAnAuthorizationChange(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		for _, ch := range authorizationChanges() {
			t.Run(ch.name+" is refused by every write on B", func(t *testing.T) {
				w := newCachedWriteWorld(t, e)
				ctx := t.Context()
				path := "/api/teams/acme/shop-products"
				for i := range 2 { // the second write runs from B's cache
					if got := w.do(t, http.MethodPost, path, `{"title":"Desk","status":"live"}`); got != http.StatusCreated {
						t.Fatalf("create %d before the change: got %d, want 201", i+1, got)
					}
					if got := w.do(t, http.MethodPatch, path+"/"+w.id, `{"title":"Lamp 2"}`); got != http.StatusOK {
						t.Fatalf("update %d before the change: got %d, want 200", i+1, got)
					}
				}
				if err := ch.change(ctx, w.a.Accounts(), w.seed.IDs["mia"], w.seed.IDs["acme"], w.tokID); err != nil {
					t.Fatal(err)
				}
				before := w.count(t)
				writes := []struct{ name, method, path, body string }{
					{"a create", http.MethodPost, path, `{"title":"Chair","status":"live"}`},
					{"an update", http.MethodPatch, path + "/" + w.id, `{"title":"Lamp 3"}`},
					{"a delete", http.MethodDelete, path + "/" + w.id, ""},
				}
				for _, wr := range writes {
					if got := w.do(t, wr.method, wr.path, wr.body); got != ch.want {
						t.Errorf("%s on B after the change on A: got %d, want %d", wr.name, got, ch.want)
					}
				}
				if got := w.count(t); got != before {
					t.Errorf("records after the refused writes: got %d, want %d", got, before)
				}
				rec, err := w.a.Records("shopProducts").Get(ctx, w.actor, w.id)
				if err != nil {
					t.Fatalf("the record after the refused delete: %v", err)
				}
				if got := rec["title"]; got != "Lamp 2" {
					t.Errorf("title after the refused update: got %v, want Lamp 2", got)
				}
			})
		}
	})
}

// TestAWriteFromAStaleCacheIsServedAgainWithItsBody changes an
// authorization that does not concern the writer (another member's new
// token): B's cache is then stale, its write refused in the queue, and
// the request served again the usual way, with the same body.
func TestAWriteFromAStaleCacheIsServedAgainWithItsBody(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		w := newCachedWriteWorld(t, e)
		ctx := t.Context()
		path := "/api/teams/acme/shop-products"
		for i := range 2 {
			if got := w.do(t, http.MethodPatch, path+"/"+w.id, `{"title":"Warm"}`); got != http.StatusOK {
				t.Fatalf("update %d: got %d, want 200", i+1, got)
			}
		}
		if _, _, err := w.a.Accounts().CreateToken(ctx, w.seed.IDs["other"], "unrelated"); err != nil {
			t.Fatal(err)
		}
		if got := w.do(t, http.MethodPatch, path+"/"+w.id, `{"title":"Replayed"}`); got != http.StatusOK {
			t.Fatalf("update after an unrelated change: got %d, want 200", got)
		}
		rec, err := w.a.Records("shopProducts").Get(ctx, w.actor, w.id)
		if err != nil {
			t.Fatal(err)
		}
		if got := rec["title"]; got != "Replayed" {
			t.Errorf("title: got %v, want Replayed", got)
		}
		before := w.count(t)
		if _, _, err := w.a.Accounts().CreateToken(ctx, w.seed.IDs["other"], "unrelated 2"); err != nil {
			t.Fatal(err)
		}
		if got := w.do(t, http.MethodPost, path, `{"title":"Once","status":"live"}`); got != http.StatusCreated {
			t.Fatalf("create after an unrelated change: got %d, want 201", got)
		}
		if got := w.count(t); got != before+1 {
			t.Errorf("records after one create: got %d, want %d", got, before+1)
		}
	})
}

// TestAWriteServedAgainLogsOnlyTheAnswerTheClientGot: a write refused by
// its stale cached authorization is thrown away and served again; the
// thrown-away attempt's error is no outcome of the request and is not
// logged. The client gets its 2xx, and the log holds no failure.
func TestAWriteServedAgainLogsOnlyTheAnswerTheClientGot(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		w := newCachedWriteWorld(t, e)
		ctx := t.Context()
		path := "/api/teams/acme/shop-products"
		writes := []struct {
			name, method, path, body string
			want                     int
		}{
			{"a create", http.MethodPost, path, `{"title":"Chair","status":"live"}`, http.StatusCreated},
			{"an update", http.MethodPatch, path + "/" + w.id, `{"title":"Lamp 3"}`, http.StatusOK},
			{"a delete", http.MethodDelete, path + "/" + w.id, "", http.StatusNoContent},
		}
		for i, wr := range writes {
			t.Run(wr.name+" after an accounts change logs no failure", func(t *testing.T) {
				for range 2 { // the second request runs from B's cache
					if got := w.do(t, http.MethodGet, path, ""); got != http.StatusOK {
						t.Fatalf("list: got %d, want 200", got)
					}
				}
				if _, _, err := w.a.Accounts().CreateToken(ctx, w.seed.IDs["other"], fmt.Sprintf("unrelated %d", i)); err != nil {
					t.Fatal(err)
				}
				if got := w.do(t, wr.method, wr.path, wr.body); got != wr.want {
					t.Fatalf("got %d, want %d", got, wr.want)
				}
				if logs := w.logs.String(); strings.Contains(logs, "request failed") || strings.Contains(logs, "status=500") {
					t.Errorf("got the log\n%s\nwant no failure logged for a request answered %d", logs, wr.want)
				}
			})
		}
	})
}
