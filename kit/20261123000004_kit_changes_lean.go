package kit

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"

	"github.com/collectionkit/kit/internal/store"
)

// registerLeanChangesMigration adds the migration that brings a change log
// made by the first version of kit_changes (an index on team and position,
// and AUTOINCREMENT on SQLite: two more pages written by every write
// transaction) to the lean table a new database gets, keeping its rows.
// There is no way down: the lean table serves the older code as well.
func registerLeanChangesMigration(ms *migrate.Migrations) {
	ms.MustRegister(func(ctx context.Context, db *bun.DB) error {
		return store.LeanChangesTable(ctx, db)
	}, func(context.Context, *bun.DB) error { return nil })
}
