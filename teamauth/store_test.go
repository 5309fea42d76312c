package teamauth

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/internal/wire"
)

func TestCreateTablesTwiceIsFine(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		_, s := newStore(t, e) // creates the tables once
		ctx := t.Context()
		if _, err := s.CreateTeam(ctx, Team{Slug: "acme"}); err != nil {
			t.Fatalf("CreateTeam: %v", err)
		}
		if err := s.CreateTables(ctx); err != nil {
			t.Fatalf("got %v from the second CreateTables, want nil", err)
		}
		if teams, err := s.Teams(ctx); err != nil || len(teams) != 1 {
			t.Errorf("got %d teams (%v) after the second CreateTables, want 1", len(teams), err)
		}
	})
}

func TestCreateTeamSlugs(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		tests := []struct {
			name     string
			team     Team
			wantSlug string
			wantErr  error
		}{
			{"a lower-case word is a slug", Team{Name: "Acme", Slug: "acme"}, "acme", nil},
			{"digits and inner hyphens are allowed", Team{Slug: "team-42-b"}, "team-42-b", nil},
			{"a single character is a slug", Team{Slug: "a"}, "a", nil},
			{"64 characters are allowed", Team{Slug: strings.Repeat("a", 64)}, strings.Repeat("a", 64), nil},
			{"a missing slug is made from the name", Team{Name: "Acme Inc. (Europe)"}, "acme-inc-europe", nil},
			{"a name of only symbols makes no slug", Team{Name: "!!!"}, "", ErrInvalidSlug},
			{"no name and no slug is invalid", Team{}, "", ErrInvalidSlug},
			{"upper case is refused", Team{Slug: "Acme"}, "", ErrInvalidSlug},
			{"underscores are refused", Team{Slug: "acme_inc"}, "", ErrInvalidSlug},
			{"spaces are refused", Team{Slug: "acme inc"}, "", ErrInvalidSlug},
			{"a leading hyphen is refused", Team{Slug: "-acme"}, "", ErrInvalidSlug},
			{"a trailing hyphen is refused", Team{Slug: "acme-"}, "", ErrInvalidSlug},
			{"a double hyphen is refused", Team{Slug: "ac--me"}, "", ErrInvalidSlug},
			{"non-ASCII letters are refused", Team{Slug: "zürich"}, "", ErrInvalidSlug},
			{"65 characters are refused", Team{Slug: strings.Repeat("a", 65)}, "", ErrInvalidSlug},
			{"a UUID is refused", Team{Slug: "0190c3a8-1f2e-7c4d-9b5a-123456789abc"}, "", ErrInvalidSlug},
			{"a UUID without hyphens is refused", Team{Slug: "0190c3a81f2e7c4d9b5a123456789abc"}, "", ErrInvalidSlug},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				_, s := newStore(t, e)
				got, err := s.CreateTeam(t.Context(), tt.team)
				if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
					t.Fatalf("got error %v, want %v", err, tt.wantErr)
				}
				if err != nil {
					if wire.Status(err) != 400 {
						t.Errorf("got status %d, want 400", wire.Status(err))
					}
					return
				}
				if got.Slug != tt.wantSlug {
					t.Errorf("got slug %q, want %q", got.Slug, tt.wantSlug)
				}
			})
		}
	})
}

func TestCreateTeam(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		t.Run("defaults fill the empty fields", func(t *testing.T) {
			_, s := newStore(t, e)
			got, err := s.CreateTeam(t.Context(), Team{Slug: "acme"})
			if err != nil {
				t.Fatalf("CreateTeam: %v", err)
			}
			id, err := uuid.Parse(got.ID)
			if err != nil || id.Version() != 7 {
				t.Errorf("got id %q, want a UUIDv7", got.ID)
			}
			if got.Name != "acme" {
				t.Errorf("got name %q, want the slug %q", got.Name, "acme")
			}
			if got.Settings == nil || len(got.Settings) != 0 {
				t.Errorf("got settings %v, want an empty map", got.Settings)
			}
			if got.CreatedAt.IsZero() || got.CreatedAt.Location() != time.UTC {
				t.Errorf("got createdAt %v, want now in UTC", got.CreatedAt)
			}
		})
		t.Run("the created team equals the team read back", func(t *testing.T) {
			_, s := newStore(t, e)
			created, err := s.CreateTeam(t.Context(), Team{Name: "Acme", Slug: "acme", Description: "Rockets",
				AvatarURL: "https://example.com/a.png", Settings: map[string]any{"theme": "dark", "seats": 5.0}})
			if err != nil {
				t.Fatalf("CreateTeam: %v", err)
			}
			read, err := s.Team(t.Context(), "acme")
			if err != nil {
				t.Fatalf("Team: %v", err)
			}
			if !reflect.DeepEqual(read, created) {
				t.Errorf("got %+v, want %+v", read, created)
			}
		})
		t.Run("a given UUID is kept in canonical form", func(t *testing.T) {
			_, s := newStore(t, e)
			const id = "0190C3A8-1F2E-7C4D-9B5A-123456789ABC"
			got, err := s.CreateTeam(t.Context(), Team{ID: id, Slug: "acme"})
			if err != nil {
				t.Fatalf("CreateTeam: %v", err)
			}
			if got.ID != strings.ToLower(id) {
				t.Errorf("got id %q, want %q", got.ID, strings.ToLower(id))
			}
		})
		t.Run("a given id that is not a UUID is refused", func(t *testing.T) {
			_, s := newStore(t, e)
			if _, err := s.CreateTeam(t.Context(), Team{ID: "team-1", Slug: "acme"}); !errors.Is(err, ErrInvalidID) {
				t.Errorf("got %v, want ErrInvalidID", err)
			}
		})
		t.Run("a duplicate slug is a conflict and stores nothing", func(t *testing.T) {
			_, s := newStore(t, e)
			if _, err := s.CreateTeam(t.Context(), Team{Name: "Acme", Slug: "acme"}); err != nil {
				t.Fatalf("CreateTeam: %v", err)
			}
			_, err := s.CreateTeam(t.Context(), Team{Name: "Other Acme", Slug: "acme"})
			if !errors.Is(err, ErrSlugTaken) {
				t.Fatalf("got %v, want ErrSlugTaken", err)
			}
			if got := wire.Status(err); got != 409 {
				t.Errorf("got status %d, want 409", got)
			}
			if teams, err := s.Teams(t.Context()); err != nil || len(teams) != 1 || teams[0].Name != "Acme" {
				t.Errorf("got teams %+v (%v), want only the first Acme", teams, err)
			}
		})
	})
}

