// Package wire writes kit's JSON responses and its one error shape,
//
//	{"status":404,"statusText":"Not Found","message":"...","data":{...}}
//
// for every package that serves HTTP (kit, teamauth, events, external).
//
// An error chooses its status by implementing HTTPStatus() int somewhere in
// its chain (found with errors.As); that error's Error() text is its public
// message, and ErrorData() any, when implemented, fills "data". Errors with
// no status, and every 5xx, are logged with slog and answered without
// internal detail.
package wire
