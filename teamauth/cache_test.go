package teamauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/internal/wire"
)

// resolve asks a for the access of a request carrying token (none when
// "") for the team slug (or the team's id when slug is "{id}"), and describes the outcome:
// "member of <slug> (<name>) as <role>", or "<status> <message>".
func resolve(f *fixture, a *Auth, token, slug string) string {
	if slug == "{id}" {
		slug = f.team.ID
	}
	r := httptest.NewRequest(http.MethodGet, "/teams/"+slug+"/x", nil)
	r.SetPathValue("team", slug)
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	acc, err := a.ResolveTeamAndCheckMembership(r)
	if err != nil {
		return fmt.Sprintf("%d %v", wire.Status(err), err)
	}
	return fmt.Sprintf("member of %s (%s) as %s", acc.Team.Slug, acc.Team.Name, acc.Membership.Role)
}

// authChange is a change to users, teams, memberships or tokens and what
// it does to one request.
type authChange struct {
	name   string
	token  string // the fixture user whose token the request carries
	slug   string // the route's team: "acme" when empty, "{id}" for acme's id
	before string // the outcome before the change
	after  string // the outcome of the next request after it
	// store makes the change through a Store; nil when no Store method
	// does.
	store func(ctx context.Context, s *Store, f *fixture) error
	// sql makes the same change by hand, with args.
	sql  string
	args func(f *fixture) []any
}

const (
	asMember = "member of acme (Acme) as member"
	banned   = "403 user is banned"
	invalid  = "401 invalid token"
	outside  = "403 not a member of this team"
	noTeam   = "404 team not found"
)

