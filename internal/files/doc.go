// Package files keeps the bytes of kit's image and file fields in a
// Bucket: a local directory (Dir) or an S3-compatible object store (S3,
// through minio-go). It knows keys, streams and listings, nothing of
// records, teams or HTTP; kit decides what a key means (see
// docs/files.md) and when a blob may go.
package files
