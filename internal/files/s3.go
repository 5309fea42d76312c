package files

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// S3 is a Bucket in an S3-compatible object store (AWS S3, MinIO,
// SeaweedFS, R2, ...), through minio-go. Keys are stored below Prefix.
// kit never makes the bucket or an object public: every read goes through
// kit's download route.
type S3 struct {
	client *minio.Client
	bucket string
	prefix string
}

// S3Options say where an S3 bucket is and how to sign in.
type S3Options struct {
	// URL is the bucket's URL, path style: "https://s3.eu-west-1.amazonaws.com/my-bucket",
	// "http://127.0.0.1:8333/kit/prefix"; the scheme "s3" is https and
	// "s3+http" is http. A path after the bucket prefixes
	// every key; ?region= sets the region (default us-east-1).
	URL string
	// AccessKey and SecretKey are the credentials (static, signature V4).
	AccessKey, SecretKey string
	// Transport, when set, carries the requests (tests, proxies).
	Transport http.RoundTripper
}

// smallPut is the largest blob stored with one PUT; larger ones stream in
// parts of partSize, so a Put holds at most smallPut+partSize bytes.
const (
	smallPut = 1 << 20
	partSize = 8 << 20
)

// NewS3 connects to the bucket of opts.URL. It makes no request: see
// EnsureBucket.
func NewS3(opts S3Options) (*S3, error) {
	u, err := url.Parse(opts.URL)
	if err == nil {
		switch u.Scheme {
		case "s3":
			u.Scheme = "https"
		case "s3+http":
			u.Scheme = "http"
		}
	}
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("files: S3 URL %q must be http(s)://host/bucket", opts.URL)
	}
	bucket, prefix, _ := strings.Cut(strings.Trim(u.Path, "/"), "/")
	if bucket == "" {
		return nil, fmt.Errorf("files: S3 URL %q names no bucket", opts.URL)
	}
	if prefix != "" {
		prefix += "/"
	}
	region := u.Query().Get("region")
	if region == "" {
		region = "us-east-1"
	}
	c, err := minio.New(u.Host, &minio.Options{
		Creds:        credentials.NewStaticV4(opts.AccessKey, opts.SecretKey, ""),
		Secure:       u.Scheme == "https",
		Region:       region,
		BucketLookup: minio.BucketLookupPath,
		Transport:    opts.Transport,
	})
	if err != nil {
		return nil, fmt.Errorf("files: S3 client: %w", err)
	}
	return &S3{client: c, bucket: bucket, prefix: prefix}, nil
}

// EnsureBucket makes the bucket when it does not exist (private, as every
// new bucket is). Instances starting together may all try: one makes it,
// the others find it made.
func (s *S3) EnsureBucket(ctx context.Context) error {
	ok, err := s.client.BucketExists(ctx, s.bucket)
	if err != nil {
		return fmt.Errorf("files: S3 bucket %q: %w", s.bucket, err)
	}
	if ok {
		return nil
	}
	if err := s.client.MakeBucket(ctx, s.bucket, minio.MakeBucketOptions{}); err != nil {
		// Another instance may have made it meanwhile.
		if ok, err2 := s.client.BucketExists(ctx, s.bucket); err2 == nil && ok {
			return nil
		}
		return fmt.Errorf("files: make S3 bucket %q: %w", s.bucket, err)
	}
	return nil
}

// Put stores r: with one PUT when it ends within 1 MiB, else as a
// multipart upload of 8 MiB parts (aborted on error).
func (s *S3) Put(ctx context.Context, key string, r io.Reader, contentType string) (int64, error) {
	if err := CheckKey(key); err != nil {
		return 0, err
	}
	head := make([]byte, smallPut)
	n, err := io.ReadFull(r, head)
	opts := minio.PutObjectOptions{ContentType: contentType}
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		_, err = s.client.PutObject(ctx, s.bucket, s.prefix+key, bytes.NewReader(head[:n]), int64(n), opts)
		return int64(n), err
	case err != nil:
		return int64(n), err
	}
	cr := &countingReader{r: io.MultiReader(bytes.NewReader(head), r)}
	opts.PartSize = partSize
	_, err = s.client.PutObject(ctx, s.bucket, s.prefix+key, cr, -1, opts)
	return cr.n, err
}

