package files

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Dir is a Bucket in a local directory: a key is a path below Root. The
// directory is created on the first Put, so a Dir that never stores
// anything leaves nothing behind.
type Dir struct {
	// Root is the directory.
	Root string
}

// tmpPrefix starts the name of a blob being written; Walk skips none, so
// a sweep sees (and may remove) what a crash left half written.
const tmpPrefix = ".tmp-"

func (d Dir) path(key string) (string, error) {
	if err := CheckKey(key); err != nil {
		return "", err
	}
	return filepath.Join(d.Root, filepath.FromSlash(key)), nil
}

// Put writes r to a temporary file beside the key's path, syncs it and
// renames it into place, so that a blob is whole or absent.
func (d Dir) Put(ctx context.Context, key string, r io.Reader, _ string) (int64, error) {
	p, err := d.path(key)
	if err != nil {
		return 0, err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o750); err != nil {
		return 0, err
	}
	f, err := os.CreateTemp(filepath.Dir(p), tmpPrefix+"*")
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(f, ctxReader{ctx, r})
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), p)
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return n, err
	}
	return n, nil
}

// PutNew writes r to a temporary file beside the key's path, syncs it
// and links it into place: a link, unlike a rename, never replaces a
// file that is there (ErrExist).
func (d Dir) PutNew(ctx context.Context, key string, r io.Reader) (int64, error) {
	p, err := d.path(key)
	if err != nil {
		return 0, err
	}
	if _, err := os.Lstat(p); err == nil {
		return 0, ErrExist
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o750); err != nil {
		return 0, err
	}
	f, err := os.CreateTemp(filepath.Dir(p), tmpPrefix+"*")
	if err != nil {
		return 0, err
	}
	defer os.Remove(f.Name())
	n, err := io.Copy(f, ctxReader{ctx, r})
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return n, err
	}
	if err := os.Link(f.Name(), p); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return n, ErrExist
		}
		return n, err
	}
	return n, nil
}

// ctxReader stops a copy when its context ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// Open opens the file of key.
func (d Dir) Open(_ context.Context, key string) (Blob, error) {
	p, err := d.path(key)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNotExist
	}
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		_ = f.Close()
		return nil, ErrNotExist
	}
	return dirBlob{f, Info{Key: key, Size: st.Size(), ModTime: st.ModTime()}}, nil
}

type dirBlob struct {
	*os.File
	info Info
}

func (b dirBlob) Info() Info { return b.info }

// Delete removes the files of keys, and the directories they leave empty.
func (d Dir) Delete(_ context.Context, keys ...string) error {
	var errs []error
	for _, key := range keys {
		p, err := d.path(key)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		d.pruneFrom(filepath.Dir(p))
	}
	return errors.Join(errs...)
}

// pruneFrom removes dir and its parents below Root while they are empty.
func (d Dir) pruneFrom(dir string) {
	root := filepath.Clean(d.Root)
	for dir != root && strings.HasPrefix(dir, root+string(filepath.Separator)) {
		if os.Remove(dir) != nil {
			return
		}
		dir = filepath.Dir(dir)
	}
}

// DeletePrefix removes the directory of prefix.
func (d Dir) DeletePrefix(_ context.Context, prefix string) error {
	if !strings.HasSuffix(prefix, "/") {
		return ErrBadKey
	}
	p, err := d.path(strings.TrimSuffix(prefix, "/"))
	if err != nil {
		return err
	}
	if err := os.RemoveAll(p); err != nil {
		return err
	}
	d.pruneFrom(filepath.Dir(p))
	return nil
}

// Walk lists the regular files below the prefix's directory.
func (d Dir) Walk(ctx context.Context, prefix string, fn func(Info) error) error {
	start := d.Root
	if prefix != "" {
		p, err := d.path(strings.TrimSuffix(prefix, "/"))
		if err != nil {
			return err
		}
		start = p
	}
	err := filepath.WalkDir(start, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if !e.Type().IsRegular() {
			return nil
		}
		st, err := e.Info()
		if err != nil {
			return nil // removed meanwhile
		}
		rel, err := filepath.Rel(d.Root, p)
		if err != nil {
			return err
		}
		key := filepath.ToSlash(rel)
		if !strings.HasPrefix(key, prefix) {
			return nil
		}
		return fn(Info{Key: key, Size: st.Size(), ModTime: st.ModTime()})
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
