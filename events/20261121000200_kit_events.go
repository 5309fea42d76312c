package events

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/migrate"
)

// eventIndex is one of kit_events' indexes.
type eventIndex struct {
	name    string
	columns []string
}

// eventIndexes returns kit_events' indexes on a database of dialect d.
// The team-first ones serve the list endpoint, whose every query is one
// team's, newest first by timestamp and then id: the team's time index,
// and one index for each filter by collection, item and user, its column
// first. The last one serves cleanup, which deletes the oldest events of
// all teams. The operation has no index: its values are few.
//
// On SQLite a filter index ends with the timestamp and the id, the list's
// whole order, so that a filtered page is read from it without a sort:
// SQLite keeps no statistics here, and it would rather walk a team's whole
// time index than sort a few rows, so an index that left the id out read
// every event of the team for one record's history. PostgreSQL plans from
// its statistics and sorts the rows of equal timestamps as it reads them
// (an incremental sort), so its filter indexes leave the id out
// (docs/decisions/0021).
func eventIndexes(d dialect.Name) []eventIndex {
	filter := []string{"timestamp"}
	suffix := "_time_idx"
	if d == dialect.SQLite {
		filter, suffix = []string{"timestamp", "id"}, "_idx"
	}
	ixs := []eventIndex{{"kit_events_team_time_idx", []string{"team_id", "timestamp", "id"}}}
	for _, col := range []struct{ name, column string }{
		{"collection", "collection_name"}, {"item", "item_id"}, {"user", "user_id"},
	} {
		ixs = append(ixs, eventIndex{"kit_events_team_" + col.name + suffix,
			append([]string{"team_id", col.column}, filter...)})
	}
	return append(ixs, eventIndex{"kit_events_time_idx", []string{"timestamp", "id"}})
}

// registerMigrations adds the add-on's migrations: 20261121000200_kit_events,
// which creates kit_events and its indexes (leaving existing ones alone)
// and whose Down drops the table, then the one that replaces the filter
// indexes of its first version on SQLite. bun/migrate names a Go migration
// after the file that registers it; that is why this file carries the
// name.
func registerMigrations(ms *migrate.Migrations) {
	ms.MustRegister(createTable, dropTable)
	registerFilterIndexesMigration(ms)
}

func createTable(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewCreateTable().Model((*eventRow)(nil)).IfNotExists().Exec(ctx); err != nil {
			return fmt.Errorf("events: create kit_events: %w", err)
		}
		return createIndexes(ctx, tx)
	})
}

// createIndexes creates each of kit_events' indexes that does not exist
// yet.
func createIndexes(ctx context.Context, tx bun.Tx) error {
	for _, ix := range eventIndexes(tx.Dialect().Name()) {
		if _, err := tx.NewCreateIndex().Model((*eventRow)(nil)).Index(ix.name).
			Column(ix.columns...).IfNotExists().Exec(ctx); err != nil {
			return fmt.Errorf("events: create index %s: %w", ix.name, err)
		}
	}
	return nil
}

func dropTable(ctx context.Context, db *bun.DB) error {
	_, err := db.NewDropTable().Model((*eventRow)(nil)).IfExists().Exec(ctx)
	return err
}
