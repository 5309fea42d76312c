package kit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"
	"time"

	"github.com/collectionkit/kit/internal/backup"
	"github.com/collectionkit/kit/internal/files"
	"github.com/collectionkit/kit/internal/store"
)

// ErrNoOnlineBackup is Backup's error on PostgreSQL, whose database is
// copied with pg_dump, and WriteBackup's there when
// Config.Backups.PgDumpURL is not set (docs/operations.md).
var ErrNoOnlineBackup = store.ErrNoOnlineCopy

// ErrNoBackupStore is the error of CreateBackup, Backups and OpenBackup
// when Config.Backups names no place for backups (Dir or S3URL).
var ErrNoBackupStore = errors.New("kit: no backup store: set Config.Backups.Dir or Config.Backups.S3URL")

// Backup writes a consistent copy of the SQLite database, and only the
// database, to the new file path while kit keeps serving (VACUUM INTO,
// one read transaction): the copy holds every write committed before
// Backup started. The copy is written to a temporary file beside path
// and then linked into place, so path holds the whole copy or nothing; a
// path that exists is refused (errors.Is os.ErrExist) and left alone. On
// PostgreSQL it is ErrNoOnlineBackup. WriteBackup makes a whole backup,
// with the files of file fields.
func (k *Kit) Backup(ctx context.Context, path string) error {
	return k.store.CopyTo(ctx, path)
}

// BackupConfig says where backup archives go and schedules them
// (Config.Backups). The zero value keeps none and schedules none.
type BackupConfig struct {
	// Dir is the local folder of the backups, named
	// kit-YYYYMMDDTHHMMSS.nnnnnnnnnZ.tar. Ignored when S3URL is set; with
	// neither, no backup is scheduled and CreateBackup is
	// ErrNoBackupStore.
	Dir string
	// S3URL, when set, keeps the backups in an S3-compatible bucket, a
	// URL as FilesConfig.S3URL takes ("https://host/bucket/prefix"); kit
	// makes the bucket when it is missing and never makes it or an object
	// public.
	S3URL string
	// S3AccessKey and S3SecretKey are the bucket's credentials.
	S3AccessKey, S3SecretKey string
	// Interval is how often a backup is taken, once per interval across
	// the instances sharing the database. Default 24 hours; negative
	// schedules none (CreateBackup and the admin still make them).
	Interval time.Duration
	// Keep is how many scheduled backups stay: after each one the oldest
	// beyond it are removed. Default 7.
	Keep int
	// PgDumpURL is the postgres:// URL pg_dump connects with on
	// PostgreSQL (kit's own pool has no URL to give it); a search_path
	// parameter dumps that schema only. Without it, backups on PostgreSQL
	// are ErrNoOnlineBackup and none is scheduled (an error is logged).
	PgDumpURL string
	// PgDump is the pg_dump binary. Default "pg_dump", looked up on PATH
	// at each backup; one not found fails the backup with a logged error
	// that says so. Use the pg_dump of the server's major version or
	// newer.
	PgDump string
}

// BackupFile is one backup archive in the backup store.
type BackupFile struct {
	// Name is the archive's name, kit-YYYYMMDDTHHMMSS.nnnnnnnnnZ.tar.
	Name string `json:"name"`
	// Size is its length in bytes.
	Size int64 `json:"size"`
	// CreatedAt is when it was written.
	CreatedAt time.Time `json:"createdAt"`
}

// backupPrefix and backupSuffix frame a backup archive's name.
const (
	backupPrefix = "kit-"
	backupSuffix = ".tar"
)

// WriteBackup writes a backup archive to w while kit keeps serving: a
// tar of manifest.json, the database copy (kit.db, a consistent SQLite
// copy as Backup makes; on PostgreSQL kit.dump, pg_dump's custom format
// of Config.Backups.PgDumpURL) and every blob of the files store under
// files/. The database is copied before the files, so the archive holds
// every file the copy's records name. See docs/operations.md for the
// layout and kit restore.
func (k *Kit) WriteBackup(ctx context.Context, w io.Writer) error {
	src, err := k.backupSource()
	if err != nil {
		return err
	}
	_, err = backup.Write(ctx, w, src)
	return err
}

func (k *Kit) backupSource() (backup.Source, error) {
	src := backup.Source{Files: k.files.bucket}
	if k.store.CopiesOnline() {
		src.Engine, src.CopyDatabase = backup.EngineSQLite, k.store.CopyTo
		return src, nil
	}
	cfg := k.cfg.Backups
	if cfg.PgDumpURL == "" {
		return src, fmt.Errorf("%w: set Config.Backups.PgDumpURL for pg_dump", ErrNoOnlineBackup)
	}
	src.Engine = backup.EnginePostgres
	src.CopyDatabase = func(ctx context.Context, path string) error {
		return backup.PgDump(ctx, cfg.PgDump, cfg.PgDumpURL, path)
	}
	return src, nil
}

// backupStore opens the bucket of Config.Backups.
func (k *Kit) backupStore(ctx context.Context) (files.Bucket, error) {
	cfg := k.cfg.Backups
	if cfg.S3URL != "" {
		b, err := files.NewS3(files.S3Options{URL: cfg.S3URL, AccessKey: cfg.S3AccessKey, SecretKey: cfg.S3SecretKey})
		if err != nil {
			return nil, err
		}
		return b, b.EnsureBucket(ctx)
	}
	if cfg.Dir == "" {
		return nil, ErrNoBackupStore
	}
	return files.Dir{Root: cfg.Dir}, nil
}

