// Package apierror holds the one internal error type that carries an HTTP
// status: the sentinels of kit and of internal/store are made with New and
// compared with errors.Is. It imports nothing, so the storage layer can
// use it without net/http; internal/wire reads the status through the
// HTTPStatus() int method, as it does for every other error.
package apierror
