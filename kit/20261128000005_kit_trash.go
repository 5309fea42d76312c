package kit

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"

	"github.com/collectionkit/kit/internal/store"
)

// registerTrashMigration adds the migration that creates kit_trash, the
// records that deletes of softDelete collections moved to their team's
// trash. bun/migrate names it after this file.
func registerTrashMigration(ms *migrate.Migrations) {
	ms.MustRegister(func(ctx context.Context, db *bun.DB) error {
		return store.CreateTrashTable(ctx, db)
	}, func(ctx context.Context, db *bun.DB) error {
		return store.DropTrashTable(ctx, db)
	})
}
