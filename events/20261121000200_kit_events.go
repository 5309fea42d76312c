package events

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// eventIndexes are kit_events' indexes. The team-first ones serve the list
// endpoint (every query is one team's): each filter's equality columns,
// then the timestamp, so a filtered page comes in order without a sort.
// The last one serves cleanup, which deletes the oldest events of all
// teams.
var eventIndexes = []struct {
	name    string
	columns []string
}{
	{"kit_events_team_time_idx", []string{"team_id", "timestamp", "id"}},
	{"kit_events_team_collection_time_idx", []string{"team_id", "collection_name", "timestamp"}},
	{"kit_events_team_item_time_idx", []string{"team_id", "item_id", "timestamp"}},
	{"kit_events_team_user_time_idx", []string{"team_id", "user_id", "timestamp"}},
	{"kit_events_time_idx", []string{"timestamp", "id"}},
}

// registerMigrations adds the migration 20261121000200_kit_events, which
// creates kit_events and its indexes (leaving existing ones alone) and
// whose Down drops the table. bun/migrate names a Go migration after the
// file that registers it; that is why this file carries the name.
func registerMigrations(ms *migrate.Migrations) {
	ms.MustRegister(createTable, dropTable)
}

func createTable(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewCreateTable().Model((*eventRow)(nil)).IfNotExists().Exec(ctx); err != nil {
			return fmt.Errorf("events: create kit_events: %w", err)
		}
		for _, ix := range eventIndexes {
			if _, err := tx.NewCreateIndex().Model((*eventRow)(nil)).Index(ix.name).
				Column(ix.columns...).IfNotExists().Exec(ctx); err != nil {
				return fmt.Errorf("events: create index %s: %w", ix.name, err)
			}
		}
		return nil
	})
}

func dropTable(ctx context.Context, db *bun.DB) error {
	_, err := db.NewDropTable().Model((*eventRow)(nil)).IfExists().Exec(ctx)
	return err
}
