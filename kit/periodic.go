package kit

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// periodicRun is a kit_periodic row: when the job called Name last ran.
type periodicRun struct {
	bun.BaseModel `bun:"table:kit_periodic"`

	Name      string    `bun:"name,pk"`
	LastRunAt time.Time `bun:"last_run_at,notnull"`
}

// ClaimPeriod reports whether this instance should run the periodic job
// name now: true for exactly one caller per period across every instance
// sharing the database, false for the others until period has passed since
// the claimed run. The claim is a read-then-write under the database's
// write lock (SQLite) or a transaction-scoped advisory lock (PostgreSQL).
// Run the job after a successful claim; the claim is not returned if the
// job fails, so a failing job is retried next period, not at once.
func (k *Kit) ClaimPeriod(ctx context.Context, name string, period time.Duration) (bool, error) {
	if name == "" || period <= 0 {
		return false, errors.New("kit: ClaimPeriod needs a name and a positive period")
	}
	claimed := false
	err := k.runWrite(ctx, nil, false, func(ctx context.Context, tx bun.Tx) error {
		if k.db.Dialect().Name() == dialect.PG {
			h := sha256.Sum256([]byte("kit:periodic:" + name))
			var key int64
			for _, b := range h[:8] {
				key = key<<8 | int64(b)
			}
			if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(?)", key); err != nil {
				return err
			}
		}
		var row periodicRun
		err := tx.NewSelect().Model(&row).Where("name = ?", name).Scan(ctx)
		now := time.Now().UTC()
		switch {
		case err == nil && now.Sub(row.LastRunAt) < period:
			return nil
		case err != nil && !errors.Is(err, sql.ErrNoRows):
			return err
		}
		row = periodicRun{Name: name, LastRunAt: now}
		if _, err := tx.NewInsert().Model(&row).On("CONFLICT (name) DO UPDATE").
			Set("last_run_at = EXCLUDED.last_run_at").Exec(ctx); err != nil {
			return err
		}
		claimed = true
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("kit: claim period %q: %w", name, err)
	}
	return claimed, nil
}

// MaxBodyBytes returns the request body limit in force (Config.MaxBodyBytes,
// default 1 MiB), for add-ons that read bodies themselves.
func (k *Kit) MaxBodyBytes() int64 { return k.cfg.MaxBodyBytes }
