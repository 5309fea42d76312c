package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"time"
)

// StatusCoder is implemented by errors that carry their HTTP status.
type StatusCoder interface {
	error
	HTTPStatus() int
}

// DataCarrier is implemented by errors that add details (per-field
// messages, the offending parameter) to the "data" member.
type DataCarrier interface {
	ErrorData() any
}

// RetryAfterer is implemented by errors that tell the client when to try
// again (a 503 of a busy server): Error sets the Retry-After header and
// the body shows the error's message, which such errors keep public.
type RetryAfterer interface {
	RetryAfter() time.Duration
}

// Body is the JSON error shape.
type Body struct {
	Status     int    `json:"status"`
	StatusText string `json:"statusText"`
	Message    string `json:"message"`
	Data       any    `json:"data,omitempty"`
}

// Status returns the HTTP status err carries, or 500.
func Status(err error) int {
	var sc StatusCoder
	if errors.As(err, &sc) {
		if s := sc.HTTPStatus(); s >= 400 && s <= 599 {
			return s
		}
	}
	return http.StatusInternalServerError
}

// BodyFor builds the public error body for err. 5xx bodies never carry the
// error's text.
func BodyFor(err error) Body {
	var sc StatusCoder
	var ra RetryAfterer
	if errors.As(err, &sc) && sc.HTTPStatus() >= 500 && sc.HTTPStatus() <= 599 && errors.As(err, &ra) {
		return Body{Status: sc.HTTPStatus(), StatusText: http.StatusText(sc.HTTPStatus()), Message: sc.Error()}
	}
	if !errors.As(err, &sc) || sc.HTTPStatus() < 400 || sc.HTTPStatus() >= 500 {
		s := http.StatusInternalServerError
		if sc != nil && sc.HTTPStatus() >= 500 && sc.HTTPStatus() <= 599 {
			s = sc.HTTPStatus()
		}
		return Body{Status: s, StatusText: http.StatusText(s), Message: http.StatusText(s)}
	}
	b := Body{Status: sc.HTTPStatus(), StatusText: http.StatusText(sc.HTTPStatus()), Message: sc.Error()}
	var dc DataCarrier
	if errors.As(err, &dc) {
		b.Data = dc.ErrorData()
	}
	return b
}

// Error writes err in the error shape. Errors answered with a 5xx are
// logged to logger (slog.Default() when nil) with the request's method and
// path, and never shown to the client.
func Error(w http.ResponseWriter, r *http.Request, logger *slog.Logger, err error) {
	b := BodyFor(err)
	var ra RetryAfterer
	if errors.As(err, &ra) {
		// A refusal of a busy server, not a failure: the client is told
		// when to come back, and nothing is logged above debug level (a
		// burst would otherwise write a line per refused request).
		secs := int64((ra.RetryAfter() + time.Second - 1) / time.Second)
		w.Header().Set("Retry-After", strconv.FormatInt(max(secs, 1), 10))
		if logger == nil {
			logger = slog.Default()
		}
		if r != nil {
			logger.DebugContext(r.Context(), "kit: request refused, retry later", "status", b.Status, "err", err, "method", r.Method, "path", r.URL.Path)
		}
		JSON(w, b.Status, b)
		return
	}
	if b.Status >= 500 && r != nil && r.Context().Err() != nil && errors.Is(err, context.Canceled) {
		// The client went away and cancelled the work: no failure of the
		// server's, and no one reads the answer.
		if logger == nil {
			logger = slog.Default()
		}
		logger.DebugContext(r.Context(), "kit: request cancelled by the client", "err", err, "method", r.Method, "path", r.URL.Path)
		JSON(w, b.Status, b)
		return
	}
	if b.Status >= 500 {
		if logger == nil {
			logger = slog.Default()
		}
		attrs := []any{"status", b.Status, "err", err}
		if r != nil {
			attrs = append(attrs, "method", r.Method, "path", r.URL.Path)
		}
		ctx := context.Background()
		if r != nil {
			ctx = r.Context()
		}
		logger.ErrorContext(ctx, "kit: request failed", attrs...)
	}
	JSON(w, b.Status, b)
}

// JSON writes v as JSON with status.
func JSON(w http.ResponseWriter, status int, v any) {
	setJSONHeaders(w)
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// Encode returns v encoded exactly as JSON writes it: no HTML escaping,
// a newline at the end.
func Encode(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Encoded writes body, a value Encode returned, with status and the
// headers JSON sets.
func Encoded(w http.ResponseWriter, status int, body []byte) {
	setJSONHeaders(w)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func setJSONHeaders(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
}
