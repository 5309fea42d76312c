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

	"github.com/collectionkit/kit/internal/files"
)

// ErrNotArchive: the input is not a kit backup archive.
var ErrNotArchive = errors.New("backup: not a kit backup archive (no manifest.json of format kit-backup first)")

// Target is where Restore puts an archive back.
type Target struct {
	// CheckDatabase, when set, checks the database copy at path before
	// anything is written (integrity, engine).
	CheckDatabase func(ctx context.Context, m Manifest, path string) error
	// RestoreDatabase puts the database copy at path back; it runs last,
	// after every blob is in place.
	RestoreDatabase func(ctx context.Context, m Manifest, path string) error
	// Files receives the blobs; nil refuses an archive that holds any.
	Files files.Bucket
}

// Restore reads an archive from r and puts it back into dst: the
// database copy to a temporary file (checked with CheckDatabase), each
// blob into dst.Files, then the database (RestoreDatabase). When a step
// fails, the blobs put so far are removed again, and the database is
// left alone.
func Restore(ctx context.Context, r io.Reader, dst Target) (Summary, error) {
	var sum Summary
	tr := tar.NewReader(r)
	h, err := tr.Next()
	if err != nil || h.Name != ManifestName || h.Size > 1<<20 {
		return sum, ErrNotArchive
	}
	if err := json.NewDecoder(io.LimitReader(tr, h.Size)).Decode(&sum.Manifest); err != nil || sum.Format != Format {
		return sum, ErrNotArchive
	}
	if sum.Version != Version {
		return sum, fmt.Errorf("backup: archive version %d is not %d: restore it with the kit that made it", sum.Version, Version)
	}
	if sum.Database != SQLiteName && sum.Database != PgDumpName {
		return sum, fmt.Errorf("backup: the manifest names an unknown database entry %q", sum.Database)
	}
	h, err = tr.Next()
	if err != nil || h.Name != sum.Database {
		return sum, fmt.Errorf("backup: the archive lacks its database entry %s", sum.Database)
	}
	dir, err := os.MkdirTemp("", "kit-restore-*")
	if err != nil {
		return sum, err
	}
	defer os.RemoveAll(dir)
	db := filepath.Join(dir, sum.Database)
	if err := extract(tr, db); err != nil {
		return sum, err
	}
	if dst.CheckDatabase != nil {
		if err := dst.CheckDatabase(ctx, sum.Manifest, db); err != nil {
			return sum, err
		}
	}
	var put []string
	undo := func(err error) (Summary, error) {
		if len(put) > 0 && dst.Files != nil {
			err = errors.Join(err, dst.Files.Delete(context.WithoutCancel(ctx), put...))
		}
		return sum, err
	}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return undo(fmt.Errorf("backup: read the archive: %w", err))
		}
		key, ok := strings.CutPrefix(h.Name, FilesPrefix)
		if !ok || h.Typeflag != tar.TypeReg {
			return undo(fmt.Errorf("backup: unexpected entry %q in the archive", h.Name))
		}
		if dst.Files == nil {
			return undo(errors.New("backup: the archive holds files and no files target was given"))
		}
		if err := files.CheckKey(key); err != nil {
			return undo(fmt.Errorf("backup: entry %q: %w", h.Name, err))
		}
		n, err := dst.Files.Put(ctx, key, tr, "")
		if err != nil {
			return undo(fmt.Errorf("backup: restore %s: %w", key, err))
		}
		put = append(put, key)
		sum.Files++
		sum.FileBytes += n
	}
	if err := dst.RestoreDatabase(ctx, sum.Manifest, db); err != nil {
		return undo(err)
	}
	return sum, nil
}

func extract(tr *tar.Reader, path string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, tr)
	if err = errors.Join(err, f.Close()); err != nil {
		return fmt.Errorf("backup: read the database entry: %w", err)
	}
	return nil
}

// Empty reports whether b holds no blob.
func Empty(ctx context.Context, b files.Bucket) (bool, error) {
	errFound := errors.New("found")
	err := b.Walk(ctx, "", func(files.Info) error { return errFound })
	if errors.Is(err, errFound) {
		return false, nil
	}
	return err == nil, err
}
