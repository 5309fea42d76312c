package kit

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"
)

func TestWriteRecordSendsTheETagOfTheRecordItEncodes(t *testing.T) {
	at := time.Date(2026, 11, 23, 10, 0, 0, 123000, time.UTC)
	tests := []struct {
		name  string
		title any
	}{
		{"a record of plain text", "Lamp"},
		{"a record holding characters json.Marshal escapes for HTML", "<b>Salt & Pepper</b>"},
		{"a record holding the line and paragraph separators", "one\u2028two\u2029three"},
		{"a record holding quotes, backslashes and control characters", "a \"b\" \\ c\n\t\x01"},
		{"a record holding non-ASCII text", "Crème brûlée, 東京"},
		{"a record with a null value", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := Record{"id": "0198", "title": tt.title, "price": "12.50", "stock": 3.0,
				"tags": []any{"x", "<y>"}, "meta": map[string]any{"k&": "v"}, "createdAt": at}
			w := httptest.NewRecorder()
			writeRecord(w, http.StatusCreated, rec)
			if w.Code != http.StatusCreated {
				t.Errorf("status: got %d, want %d", w.Code, http.StatusCreated)
			}
			if got, want := w.Header().Get("ETag"), ETag(rec); got != want {
				t.Errorf("ETag: got %s, want ETag(rec) %s", got, want)
			}
			if got, want := w.Header().Get("Content-Type"), "application/json; charset=utf-8"; got != want {
				t.Errorf("Content-Type: got %q, want %q", got, want)
			}
			var got, want any
			if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
				t.Fatalf("body %q: %v", w.Body.String(), err)
			}
			raw, _ := json.Marshal(rec)
			_ = json.Unmarshal(raw, &want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("body: got %v, want %v", got, want)
			}
		})
	}
}
