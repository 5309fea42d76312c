package kit

import (
	"context"

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
