package apierror

import "time"

// Error is an error with an HTTP status and a public message: the
// sentinels of kit and its storage layer (record not found, forbidden,
// kit is closed) are *Error values. wire answers with Status and, for a
// 4xx, shows Message.
type Error struct {
	// Status is the HTTP status (4xx or 5xx).
	Status int
	// Message is the public message.
	Message string
}

// New returns an *Error with status and message.
func New(status int, message string) *Error { return &Error{Status: status, Message: message} }

// Error returns Message.
func (e *Error) Error() string { return e.Message }

// HTTPStatus returns Status.
func (e *Error) HTTPStatus() int { return e.Status }

// Busy is an error for a request refused because the server is busy with
// others of its kind: answered 503 with Message (public: it says what to
// do) and a Retry-After header of After, rounded up to whole seconds.
type Busy struct {
	// Message is the public message.
	Message string
	// After is how long the client should wait before it retries.
	After time.Duration
}

// Error returns Message.
func (e *Busy) Error() string { return e.Message }

// HTTPStatus returns 503.
func (e *Busy) HTTPStatus() int { return 503 }

// RetryAfter returns After.
func (e *Busy) RetryAfter() time.Duration { return e.After }
