package kit

import (
	"errors"
	"net/http"
	"strconv"
)

// registerBackupRoutes adds the super-admins' backup routes: GET and
// POST {prefix}/super-admin/backups (list, create now) and GET
// {prefix}/super-admin/backups/{name} (download). Anyone else is a 401
// or 403, as every super-admin route; without a backup store (no
// Config.Backups.Dir or S3URL) each answers 404, saying so.
func (k *Kit) registerBackupRoutes(add func(method, path string, h http.HandlerFunc)) {
	admin := func(serve http.HandlerFunc) http.HandlerFunc {
		return k.teamAuth.RequireAdmin()(serve).ServeHTTP
	}
	add(http.MethodGet, "/super-admin/backups", admin(k.serveBackups))
	add(http.MethodPost, "/super-admin/backups", admin(k.serveCreateBackup))
	add(http.MethodGet, "/super-admin/backups/{name}", admin(k.serveBackupDownload))
}

// backupHTTPError is err as the backup routes answer it.
func backupHTTPError(err error) error {
	if errors.Is(err, ErrNoBackupStore) {
		return &Error{Status: http.StatusNotFound, Message: "no backup store: the server keeps no backups (Config.Backups)"}
	}
	if errors.Is(err, ErrNoOnlineBackup) {
		return &Error{Status: http.StatusNotImplemented, Message: "backups on PostgreSQL need Config.Backups.PgDumpURL"}
	}
	return err
}

// serveBackups answers {items: [{name, size, createdAt}]}, newest first.
func (k *Kit) serveBackups(w http.ResponseWriter, r *http.Request) {
	list, err := k.Backups(r.Context())
	if err != nil {
		k.WriteError(w, r, backupHTTPError(err))
		return
	}
	WriteJSON(w, http.StatusOK, map[string]any{"items": list})
}

// serveCreateBackup makes a backup now and answers 201 with it.
func (k *Kit) serveCreateBackup(w http.ResponseWriter, r *http.Request) {
	f, err := k.CreateBackup(r.Context())
	if err != nil {
		k.WriteError(w, r, backupHTTPError(err))
		return
	}
	WriteJSON(w, http.StatusCreated, f)
}

// serveBackupDownload answers the archive as an attachment (ranges and
// conditional requests through http.ServeContent).
func (k *Kit) serveBackupDownload(w http.ResponseWriter, r *http.Request) {
	rc, f, err := k.OpenBackup(r.Context(), r.PathValue("name"))
	if errors.Is(err, ErrNotFound) {
		k.WriteError(w, r, &Error{Status: http.StatusNotFound, Message: "no such backup"})
		return
	}
	if err != nil {
		k.WriteError(w, r, backupHTTPError(err))
		return
	}
	defer rc.Close()
	w.Header().Set("Content-Type", "application/x-tar")
	w.Header().Set("Content-Disposition", `attachment; filename="`+f.Name+`"`)
	w.Header().Set("Cache-Control", "private, no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Length", strconv.FormatInt(f.Size, 10))
	http.ServeContent(w, r, "", f.CreatedAt, rc)
}
