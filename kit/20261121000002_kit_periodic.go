package kit

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"

	"github.com/collectionkit/kit/internal/store"
)

// registerPeriodicMigration adds the migration that creates kit_periodic,
// the record of which period each named periodic job last ran in. bun/migrate
// names it after this file.
func registerPeriodicMigration(ms *migrate.Migrations) {
	ms.MustRegister(func(ctx context.Context, db *bun.DB) error {
		return store.CreatePeriodicTable(ctx, db)
	}, func(ctx context.Context, db *bun.DB) error {
		return store.DropPeriodicTable(ctx, db)
	})
}
