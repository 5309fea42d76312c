package kit

import (
	"net/http"
)

// registerTrashRoutes adds the restore and purge routes of every
// collection; GET .../{apiPath}/trash, the list, is served by the
// record route (serveGetOrTree): a pattern with a literal after
// {apiPath} would overlap /teams/{team}/members/{member}.
func (k *Kit) registerTrashRoutes(add func(method, path string, h http.HandlerFunc)) {
	add(http.MethodPost, "/teams/{team}/{apiPath}/{id}/restore", k.collectionRoute(k.serveRestore))
	// POST .../{apiPath}/import (http_import.go), for the same reason.
	add(http.MethodPost, "/teams/{team}/{apiPath}/{id}", k.collectionRoute(k.servePostOnRecordPath))
	add(http.MethodDelete, "/teams/{team}/{apiPath}/{id}/trash", k.collectionRoute(k.servePurge))
}

// serveTrash answers GET .../{apiPath}/trash: 200 with a page of the
// team's trashed records, newest first.
func (k *Kit) serveTrash(w http.ResponseWriter, r *http.Request, call collectionCall) {
	page, err := k.Records(call.c.Key()).Trash(r.Context(), call.actor, r.URL.Query())
	if err != nil {
		k.WriteError(w, r, err)
		return
	}
	WriteJSON(w, http.StatusOK, page)
}

// serveRestore answers POST .../{apiPath}/{id}/restore: 200 with the
// record restored.
func (k *Kit) serveRestore(w http.ResponseWriter, r *http.Request, call collectionCall) {
	rec, err := k.Records(call.c.Key()).Restore(r.Context(), call.actor, r.PathValue("id"))
	if err != nil {
		k.writeWriteError(w, r, err)
		return
	}
	writeRecord(w, http.StatusOK, rec)
}

// servePurge answers DELETE .../{apiPath}/{id}/trash: 204 once the record
// is gone for good.
func (k *Kit) servePurge(w http.ResponseWriter, r *http.Request, call collectionCall) {
	if err := k.Records(call.c.Key()).Purge(r.Context(), call.actor, r.PathValue("id")); err != nil {
		k.writeWriteError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
