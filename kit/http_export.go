package kit

import (
	"log/slog"
	"net/http"
)

// serveExport answers GET .../{apiPath}/export?format=csv|json|ndjson
// (served by the record route, see serveGetOrTree): 200 with every record
// of the team the list parameters select, streamed as it is read, as an
// attachment named after the apiPath. A bad parameter is a 400 before
// anything is sent; a failure once the export has started ends the
// response abnormally (http.ErrAbortHandler), so that a client never takes
// a partial export for a whole one.
func (k *Kit) serveExport(w http.ResponseWriter, r *http.Request, call collectionCall) {
	q := r.URL.Query()
	if len(q["format"]) > 1 {
		k.WriteError(w, r, &QueryError{Param: "format", Message: "must be given once"})
		return
	}
	format, err := ParseExportFormat(q.Get("format"))
	if err != nil {
		k.WriteError(w, r, err)
		return
	}
	out := &exportWriter{w: w, format: format, name: call.c.APIPath()}
	err = k.Records(call.c.Key()).Export(r.Context(), call.actor, q, format, out)
	switch {
	case err == nil && !out.started:
		out.header()
		w.WriteHeader(http.StatusOK)
	case err != nil && !out.started:
		k.WriteError(w, r, err)
	case err != nil:
		k.logger.ErrorContext(r.Context(), "kit: export failed after it started", slog.String("collection", call.c.Key()), slog.String("err", err.Error()))
		panic(http.ErrAbortHandler)
	}
}

// exportWriter sets the export's headers before its first bytes.
type exportWriter struct {
	w       http.ResponseWriter
	format  ExportFormat
	name    string
	started bool
}

func (e *exportWriter) header() {
	h := e.w.Header()
	h.Set("Content-Type", e.format.ContentType())
	h.Set("Content-Disposition", `attachment; filename="`+e.name+"."+string(e.format)+`"`)
	h.Set("Cache-Control", "no-store")
}

func (e *exportWriter) Write(p []byte) (int, error) {
	if !e.started {
		e.started = true
		e.header()
	}
	return e.w.Write(p)
}
