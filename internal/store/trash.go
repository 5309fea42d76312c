package store

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// TrashEntry is a record in its team's trash (kit_trash): the record's
// last state as a read returned it, encoded as JSON, and who moved it
// there and when.
type TrashEntry struct {
	bun.BaseModel `bun:"table:kit_trash,alias:t"`

	// Collection is the collection's registry key.
	Collection string `bun:"collection,pk,type:text"`
	// ID is the record's id.
	ID        string    `bun:"id,pk,type:text"`
	TeamID    string    `bun:"team_id,notnull,type:text"`
	DeletedAt time.Time `bun:"deleted_at,notnull"`
	DeletedBy string    `bun:"deleted_by,notnull,type:text"`
	// Data is the record as JSON.
	Data string `bun:"data,notnull,type:text"`
}

// trashIndexes serve a team's trash of one collection, newest first, and
// the retention purge of every team's oldest entries.
var trashIndexes = []struct {
	name    string
	columns []string
}{
	{"kit_trash_team_collection_idx", []string{"team_id", "collection", "deleted_at"}},
	{"kit_trash_deleted_idx", []string{"deleted_at"}},
}

// CreateTrashTable creates kit_trash and its indexes if they do not exist
// (kit's migration).
func CreateTrashTable(ctx context.Context, db bun.IDB) error {
	if _, err := db.NewCreateTable().Model((*TrashEntry)(nil)).IfNotExists().Exec(ctx); err != nil {
		return fmt.Errorf("store: create kit_trash: %w", err)
	}
	for _, ix := range trashIndexes {
		if _, err := db.NewCreateIndex().Model((*TrashEntry)(nil)).Index(ix.name).Column(ix.columns...).IfNotExists().Exec(ctx); err != nil {
			return fmt.Errorf("store: create index %s: %w", ix.name, err)
		}
	}
	return nil
}

// DropTrashTable drops kit_trash if it exists (the migration's down step).
func DropTrashTable(ctx context.Context, db bun.IDB) error {
	_, err := db.NewDropTable().Model((*TrashEntry)(nil)).IfExists().Exec(ctx)
	return err
}

// PutTrash adds e to the trash through tx, the deletion's transaction. An
// entry of the same collection and id (a record restored and deleted
// again) is replaced.
func (s *Store) PutTrash(ctx context.Context, tx bun.IDB, e *TrashEntry) error {
	_, err := tx.NewInsert().Model(e).On("CONFLICT (collection, id) DO UPDATE").
		Set("team_id = EXCLUDED.team_id, deleted_at = EXCLUDED.deleted_at, deleted_by = EXCLUDED.deleted_by, data = EXCLUDED.data").
		Exec(ctx)
	if err != nil {
		return fmt.Errorf("store: put %s %s in the trash: %w", e.Collection, e.ID, err)
	}
	return nil
}

// TakeTrash removes the trash entry of record id of collection key and
// team teamID through tx and returns it, or ErrNotFound when the team's
// trash has no such entry (an entry of another team answers the same).
func (s *Store) TakeTrash(ctx context.Context, tx bun.IDB, key, teamID, id string) (*TrashEntry, error) {
	var out []TrashEntry
	err := tx.NewDelete().Model((*TrashEntry)(nil)).
		Where("collection = ?", key).Where("id = ?", id).Where("team_id = ?", teamID).
		Returning("collection, id, team_id, deleted_at, deleted_by, data").Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("store: take %s %s from the trash: %w", key, id, err)
	}
	if len(out) == 0 {
		return nil, ErrNotFound
	}
	return &out[0], nil
}

// ListTrash returns one page of the team's trash of collection key,
// newest first, and how many entries it holds.
func (s *Store) ListTrash(ctx context.Context, key, teamID string, limit, offset int) ([]TrashEntry, int, error) {
	var out []TrashEntry
	n, err := s.db.NewSelect().Model(&out).Where("t.collection = ?", key).Where("t.team_id = ?", teamID).
		OrderExpr("t.deleted_at DESC, t.id DESC").Limit(int64(limit)).Offset(int64(offset)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("store: list the trash of %s: %w", key, err)
	}
	return out, int(n), nil
}

// TakeExpiredTrash removes, through tx, at most limit entries of every
// team deleted before cutoff, oldest first, and returns them.
func (s *Store) TakeExpiredTrash(ctx context.Context, tx bun.IDB, cutoff time.Time, limit int) ([]TrashEntry, error) {
	var out []TrashEntry
	sub := tx.NewSelect().Model((*TrashEntry)(nil)).Column("collection", "id").
		Where("deleted_at < ?", cutoff.UTC()).OrderExpr("deleted_at, id").Limit(int64(limit))
	err := tx.NewDelete().Model((*TrashEntry)(nil)).
		Where("(collection, id) IN (?)", sub).
		Returning("collection, id, team_id, deleted_at, deleted_by, data").Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("store: take expired trash: %w", err)
	}
	return out, nil
}
