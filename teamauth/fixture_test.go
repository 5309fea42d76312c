package teamauth

import (
	"testing"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/internal/testdb"
)

// fixture is a store on a database of one engine, private to the test
// (testdb.Open: in-memory SQLite or a fresh PostgreSQL schema), with one
// team, "acme",
// and a cast of users, each with a token:
//
//	owner, admin, member  members of acme with that role
//	banned                a member of acme whose account is banned
//	outsider              a user in no team
//	root                  a super-admin (global role admin) in no team
//
// tokens["revoked"] is a revoked token of member.
type fixture struct {
	db     *bun.DB
	store  *Store
	team   *Team
	users  map[string]*User
	tokens map[string]string
}

// newStore opens a store with its tables on a private database of engine e.
func newStore(t *testing.T, e testdb.Engine) (*bun.DB, *Store) {
	t.Helper()
	db := testdb.Open(t, e)
	s := NewStore(db)
	if err := s.CreateTables(t.Context()); err != nil {
		t.Fatalf("CreateTables: %v", err)
	}
	return db, s
}

func newFixture(t *testing.T, e testdb.Engine) *fixture {
	t.Helper()
	return newFixtureOn(t, testdb.Open(t, e))
}

// newFixtureOn creates the tables and the fixture's team, users and
// tokens on db, with a new Store.
func newFixtureOn(t testing.TB, db *bun.DB) *fixture {
	t.Helper()
	ctx := t.Context()
	s := NewStore(db)
	if err := s.CreateTables(ctx); err != nil {
		t.Fatalf("CreateTables: %v", err)
	}
	f := &fixture{db: db, store: s, users: map[string]*User{}, tokens: map[string]string{}}
	var err error
	if f.team, err = s.CreateTeam(ctx, Team{Name: "Acme", Slug: "acme"}); err != nil {
		t.Fatalf("CreateTeam: %v", err)
	}
	cast := []struct {
		name   string
		role   Role // team role in acme; "" for none
		global string
		banned bool
	}{
		{"owner", RoleOwner, "", false},
		{"admin", RoleAdmin, "", false},
		{"member", RoleMember, "", false},
		{"banned", RoleMember, "", true},
		{"outsider", "", "", false},
		{"root", "", UserRoleAdmin, false},
	}
	for _, c := range cast {
		u, err := s.CreateUser(ctx, User{Name: c.name, Email: c.name + "@example.com", Role: c.global, Banned: c.banned})
		if err != nil {
			t.Fatalf("CreateUser(%s): %v", c.name, err)
		}
		f.users[c.name] = u
		if c.role != "" {
			if _, err := s.AddMember(ctx, f.team.ID, u.ID, c.role); err != nil {
				t.Fatalf("AddMember(%s): %v", c.name, err)
			}
		}
		if f.tokens[c.name], _, err = s.CreateToken(ctx, u.ID, "test"); err != nil {
			t.Fatalf("CreateToken(%s): %v", c.name, err)
		}
	}
	plaintext, tok, err := s.CreateToken(ctx, f.users["member"].ID, "old")
	if err != nil {
		t.Fatalf("CreateToken(revoked): %v", err)
	}
	if err := s.RevokeToken(ctx, tok.ID); err != nil {
		t.Fatalf("RevokeToken: %v", err)
	}
	f.tokens["revoked"] = plaintext
	return f
}
