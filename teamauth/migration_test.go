package teamauth

import (
	"fmt"
	"testing"

	"github.com/uptrace/bun/migrate"

	"github.com/collectionkit/kit/internal/testdb"
)

func TestRegisterMigrations(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		ctx := t.Context()
		db := testdb.Open(t, e)
		s := NewStore(db)
		m := migrate.NewMigrations()
		s.RegisterMigrations(m)

		t.Run("three migrations are registered under their names", func(t *testing.T) {
			got := fmt.Sprint(m.Sorted())
			if want := "20261121000100_teamauth_tables, 20261121000101_teamauth_auth_state, 20261121000102_teamauth_sessions"; got != want {
				t.Fatalf("got %s, want %s", got, want)
			}
		})

		migrator := migrate.NewMigrator(db, m,
			migrate.WithTableName("kit_migrations"), migrate.WithLocksTableName("kit_migration_locks"))
		if err := migrator.Init(ctx); err != nil {
			t.Fatalf("Init: %v", err)
		}

		t.Run("migrating creates the tables", func(t *testing.T) {
			group, err := migrator.Migrate(ctx)
			if err != nil {
				t.Fatalf("Migrate: %v", err)
			}
			if len(group.Migrations) != 3 {
				t.Errorf("got %d migrations applied, want 3", len(group.Migrations))
			}
			if _, err := s.CreateTeam(ctx, Team{Slug: "acme"}); err != nil {
				t.Errorf("got %v from CreateTeam after migrating, want nil", err)
			}
			if _, ok := s.readVersion(ctx); !ok {
				t.Errorf("got no version in kit_auth_state after migrating, want one")
			}
		})
		t.Run("migrating again applies nothing", func(t *testing.T) {
			group, err := migrator.Migrate(ctx)
			if err != nil || !group.IsZero() {
				t.Errorf("got group %v (%v), want nothing applied", group, err)
			}
		})
		t.Run("CreateTables after the migration is fine", func(t *testing.T) {
			if err := s.CreateTables(ctx); err != nil {
				t.Errorf("got %v, want nil", err)
			}
		})
		t.Run("rolling back drops the tables", func(t *testing.T) {
			if _, err := migrator.Rollback(ctx); err != nil {
				t.Fatalf("Rollback: %v", err)
			}
			if _, err := s.Teams(ctx); err == nil {
				t.Errorf("got no error listing teams after the rollback, want one (no table)")
			}
			if _, ok := s.readVersion(ctx); ok {
				t.Errorf("got a version after the rollback, want none (no kit_auth_state)")
			}
		})
	})
}

func TestMigrationOnExistingTablesKeepsTheData(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		ctx := t.Context()
		db, s := newStore(t, e) // tables made by CreateTables
		if _, err := s.CreateTeam(ctx, Team{Slug: "acme"}); err != nil {
			t.Fatalf("CreateTeam: %v", err)
		}
		m := migrate.NewMigrations()
		s.RegisterMigrations(m)
		migrator := migrate.NewMigrator(db, m,
			migrate.WithTableName("kit_migrations"), migrate.WithLocksTableName("kit_migration_locks"))
		if err := migrator.Init(ctx); err != nil {
			t.Fatalf("Init: %v", err)
		}
		if _, err := migrator.Migrate(ctx); err != nil {
			t.Fatalf("Migrate: %v", err)
		}
		if _, err := s.Team(ctx, "acme"); err != nil {
			t.Errorf("got %v looking up the team after migrating, want nil", err)
		}
	})
}

