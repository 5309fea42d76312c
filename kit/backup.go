package kit

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/collectionkit/kit/internal/store"
)

// ErrNoOnlineBackup is Backup's error on PostgreSQL, whose backups are
// made with pg_dump and put back with pg_restore (docs/operations.md).
var ErrNoOnlineBackup = store.ErrNoOnlineCopy

// Backup writes a consistent copy of the SQLite database to the new file
// path while kit keeps serving (VACUUM INTO, one read transaction): the
// copy holds every write committed before Backup started. The copy is
// written to a temporary file beside path and then linked into place,
// so path holds the whole copy or nothing; a path that exists is refused
// (errors.Is os.ErrExist) and left alone. On PostgreSQL it is
// ErrNoOnlineBackup.
func (k *Kit) Backup(ctx context.Context, path string) error {
	return k.store.CopyTo(ctx, path)
}

// BackupConfig schedules backups of a SQLite database (Config.Backups).
// The zero value schedules none.
type BackupConfig struct {
	// Dir is the folder the backups go to, as kit-YYYYMMDDTHHMMSSZ.db;
	// empty schedules no backup.
	Dir string
	// Interval is how often a backup is taken, once per interval across
	// the instances sharing the database. Default 24 hours.
	Interval time.Duration
	// Keep is how many backups stay in Dir: after each backup the oldest
	// beyond it are removed. Default 7.
	Keep int
}

// backupPrefix and backupSuffix frame a scheduled backup's file name.
const (
	backupPrefix = "kit-"
	backupSuffix = ".db"
)

// startBackups starts the scheduled backups of Config.Backups: every
// Interval, one instance (ClaimPeriod "kit:backup") writes a backup to
// Dir and removes the oldest beyond Keep. A failed backup is logged, and
// taken again at the next interval (the claim stands, so no instance
// retries at once); a failure leaves no file behind (see Backup). On
// PostgreSQL nothing is scheduled and a warning is logged: pg_dump makes
// its backups. The loop ends when the Kit closes.
func (k *Kit) startBackups() {
	cfg := k.cfg.Backups
	if cfg.Dir == "" {
		return
	}
	if !k.store.CopiesOnline() {
		k.logger.Warn("kit: Config.Backups is ignored on PostgreSQL: back up with pg_dump (docs/operations.md)")
		return
	}
	interval := cfg.Interval
	if interval <= 0 {
		interval = 24 * time.Hour
	}
	k.every("kit:backup", interval, k.scheduledBackup)
}

// scheduledBackup is one claimed tick of the backup loop.
func (k *Kit) scheduledBackup(ctx context.Context) {
	dir := k.cfg.Backups.Dir
	name := backupPrefix + time.Now().UTC().Format("20060102T150405.000000000Z") + backupSuffix
	if err := k.Backup(ctx, filepath.Join(dir, name)); err != nil {
		if ctx.Err() == nil {
			k.logger.Error("kit: scheduled backup failed; the next interval tries again", slog.String("err", err.Error()))
		}
		return
	}
	keep := k.cfg.Backups.Keep
	if keep <= 0 {
		keep = 7
	}
	if err := pruneBackups(dir, keep); err != nil {
		k.logger.Error("kit: remove old backups", slog.String("err", err.Error()))
	}
}

// pruneBackups removes the oldest scheduled backups of dir beyond keep
// (their names sort by time).
func pruneBackups(dir string, keep int) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var names []string
	for _, e := range entries {
		if n := e.Name(); !e.IsDir() && strings.HasPrefix(n, backupPrefix) && strings.HasSuffix(n, backupSuffix) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var errs []error
	for len(names) > keep {
		errs = append(errs, os.Remove(filepath.Join(dir, names[0])))
		names = names[1:]
	}
	return errors.Join(errs...)
}
