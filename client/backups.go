package client

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// Backup is a backup archive of the server's backup store.
type Backup struct {
	// Name is the archive's name, kit-....tar.
	Name string `json:"name"`
	// Size is its length in bytes.
	Size int64 `json:"size"`
	// CreatedAt is when it was written.
	CreatedAt time.Time `json:"createdAt"`
}

// Backups lists the server's backups, newest first: GET
// /super-admin/backups. A server that keeps none is an [*Error] matching
// [ErrNotFound]; a caller without the global admin role [ErrForbidden].
func (s *SuperAdmin) Backups(ctx context.Context) ([]Backup, error) {
	var out struct {
		Items []Backup `json:"items"`
	}
	if err := s.c.Do(ctx, http.MethodGet, "/super-admin/backups", nil, nil, &out); err != nil {
		return nil, err
	}
	return out.Items, nil
}

// CreateBackup makes a backup now (the database and the files) and
// returns it: POST /super-admin/backups.
func (s *SuperAdmin) CreateBackup(ctx context.Context) (Backup, error) {
	var b Backup
	err := s.c.Do(ctx, http.MethodPost, "/super-admin/backups", nil, nil, &b)
	return b, err
}

// DownloadBackup opens the backup archive name for reading (a tar; see
// docs/operations.md): GET /super-admin/backups/{name}. Close it when
// done. An unknown name is an [*Error] matching [ErrNotFound].
func (s *SuperAdmin) DownloadBackup(ctx context.Context, name string) (io.ReadCloser, error) {
	u := *s.c.base
	u.RawPath = s.c.base.EscapedPath() + "/super-admin/backups/" + url.PathEscape(name)
	p, err := url.PathUnescape(u.RawPath)
	if err != nil {
		return nil, fmt.Errorf("kit client: %w", err)
	}
	u.Path = p
	return s.c.openBody(ctx, u.String())
}