func authChanges() []authChange {
	userID := func(name string) func(f *fixture) []any {
		return func(f *fixture) []any { return []any{f.users[name].ID} }
	}
	teamAndUser := func(name string) func(f *fixture) []any {
		return func(f *fixture) []any { return []any{f.team.ID, f.users[name].ID} }
	}
	tokenOf := func(name string) func(f *fixture) []any {
		return func(f *fixture) []any { return []any{hashToken(f.tokens[name])} }
	}
	return []authChange{
		{
			name: "a banned user is refused", token: "member", before: asMember, after: banned,
			store: func(ctx context.Context, s *Store, f *fixture) error {
				return s.SetBanned(ctx, f.users["member"].ID, true)
			},
			sql: `UPDATE kit_users SET banned = TRUE WHERE id = ?`, args: userID("member"),
		},
		{
			name: "an unbanned user is admitted again", token: "banned", before: banned, after: asMember,
			store: func(ctx context.Context, s *Store, f *fixture) error {
				return s.SetBanned(ctx, f.users["banned"].ID, false)
			},
			sql: `UPDATE kit_users SET banned = FALSE WHERE id = ?`, args: userID("banned"),
		},
		{
			name: "a revoked token is refused", token: "member", before: asMember, after: invalid,
			store: func(ctx context.Context, s *Store, f *fixture) error {
				toks, err := s.Tokens(ctx, f.users["member"].ID)
				if err != nil {
					return err
				}
				for _, k := range toks {
					if k.Name == "test" {
						return s.RevokeToken(ctx, k.ID)
					}
				}
				return errors.New("no token named test")
			},
			sql: `UPDATE kit_tokens SET revoked_at = CURRENT_TIMESTAMP WHERE token_hash = ?`, args: tokenOf("member"),
		},
		{
			name: "a deleted token is refused", token: "member", before: asMember, after: invalid,
			sql: `DELETE FROM kit_tokens WHERE token_hash = ?`, args: tokenOf("member"),
		},
		{
			name: "a token handed to another user authenticates that user", token: "member", before: asMember, after: outside,
			sql:  `UPDATE kit_tokens SET user_id = ? WHERE token_hash = ?`,
			args: func(f *fixture) []any { return []any{f.users["outsider"].ID, hashToken(f.tokens["member"])} },
		},
		{
			name: "a deleted user is refused", token: "member", before: asMember, after: invalid,
			sql: `DELETE FROM kit_users WHERE id = ?`, args: userID("member"),
		},
		{
			name: "a removed member is refused", token: "member", before: asMember, after: outside,
			store: func(ctx context.Context, s *Store, f *fixture) error {
				return s.RemoveMember(ctx, f.team.ID, f.users["member"].ID)
			},
			sql: `DELETE FROM kit_members WHERE team_id = ? AND user_id = ?`, args: teamAndUser("member"),
		},
		{
			name: "a removed member is refused on a route naming the team by id", token: "member", slug: "{id}",
			before: asMember, after: outside,
			store: func(ctx context.Context, s *Store, f *fixture) error {
				return s.RemoveMember(ctx, f.team.ID, f.users["member"].ID)
			},
			sql: `DELETE FROM kit_members WHERE team_id = ? AND user_id = ?`, args: teamAndUser("member"),
		},
		{
			name: "a user who joins is admitted", token: "outsider", before: outside, after: asMember,
			store: func(ctx context.Context, s *Store, f *fixture) error {
				_, err := s.AddMember(ctx, f.team.ID, f.users["outsider"].ID, RoleMember)
				return err
			},
			sql: `INSERT INTO kit_members (id, team_id, user_id, role, created_at) VALUES (?, ?, ?, 'member', CURRENT_TIMESTAMP)`,
			args: func(f *fixture) []any {
				return []any{uuid.Must(uuid.NewV7()).String(), f.team.ID, f.users["outsider"].ID}
			},
		},
		{
			name: "a demoted admin is a member", token: "admin", before: "member of acme (Acme) as admin", after: asMember,
			store: func(ctx context.Context, s *Store, f *fixture) error {
				_, err := s.AddMember(ctx, f.team.ID, f.users["admin"].ID, RoleMember)
				return err
			},
			sql: `UPDATE kit_members SET role = 'member' WHERE team_id = ? AND user_id = ?`, args: teamAndUser("admin"),
		},
		{
			name: "a promoted member is an owner", token: "member", before: asMember, after: "member of acme (Acme) as owner",
			store: func(ctx context.Context, s *Store, f *fixture) error {
				_, err := s.AddMember(ctx, f.team.ID, f.users["member"].ID, RoleOwner)
				return err
			},
			sql: `UPDATE kit_members SET role = 'owner' WHERE team_id = ? AND user_id = ?`, args: teamAndUser("member"),
		},
		{
			name: "a deleted team is not found", token: "member", before: asMember, after: noTeam,
			sql: `DELETE FROM kit_teams WHERE id = ?`, args: func(f *fixture) []any { return []any{f.team.ID} },
		},
		{
			name: "a deleted team is not found by id either", token: "member", slug: "{id}", before: asMember, after: noTeam,
			sql: `DELETE FROM kit_teams WHERE id = ?`, args: func(f *fixture) []any { return []any{f.team.ID} },
		},
		{
			name: "a renamed slug no longer names the team", token: "member", before: asMember, after: noTeam,
			sql: `UPDATE kit_teams SET slug = 'acme-rockets' WHERE id = ?`, args: func(f *fixture) []any { return []any{f.team.ID} },
		},
		{
			name: "a new slug names the team", token: "member", slug: "acme-rockets", before: noTeam,
			after: "member of acme-rockets (Acme) as member",
			sql:   `UPDATE kit_teams SET slug = 'acme-rockets' WHERE id = ?`, args: func(f *fixture) []any { return []any{f.team.ID} },
		},
		{
			name: "a renamed team shows its new name", token: "member", before: asMember, after: "member of acme (Acme Rockets) as member",
			sql: `UPDATE kit_teams SET name = 'Acme Rockets' WHERE id = ?`, args: func(f *fixture) []any { return []any{f.team.ID} },
		},
	}
}

