package files

import (
	"context"
	"crypto/rand"
	"errors"
	"io"
	"path"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// ErrNotExist: no blob has the key.
var ErrNotExist = errors.New("files: no such blob")

// ErrBadKey: a key that is not a clean relative path of segments.
var ErrBadKey = errors.New("files: bad key")

// ErrExist: PutNew found a blob under the key already.
var ErrExist = errors.New("files: a blob has the key already")

// Info describes a stored blob.
type Info struct {
	// Key is the blob's key ("team/collection/record/name").
	Key string
	// Size is its length in bytes.
	Size int64
	// ModTime is when it was written.
	ModTime time.Time
}

// Blob is an open blob: its bytes, seekable (for ranges), and its Info.
type Blob interface {
	io.ReadSeekCloser
	// Info describes the blob.
	Info() Info
}

// Bucket stores blobs by key. Every method is safe for concurrent use.
type Bucket interface {
	// Put streams r to key and returns the bytes written. It reads r to
	// its end or its first error; on any error nothing is left under key
	// (a previous blob of the key may be). Put never holds all of r in
	// memory.
	Put(ctx context.Context, key string, r io.Reader, contentType string) (int64, error)
	// PutNew streams r to key when no blob has it (ErrExist otherwise),
	// under a temporary name first: the key shows the whole blob or
	// nothing, never a part of it. A failure leaves nothing behind.
	PutNew(ctx context.Context, key string, r io.Reader) (int64, error)
	// Open opens the blob of key (ErrNotExist when there is none).
	Open(ctx context.Context, key string) (Blob, error)
	// Delete removes the blobs of keys; a missing one is no error.
	Delete(ctx context.Context, keys ...string) error
	// DeletePrefix removes every blob whose key starts with prefix, which
	// must end with "/".
	DeletePrefix(ctx context.Context, prefix string) error
	// Walk calls fn for every blob whose key starts with prefix ("" for
	// all), in no set order, until fn returns an error.
	Walk(ctx context.Context, prefix string, fn func(Info) error) error
}

// CheckKey reports whether key is a clean relative path: segments of
// printable characters, none empty, "." or "..", no backslash.
func CheckKey(key string) error {
	if key == "" || len(key) > 1024 || !utf8.ValidString(key) || strings.ContainsAny(key, "\\\x00") {
		return ErrBadKey
	}
	for _, seg := range strings.Split(key, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return ErrBadKey
		}
	}
	if path.Clean(key) != key {
		return ErrBadKey
	}
	return nil
}

// maxNameBytes bounds a sanitized name, its extension kept.
const maxNameBytes = 100

// SafeName is name as a file name that is safe in a key, a path and a
// Content-Disposition header: the last segment of a path ("../../etc/passwd"
// is "passwd"), in Unicode NFC, without control, format (right-to-left
// overrides, zero-width characters) or other invisible characters, without
// characters that paths and headers give a meaning ("/\:*?"<>|%;), with
// spaces as "_", no leading dots, at most 100 bytes with the extension
// kept. A name with nothing left is "file".
func SafeName(name string) string {
	name = strings.ToValidUTF8(name, "")
	if i := strings.LastIndexAny(name, "/\\"); i >= 0 {
		name = name[i+1:]
	}
	name = norm.NFC.String(name)
	var b strings.Builder
	for _, r := range name {
		switch {
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Co, r) || unicode.Is(unicode.Cs, r) || r == unicode.ReplacementChar:
			continue
		case unicode.IsSpace(r):
			b.WriteByte('_')
		case strings.ContainsRune(`/\:*?"<>|%;'`+"`", r):
			b.WriteByte('_')
		case !unicode.IsPrint(r):
			continue
		default:
			b.WriteRune(r)
		}
	}
	s := strings.TrimLeft(b.String(), ".")
	if len(s) > maxNameBytes {
		ext := path.Ext(s)
		if len(ext) > 16 || !utf8.ValidString(ext) {
			ext = ""
		}
		s = truncateUTF8(s[:len(s)-len(ext)], maxNameBytes-len(ext)) + ext
	}
	if strings.Trim(s, "_.") == "" {
		return "file"
	}
	return s
}

func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// keyAlphabet spells the random part of a key: lower-case letters and
// digits, safe on every file system and in URLs.
const keyAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789"

// RandomPart returns n random characters of [a-z0-9] (n*5.17 bits).
func RandomPart(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = keyAlphabet[int(b[i])%len(keyAlphabet)]
	}
	return string(b)
}
