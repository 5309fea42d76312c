package kit

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun/migrate"
)

// Names of the tables bun/migrate keeps kit's migrations in: the applied
// migrations of kit and of every add-on, and the lock that lets one
// instance at a time migrate.
const (
	migrationsTable     = "kit_migrations"
	migrationLocksTable = "kit_migration_locks"
)

// maxMigrateAttempts bounds how often Migrate retries while another
// instance holds the migration lock.
const maxMigrateAttempts = 100

// Migrate applies the migrations of ms that have not been applied yet, in
// kit's migration tables (kit_migrations, kit_migration_locks), so that an
// add-on's tables are versioned together with kit's own. Migrations are
// named after the file that registers them (bun/migrate's rule); the names
// must be unique among kit's and every add-on's migrations.
//
// Migrate holds the migration lock while it runs; while another instance
// holds it (several processes starting on one database), Migrate waits and
// tries again, until ctx ends or about a minute has passed. A migration
// that fails is returned at once, wrapped; the migrations applied before
// it stay applied. Open runs kit's own migrations this way.
func (k *Kit) Migrate(ctx context.Context, ms *migrate.Migrations) error {
	if k.closed.Load() {
		return ErrClosed
	}
	if err := k.runMigrations(ctx, ms); err != nil {
		return fmt.Errorf("kit: migrate: %w", err)
	}
	return nil
}

// runMigrations is Migrate without the closed check and the wrapping.
func (k *Kit) runMigrations(ctx context.Context, ms *migrate.Migrations) error {
	m := migrate.NewMigrator(k.db, ms, migrate.WithTableName(migrationsTable),
		migrate.WithLocksTableName(migrationLocksTable), migrate.WithMarkAppliedOnSuccess(true))
	for attempt := 0; ; attempt++ {
		err := m.Init(ctx)
		if err == nil {
			err = m.Lock(ctx)
		}
		if err == nil {
			_, err = m.Migrate(ctx)
			if uerr := m.Unlock(ctx); err == nil && uerr != nil {
				err = uerr
			}
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if attempt+1 >= maxMigrateAttempts {
			return err
		}
		// Another instance is migrating (lock held, or the migration
		// tables being created): wait and retry.
		t := time.NewTimer(time.Duration(20+attempt*10) * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}