// TestTheNextRequestSeesEveryChange makes each change after a request has
// filled the cache, from this process, from another process's Store and
// by raw SQL from another process, and asserts the very next request of
// this process sees it.
func TestTheNextRequestSeesEveryChange(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		writers := []struct {
			name string
			// make applies c with this process's fixture f on a database
			// that open opens another pool on.
			make func(t *testing.T, c authChange, f *fixture, open func() *bun.DB) error
			// storeOnly writers skip the changes no Store method makes.
			storeOnly bool
		}{
			{name: "this process", make: func(t *testing.T, c authChange, f *fixture, _ func() *bun.DB) error {
				if c.store != nil {
					return c.store(t.Context(), f.store, f)
				}
				_, err := f.db.ExecContext(t.Context(), c.sql, c.args(f)...)
				return err
			}},
			{name: "another process's Store", storeOnly: true, make: func(t *testing.T, c authChange, f *fixture, open func() *bun.DB) error {
				return c.store(t.Context(), NewStore(open()), f)
			}},
			{name: "raw SQL from another process", make: func(t *testing.T, c authChange, f *fixture, open func() *bun.DB) error {
				_, err := open().ExecContext(t.Context(), c.sql, c.args(f)...)
				return err
			}},
		}
		for _, w := range writers {
			for _, c := range authChanges() {
				if w.storeOnly && c.store == nil {
					continue
				}
				t.Run(c.name+" after a change by "+w.name, func(t *testing.T) {
					open := testdb.Shared(t, e)
					f := newFixtureOn(t, open())
					a := &Auth{Directory: f.store}
					slug := c.slug
					if slug == "" {
						slug = "acme"
					}
					for range 2 { // the second request is answered from the cache
						if got := resolve(f, a, f.tokens[c.token], slug); got != c.before {
							t.Fatalf("got %q before the change, want %q", got, c.before)
						}
					}
					if err := w.make(t, c, f, open); err != nil {
						t.Fatalf("change: %v", err)
					}
					if got := resolve(f, a, f.tokens[c.token], slug); got != c.after {
						t.Errorf("got %q after the change, want %q", got, c.after)
					}
				})
			}
		}
	})
}

// countQueries makes s count the queries of its lookups; s must not have
// been used yet.
func countQueries(s *Store) *[]string {
	var mu sync.Mutex
	queries := new([]string)
	s.run.Observe = func(q string, _ []any) {
		mu.Lock()
		defer mu.Unlock()
		*queries = append(*queries, q)
	}
	return queries
}

func TestCachedRequestsReadOnlyTheVersion(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		f := newFixture(t, e)
		ctx := t.Context()
		s := NewStore(f.db) // a store nobody has used, to count its queries
		queries := countQueries(s)
		a := &Auth{Directory: s}
		steps := []struct {
			name   string
			before func() error
			do     func() string
			want   string
			// wantQueries is the number of queries the Store runs; when it
			// is 1, that query must be the version.
			wantQueries int
		}{
			{name: "the first request reads the version, the token and the team",
				do: func() string { return resolve(f, a, f.tokens["member"], "acme") }, want: asMember, wantQueries: 3},
			{name: "a repeated request reads the version only",
				do: func() string { return resolve(f, a, f.tokens["member"], "acme") }, want: asMember, wantQueries: 1},
			{name: "a repeated request naming the team by id the first time reads the team",
				do: func() string { return resolve(f, a, f.tokens["member"], "{id}") }, want: asMember, wantQueries: 2},
			{name: "a lookup outside a request reads the version itself",
				do: func() string {
					u, err := s.UserByToken(ctx, f.tokens["member"])
					if err != nil {
						return err.Error()
					}
					return u.Name
				}, want: "member", wantQueries: 1},
			{name: "a non-member's repeated request reads the version only",
				before: func() error { resolve(f, a, f.tokens["outsider"], "acme"); return nil },
				do:     func() string { return resolve(f, a, f.tokens["outsider"], "acme") }, want: outside, wantQueries: 1},
			{name: "a request without credentials reads nothing",
				do: func() string { return resolve(f, a, "", "acme") }, want: "401 authentication required", wantQueries: 0},
			{name: "a request after an unrelated change reads all three again",
				before: func() error { return f.store.SetBanned(ctx, f.users["outsider"].ID, true) },
				do:     func() string { return resolve(f, a, f.tokens["member"], "acme") }, want: asMember, wantQueries: 3},
		}
		for _, st := range steps {
			t.Run(st.name, func(t *testing.T) {
				if st.before != nil {
					if err := st.before(); err != nil {
						t.Fatalf("before: %v", err)
					}
				}
				*queries = nil
				if got := st.do(); got != st.want {
					t.Fatalf("got %q, want %q", got, st.want)
				}
				if len(*queries) != st.wantQueries {
					t.Errorf("got %d queries %q, want %d", len(*queries), *queries, st.wantQueries)
				}
				if st.wantQueries == 1 && (*queries)[0] != sqlAuthVersion {
					t.Errorf("got query %q, want the version %q", (*queries)[0], sqlAuthVersion)
				}
			})
		}
	})
}

