package kit

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"

	"github.com/collectionkit/kit/internal/store"
)

// registerChangesMigration adds the migration that creates kit_changes,
// the change log behind the change stream (see internal/changehub), and
// kit_changes_pruned. bun/migrate names it after this file.
func registerChangesMigration(ms *migrate.Migrations) {
	ms.MustRegister(func(ctx context.Context, db *bun.DB) error {
		return store.CreateChangesTable(ctx, db)
	}, func(ctx context.Context, db *bun.DB) error {
		return store.DropChangesTable(ctx, db)
	})
}
