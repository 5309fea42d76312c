package kittest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// NewKit returns a Kit built from cfg and closes it when t ends. When cfg
// names no database (DB nil and SQLitePath empty) the Kit runs on a fresh
// in-memory SQLite database that no other test sees. Any error from
// building the Kit fails t at once.
func NewKit(t testing.TB, cfg kit.Config) *kit.Kit {
	t.Helper()
	if cfg.DB == nil && cfg.SQLitePath == "" {
		cfg.SQLitePath = ":memory:" + memoryName(t)
	}
	k, err := kit.Open(t.Context(), cfg)
	if err != nil {
		t.Fatalf("kittest: build the Kit: %v", err)
	}
	t.Cleanup(func() {
		if err := k.Close(); err != nil {
			t.Errorf("kittest: close the Kit: %v", err)
		}
	})
	return k
}

// memoryName is a name for an in-memory database that is unique in the
// process: the test's name and random bytes.
func memoryName(t testing.TB) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	name := strings.Map(func(r rune) rune {
		if r == '/' || r == ' ' || r == '?' || r == '#' {
			return '_'
		}
		return r
	}, t.Name())
	return name + "-" + hex.EncodeToString(b[:])
}

// App is a Kit under test: the Kit, its API served over real HTTP, and
// the mutations its hooks saw. Its helpers make teams, users, memberships
// and tokens through Kit.Accounts and fail the test on any error. An App
// is safe for concurrent requests; its helpers belong to the test's own
// goroutine.
type App struct {
	// Kit is the Kit under test.
	Kit *kit.Kit
	// Server serves Kit.Handler under the Kit's prefix ("/api" by default)
	// and is closed when the test ends.
	Server *httptest.Server
	// IDs maps names to ids for {placeholders} in a Scenario's URL, body,
	// headers and expected content. Team stores each team's id under its
	// slug and User each user's id under its name; tests may add their
	// own (a seeded record's id, say).
	IDs map[string]string

	t         testing.TB
	mu        sync.Mutex
	mutations []kit.Mutation
}

// NewApp returns an App on NewKit(t, cfg): its API on an httptest server
// closed when t ends, and an OnMutation listener that records every
// mutation committed after NewApp returns.
func NewApp(t testing.TB, cfg kit.Config) *App {
	t.Helper()
	k := NewKit(t, cfg)
	a := &App{Kit: k, IDs: map[string]string{}, t: t}
	k.OnMutation(func(_ context.Context, m kit.Mutation) {
		a.mu.Lock()
		defer a.mu.Unlock()
		a.mutations = append(a.mutations, m)
	})
	a.Server = Serve(t, k)
	return a
}

// URL returns the absolute URL of path (which starts with "/") on the
// App's server, after expanding {placeholders} from IDs.
func (a *App) URL(path string) string { return a.Server.URL + a.Expand(path) }

// Expand replaces every {name} in s whose name is a key of IDs with its
// id. Other braces are left alone.
func (a *App) Expand(s string) string { return Expand(s, a.IDs) }

// expandAll returns ss, each expanded with Expand.
func (a *App) expandAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = a.Expand(s)
	}
	return out
}

// Mutations returns a copy of the mutations committed so far, oldest
// first.
func (a *App) Mutations() []kit.Mutation {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]kit.Mutation(nil), a.mutations...)
}

// ResetMutations forgets the mutations seen so far.
func (a *App) ResetMutations() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.mutations = nil
}

// Team creates a team whose slug and name are slug, stores its id in
// IDs[slug] and returns it.
func (a *App) Team(slug string) *teamauth.Team {
	a.t.Helper()
	team, err := a.Kit.Accounts().CreateTeam(a.t.Context(), teamauth.Team{Name: slug, Slug: slug})
	if err != nil {
		a.t.Fatalf("kittest: create team %q: %v", slug, err)
	}
	a.IDs[slug] = team.ID
	return team
}

// User creates a user named name, stores its id in IDs[name] and returns
// it. See Admin for a global administrator.
func (a *App) User(name string) *teamauth.User {
	a.t.Helper()
	return a.createUser(teamauth.User{Name: name})
}

// Admin creates a global administrator (teamauth.UserRoleAdmin) named
// name, stores its id in IDs[name] and returns it.
func (a *App) Admin(name string) *teamauth.User {
	a.t.Helper()
	return a.createUser(teamauth.User{Name: name, Role: teamauth.UserRoleAdmin})
}

func (a *App) createUser(u teamauth.User) *teamauth.User {
	a.t.Helper()
	user, err := a.Kit.Accounts().CreateUser(a.t.Context(), u)
	if err != nil {
		a.t.Fatalf("kittest: create user %q: %v", u.Name, err)
	}
	a.IDs[u.Name] = user.ID
	return user
}

// AddMember makes user a member of team with role and returns the Actor
// that acts as that member, for the Go record API (Kit.Records).
func (a *App) AddMember(team *teamauth.Team, user *teamauth.User, role teamauth.Role) kit.Actor {
	a.t.Helper()
	if _, err := a.Kit.Accounts().AddMember(a.t.Context(), team.ID, user.ID, role); err != nil {
		a.t.Fatalf("kittest: add %q to team %q: %v", user.Name, team.Slug, err)
	}
	return kit.Actor{UserID: user.ID, TeamID: team.ID, Role: role}
}

// Token creates an API token for user and returns it, ready for a
// Scenario's Token or an "Authorization: Bearer" header.
func (a *App) Token(user *teamauth.User) string {
	a.t.Helper()
	token, _, err := a.Kit.Accounts().CreateToken(a.t.Context(), user.ID, "kittest")
	if err != nil {
		a.t.Fatalf("kittest: create a token for %q: %v", user.Name, err)
	}
	return token
}