// TestAuthStateMigrationUpgradesADatabaseOfTheFirstMigration migrates a
// database as a kit release with only the first migration did, fills it,
// and then migrates it with RegisterMigrations as a newer release does.
func TestAuthStateMigrationUpgradesADatabaseOfTheFirstMigration(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		ctx := t.Context()
		db := testdb.Open(t, e)
		all := migrate.NewMigrations()
		NewStore(db).RegisterMigrations(all)
		first := migrate.NewMigrations()
		first.Add(all.Sorted()[0])
		migrator := func(m *migrate.Migrations) *migrate.Migrator {
			mg := migrate.NewMigrator(db, m,
				migrate.WithTableName("kit_migrations"), migrate.WithLocksTableName("kit_migration_locks"))
			if err := mg.Init(ctx); err != nil {
				t.Fatalf("Init: %v", err)
			}
			return mg
		}
		if _, err := migrator(first).Migrate(ctx); err != nil {
			t.Fatalf("Migrate with the first migration: %v", err)
		}
		// The old release's data: a team, its member, the member's token.
		s := NewStore(db)
		team, err := s.CreateTeam(ctx, Team{Name: "Acme", Slug: "acme"})
		if err != nil {
			t.Fatalf("CreateTeam: %v", err)
		}
		user, err := s.CreateUser(ctx, User{Name: "member"})
		if err != nil {
			t.Fatalf("CreateUser: %v", err)
		}
		if _, err := s.AddMember(ctx, team.ID, user.ID, RoleMember); err != nil {
			t.Fatalf("AddMember: %v", err)
		}
		token, _, err := s.CreateToken(ctx, user.ID, "test")
		if err != nil {
			t.Fatalf("CreateToken: %v", err)
		}
		f := &fixture{db: db, store: s, team: team}
		a := &Auth{Directory: s}
		removeAndAddBack := func(t *testing.T) {
			t.Helper()
			for _, step := range []struct{ sql, want string }{
				{`DELETE FROM kit_members WHERE team_id = ? AND user_id = ?`, outside},
				{`INSERT INTO kit_members (id, team_id, user_id, role, created_at) VALUES ('m2', ?, ?, 'member', CURRENT_TIMESTAMP)`, asMember},
			} {
				if _, err := db.ExecContext(ctx, step.sql, team.ID, user.ID); err != nil {
					t.Fatalf("%s: %v", step.sql, err)
				}
				if got := resolve(f, a, token, "acme"); got != step.want {
					t.Errorf("got %q after %s, want %q", got, step.sql, step.want)
				}
			}
		}

		t.Run("before the upgrade lookups work, uncached", func(t *testing.T) {
			if got := resolve(f, a, token, "acme"); got != asMember {
				t.Errorf("got %q, want %q", got, asMember)
			}
			if _, ok := s.readVersion(ctx); ok {
				t.Errorf("got a version before the upgrade, want none")
			}
		})
		var firstVersion int64
		t.Run("the upgrade applies the later migrations only", func(t *testing.T) {
			group, err := migrator(all).Migrate(ctx)
			if err != nil {
				t.Fatalf("Migrate: %v", err)
			}
			if got, want := fmt.Sprint(group.Migrations), "20261121000101_teamauth_auth_state, 20261121000102_teamauth_sessions"; got != want {
				t.Errorf("got %s applied, want %s", got, want)
			}
			firstVersion = version(t, s)
		})
		t.Run("after the upgrade the next request sees a change by raw SQL", func(t *testing.T) {
			if got := resolve(f, a, token, "acme"); got != asMember {
				t.Fatalf("got %q, want %q", got, asMember)
			}
			removeAndAddBack(t)
		})
		t.Run("rolling the upgrade back drops the counter and its triggers", func(t *testing.T) {
			if _, err := migrator(all).Rollback(ctx); err != nil {
				t.Fatalf("Rollback: %v", err)
			}
			if _, ok := s.readVersion(ctx); ok {
				t.Errorf("got a version after the rollback, want none")
			}
			// A trigger left behind would fail every write: its table is gone.
			if _, err := s.CreateUser(ctx, User{Name: "after"}); err != nil {
				t.Errorf("got %v from CreateUser after the rollback, want nil", err)
			}
			removeAndAddBack(t)
		})
		t.Run("migrating again starts a counter above the dropped one", func(t *testing.T) {
			if _, err := migrator(all).Migrate(ctx); err != nil {
				t.Fatalf("Migrate: %v", err)
			}
			if got := version(t, s); got <= firstVersion {
				t.Errorf("got version %d, want more than the dropped counter's %d", got, firstVersion)
			}
			removeAndAddBack(t)
		})
	})
}
