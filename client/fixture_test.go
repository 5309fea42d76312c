package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/client"
	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/events"
	"github.com/collectionkit/kit/external"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// server is a kit server over real HTTP with two teams, their users and
// tokens, the events add-on, and the external collection catalog that
// proxies shopProducts.
//
//	acme:   alice (owner), mia (member)
//	globex: gina (owner)
//	root:   global admin, member of nothing
//	lim:    acme member whose requests a host rate limiter refuses (429)
type server struct {
	k      *kit.Kit
	srv    *httptest.Server
	tokens map[string]string
	ids    map[string]string
	actors map[string]kit.Actor
}

// definitions: shopProducts (restful, references shopCategories),
// shopCategories (query strategy), appNotes (unrelated), docsFolders (a
// tree).
func definitions() []collections.Definition {
	title := []collections.Field{{Name: "title", Type: collections.TypeString, Meta: collections.FieldMeta{Required: true}}}
	return []collections.Definition{
		{Name: "categories", Layer: "shop", Fields: title},
		{Name: "products", Layer: "shop", Config: &collections.Config{FetchStrategy: "restful"}, Fields: []collections.Field{
			{Name: "title", Type: collections.TypeString, Meta: collections.FieldMeta{Required: true}},
			{Name: "sku", Type: collections.TypeString, Meta: collections.FieldMeta{Unique: true}},
			{Name: "price", Type: collections.TypeDecimal, Meta: collections.FieldMeta{Precision: 10, Scale: 2}},
			{Name: "isActive", Type: collections.TypeBoolean},
			{Name: "categoryId", Type: collections.TypeString, RefTarget: "categories"},
		}},
		{Name: "notes", Layer: "app", Fields: []collections.Field{{Name: "body", Type: collections.TypeText}}},
		{Name: "folders", Layer: "docs", Fields: title, Config: &collections.Config{Hierarchy: &collections.Hierarchy{Enabled: true}}},
		{Name: "drafts", Layer: "app", Config: &collections.Config{SoftDelete: true}, Fields: []collections.Field{{Name: "body", Type: collections.TypeText}}},
	}
}

// catalogTransform is the proxy transform of the external collection
// catalog over shopProducts: the title with the SKU.
func catalogTransform(p map[string]any) (map[string]any, error) {
	return map[string]any{"id": p["id"], "title": fmt.Sprintf("%s (%s)", p["title"], p["sku"])}, nil
}

// hostMiddleware stands for what a host adds with Config.Middleware: a
// rate limiter that refuses the tokens in limited (429).
func hostMiddleware(limited *sync.Map) func(http.Handler) http.Handler {
	refuse := func(w http.ResponseWriter, status int, msg string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(map[string]any{"status": status, "statusText": http.StatusText(status), "message": msg})
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if _, ok := limited.Load(r.Header.Get("Authorization")); ok {
				refuse(w, http.StatusTooManyRequests, "rate limit exceeded")
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

func newServer(t *testing.T, e testdb.Engine) *server {
	t.Helper()
	limited := &sync.Map{}
	catalog, err := external.DefineExternalCollection(external.Config{
		Name:  "catalog",
		Proxy: &collections.Proxy{Enabled: true, SourceEndpoint: "shop-products", Transform: catalogTransform},
	})
	if err != nil {
		t.Fatal(err)
	}
	k, err := kit.New(kit.Config{
		DB:           testdb.Open(t, e),
		Definitions:  append(definitions(), catalog.Definition()),
		MaxBodyBytes: 4096,
		Logger:       slog.New(slog.NewTextHandler(io.Discard, nil)), // the 500s and 503s tests cause
		Middleware:   []func(http.Handler) http.Handler{hostMiddleware(limited)},
	})
	if err != nil {
		t.Fatalf("kit.New: %v", err)
	}
	t.Cleanup(func() { k.Close() })
	if err := external.Register(t.Context(), k, catalog); err != nil {
		t.Fatalf("external.Register: %v", err)
	}
	if _, err := events.Install(t.Context(), k, events.Config{}); err != nil {
		t.Fatalf("events.Install: %v", err)
	}
	// A title "boom" fails in the transaction: an unexpected error, 500.
	k.OnMutationTx(func(ctx context.Context, tx bun.Tx, m *kit.Mutation) error {
		if m.Data["title"] == "boom" {
			return errors.New("listener failed")
		}
		return nil
	})
	s := &server{k: k, tokens: map[string]string{}, ids: map[string]string{}, actors: map[string]kit.Actor{}}
	ctx := t.Context()
	acc := k.Accounts()
	for _, slug := range []string{"acme", "globex"} {
		team, err := acc.CreateTeam(ctx, teamauth.Team{Name: strings.ToUpper(slug[:1]) + slug[1:], Slug: slug})
		if err != nil {
			t.Fatal(err)
		}
		s.ids[slug] = team.ID
	}
	for _, u := range []struct {
		name, team string
		role       teamauth.Role
		global     string
	}{
		{"alice", "acme", teamauth.RoleOwner, ""},
		{"mia", "acme", teamauth.RoleMember, ""},
		{"lim", "acme", teamauth.RoleMember, ""},
		{"gina", "globex", teamauth.RoleOwner, ""},
		{"root", "", "", teamauth.UserRoleAdmin},
	} {
		user, err := acc.CreateUser(ctx, teamauth.User{Name: u.name, Role: u.global})
		if err != nil {
			t.Fatal(err)
		}
		s.ids[u.name] = user.ID
		if u.team != "" {
			if _, err := acc.AddMember(ctx, s.ids[u.team], user.ID, u.role); err != nil {
				t.Fatal(err)
			}
			s.actors[u.name] = kit.Actor{UserID: user.ID, TeamID: s.ids[u.team], Role: u.role}
		}
		tok, _, err := acc.CreateToken(ctx, user.ID, "test")
		if err != nil {
			t.Fatal(err)
		}
		s.tokens[u.name] = tok
	}
	limited.Store("Bearer "+s.tokens["lim"], true)
	mux := http.NewServeMux()
	mux.Handle("/api/", k.Handler())
	s.srv = httptest.NewServer(mux)
	t.Cleanup(s.srv.Close)
	return s
}

// client returns a client of the server's API acting as the named user.
func (s *server) client(t *testing.T, user string, opts ...client.Option) *client.Client {
	t.Helper()
	if user != "" {
		opts = append([]client.Option{client.WithToken(s.tokens[user])}, opts...)
	}
	c, err := client.New(s.srv.URL+"/api", opts...)
	if err != nil {
		t.Fatalf("client.New: %v", err)
	}
	return c
}

// seed creates a record through kit's Go API as the named user.
func (s *server) seed(t *testing.T, user, key string, data map[string]any) string {
	t.Helper()
	rec, err := s.k.Records(key).Create(t.Context(), s.actors[user], data)
	if err != nil {
		t.Fatalf("seed %s: %v", key, err)
	}
	return rec["id"].(string)
}

// wantStatus checks that err is an *client.Error of status and matches
// sentinel.
func wantStatus(t *testing.T, err error, status int, sentinel error) {
	t.Helper()
	var kerr *client.Error
	if !errors.As(err, &kerr) {
		t.Fatalf("got error %v (%T), want a *client.Error with status %d", err, err, status)
	}
	if kerr.Status != status {
		t.Errorf("got status %d (%v), want %d", kerr.Status, kerr, status)
	}
	if !errors.Is(err, sentinel) {
		t.Errorf("errors.Is(%v, %v) = false, want true", err, sentinel)
	}
}
