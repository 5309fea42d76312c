package events

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/collectionkit/kit/kit"
)

// Health is the spec's event tracking health record, kept by the server
// per Tracker (since Install; not persisted): each tracking attempt (one
// per mutation, one per manual tracking request) counts in Total, each
// failure in Failed, with the last failure's message and time.
type Health struct {
	Total         int64
	Failed        int64
	LastError     string    // empty when none
	LastErrorTime time.Time // zero when none
}

// MarshalJSON writes the spec's shape: total, failed, lastError and
// lastErrorTime, the last two null when there was no failure.
func (h Health) MarshalJSON() ([]byte, error) {
	out := struct {
		Total         int64      `json:"total"`
		Failed        int64      `json:"failed"`
		LastError     *string    `json:"lastError"`
		LastErrorTime *time.Time `json:"lastErrorTime"`
	}{Total: h.Total, Failed: h.Failed}
	if h.LastError != "" {
		out.LastError = &h.LastError
	}
	if !h.LastErrorTime.IsZero() {
		out.LastErrorTime = &h.LastErrorTime
	}
	return json.Marshal(out)
}

// Health returns a copy of the health record.
func (t *Tracker) Health() Health {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.health
}

func (t *Tracker) recordAttempt(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.health.Total++
	if err != nil {
		t.health.Failed++
		t.health.LastError = err.Error()
		t.health.LastErrorTime = time.Now().UTC()
	}
}

// serveHealth answers GET /kit-events/health, behind RequireAdmin.
func (t *Tracker) serveHealth(w http.ResponseWriter, r *http.Request) {
	kit.WriteJSON(w, http.StatusOK, t.Health())
}