func TestCachedLookupsReturnCopies(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		f := newFixture(t, e)
		ctx := t.Context()
		team, err := f.store.CreateTeam(ctx, Team{Slug: "globex", Settings: map[string]any{
			"theme": map[string]any{"color": "red"}, "tags": []any{"a", "b"}, "seats": 5.0}})
		if err != nil {
			t.Fatalf("CreateTeam: %v", err)
		}
		member := f.users["member"]
		if _, err := f.store.AddMember(ctx, team.ID, member.ID, RoleMember); err != nil {
			t.Fatalf("AddMember: %v", err)
		}
		wantTeam, err := f.store.Team(ctx, "globex")
		if err != nil {
			t.Fatalf("Team: %v", err)
		}
		// Each lookup changes everything it got; the next must not see it.
		for i, name := range []string{"the first lookup", "the second lookup", "the third lookup"} {
			t.Run(name+" gets the stored team and user", func(t *testing.T) {
				gotTeam, m, err := f.store.TeamAndMembership(ctx, "globex", member.ID)
				if err != nil {
					t.Fatalf("TeamAndMembership: %v", err)
				}
				if !reflect.DeepEqual(gotTeam, wantTeam) || m.Role != RoleMember {
					t.Errorf("got %+v as %s, want %+v as member", gotTeam, m.Role, wantTeam)
				}
				u, err := f.store.UserByToken(ctx, f.tokens["member"])
				if err != nil {
					t.Fatalf("UserByToken: %v", err)
				}
				if *u != *member {
					t.Errorf("got user %+v, want %+v", u, member)
				}
				gotTeam.Name = fmt.Sprint("changed ", i)
				gotTeam.Settings["theme"].(map[string]any)["color"] = "blue"
				gotTeam.Settings["tags"].([]any)[0] = "z"
				gotTeam.Settings["new"] = true
				m.Role = RoleOwner
				u.Name, u.Banned = "changed", true
			})
		}
	})
}

