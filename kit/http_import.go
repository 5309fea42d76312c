package kit

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"
)

// defaultMaxImportBytes is Config.MaxImportBytes's default: 16 MiB. An
// import holds its rows in memory until it commits, about 45 times the
// CSV's size (docs/decisions/0018).
const defaultMaxImportBytes = 16 << 20

// serveImport answers POST .../{apiPath}/import: the body, CSV
// (text/csv), a JSON array (application/json) or NDJSON
// (application/x-ndjson), in UTF-8, of at most Config.MaxImportBytes
// bytes, imported all or nothing (Records.Import): 201 {imported,
// correlationId}; 400 *ImportError naming every rejected row; 413 a body
// over the limit; 415 another media type.
func (k *Kit) serveImport(w http.ResponseWriter, r *http.Request, call collectionCall) {
	format, err := importFormat(r.Header.Get("Content-Type"))
	if err != nil {
		k.WriteError(w, r, err)
		return
	}
	limit := k.cfg.MaxImportBytes
	if r.ContentLength > limit {
		k.WriteError(w, r, errImportTooLarge(limit))
		return
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			k.WriteError(w, r, errImportTooLarge(limit))
			return
		}
		k.WriteError(w, r, &Error{Status: http.StatusBadRequest, Message: "cannot read the body", Err: err})
		return
	}
	if !utf8.Valid(raw) || bytes.IndexByte(raw, 0) >= 0 {
		k.WriteError(w, r, &Error{Status: http.StatusBadRequest, Message: "the body must be UTF-8 text"})
		return
	}
	res, err := k.Records(call.c.Key()).Import(r.Context(), call.actor, format, bytes.NewReader(raw))
	if err != nil {
		k.WriteError(w, r, err)
		return
	}
	WriteJSON(w, http.StatusCreated, res)
}

// errImportTooLarge is the 413 of an import body over limit bytes.
func errImportTooLarge(limit int64) error {
	return &Error{Status: http.StatusRequestEntityTooLarge, Message: "the import is larger than the limit (Config.MaxImportBytes); nothing was imported",
		Data: map[string]any{"limit": limit}}
}

// importFormat is the format of an import body's Content-Type: text/csv,
// application/json (or +json) or application/x-ndjson, in UTF-8; else
// 415.
func importFormat(contentType string) (ExportFormat, error) {
	mt, params, err := mime.ParseMediaType(contentType)
	bad := &Error{Status: http.StatusUnsupportedMediaType, Message: "an import is text/csv, application/json (an array of objects) or application/x-ndjson, in UTF-8"}
	if err != nil {
		return "", bad
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		return "", bad
	}
	switch {
	case mt == "text/csv":
		return ExportCSV, nil
	case mt == "application/x-ndjson", mt == "application/ndjson":
		return ExportNDJSON, nil
	case mt == "application/json", strings.HasSuffix(mt, "+json"):
		return ExportJSON, nil
	}
	return "", bad
}

// servePostOnRecordPath serves POST .../{apiPath}/import; a POST to a
// record's path is a 405, as it was before the route had a POST.
func (k *Kit) servePostOnRecordPath(w http.ResponseWriter, r *http.Request, call collectionCall) {
	if r.PathValue("id") == "import" {
		k.serveImport(w, r, call)
		return
	}
	w.Header().Set("Allow", "DELETE, GET, PATCH")
	k.WriteError(w, r, &Error{Status: http.StatusMethodNotAllowed, Message: "method POST is not allowed here (allowed: DELETE, GET, PATCH)"})
}
