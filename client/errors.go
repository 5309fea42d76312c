package client

import (
	"errors"
	"fmt"
	"net/http"
)

// The sentinels an [*Error] matches with errors.Is, one per status kit
// answers. errors.Is(err, ErrNotFound) is true for every 404, whatever its
// message; use errors.As with an [*Error] for the message and data.
var (
	ErrBadRequest           = errors.New("kit: bad request")               // 400
	ErrUnauthorized         = errors.New("kit: unauthorized")              // 401
	ErrForbidden            = errors.New("kit: forbidden")                 // 403
	ErrNotFound             = errors.New("kit: not found")                 // 404
	ErrMethodNotAllowed     = errors.New("kit: method not allowed")        // 405
	ErrConflict             = errors.New("kit: conflict")                  // 409
	ErrPrecondition         = errors.New("kit: precondition failed")       // 412
	ErrTooLarge             = errors.New("kit: request body too large")    // 413
	ErrUnsupportedMediaType = errors.New("kit: unsupported media type")    // 415
	ErrTooManyRequests      = errors.New("kit: too many requests")         // 429
	ErrServer               = errors.New("kit: server error")              // every 5xx
	ErrUnavailable          = errors.New("kit: service unavailable")       // 503 (also ErrServer)
	ErrUnknownCollection    = errors.New("kit client: unknown collection") // a key the registry does not hold
)

var statusSentinels = map[int]error{
	http.StatusBadRequest:            ErrBadRequest,
	http.StatusUnauthorized:          ErrUnauthorized,
	http.StatusForbidden:             ErrForbidden,
	http.StatusNotFound:              ErrNotFound,
	http.StatusMethodNotAllowed:      ErrMethodNotAllowed,
	http.StatusConflict:              ErrConflict,
	http.StatusPreconditionFailed:    ErrPrecondition,
	http.StatusRequestEntityTooLarge: ErrTooLarge,
	http.StatusUnsupportedMediaType:  ErrUnsupportedMediaType,
	http.StatusTooManyRequests:       ErrTooManyRequests,
	http.StatusServiceUnavailable:    ErrUnavailable,
}

// Error is an error answer of a kit server, decoded from kit's error
// shape {"status":404,"statusText":"Not Found","message":"...","data":{...}}.
// Every non-2xx answer becomes an *Error; when the body is not in kit's
// shape (a proxy's HTML page, an empty body), Status and StatusText come
// from the response and Message is empty.
type Error struct {
	// Status is the HTTP status code.
	Status int `json:"status"`
	// StatusText is the status's reason phrase ("Not Found").
	StatusText string `json:"statusText"`
	// Message is kit's public message ("record not found").
	Message string `json:"message"`
	// Data is the error's details, nil when there are none: "param" names
	// a bad list parameter, "fields" maps each invalid field to its message,
	// "etag" and "current" are a 412's current ETag and record.
	Data map[string]any `json:"data,omitempty"`
}

// Error returns "kit: <status> <statusText>: <message>".
func (e *Error) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("kit: %d %s", e.Status, e.StatusText)
	}
	return fmt.Sprintf("kit: %d %s: %s", e.Status, e.StatusText, e.Message)
}

// Is reports whether target is the sentinel of e's status: ErrNotFound
// for 404, ErrServer for every 5xx, and so on.
func (e *Error) Is(target error) bool {
	if target == ErrServer {
		return e.Status >= 500 && e.Status <= 599
	}
	s, ok := statusSentinels[e.Status]
	return ok && s == target
}

// ETag returns data.etag: for a 412 ([ErrPrecondition]) the record's
// current ETag, to retry a conditional write with once the caller has
// seen Data["current"] (the record as stored now); "" otherwise.
func (e *Error) ETag() string {
	s, _ := e.Data["etag"].(string)
	return s
}

// Fields returns data.fields, the per-field messages of a validation or
// unique failure, or nil.
func (e *Error) Fields() map[string]string {
	raw, _ := e.Data["fields"].(map[string]any)
	if raw == nil {
		return nil
	}
	out := make(map[string]string, len(raw))
	for k, v := range raw {
		s, _ := v.(string)
		out[k] = s
	}
	return out
}
