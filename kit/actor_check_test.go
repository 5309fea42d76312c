package kit_test

import (
	"errors"
	"testing"

	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/internal/testkit"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/kittest"
	"github.com/collectionkit/kit/teamauth"
)

// TestAGoCallersActorMustNameATeamAndAUserThatExist: the record service
// trusts a Go caller's Actor for its role, but not for the existence of
// its team and user: a write as an actor whose team or user does not
// exist (or whose TeamID is a slug) is ErrTeamNotFound or
// ErrUserNotFound, and nothing is written; an actor of real rows writes.
func TestAGoCallersActorMustNameATeamAndAUserThatExist(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		k := newKitConfig(t, kit.Config{DB: testdb.Open(t, e), Definitions: shopDefinitions()})
		ctx := t.Context()
		seed, err := testkit.SeedWorld(ctx, k, testkit.World{
			Teams: []string{"acme"},
			Users: []testkit.WorldUser{{Name: "ann", Team: "acme", Role: teamauth.RoleOwner}},
		})
		if err != nil {
			t.Fatal(err)
		}
		real := seed.Actors["ann"]
		rec, err := k.Records(productsKey).Create(ctx, real, map[string]any{"title": "Lamp"})
		if err != nil {
			t.Fatalf("create as a real actor: %v", err)
		}
		id := rec["id"].(string)
		bad := []struct {
			name  string
			actor kit.Actor
			want  error
		}{
			{"a team that does not exist", kit.Actor{UserID: real.UserID, TeamID: "01a2206f-0000-7000-8000-000000000000", Role: teamauth.RoleOwner}, teamauth.ErrTeamNotFound},
			{"a team named by its slug", kit.Actor{UserID: real.UserID, TeamID: "acme", Role: teamauth.RoleOwner}, teamauth.ErrTeamNotFound},
			{"a user that does not exist", kit.Actor{UserID: "ghost", TeamID: real.TeamID, Role: teamauth.RoleOwner}, teamauth.ErrUserNotFound},
			{"a team id holding NUL", kit.Actor{UserID: real.UserID, TeamID: "a\x00b", Role: teamauth.RoleOwner}, teamauth.ErrTeamNotFound},
			{"a user id holding NUL", kit.Actor{UserID: "a\x00b", TeamID: real.TeamID, Role: teamauth.RoleOwner}, teamauth.ErrUserNotFound},
		}
		for _, tt := range bad {
			writes := []struct {
				name string
				do   func(a kit.Actor) error
			}{
				{"a create", func(a kit.Actor) error {
					_, err := k.Records(productsKey).Create(ctx, a, map[string]any{"title": "Ghost"})
					return err
				}},
				{"an update", func(a kit.Actor) error {
					_, err := k.Records(productsKey).Update(ctx, a, id, map[string]any{"title": "Ghost"})
					return err
				}},
				{"a delete", func(a kit.Actor) error { return k.Records(productsKey).Delete(ctx, a, id) }},
				{"a bulk delete", func(a kit.Actor) error { return k.Records(productsKey).DeleteMany(ctx, a, []string{id}) }},
			}
			for _, w := range writes {
				t.Run(w.name+" as an actor of "+tt.name+" is refused and writes nothing", func(t *testing.T) {
					before := kittest.TableRows(t, k.DB(), productsTable)
					if err := w.do(tt.actor); !errors.Is(err, tt.want) {
						t.Errorf("got %v, want %v", err, tt.want)
					}
					if n := kittest.RowsChanged(before, kittest.TableRows(t, k.DB(), productsTable)); n != 0 {
						t.Errorf("rows changed: got %d, want 0", n)
					}
				})
			}
		}
		t.Run("the real actor's update still writes", func(t *testing.T) {
			if _, err := k.Records(productsKey).Update(ctx, real, id, map[string]any{"title": "Lamp 2"}); err != nil {
				t.Errorf("got %v, want nil", err)
			}
		})
	})
}
