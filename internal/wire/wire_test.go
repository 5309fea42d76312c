package wire_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/collectionkit/kit/internal/apierror"
	"github.com/collectionkit/kit/internal/wire"
)

// TestABusyRefusalAnswers503WithRetryAfterAndIsNotLoggedAsAFailure: an
// error that carries RetryAfter is answered with its status, its public
// message and a Retry-After header in whole seconds (rounded up, at least
// one), and is not logged as a failed request.
func TestABusyRefusalAnswers503WithRetryAfterAndIsNotLoggedAsAFailure(t *testing.T) {
	tests := []struct {
		name  string
		after time.Duration
		want  string
	}{
		{"a second is 1", time.Second, "1"},
		{"a part of a second rounds up to 1", 10 * time.Millisecond, "1"},
		{"zero is at least 1", 0, "1"},
		{"two and a half seconds round up to 3", 2500 * time.Millisecond, "3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
			w := httptest.NewRecorder()
			wire.Error(w, httptest.NewRequest("GET", "/api/x", nil), logger, &apierror.Busy{Message: "busy; retry", After: tt.after})
			if w.Code != 503 {
				t.Errorf("got status %d, want 503", w.Code)
			}
			if got := w.Header().Get("Retry-After"); got != tt.want {
				t.Errorf("got Retry-After %q, want %q", got, tt.want)
			}
			var body wire.Body
			if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
				t.Fatal(err)
			}
			if want := (wire.Body{Status: 503, StatusText: "Service Unavailable", Message: "busy; retry"}); body != want {
				t.Errorf("got body %+v, want %+v", body, want)
			}
			if logs.Len() != 0 {
				t.Errorf("got the log %q, want nothing at info level", logs.String())
			}
		})
	}
}

// TestAFailureOfACancelledRequestIsNotLoggedAsAFailure: work that failed
// because the client went away (its request's context cancelled) is no
// failure of the server's; the same error on a live request still is.
func TestAFailureOfACancelledRequestIsNotLoggedAsAFailure(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name   string
		ctx    context.Context
		err    error
		logged bool
	}{
		{"a cancelled request's context.Canceled is not logged", cancelled, fmt.Errorf("events: list: %w", context.Canceled), false},
		{"a live request's context.Canceled is logged", context.Background(), fmt.Errorf("events: list: %w", context.Canceled), true},
		{"a cancelled request's other failure is logged", cancelled, errors.New("disk full"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
			w := httptest.NewRecorder()
			wire.Error(w, httptest.NewRequest("GET", "/api/x", nil).WithContext(tt.ctx), logger, tt.err)
			if w.Code != 500 {
				t.Errorf("got status %d, want 500", w.Code)
			}
			if got := logs.Len() > 0; got != tt.logged {
				t.Errorf("logged: got %v (%q), want %v", got, logs.String(), tt.logged)
			}
		})
	}
}