func TestAuthStateCountsChanges(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		sqlOf := func(q string, args func(f *fixture) []any) func(ctx context.Context, f *fixture) error {
			return func(ctx context.Context, f *fixture) error {
				_, err := f.db.ExecContext(ctx, q, args(f)...)
				return err
			}
		}
		user := func(f *fixture) []any { return []any{f.users["outsider"].ID} }
		team := func(f *fixture) []any { return []any{f.team.ID} }
		member := func(f *fixture) []any { return []any{f.team.ID, f.users["member"].ID} }
		token := func(f *fixture) []any { return []any{hashToken(f.tokens["member"])} }
		tests := []struct {
			name   string
			change func(ctx context.Context, f *fixture) error
			counts bool
			pgOnly bool
		}{
			{name: "creating a user counts", counts: true, change: func(ctx context.Context, f *fixture) error {
				_, err := f.store.CreateUser(ctx, User{Name: "new"})
				return err
			}},
			{name: "updating a user counts", counts: true, change: sqlOf(`UPDATE kit_users SET name = 'x' WHERE id = ?`, user)},
			{name: "deleting a user counts", counts: true, change: sqlOf(`DELETE FROM kit_users WHERE id = ?`, user)},
			{name: "creating a team counts", counts: true, change: func(ctx context.Context, f *fixture) error {
				_, err := f.store.CreateTeam(ctx, Team{Slug: "globex"})
				return err
			}},
			{name: "updating a team counts", counts: true, change: sqlOf(`UPDATE kit_teams SET description = 'x' WHERE id = ?`, team)},
			{name: "deleting a team counts", counts: true, change: sqlOf(`DELETE FROM kit_teams WHERE id = ?`, team)},
			{name: "adding a member counts", counts: true, change: func(ctx context.Context, f *fixture) error {
				_, err := f.store.AddMember(ctx, f.team.ID, f.users["outsider"].ID, RoleMember)
				return err
			}},
			{name: "changing a role counts", counts: true, change: sqlOf(`UPDATE kit_members SET role = 'admin' WHERE team_id = ? AND user_id = ?`, member)},
			{name: "removing a member counts", counts: true, change: sqlOf(`DELETE FROM kit_members WHERE team_id = ? AND user_id = ?`, member)},
			{name: "creating a token counts", counts: true, change: func(ctx context.Context, f *fixture) error {
				_, _, err := f.store.CreateToken(ctx, f.users["member"].ID, "new")
				return err
			}},
			{name: "revoking a token counts", counts: true, change: sqlOf(`UPDATE kit_tokens SET revoked_at = CURRENT_TIMESTAMP WHERE token_hash = ?`, token)},
			{name: "renaming a token counts", counts: true, change: sqlOf(`UPDATE kit_tokens SET name = 'x' WHERE token_hash = ?`, token)},
			{name: "updating a token's last use with another column counts", counts: true,
				change: sqlOf(`UPDATE kit_tokens SET last_used_at = CURRENT_TIMESTAMP, name = 'x' WHERE token_hash = ?`, token)},
			{name: "deleting a token counts", counts: true, change: sqlOf(`DELETE FROM kit_tokens WHERE token_hash = ?`, token)},
			{name: "truncating the tokens counts", counts: true, pgOnly: true, change: sqlOf(`TRUNCATE kit_tokens`, func(*fixture) []any { return nil })},
			{name: "updating a token's last use alone does not count", counts: false,
				change: sqlOf(`UPDATE kit_tokens SET last_used_at = CURRENT_TIMESTAMP WHERE token_hash = ?`, token)},
			{name: "UserByToken recording a token's use does not count", counts: false, change: func(ctx context.Context, f *fixture) error {
				f.store.now = func() time.Time { return time.Now().Add(time.Hour) } // the use is due
				_, err := f.store.UserByToken(ctx, f.tokens["member"])
				return err
			}},
			{name: "starting a session counts", counts: true, change: func(ctx context.Context, f *fixture) error {
				_, _, err := f.store.CreateSession(ctx, f.users["member"].ID)
				return err
			}},
			{name: "ending a user's sessions counts", counts: true, change: func(ctx context.Context, f *fixture) error {
				if _, _, err := f.store.CreateSession(ctx, f.users["member"].ID); err != nil {
					return err
				}
				f.store.now = func() time.Time { return time.Now().Add(time.Second) }
				_, err := f.store.EndSessions(ctx, f.users["member"].ID)
				return err
			}},
			{name: "CreateTables again does not count", counts: false, change: func(ctx context.Context, f *fixture) error {
				return f.store.CreateTables(ctx)
			}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				if tt.pgOnly && e != testdb.EnginePostgres {
					t.Skip("PostgreSQL only")
				}
				f := newFixture(t, e)
				ctx := t.Context()
				before := version(t, f.store)
				if err := tt.change(ctx, f); err != nil {
					t.Fatalf("change: %v", err)
				}
				if got := version(t, f.store) > before; got != tt.counts {
					t.Errorf("got version moved %v, want %v", got, tt.counts)
				}
			})
		}
	})
}

// version reads s's current version of kit_auth_state.
func version(t *testing.T, s *Store) int64 {
	t.Helper()
	v, ok := s.readVersion(t.Context())
	if !ok {
		t.Fatalf("no version in kit_auth_state")
	}
	return v
}

func TestRenewingASessionDoesNotCount(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		f := newFixture(t, e)
		ctx := t.Context()
		secret, _, err := f.store.CreateSession(ctx, f.users["member"].ID)
		if err != nil {
			t.Fatal(err)
		}
		before := version(t, f.store)
		f.store.now = func() time.Time { return time.Now().Add(time.Hour) } // the renewal is due
		if _, err := f.store.UserBySession(ctx, secret); err != nil {
			t.Fatal(err)
		}
		var lastSeen time.Time
		if err := f.db.NewSelect().Table("kit_sessions").Column("last_seen_at").Where("session_hash = ?", hashToken(secret)).Scan(ctx, &lastSeen); err != nil {
			t.Fatal(err)
		}
		if time.Until(lastSeen) < 30*time.Minute {
			t.Errorf("got last_seen_at %v, want the renewal an hour ahead recorded", lastSeen)
		}
		if after := version(t, f.store); after != before {
			t.Errorf("got the version moved from %d to %d by a renewal, want unchanged", before, after)
		}
	})
}