// CreateBackup writes a backup archive (WriteBackup) to the backup store
// of Config.Backups under a new name, through a temporary name, so the
// name shows the whole archive or nothing: a failure leaves nothing.
func (k *Kit) CreateBackup(ctx context.Context) (BackupFile, error) {
	b, err := k.backupStore(ctx)
	if err != nil {
		return BackupFile{}, err
	}
	src, err := k.backupSource()
	if err != nil {
		return BackupFile{}, err
	}
	now := time.Now().UTC()
	f := BackupFile{Name: backupPrefix + now.Format(backupTimeLayout) + backupSuffix, CreatedAt: now}
	_, f.Size, err = backup.WriteTo(ctx, b, f.Name, src)
	if err != nil {
		return BackupFile{}, fmt.Errorf("kit: backup %s: %w", f.Name, err)
	}
	return f, nil
}

// Backups lists the backup archives of the backup store, newest first.
func (k *Kit) Backups(ctx context.Context) ([]BackupFile, error) {
	b, err := k.backupStore(ctx)
	if err != nil {
		return nil, err
	}
	list := []BackupFile{}
	err = b.Walk(ctx, "", func(i files.Info) error {
		if isBackupName(i.Key) {
			list = append(list, BackupFile{Name: i.Key, Size: i.Size, CreatedAt: backupTime(i)})
		}
		return nil
	})
	sort.Slice(list, func(i, j int) bool { return list[i].Name > list[j].Name })
	return list, err
}

// OpenBackup opens the backup archive name of the backup store;
// ErrNotFound when there is none of that name.
func (k *Kit) OpenBackup(ctx context.Context, name string) (io.ReadSeekCloser, BackupFile, error) {
	b, err := k.backupStore(ctx)
	if err != nil {
		return nil, BackupFile{}, err
	}
	if !isBackupName(name) {
		return nil, BackupFile{}, ErrNotFound
	}
	blob, err := b.Open(ctx, name)
	if errors.Is(err, files.ErrNotExist) {
		return nil, BackupFile{}, ErrNotFound
	}
	if err != nil {
		return nil, BackupFile{}, err
	}
	i := blob.Info()
	return blob, BackupFile{Name: name, Size: i.Size, CreatedAt: backupTime(i)}, nil
}

// backupTimeLayout is the time in a backup's name.
const backupTimeLayout = "20060102T150405.000000000Z"

// backupTime is when the backup of i started, from its name (its
// modification time for a name kit did not give it).
func backupTime(i files.Info) time.Time {
	ts := strings.TrimSuffix(strings.TrimPrefix(i.Key, backupPrefix), backupSuffix)
	if t, err := time.Parse(backupTimeLayout, ts); err == nil {
		return t
	}
	return i.ModTime.UTC()
}

// isBackupName reports whether name is a backup archive's name in the
// store's top level.
func isBackupName(name string) bool {
	return strings.HasPrefix(name, backupPrefix) && strings.HasSuffix(name, backupSuffix) &&
		!strings.Contains(name, "/") && files.CheckKey(name) == nil
}

// startBackups starts the scheduled backups of Config.Backups: every
// Interval, one instance (ClaimPeriod "kit:backup") writes a backup
// (CreateBackup) and removes the oldest beyond Keep. A failed backup is
// logged, and taken again at the next interval (the claim stands, so no
// instance retries at once); a failure leaves nothing behind. On
// PostgreSQL without PgDumpURL nothing is scheduled and an error is
// logged. The loop ends when the Kit closes.
func (k *Kit) startBackups() {
	cfg := k.cfg.Backups
	if cfg.Dir == "" && cfg.S3URL == "" || cfg.Interval < 0 {
		return
	}
	if !k.store.CopiesOnline() && cfg.PgDumpURL == "" {
		k.logger.Error("kit: Config.Backups schedules no backup on PostgreSQL without Config.Backups.PgDumpURL (the URL pg_dump connects with)")
		return
	}
	interval := cfg.Interval
	if interval == 0 {
		interval = 24 * time.Hour
	}
	k.every("kit:backup", interval, k.scheduledBackup)
}

// scheduledBackup is one claimed tick of the backup loop.
func (k *Kit) scheduledBackup(ctx context.Context) {
	if _, err := k.CreateBackup(ctx); err != nil {
		if ctx.Err() == nil {
			k.logger.Error("kit: scheduled backup failed; the next interval tries again", slog.String("err", err.Error()))
		}
		return
	}
	keep := k.cfg.Backups.Keep
	if keep <= 0 {
		keep = 7
	}
	// The backup is made: the pruning finishes even when the Kit is
	// closing, so no more than Keep stay, bounded for a store that hangs.
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	if err := k.pruneBackups(pctx, keep); err != nil {
		k.logger.Error("kit: remove old backups", slog.String("err", err.Error()))
	}
}

// pruneBackups removes the oldest backups beyond keep (their names sort
// by time).
func (k *Kit) pruneBackups(ctx context.Context, keep int) error {
	list, err := k.Backups(ctx)
	if err != nil || len(list) <= keep {
		return err
	}
	b, err := k.backupStore(ctx)
	if err != nil {
		return err
	}
	var names []string
	for _, f := range list[keep:] {
		names = append(names, f.Name)
	}
	return b.Delete(ctx, names...)
}
