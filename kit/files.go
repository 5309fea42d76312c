package kit

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/files"
)

// FilesConfig says where the bytes of image and file fields live and how
// they are served. The zero value keeps them in a directory named
// kit-files beside the SQLite file (Config.SQLitePath; ./kit-files when
// there is none, as on PostgreSQL), created on the first upload. See
// docs/files.md.
type FilesConfig struct {
	// Dir is the local directory of the blobs. Ignored when S3URL is set.
	Dir string
	// S3URL, when set, keeps the blobs in an S3-compatible bucket (AWS S3,
	// MinIO, SeaweedFS, R2, ...), path style:
	// "https://s3.eu-west-1.amazonaws.com/bucket?region=eu-west-1" or
	// "http://127.0.0.1:8333/bucket/prefix". kit makes the bucket when it
	// is missing, and never makes it or an object public.
	S3URL string
	// S3AccessKey and S3SecretKey are the bucket's credentials.
	S3AccessKey, S3SecretKey string
	// URLSecret signs the file URLs of record answers, which <img> tags
	// and links may use without a token while they are valid. Default: a
	// random secret per Kit, so a URL signed by one instance is refused by
	// another: give every instance of a cluster the same secret (at least
	// 32 random bytes).
	URLSecret []byte
	// URLLifetime is how long a signed URL stays valid, at least.
	// Signatures are made per window of this length, so an answer's URLs
	// stay the same for a while (caches, ETags) and are valid for between
	// one and two lifetimes. Default one hour.
	URLLifetime time.Duration
	// SweepInterval is how often one instance of the cluster looks for
	// blobs no record refers to (left by a crash between a blob's write
	// and its record's commit, or a failed removal). Default one hour;
	// negative: never.
	SweepInterval time.Duration
	// SweepGrace is how old an unreferenced blob must be before the sweep
	// removes it: longer than any upload's request. Default 24 hours.
	SweepGrace time.Duration
}

// File is one stored file of an image or file field, as kit keeps it in
// the record: the bytes are in the Bucket under Key. HTTP answers show it
// without Key and with URL (see docs/files.md).
type File struct {
	// Name is the name as uploaded, sanitized (files.SafeName), unique in
	// the field.
	Name string `json:"name"`
	// Size is the length in bytes.
	Size int64 `json:"size"`
	// ContentType is the type sniffed from the bytes (net/http's
	// DetectContentType), never the one the client declared.
	ContentType string `json:"contentType"`
	// Key is the blob's key: team/collection/record/random-name.
	Key string `json:"key"`
	// Width and Height are an image's size in pixels.
	Width  int `json:"width,omitempty"`
	Height int `json:"height,omitempty"`
}

// FileError is an upload kit refused (400, 413 or 415), naming the field:
// on the wire its data is {"fields": {field: message}}, as a
// ValidationError's.
type FileError struct {
	// Status is 400 (a bad part, too many files, an empty required file),
	// 413 (larger than meta.maxSize) or 415 (a type outside meta.mimeTypes,
	// or an image the server cannot decode).
	Status int
	// Field names the field.
	Field string
	// Message says what is wrong.
	Message string
}

// Error returns "field: message".
func (e *FileError) Error() string { return e.Field + ": " + e.Message }

// HTTPStatus returns Status.
func (e *FileError) HTTPStatus() int { return e.Status }

// ErrorData puts the message under fields.{Field}.
func (e *FileError) ErrorData() any {
	return map[string]any{"fields": map[string]string{e.Field: e.Message}}
}

// fileStore is a Kit's blobs: its Bucket and settings.
type fileStore struct {
	bucket   files.Bucket
	secret   []byte
	lifetime time.Duration
	cfg      FilesConfig
}

