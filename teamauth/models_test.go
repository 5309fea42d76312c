package teamauth

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestRoleAtLeast(t *testing.T) {
	roles := []Role{RoleOwner, RoleAdmin, RoleMember, "boss", ""}
	// want[r] lists the roles r is at least.
	want := map[Role]string{
		RoleOwner:  "owner admin member",
		RoleAdmin:  "admin member",
		RoleMember: "member",
		"boss":     "",
		"":         "",
	}
	for _, r := range roles {
		for _, min := range roles {
			name := "role " + string(r) + " against " + string(min)
			t.Run(name, func(t *testing.T) {
				wantOK := min != "" && strings.Contains(" "+want[r]+" ", " "+string(min)+" ")
				if got := r.AtLeast(min); got != wantOK {
					t.Errorf("got %q.AtLeast(%q) = %v, want %v", r, min, got, wantOK)
				}
			})
		}
	}
}

func TestRoleValid(t *testing.T) {
	tests := []struct {
		role Role
		want bool
	}{
		{RoleOwner, true}, {RoleAdmin, true}, {RoleMember, true},
		{"", false}, {"Owner", false}, {"boss", false},
	}
	for _, tt := range tests {
		if got := tt.role.Valid(); got != tt.want {
			t.Errorf("got Role(%q).Valid() = %v, want %v", tt.role, got, tt.want)
		}
	}
}

func TestRoleChecks(t *testing.T) {
	m := func(r Role) *Membership { return &Membership{Role: r} }
	tests := []struct {
		name           string
		m              *Membership
		manageMembers  bool
		updateSettings bool
		requireAdmin   error
	}{
		{"an owner may manage members and update settings", m(RoleOwner), true, true, nil},
		{"an admin may manage members but not update settings", m(RoleAdmin), true, false, nil},
		{"a member may do neither", m(RoleMember), false, false, ErrInsufficientRole},
		{"an unknown role may do neither", m("boss"), false, false, ErrInsufficientRole},
		{"no membership may do neither", nil, false, false, ErrNotMember},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CanManageMembers(tt.m); got != tt.manageMembers {
				t.Errorf("got CanManageMembers %v, want %v", got, tt.manageMembers)
			}
			if got := CanUpdateTeamSettings(tt.m); got != tt.updateSettings {
				t.Errorf("got CanUpdateTeamSettings %v, want %v", got, tt.updateSettings)
			}
			if err := RequireRole(tt.m, RoleAdmin); !errors.Is(err, tt.requireAdmin) || (tt.requireAdmin == nil && err != nil) {
				t.Errorf("got RequireRole(admin) %v, want %v", err, tt.requireAdmin)
			}
		})
	}
}

func TestUserIsAdmin(t *testing.T) {
	tests := []struct {
		name string
		user *User
		want bool
	}{
		{"a user with role admin is a super-admin", &User{Role: UserRoleAdmin}, true},
		{"a user without a role is not", &User{}, false},
		{"a nil user is not", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.user.IsAdmin(); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestJSONNamesAreCamelCase(t *testing.T) {
	at := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"a user", User{ID: "u", Name: "Ada", Email: "a@x", Role: "admin", Banned: true, Image: "i", CreatedAt: at},
			`{"id":"u","name":"Ada","email":"a@x","role":"admin","banned":true,"image":"i","createdAt":"2026-11-21T00:00:00Z"}`},
		{"a team", Team{ID: "t", Name: "Acme", Slug: "acme", Description: "d", AvatarURL: "a", Settings: map[string]any{"k": 1}, CreatedAt: at},
			`{"id":"t","name":"Acme","slug":"acme","description":"d","avatarUrl":"a","settings":{"k":1},"createdAt":"2026-11-21T00:00:00Z"}`},
		{"a membership", Membership{ID: "m", TeamID: "t", UserID: "u", Role: RoleOwner, CreatedAt: at},
			`{"id":"m","teamId":"t","userId":"u","role":"owner","createdAt":"2026-11-21T00:00:00Z"}`},
		{"a token", Token{ID: "k", UserID: "u", Name: "ci", CreatedAt: at, LastUsedAt: &at},
			`{"id":"k","userId":"u","name":"ci","createdAt":"2026-11-21T00:00:00Z","lastUsedAt":"2026-11-21T00:00:00Z","revokedAt":null}`},
	}
	for _, tt := range tests {
		t.Run(tt.name+" encodes with camelCase names", func(t *testing.T) {
			b, err := json.Marshal(tt.v)
			if err != nil || string(b) != tt.want {
				t.Errorf("got %s (%v), want %s", b, err, tt.want)
			}
		})
	}
}