func TestTeamLookup(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		f := newFixture(t, e)
		tests := []struct {
			name     string
			idOrSlug string
			wantErr  error
		}{
			{"a team is found by slug", "acme", nil},
			{"a team is found by id", f.team.ID, nil},
			{"a team is found by upper-case id", strings.ToUpper(f.team.ID), nil},
			{"a slug differing in case is not found", "ACME", ErrTeamNotFound},
			{"an unknown slug is not found", "nowhere", ErrTeamNotFound},
			{"an unknown id is not found", "01900000-0000-7000-8000-000000000000", ErrTeamNotFound},
			{"an empty value is not found", "", ErrTeamNotFound},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, err := f.store.Team(t.Context(), tt.idOrSlug)
				if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
					t.Fatalf("got error %v, want %v", err, tt.wantErr)
				}
				if err == nil && got.ID != f.team.ID {
					t.Errorf("got team %s, want %s", got.ID, f.team.ID)
				}
			})
		}
	})
}

func TestCreateUser(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		tests := []struct {
			name    string
			user    User
			wantErr error
		}{
			{"a plain user is created", User{Name: "Ada", Email: "ada@example.com"}, nil},
			{"a super-admin is created", User{Name: "Root", Role: UserRoleAdmin}, nil},
			{"a host's own id is kept", User{ID: "auth0|42", Name: "Ada"}, nil},
			{"an unknown global role is refused", User{Name: "Ada", Role: "owner"}, ErrInvalidRole},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				_, s := newStore(t, e)
				created, err := s.CreateUser(t.Context(), tt.user)
				if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
					t.Fatalf("got error %v, want %v", err, tt.wantErr)
				}
				if err != nil {
					return
				}
				if tt.user.ID != "" && created.ID != tt.user.ID {
					t.Errorf("got id %q, want %q", created.ID, tt.user.ID)
				}
				read, err := s.User(t.Context(), created.ID)
				if err != nil {
					t.Fatalf("User: %v", err)
				}
				if !reflect.DeepEqual(read, created) {
					t.Errorf("got %+v, want %+v", read, created)
				}
			})
		}
		t.Run("an unknown user is not found", func(t *testing.T) {
			_, s := newStore(t, e)
			if _, err := s.User(t.Context(), "nobody"); !errors.Is(err, ErrUserNotFound) {
				t.Errorf("got %v, want ErrUserNotFound", err)
			}
		})
	})
}

