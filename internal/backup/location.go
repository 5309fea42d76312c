package backup

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/collectionkit/kit/internal/files"
)

// IsURL reports whether to names an S3 object (s3://, s3+http://,
// http:// or https://) rather than a local file.
func IsURL(to string) bool {
	for _, p := range []string{"s3://", "s3+http://", "http://", "https://"} {
		if strings.HasPrefix(to, p) {
			return true
		}
	}
	return false
}

// Open returns the bucket and key of an archive's place: a local file
// path (a Dir of its folder and its base name), or an S3 object URL,
// path style, "s3://HOST/BUCKET/PATH/NAME.tar" (https; s3+http:// is
// plain http, for a local server), with the credentials given. It makes
// an S3 bucket that is missing (private, as files.S3 does).
func Open(ctx context.Context, to, accessKey, secretKey string) (files.Bucket, string, error) {
	if !IsURL(to) {
		abs, err := filepath.Abs(to)
		if err != nil {
			return nil, "", err
		}
		return files.Dir{Root: filepath.Dir(abs)}, filepath.Base(abs), nil
	}
	base, query, _ := strings.Cut(to, "?")
	i := strings.LastIndexByte(base, '/')
	scheme := strings.Index(base, "://") + 3
	key := base[i+1:]
	if key == "" || strings.Count(base[scheme:], "/") < 2 {
		return nil, "", fmt.Errorf("backup: %q must name an object: s3://HOST/BUCKET/NAME.tar", to)
	}
	u := base[:i]
	if query != "" {
		u += "?" + query
	}
	b, err := files.NewS3(files.S3Options{URL: u, AccessKey: accessKey, SecretKey: secretKey})
	if err != nil {
		return nil, "", err
	}
	if err := b.EnsureBucket(ctx); err != nil {
		return nil, "", err
	}
	return b, key, nil
}
