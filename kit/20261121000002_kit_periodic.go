package kit

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// registerPeriodicMigration adds the migration that creates kit_periodic,
// the record of which period each named periodic job last ran in. bun/migrate
// names it after this file.
func registerPeriodicMigration(ms *migrate.Migrations) {
	ms.MustRegister(func(ctx context.Context, db *bun.DB) error {
		_, err := db.NewCreateTable().Model((*periodicRun)(nil)).IfNotExists().Exec(ctx)
		return err
	}, func(ctx context.Context, db *bun.DB) error {
		_, err := db.NewDropTable().Model((*periodicRun)(nil)).IfExists().Exec(ctx)
		return err
	})
}
