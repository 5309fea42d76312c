package kit_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/internal/testkit"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// TestAnAuthorizationChangeOnOneInstanceIsSeenByTheNextRequestOnAnother
// runs two kits on one database. While other callers keep instance B busy
// (its authorization cache full and its version reads concurrent), a
// change committed through instance A must refuse the very next request
// on B: a removed member, a revoked token, a banned user.
func TestAnAuthorizationChangeOnOneInstanceIsSeenByTheNextRequestOnAnother(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		for _, tt := range authorizationChanges() {
			t.Run(tt.name+" on A is refused by B's next request", func(t *testing.T) {
				open := testdb.Shared(t, e)
				a := newKitConfig(t, kit.Config{DB: open(), Definitions: shopDefs()})
				b := newKitConfig(t, kit.Config{DB: open(), Definitions: shopDefs()})
				ctx := t.Context()
				seed, err := testkit.SeedWorld(ctx, a, testkit.World{
					Teams: []string{"acme"},
					Users: []testkit.WorldUser{
						{Name: "busy", Team: "acme", Role: teamauth.RoleMember},
						{Name: "mia", Team: "acme", Role: teamauth.RoleMember},
					},
				})
				if err != nil {
					t.Fatal(err)
				}
				token, tok, err := a.Accounts().CreateToken(ctx, seed.IDs["mia"], "second")
				if err != nil {
					t.Fatal(err)
				}
				srv := httptest.NewServer(b.Handler())
				t.Cleanup(srv.Close)
				get := func(token string) int {
					req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/api/teams/acme/shop-products", nil)
					req.Header.Set("Authorization", "Bearer "+token)
					res, err := srv.Client().Do(req)
					if err != nil {
						return -1
					}
					res.Body.Close()
					return res.StatusCode
				}
				if got := get(token); got != http.StatusOK {
					t.Fatalf("before the change: got %d, want 200", got)
				}
				var stop atomic.Bool
				var wg sync.WaitGroup
				var failed atomic.Int64
				for range 8 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for !stop.Load() {
							if get(seed.Tokens["busy"]) != http.StatusOK {
								failed.Add(1)
							}
						}
					}()
				}
				for range 20 { // B's cache holds mia's access while busy
					if got := get(token); got != http.StatusOK {
						t.Fatalf("before the change, under load: got %d, want 200", got)
					}
				}
				if err := tt.change(ctx, a.Accounts(), seed.IDs["mia"], seed.IDs["acme"], tok.ID); err != nil {
					t.Fatal(err)
				}
				for i := range 20 {
					if got := get(token); got != tt.want {
						t.Errorf("request %d on B after the change on A: got %d, want %d", i+1, got, tt.want)
					}
				}
				stop.Store(true)
				wg.Wait()
				if n := failed.Load(); n > 0 {
					t.Errorf("the busy member's requests: got %d failures, want none", n)
				}
			})
		}
	})
}

// TestASessionEndedOnOneInstanceIsRefusedByTheNextLookupOnAnother is the
// same for a session, looked up through B's account store.
func TestASessionEndedOnOneInstanceIsRefusedByTheNextLookupOnAnother(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		open := testdb.Shared(t, e)
		a := newKitConfig(t, kit.Config{DB: open(), Definitions: shopDefs()})
		b := newKitConfig(t, kit.Config{DB: open(), Definitions: shopDefs()})
		ctx := t.Context()
		u, err := a.Accounts().CreateUser(ctx, teamauth.User{Name: "Mia", Email: "mia@example.com"})
		if err != nil {
			t.Fatal(err)
		}
		session, _, err := a.Accounts().CreateSession(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			if got, err := b.Accounts().UserBySession(ctx, session); err != nil || got == nil {
				t.Fatalf("before the end: got %v, %v, want the user", got, err)
			}
		}
		if err := a.Accounts().EndSession(ctx, session); err != nil {
			t.Fatal(err)
		}
		if got, err := b.Accounts().UserBySession(ctx, session); err == nil && got != nil {
			t.Errorf("after the end on A: got user %s from B, want none", got.ID)
		}
	})
}

// authorizationChange is a change to the accounts, committed through
// one instance, after which a request with the user's token must get want
// from every instance.
type authorizationChange struct {
	name   string
	change func(ctx context.Context, a *teamauth.Store, userID, teamID, tokenID string) error
	want   int
}

// authorizationChanges are the changes that end a member's access: the
// multi-instance tests run each of them.
func authorizationChanges() []authorizationChange {
	return []authorizationChange{
		{"a removed member", func(ctx context.Context, a *teamauth.Store, userID, teamID, _ string) error {
			return a.RemoveMember(ctx, teamID, userID)
		}, http.StatusForbidden},
		{"a revoked token", func(ctx context.Context, a *teamauth.Store, _, _, tokenID string) error {
			return a.RevokeToken(ctx, tokenID)
		}, http.StatusUnauthorized},
		{"a banned user", func(ctx context.Context, a *teamauth.Store, userID, _, _ string) error {
			return a.SetBanned(ctx, userID, true)
		}, http.StatusForbidden},
	}
}