func TestSessionColumnsThatCountAreAllButLastSeenAt(t *testing.T) {
	db := testdb.SQLite(t)
	var want []string
	for _, f := range db.Table(reflect.TypeFor[sessionRow]()).Fields {
		if f.Name != "last_seen_at" {
			want = append(want, f.Name)
		}
	}
	if got := strings.Split(sessionColumnsThatCount, ", "); !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestTokenColumnsThatCountAreAllButLastUsedAt(t *testing.T) {
	db := testdb.SQLite(t)
	var want []string
	for _, f := range db.Table(reflect.TypeFor[tokenRow]()).Fields {
		if f.Name != "last_used_at" {
			want = append(want, f.Name)
		}
	}
	if got := strings.Split(tokenColumnsThatCount, ", "); !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestLookupsWithoutAuthStateAreUncachedAndCorrect(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		f := newFixture(t, e)
		ctx := t.Context()
		a := &Auth{Directory: f.store}
		if got := resolve(f, a, f.tokens["member"], "acme"); got != asMember {
			t.Fatalf("got %q with the cache, want %q", got, asMember)
		}
		if err := dropAuthState(ctx, f.db); err != nil {
			t.Fatalf("dropAuthState: %v", err)
		}
		t.Run("a change after the counter is dropped is seen", func(t *testing.T) {
			if err := f.store.RemoveMember(ctx, f.team.ID, f.users["member"].ID); err != nil {
				t.Fatalf("RemoveMember: %v", err)
			}
			if got := resolve(f, a, f.tokens["member"], "acme"); got != outside {
				t.Errorf("got %q, want %q", got, outside)
			}
		})
		t.Run("a change back is seen too", func(t *testing.T) {
			if _, err := f.store.AddMember(ctx, f.team.ID, f.users["member"].ID, RoleMember); err != nil {
				t.Fatalf("AddMember: %v", err)
			}
			if got := resolve(f, a, f.tokens["member"], "acme"); got != asMember {
				t.Errorf("got %q, want %q", got, asMember)
			}
		})
		t.Run("CreateTables brings the counter back and the cache with it", func(t *testing.T) {
			if err := f.store.CreateTables(ctx); err != nil {
				t.Fatalf("CreateTables: %v", err)
			}
			s := NewStore(f.db)
			queries := countQueries(s)
			a := &Auth{Directory: s}
			for i := range 2 {
				*queries = nil
				if got := resolve(f, a, f.tokens["member"], "acme"); got != asMember {
					t.Fatalf("got %q, want %q", got, asMember)
				}
				if want := []int{3, 1}[i]; len(*queries) != want {
					t.Errorf("got %d queries on request %d, want %d", len(*queries), i+1, want)
				}
			}
		})
	})
}

func TestVersionedMap(t *testing.T) {
	tests := []struct {
		name string
		do   func(c *versionedMap[int, string]) (got, want string)
	}{
		{"an entry is found under its version", func(c *versionedMap[int, string]) (string, string) {
			c.put(1, 7, "a")
			v, ok := c.get(1, 7)
			return fmt.Sprintf("%s %v", v, ok), "a true"
		}},
		{"an entry is not found under another version", func(c *versionedMap[int, string]) (string, string) {
			c.put(1, 7, "a")
			_, older := c.get(1, 6)
			_, newer := c.get(1, 8)
			return fmt.Sprint(older, newer), "false false"
		}},
		{"a newer version empties the map", func(c *versionedMap[int, string]) (string, string) {
			c.put(1, 7, "a")
			c.put(2, 8, "b")
			return fmt.Sprint(len(c.m), c.version), "1 8"
		}},
		{"an older version is not stored", func(c *versionedMap[int, string]) (string, string) {
			c.put(1, 8, "a")
			c.put(2, 7, "b")
			_, ok := c.get(2, 7)
			return fmt.Sprint(len(c.m), ok), "1 false"
		}},
		{"the map never holds more than authCacheSize entries", func(c *versionedMap[int, string]) (string, string) {
			most := 0
			for i := range 3 * authCacheSize {
				c.put(i, 1, "x")
				most = max(most, len(c.m))
			}
			_, ok := c.get(3*authCacheSize-1, 1)
			return fmt.Sprint(most <= authCacheSize, ok), "true true"
		}},
		{"replacing an entry of a full map keeps the others", func(c *versionedMap[int, string]) (string, string) {
			for i := range authCacheSize {
				c.put(i, 1, "x")
			}
			c.put(0, 1, "y")
			return fmt.Sprint(len(c.m)), fmt.Sprint(authCacheSize)
		}},
		{"a reset forgets everything", func(c *versionedMap[int, string]) (string, string) {
			c.put(1, 7, "a")
			c.reset()
			_, ok := c.get(1, 7)
			return fmt.Sprint(ok), "false"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, want := tt.do(new(versionedMap[int, string])); got != want {
				t.Errorf("got %s, want %s", got, want)
			}
		})
	}
}

