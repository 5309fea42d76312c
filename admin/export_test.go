package admin

import (
	"io/fs"
	"net/http"
)

// NewHandlerForTest serves the build in files (a folder "dist") for the
// API prefix, as Handler serves the embedded one.
func NewHandlerForTest(files fs.FS, apiPrefix string) http.Handler {
	return newHandler(files, apiPrefix)
}
