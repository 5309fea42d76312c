package client

import (
	"testing"
	"time"
)

func TestRetryAfterReadsSecondsAndDates(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		header string
		want   time.Duration
		wantOK bool
	}{
		{"delay-seconds are a wait", "1", time.Second, true},
		{"spaces around them are ignored", " 120 ", 2 * time.Minute, true},
		{"zero is no wait", "0", 0, true},
		{"an HTTP date is the time until it", "Sun, 29 Nov 2026 12:00:30 GMT", 30 * time.Second, true},
		{"a date in the past is no wait", "Sun, 29 Nov 2026 11:00:00 GMT", 0, true},
		{"no header is no retry", "", 0, false},
		{"a negative number is no retry", "-1", 0, false},
		{"a fraction is no retry", "1.5", 0, false},
		{"anything else is no retry", "soon", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := retryAfter(tc.header, now)
			if got != tc.want || ok != tc.wantOK {
				t.Errorf("retryAfter(%q): got %v, %v, want %v, %v", tc.header, got, ok, tc.want, tc.wantOK)
			}
		})
	}
}