// newFileStore opens cfg's bucket (making an S3 bucket that is missing).
func newFileStore(ctx context.Context, cfg Config) (*fileStore, error) {
	fc := cfg.Files
	fs := &fileStore{secret: fc.URLSecret, lifetime: fc.URLLifetime, cfg: fc}
	if fs.lifetime <= 0 {
		fs.lifetime = time.Hour
	}
	if len(fs.secret) == 0 {
		fs.secret = make([]byte, 32)
		_, _ = rand.Read(fs.secret)
	}
	if fc.S3URL != "" {
		b, err := files.NewS3(files.S3Options{URL: fc.S3URL, AccessKey: fc.S3AccessKey, SecretKey: fc.S3SecretKey})
		if err != nil {
			return nil, err
		}
		if err := b.EnsureBucket(ctx); err != nil {
			return nil, err
		}
		fs.bucket = b
		return fs, nil
	}
	dir := fc.Dir
	if dir == "" {
		dir = "kit-files"
		if p := cfg.SQLitePath; p != "" && !strings.HasPrefix(p, ":memory:") && !strings.HasPrefix(p, "file:") {
			dir = filepath.Join(filepath.Dir(cfg.SQLitePath), "kit-files")
		}
	}
	fs.bucket = files.Dir{Root: dir}
	return fs, nil
}

// hasFileFields reports whether c has an image or file field.
func hasFileFields(c *collections.Collection) bool {
	for _, a := range c.Attributes() {
		if a.Field != nil && a.Type.IsFile() {
			return true
		}
	}
	return false
}

// FilesOf returns the files a record's image or file field holds: its
// stored value decoded (nil for null, for a value written before files
// were kept, such as a URL string, and for a field of another type).
func FilesOf(rec Record, field string) []File {
	s, _ := rec[field].(string)
	return decodeFiles(s)
}

// decodeFiles reads a stored file value: one object or a list of them,
// each with a key.
func decodeFiles(s string) []File {
	s = strings.TrimSpace(s)
	var list []File
	switch {
	case strings.HasPrefix(s, "{"):
		var f File
		if json.Unmarshal([]byte(s), &f) != nil {
			return nil
		}
		list = []File{f}
	case strings.HasPrefix(s, "["):
		if json.Unmarshal([]byte(s), &list) != nil {
			return nil
		}
	default:
		return nil
	}
	out := list[:0]
	for _, f := range list {
		if f.Key != "" && f.Name != "" {
			out = append(out, f)
		}
	}
	return out
}

// encodeFiles is the stored value of a field holding list: nil when
// empty, one object for a field that is not multiple, else a list.
func encodeFiles(f *collections.Field, list []File) any {
	if len(list) == 0 {
		return nil
	}
	var v any = list
	if !f.Meta.Multiple {
		v = list[0]
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// fileAnswer is a File as HTTP answers show it.
type fileAnswer struct {
	Name        string `json:"name"`
	Size        int64  `json:"size"`
	ContentType string `json:"contentType"`
	URL         string `json:"url"`
	Width       int    `json:"width,omitempty"`
	Height      int    `json:"height,omitempty"`
}

// filePath is the download path of a record's file.
func (k *Kit) filePath(c *collections.Collection, team, id, field, name string) string {
	return k.cfg.Prefix + "/teams/" + url.PathEscape(team) + "/" + c.APIPath() + "/" + url.PathEscape(id) +
		"/files/" + field + "/" + url.PathEscape(name)
}

// presentFiles returns rec with each image and file field as answers show
// it: an object (a list with meta.multiple) of fileAnswers whose URLs are
// signed; a stored value that is not kit's (a URL written before files
// were kept) is left as it is. rec itself is not changed.
func (k *Kit) presentFiles(c *collections.Collection, rec Record) Record {
	out := copyRecord(rec)
	team, _ := rec["teamId"].(string)
	id, _ := rec["id"].(string)
	exp := k.files.expiry(time.Now())
	for _, a := range c.Attributes() {
		if a.Field == nil || !a.Type.IsFile() {
			continue
		}
		s, ok := rec[a.Name].(string)
		if !ok {
			continue
		}
		list := decodeFiles(s)
		if list == nil {
			continue
		}
		answers := make([]fileAnswer, len(list))
		for i, f := range list {
			p := k.filePath(c, team, id, a.Name, f.Name)
			answers[i] = fileAnswer{Name: f.Name, Size: f.Size, ContentType: f.ContentType,
				URL: p + "?" + k.files.sign(p, exp), Width: f.Width, Height: f.Height}
		}
		if a.Field.Meta.Multiple {
			out[a.Name] = answers
		} else {
			out[a.Name] = answers[0]
		}
	}
	return out
}

// expiry is the end of the signature window after the one now is in.
func (fs *fileStore) expiry(now time.Time) int64 {
	l := int64(fs.lifetime / time.Second)
	if l < 1 {
		l = 1
	}
	return (now.Unix()/l + 2) * l
}

// sign returns the query that lets p be read until exp (Unix seconds).
func (fs *fileStore) sign(p string, exp int64) string {
	e := strconv.FormatInt(exp, 10)
	return "expires=" + e + "&sig=" + fs.mac(p, e)
}

func (fs *fileStore) mac(p, exp string) string {
	h := hmac.New(sha256.New, fs.secret)
	h.Write([]byte(p))
	h.Write([]byte{0})
	h.Write([]byte(exp))
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:20])
}

