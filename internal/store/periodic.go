package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// periodicRun is a kit_periodic row: when the job called Name last ran.
type periodicRun struct {
	bun.BaseModel `bun:"table:kit_periodic"`

	Name      string    `bun:"name,pk"`
	LastRunAt time.Time `bun:"last_run_at,notnull"`
}

// CreatePeriodicTable creates kit_periodic, the record of when each named
// periodic job last ran, if it does not exist (kit's migration).
func CreatePeriodicTable(ctx context.Context, db bun.IDB) error {
	_, err := db.NewCreateTable().Model((*periodicRun)(nil)).IfNotExists().Exec(ctx)
	return err
}

// DropPeriodicTable drops kit_periodic if it exists (the migration's down
// step).
func DropPeriodicTable(ctx context.Context, db bun.IDB) error {
	_, err := db.NewDropTable().Model((*periodicRun)(nil)).IfExists().Exec(ctx)
	return err
}

// ClaimPeriod reports whether the caller should run the periodic job name
// now: true for exactly one caller per period across every process sharing
// the database, false for the others until period has passed since the
// claimed run. The claim is a read-then-write in one write transaction
// (RunWrite): under the database's write lock on SQLite, under a
// transaction-scoped advisory lock named after the job on PostgreSQL. A
// claim is not returned when the job fails.
func (s *Store) ClaimPeriod(ctx context.Context, name string, period time.Duration) (bool, error) {
	if name == "" || period <= 0 {
		return false, errors.New("store: ClaimPeriod needs a name and a positive period")
	}
	claimed := false
	err := s.RunWrite(ctx, Write{}, func(ctx context.Context, tx bun.Tx) error {
		if lock := s.dialect.lockSQL(); lock != "" {
			if _, err := s.execOnce(ctx, tx, lock, advisoryKey("kit:periodic:"+name)); err != nil {
				return err
			}
		}
		var last time.Time
		err := s.queryRow(ctx, tx, "SELECT last_run_at FROM kit_periodic WHERE name = ?", name).Scan(&last)
		now := time.Now().UTC()
		switch {
		case err == nil && now.Sub(last) < period:
			return nil
		case err != nil && !errors.Is(err, sql.ErrNoRows):
			return err
		}
		if _, err := s.exec(ctx, tx, "INSERT INTO kit_periodic (name, last_run_at) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET last_run_at = EXCLUDED.last_run_at", name, now); err != nil {
			return err
		}
		claimed = true
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("store: claim period %q: %w", name, err)
	}
	return claimed, nil
}