// PutNew uploads r under a temporary key beside key (".tmp-" and a
// random part), then copies it to key on the server and removes the
// temporary object. A key that has an object is ErrExist, checked before
// the upload and again before the copy; two PutNew of one key at the
// same moment may both pass the check (S3 has no create-only copy), and
// the later copy wins. A failure removes the temporary object.
func (s *S3) PutNew(ctx context.Context, key string, r io.Reader) (int64, error) {
	if err := CheckKey(key); err != nil {
		return 0, err
	}
	if err := s.absent(ctx, key); err != nil {
		return 0, err
	}
	dir, base := path.Split(key)
	tmp := dir + tmpPrefix + RandomPart(12) + "-" + base
	cr := &countingReader{r: r}
	_, err := s.client.PutObject(ctx, s.bucket, s.prefix+tmp, cr, -1, minio.PutObjectOptions{PartSize: partSize, ContentType: "application/octet-stream"})
	if err == nil {
		err = s.absent(ctx, key)
	}
	if err == nil {
		_, err = s.client.ComposeObject(ctx, minio.CopyDestOptions{Bucket: s.bucket, Object: s.prefix + key},
			minio.CopySrcOptions{Bucket: s.bucket, Object: s.prefix + tmp})
	}
	// The temporary object goes even when ctx has ended.
	rmCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	rmErr := s.client.RemoveObject(rmCtx, s.bucket, s.prefix+tmp, minio.RemoveObjectOptions{})
	if err != nil {
		return cr.n, err
	}
	if rmErr != nil && notExist(rmErr) != ErrNotExist {
		return cr.n, fmt.Errorf("files: remove temporary object %s: %w", tmp, rmErr)
	}
	return cr.n, nil
}

// absent is nil when no object has key, ErrExist when one has.
func (s *S3) absent(ctx context.Context, key string) error {
	_, err := s.client.StatObject(ctx, s.bucket, s.prefix+key, minio.StatObjectOptions{})
	switch {
	case err == nil:
		return ErrExist
	case notExist(err) == ErrNotExist:
		return nil
	default:
		return err
	}
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// Open opens the object of key (one request for its metadata; reads are
// ranged GETs as ServeContent seeks).
func (s *S3) Open(ctx context.Context, key string) (Blob, error) {
	if err := CheckKey(key); err != nil {
		return nil, err
	}
	obj, err := s.client.GetObject(ctx, s.bucket, s.prefix+key, minio.GetObjectOptions{})
	if err != nil {
		return nil, notExist(err)
	}
	st, err := obj.Stat()
	if err != nil {
		_ = obj.Close()
		return nil, notExist(err)
	}
	return s3Blob{obj, Info{Key: key, Size: st.Size, ModTime: st.LastModified}}, nil
}

func notExist(err error) error {
	if r := minio.ToErrorResponse(err); r.Code == "NoSuchKey" || r.StatusCode == http.StatusNotFound {
		return ErrNotExist
	}
	return err
}

type s3Blob struct {
	*minio.Object
	info Info
}

func (b s3Blob) Info() Info { return b.info }

// Delete removes the objects of keys.
func (s *S3) Delete(ctx context.Context, keys ...string) error {
	var errs []error
	for _, key := range keys {
		if err := CheckKey(key); err != nil {
			errs = append(errs, err)
			continue
		}
		if err := s.client.RemoveObject(ctx, s.bucket, s.prefix+key, minio.RemoveObjectOptions{}); err != nil && notExist(err) != ErrNotExist {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// DeletePrefix lists the objects below prefix and removes them in
// batches.
func (s *S3) DeletePrefix(ctx context.Context, prefix string) error {
	if !strings.HasSuffix(prefix, "/") || CheckKey(strings.TrimSuffix(prefix, "/")) != nil {
		return ErrBadKey
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	objs := make(chan minio.ObjectInfo)
	var listErr error
	go func() {
		defer close(objs)
		for o := range s.client.ListObjects(ctx, s.bucket, minio.ListObjectsOptions{Prefix: s.prefix + prefix, Recursive: true}) {
			if o.Err != nil {
				listErr = o.Err
				return
			}
			select {
			case objs <- o:
			case <-ctx.Done():
				return
			}
		}
	}()
	var errs []error
	for e := range s.client.RemoveObjects(ctx, s.bucket, objs, minio.RemoveObjectsOptions{}) {
		errs = append(errs, e.Err)
	}
	return errors.Join(append(errs, listErr)...)
}

// Walk lists the objects below prefix.
func (s *S3) Walk(ctx context.Context, prefix string, fn func(Info) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for o := range s.client.ListObjects(ctx, s.bucket, minio.ListObjectsOptions{Prefix: s.prefix + prefix, Recursive: true}) {
		if o.Err != nil {
			return o.Err
		}
		if err := fn(Info{Key: strings.TrimPrefix(o.Key, s.prefix), Size: o.Size, ModTime: o.LastModified}); err != nil {
			return err
		}
	}
	return nil
}