// signed reports whether r carries a valid, unexpired signature of its
// path.
func (fs *fileStore) signed(r *http.Request) bool {
	q := r.URL.Query()
	exp, sig := q.Get("expires"), q.Get("sig")
	if exp == "" || sig == "" {
		return false
	}
	n, err := strconv.ParseInt(exp, 10, 64)
	if err != nil || time.Now().Unix() > n {
		return false
	}
	return hmac.Equal([]byte(sig), []byte(fs.mac(r.URL.EscapedPath(), exp)))
}

// blobKey is the key of a new blob of record id's field: team/collection/
// record/random-name.
func blobKey(team string, c *collections.Collection, id, name string) string {
	return team + "/" + c.Key() + "/" + id + "/" + files.RandomPart(12) + "-" + name
}

// recordPrefix is the key prefix of every blob of a record.
func recordPrefix(team string, c *collections.Collection, id string) string {
	return team + "/" + c.Key() + "/" + id + "/"
}

// removeBlobs removes keys after a commit, logging a failure (the sweep
// removes what is left).
func (k *Kit) removeBlobs(ctx context.Context, keys []string) {
	if len(keys) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	var all []string
	for _, key := range keys {
		all = append(all, key)
		if base, ok := thumbDirOf(key); ok {
			_ = k.files.bucket.DeletePrefix(ctx, base)
		}
	}
	if err := k.files.bucket.Delete(ctx, all...); err != nil {
		k.logger.Warn("kit: remove file blobs (the sweep will retry)", "err", err)
	}
}

// recordsGone removes the blobs of a's deleted records of c, after
// commit. Inside a batch, whose transaction commits later (or not), it
// leaves them to the sweep.
func (k *Kit) recordsGone(ctx context.Context, a Actor, c *collections.Collection, ids []string) {
	if !hasFileFields(c) || a.batch != nil {
		return
	}
	team := a.TeamID
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	for _, id := range ids {
		if err := k.files.bucket.DeletePrefix(ctx, recordPrefix(team, c, id)); err != nil && !errors.Is(err, files.ErrNotExist) {
			k.logger.Warn("kit: remove a deleted record's files (the sweep will retry)", "record", id, "err", err)
		}
	}
}

// thumbDirOf is the prefix of the thumbnails of blob key:
// team/collection/record/thumbs/random-name/.
func thumbDirOf(key string) (string, bool) {
	i := strings.LastIndexByte(key, '/')
	if i < 0 {
		return "", false
	}
	return key[:i] + "/thumbs/" + key[i+1:] + "/", true
}

// errFileNotFound is every answer of the download route for a file the
// caller cannot have: a missing or foreign record, field or file.
var errFileNotFound = &Error{Status: http.StatusNotFound, Message: "file not found"}

// fileField returns c's image or file field name.
func fileField(c *collections.Collection, name string) (*collections.Field, bool) {
	a, ok := c.Attribute(name)
	if !ok || a.Field == nil || !a.Type.IsFile() {
		return nil, false
	}
	return a.Field, true
}

func fileErr(status int, field, format string, args ...any) *FileError {
	return &FileError{Status: status, Field: field, Message: fmt.Sprintf(format, args...)}
}
