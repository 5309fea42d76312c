package kit

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"

	"github.com/collectionkit/kit/internal/store"
)

// registerCoreMigrations adds the migration that creates kit_collections,
// the record of each collection table's synced definition. bun/migrate
// names it after this file.
func registerCoreMigrations(ms *migrate.Migrations) {
	ms.MustRegister(func(ctx context.Context, db *bun.DB) error {
		return store.CreateMetaTable(ctx, db)
	}, func(ctx context.Context, db *bun.DB) error {
		_, err := db.NewDropTable().Table("kit_collections").IfExists().Exec(ctx)
		return err
	})
}
