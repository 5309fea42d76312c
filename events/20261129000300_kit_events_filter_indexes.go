package events

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/migrate"
)

// supersededIndexes are the filter indexes of kit_events' first version on
// SQLite: each filter's column and the timestamp, without the id that ends
// the list's order.
var supersededIndexes = []string{
	"kit_events_team_collection_time_idx",
	"kit_events_team_item_time_idx",
	"kit_events_team_user_time_idx",
}

// registerFilterIndexesMigration adds the migration
// 20261129000300_kit_events_filter_indexes, which brings a kit_events
// made by the first version of the add-on to the indexes a new database
// gets (eventIndexes), keeping its rows. On SQLite it builds the new
// filter indexes, then drops the superseded ones, in one transaction; on
// PostgreSQL the indexes stay as they were. There is no way down: the new
// indexes serve the older code as well.
func registerFilterIndexesMigration(ms *migrate.Migrations) {
	ms.MustRegister(replaceFilterIndexes, func(context.Context, *bun.DB) error { return nil })
}

func replaceFilterIndexes(ctx context.Context, db *bun.DB) error {
	if db.Dialect().Name() != dialect.SQLite {
		return nil
	}
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := createIndexes(ctx, tx); err != nil {
			return err
		}
		for _, name := range supersededIndexes {
			if _, err := tx.NewDropIndex().Index(name).IfExists().Exec(ctx); err != nil {
				return fmt.Errorf("events: drop index %s: %w", name, err)
			}
		}
		return nil
	})
}
