package teamauth

import (
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

		t.Run("one migration is registered under its name", func(t *testing.T) {
			sorted := m.Sorted()
			if len(sorted) != 1 || sorted[0].String() != "20261121000100_teamauth_tables" {
				t.Fatalf("got %v, want [20261121000100_teamauth_tables]", sorted)
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
			if len(group.Migrations) != 1 {
				t.Errorf("got %d migrations applied, want 1", len(group.Migrations))
			}
			if _, err := s.CreateTeam(ctx, Team{Slug: "acme"}); err != nil {
				t.Errorf("got %v from CreateTeam after migrating, want nil", err)
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