// TestRequestsRacingWithChangesSeeEveryCommittedChange runs requests in
// several goroutines while the member is removed and added again, and
// checks after each change that the next request sees it. Run with -race.
func TestRequestsRacingWithChangesSeeEveryCommittedChange(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		open := testdb.Shared(t, e)
		f := newFixtureOn(t, open())
		other := NewStore(open()) // the changes come from another process
		ctx := t.Context()
		a := &Auth{Directory: f.store}
		var stop atomic.Bool
		var wg sync.WaitGroup
		errs := make(chan string, 4)
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for !stop.Load() {
					if got := resolve(f, a, f.tokens["member"], "acme"); got != asMember && got != "member of acme (Acme) as admin" && got != outside {
						errs <- got
						return
					}
				}
			}()
		}
		for i := range 20 {
			var want string
			var err error
			switch i % 3 {
			case 0:
				err, want = other.RemoveMember(ctx, f.team.ID, f.users["member"].ID), outside
			case 1:
				_, err = other.AddMember(ctx, f.team.ID, f.users["member"].ID, RoleAdmin)
				want = "member of acme (Acme) as admin"
			case 2:
				_, err = other.AddMember(ctx, f.team.ID, f.users["member"].ID, RoleMember)
				want = asMember
			}
			if err != nil {
				t.Fatalf("change %d: %v", i, err)
			}
			if got := resolve(f, a, f.tokens["member"], "acme"); got != want {
				t.Errorf("got %q after change %d, want %q", got, i, want)
			}
		}
		stop.Store(true)
		wg.Wait()
		close(errs)
		for got := range errs {
			t.Errorf("got %q from a concurrent request, want a member, an admin or not a member", got)
		}
	})
}

// TestAChangeBetweenALookupsTwoReadsIsSeenNext commits a change from
// another process between the two queries of a lookup (the version and the
// data). Reading the version first, the data already holds the change, or
// the entry's version is older than the change's; were the version read
// second, the entry would hold the old data under the new version, and the
// next lookup would serve it.
func TestAChangeBetweenALookupsTwoReadsIsSeenNext(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		tests := []struct {
			name   string
			change func(ctx context.Context, other *Store, f *fixture) error
			lookup func(ctx context.Context, s *Store, f *fixture) string
			want   string
		}{
			{
				name: "a ban between a token lookup's reads is seen by the next lookup",
				change: func(ctx context.Context, other *Store, f *fixture) error {
					return other.SetBanned(ctx, f.users["member"].ID, true)
				},
				lookup: func(ctx context.Context, s *Store, f *fixture) string {
					u, err := s.UserByToken(ctx, f.tokens["member"])
					if err != nil {
						return err.Error()
					}
					return fmt.Sprintf("banned %v", u.Banned)
				},
				want: "banned true",
			},
			{
				name: "a removal between a team lookup's reads is seen by the next lookup",
				change: func(ctx context.Context, other *Store, f *fixture) error {
					return other.RemoveMember(ctx, f.team.ID, f.users["member"].ID)
				},
				lookup: func(ctx context.Context, s *Store, f *fixture) string {
					_, m, err := s.TeamAndMembership(ctx, "acme", f.users["member"].ID)
					if err != nil {
						return err.Error()
					}
					return fmt.Sprintf("member %v", m != nil)
				},
				want: "member false",
			},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				open := testdb.Shared(t, e)
				f := newFixtureOn(t, open())
				other := NewStore(open())
				ctx := t.Context()
				s := NewStore(f.db)
				n := 0
				s.run.Observe = func(string, []any) {
					if n++; n == 2 { // before the lookup's second query
						if err := tt.change(ctx, other, f); err != nil {
							t.Fatalf("change: %v", err)
						}
					}
				}
				tt.lookup(ctx, s, f)
				if n != 2 {
					t.Fatalf("got %d queries in the first lookup, want 2", n)
				}
				if got := tt.lookup(ctx, s, f); got != tt.want {
					t.Errorf("got %q from the next lookup, want %q", got, tt.want)
				}
			})
		}
	})
}
