package backup

import (
	"archive/tar"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/collectionkit/kit/internal/files"
)

// The archive's entries.
const (
	// ManifestName is the first entry, the Manifest as JSON.
	ManifestName = "manifest.json"
	// SQLiteName is a SQLite database's copy.
	SQLiteName = "kit.db"
	// PgDumpName is a PostgreSQL database's pg_dump, custom format.
	PgDumpName = "kit.dump"
	// FilesPrefix starts the name of every blob's entry: files/KEY.
	FilesPrefix = "files/"
)

// Format and Version name the archive format in a Manifest.
const (
	Format  = "kit-backup"
	Version = 1
)

// Engine names a database engine in a Manifest.
const (
	EngineSQLite   = "sqlite"
	EnginePostgres = "postgres"
)

// Manifest describes an archive.
type Manifest struct {
	// Format is "kit-backup"; Version 1.
	Format  string `json:"format"`
	Version int    `json:"version"`
	// Engine is "sqlite" or "postgres".
	Engine string `json:"engine"`
	// Database names the database copy's entry (kit.db or kit.dump).
	Database string `json:"database"`
	// CreatedAt is when the backup started.
	CreatedAt time.Time `json:"createdAt"`
}

// Summary is what Write or Restore copied.
type Summary struct {
	Manifest
	// Files and FileBytes count the blobs and their bytes.
	Files     int
	FileBytes int64
}

// Source is what Write copies.
type Source struct {
	// Engine is EngineSQLite or EnginePostgres.
	Engine string
	// CopyDatabase writes a consistent copy of the database to path, a
	// file name that does not exist yet.
	CopyDatabase func(ctx context.Context, path string) error
	// Files is the bucket of file fields' blobs; nil copies none.
	Files files.Bucket
}

// Write writes an archive of src to w: the database is copied to a
// temporary file first (its entry needs a size), then the blobs are
// streamed one at a time, so memory stays flat. Copying the database
// before the blobs means every blob the copy's records name is in the
// archive (a blob is written before its record commits); a blob removed
// meanwhile is left out. Temporary files are removed before Write
// returns.
func Write(ctx context.Context, w io.Writer, src Source) (Summary, error) {
	sum := Summary{Manifest: Manifest{Format: Format, Version: Version, Engine: src.Engine, CreatedAt: time.Now().UTC()}}
	switch src.Engine {
	case EngineSQLite:
		sum.Database = SQLiteName
	case EnginePostgres:
		sum.Database = PgDumpName
	default:
		return sum, fmt.Errorf("backup: unknown engine %q", src.Engine)
	}
	dir, err := os.MkdirTemp("", "kit-backup-*")
	if err != nil {
		return sum, err
	}
	defer os.RemoveAll(dir)
	db := filepath.Join(dir, sum.Database)
	if err := src.CopyDatabase(ctx, db); err != nil {
		return sum, fmt.Errorf("backup: copy the database: %w", err)
	}
	tw := tar.NewWriter(w)
	raw, _ := json.MarshalIndent(sum.Manifest, "", "  ")
	if err := writeEntry(tw, ManifestName, int64(len(raw)), sum.CreatedAt, strings.NewReader(string(raw))); err != nil {
		return sum, err
	}
	if err := writeFile(tw, sum.Database, db); err != nil {
		return sum, err
	}
	if src.Files != nil {
		err := src.Files.Walk(ctx, "", func(info files.Info) error {
			if strings.HasPrefix(filepathBase(info.Key), ".tmp-") {
				return nil // being written, or left by a crash: no record names it
			}
			n, err := writeBlob(ctx, tw, src.Files, info.Key)
			if err != nil || n < 0 {
				return err
			}
			sum.Files++
			sum.FileBytes += n
			return nil
		})
		if err != nil {
			return sum, fmt.Errorf("backup: copy the files: %w", err)
		}
	}
	return sum, tw.Close()
}

func filepathBase(key string) string {
	return key[strings.LastIndexByte(key, '/')+1:]
}

// writeBlob copies the blob of key into tw; -1 when it was removed
// meanwhile.
func writeBlob(ctx context.Context, tw *tar.Writer, b files.Bucket, key string) (int64, error) {
	blob, err := b.Open(ctx, key)
	if errors.Is(err, files.ErrNotExist) {
		return -1, nil
	}
	if err != nil {
		return 0, err
	}
	defer blob.Close()
	info := blob.Info()
	return info.Size, writeEntry(tw, FilesPrefix+key, info.Size, info.ModTime, blob)
}

func writeFile(tw *tar.Writer, name, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	return writeEntry(tw, name, st.Size(), st.ModTime(), f)
}

func writeEntry(tw *tar.Writer, name string, size int64, mod time.Time, r io.Reader) error {
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o600, Size: size, ModTime: mod, Typeflag: tar.TypeReg}); err != nil {
		return fmt.Errorf("backup: %s: %w", name, err)
	}
	if _, err := io.CopyN(tw, r, size); err != nil {
		return fmt.Errorf("backup: %s: %w", name, err)
	}
	return nil
}

// WriteTo writes an archive of src to key in b through b.PutNew: the
// key shows the whole archive or nothing (files.ErrExist when taken).
// It returns the archive's length.
func WriteTo(ctx context.Context, b files.Bucket, key string, src Source) (Summary, int64, error) {
	pr, pw := io.Pipe()
	type result struct {
		sum Summary
		err error
	}
	done := make(chan result, 1)
	go func() {
		sum, err := Write(ctx, pw, src)
		pw.CloseWithError(err)
		done <- result{sum, err}
	}()
	n, err := b.PutNew(ctx, key, pr)
	pr.CloseWithError(errors.New("backup: the store stopped reading")) // ends a Write still running
	res := <-done
	if err == nil {
		err = res.err
	}
	return res.sum, n, err
}
