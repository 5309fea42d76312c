package external

import (
	"log/slog"
	"net/http"

	"github.com/collectionkit/kit/kit"
)

// errWrongStrategy answers GET .../<apiPath>/{id} on a collection whose
// single items are fetched with ?ids=<id> (spec: Errors rule 3). Kit's own
// collections answer the same.
var errWrongStrategy = &kit.Error{Status: http.StatusNotFound, Message: "record not found: this collection fetches single items with ?ids=<id> (fetchStrategy query)"}

// errMethod answers a method other than GET or HEAD on a handler used
// outside kit (kit's router answers 405 itself).
var errMethod = &kit.Error{Status: http.StatusMethodNotAllowed, Message: "only GET is allowed here"}

// writeError answers err in kit's error shape, for handlers that may run
// without a Kit (see kit.WriteError).
func writeError(w http.ResponseWriter, r *http.Request, logger *slog.Logger, err error) {
	kit.WriteError(w, r, logger, err)
}