func TestMembers(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		f := newFixture(t, e)
		ctx := t.Context()
		outsider := f.users["outsider"]

		t.Run("adding a member with an unknown role is refused", func(t *testing.T) {
			if _, err := f.store.AddMember(ctx, f.team.ID, outsider.ID, "boss"); !errors.Is(err, ErrInvalidRole) {
				t.Errorf("got %v, want ErrInvalidRole", err)
			}
		})
		t.Run("adding a member to an unknown team is not found", func(t *testing.T) {
			if _, err := f.store.AddMember(ctx, "nowhere", outsider.ID, RoleMember); !errors.Is(err, ErrTeamNotFound) {
				t.Errorf("got %v, want ErrTeamNotFound", err)
			}
		})
		t.Run("adding an unknown user is not found", func(t *testing.T) {
			if _, err := f.store.AddMember(ctx, f.team.ID, "nobody", RoleMember); !errors.Is(err, ErrUserNotFound) {
				t.Errorf("got %v, want ErrUserNotFound", err)
			}
		})
		t.Run("adding a member twice changes the role and keeps the membership", func(t *testing.T) {
			first, err := f.store.AddMember(ctx, f.team.ID, outsider.ID, RoleMember)
			if err != nil {
				t.Fatalf("AddMember: %v", err)
			}
			second, err := f.store.AddMember(ctx, f.team.ID, outsider.ID, RoleAdmin)
			if err != nil {
				t.Fatalf("AddMember again: %v", err)
			}
			if second.ID != first.ID || second.Role != RoleAdmin || !second.CreatedAt.Equal(first.CreatedAt) {
				t.Errorf("got %+v, want %+v with role admin", second, first)
			}
			got, err := f.store.Membership(ctx, f.team.ID, outsider.ID)
			if err != nil || !reflect.DeepEqual(got, second) {
				t.Errorf("got %+v (%v), want %+v", got, err, second)
			}
		})
		t.Run("the team lists its members oldest first", func(t *testing.T) {
			members, err := f.store.Members(ctx, f.team.ID)
			if err != nil {
				t.Fatalf("Members: %v", err)
			}
			var got []string
			for _, m := range members {
				for name, u := range f.users {
					if u.ID == m.UserID {
						got = append(got, name+":"+string(m.Role))
					}
				}
			}
			want := []string{"owner:owner", "admin:admin", "member:member", "banned:member", "outsider:admin"}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
		})
		t.Run("the user's teams include the team", func(t *testing.T) {
			teams, err := f.store.TeamsOfUser(ctx, outsider.ID)
			if err != nil || len(teams) != 1 || teams[0].ID != f.team.ID {
				t.Errorf("got %+v (%v), want [acme]", teams, err)
			}
		})
		t.Run("removing a member ends the membership", func(t *testing.T) {
			if err := f.store.RemoveMember(ctx, f.team.ID, outsider.ID); err != nil {
				t.Fatalf("RemoveMember: %v", err)
			}
			if _, err := f.store.Membership(ctx, f.team.ID, outsider.ID); !errors.Is(err, ErrNotMember) {
				t.Errorf("got %v, want ErrNotMember", err)
			}
			if teams, err := f.store.TeamsOfUser(ctx, outsider.ID); err != nil || len(teams) != 0 {
				t.Errorf("got teams %+v (%v), want none", teams, err)
			}
		})
		t.Run("removing a non-member is ErrNotMember", func(t *testing.T) {
			if err := f.store.RemoveMember(ctx, f.team.ID, outsider.ID); !errors.Is(err, ErrNotMember) {
				t.Errorf("got %v, want ErrNotMember", err)
			}
		})
	})
}

func TestSetBanned(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		f := newFixture(t, e)
		ctx := t.Context()
		id := f.users["member"].ID
		for _, banned := range []bool{true, false} {
			if err := f.store.SetBanned(ctx, id, banned); err != nil {
				t.Fatalf("SetBanned(%v): %v", banned, err)
			}
			if u, err := f.store.User(ctx, id); err != nil || u.Banned != banned {
				t.Errorf("got banned %v (%v), want %v", u.Banned, err, banned)
			}
		}
		if err := f.store.SetBanned(ctx, "nobody", true); !errors.Is(err, ErrUserNotFound) {
			t.Errorf("got %v for an unknown user, want ErrUserNotFound", err)
		}
	})
}

func TestLists(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		f := newFixture(t, e)
		ctx := t.Context()
		beta, err := f.store.CreateTeam(ctx, Team{Name: "Beta"})
		if err != nil {
			t.Fatalf("CreateTeam: %v", err)
		}
		teams, err := f.store.Teams(ctx)
		if err != nil || len(teams) != 2 || teams[0].ID != f.team.ID || teams[1].ID != beta.ID {
			t.Errorf("got teams %+v (%v), want acme then beta", teams, err)
		}
		users, err := f.store.Users(ctx)
		if err != nil || len(users) != len(f.users) || users[0].ID != f.users["owner"].ID {
			t.Errorf("got %d users (%v), want %d with owner first", len(users), err, len(f.users))
		}
		if mine, err := f.store.TeamsOfUser(ctx, f.users["root"].ID); err != nil || len(mine) != 0 {
			t.Errorf("got teams of root %+v (%v), want none", mine, err)
		}
	})
}

func TestCreateUserRefusesADuplicateEmail(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		_, s := newStore(t, e)
		ctx := t.Context()
		if _, err := s.CreateUser(ctx, User{Name: "ann", Email: "ann@example.com"}); err != nil {
			t.Fatal(err)
		}
		_, err := s.CreateUser(ctx, User{Name: "ann2", Email: "ANN@example.com"})
		if !errors.Is(err, ErrEmailTaken) || wire.Status(err) != 409 {
			t.Fatalf("got %v (status %d), want ErrEmailTaken, 409", err, wire.Status(err))
		}
		if users, _ := s.Users(ctx); len(users) != 1 {
			t.Errorf("got %d users, want 1: nothing written", len(users))
		}
		if _, err := s.CreateUser(ctx, User{Name: "no email"}); err != nil {
			t.Errorf("got %v for a second user without email, want nil", err)
		}
		if _, err := s.CreateUser(ctx, User{Name: "no email either"}); err != nil {
			t.Errorf("got %v for a third user without email, want nil", err)
		}
	})
}
