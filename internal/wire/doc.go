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
//
// It also holds the one text rule of kit's HTTP input, which the record
// routes and the accounts routes share: a JSON body is declared as
// application/json in UTF-8 ([CheckJSONContentType]), and text holds only
// valid UTF-8, no \u escape of a lone UTF-16 surrogate and, where a field
// is named, no NUL ([CheckJSONText], [JSONTextProblem], [TextProblem]).
package wire
