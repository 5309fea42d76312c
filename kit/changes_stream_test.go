package kit_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/collectionkit/kit/kit"
)

// sseEvent is one event read from a change stream; a comment line is an
// event of kind ":".
type sseEvent struct {
	kind string // "" for a change, "reset", "ready", ":"
	id   string
	data string
}

// sseStream reads one open change stream on a goroutine of its own.
type sseStream struct {
	events chan sseEvent
	ended  chan struct{} // closed when the server ended the stream
	cancel context.CancelFunc
}

// waitLimit only keeps a broken test from hanging; no test asserts on how
// long anything takes.
const waitLimit = 15 * time.Second

// openStream opens GET url with token (and header pairs). It returns the
// stream when the answer is 200 text/event-stream, else the response.
func openStream(t *testing.T, url, token string, header ...string) (*sseStream, response) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		defer cancel()
		defer res.Body.Close()
		var b strings.Builder
		_, _ = bufio.NewReader(res.Body).WriteTo(&b)
		return nil, response{status: res.StatusCode, header: res.Header, body: b.String()}
	}
	if got := res.Header.Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("got X-Content-Type-Options %q on a change stream, want nosniff", got)
	}
	s := &sseStream{events: make(chan sseEvent, 1024), ended: make(chan struct{}), cancel: cancel}
	t.Cleanup(cancel)
	go func() {
		defer close(s.ended)
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		var ev sseEvent
		var data []string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.kind != "" || len(data) > 0 {
					ev.data = strings.Join(data, "\n")
					s.events <- ev
				}
				ev, data = sseEvent{}, nil
			case strings.HasPrefix(line, ":"):
				s.events <- sseEvent{kind: ":", data: strings.TrimSpace(line[1:])}
			case strings.HasPrefix(line, "event: "):
				ev.kind = line[len("event: "):]
			case strings.HasPrefix(line, "id: "):
				ev.id = line[len("id: "):]
			case strings.HasPrefix(line, "data: "):
				data = append(data, line[len("data: "):])
			}
		}
	}()
	return s, response{status: res.StatusCode, header: res.Header}
}

// next returns the next event that is not a comment.
func (s *sseStream) next(t *testing.T) sseEvent {
	t.Helper()
	timer := time.NewTimer(waitLimit)
	defer timer.Stop()
	for {
		select {
		case ev := <-s.events:
			if ev.kind != ":" {
				return ev
			}
		case <-s.ended:
			select {
			case ev := <-s.events:
				if ev.kind != ":" {
					return ev
				}
				continue
			default:
			}
			t.Fatal("the stream ended while an event was expected")
		case <-timer.C:
			t.Fatal("no event came")
		}
	}
}

// ready reads events up to the ready event and returns them (resets and
// changes of the backlog) and the ready event's id.
func (s *sseStream) ready(t *testing.T) (before []sseEvent, id string) {
	t.Helper()
	for {
		ev := s.next(t)
		if ev.kind == "ready" {
			return before, ev.id
		}
		before = append(before, ev)
	}
}

// change reads the next event, which must be a change, and decodes it.
func (s *sseStream) change(t *testing.T) kit.ChangeEvent {
	t.Helper()
	ev := s.next(t)
	if ev.kind != "" {
		t.Fatalf("got a %q event (%s), want a change", ev.kind, ev.data)
	}
	return decodeChange(t, ev)
}

func decodeChange(t *testing.T, ev sseEvent) kit.ChangeEvent {
	t.Helper()
	var c kit.ChangeEvent
	if err := json.Unmarshal([]byte(ev.data), &c); err != nil {
		t.Fatalf("decode change %q: %v", ev.data, err)
	}
	return c
}

// waitEnd waits until the server ends the stream.
func (s *sseStream) waitEnd(t *testing.T) {
	t.Helper()
	select {
	case <-s.ended:
	case <-time.After(waitLimit):
		t.Fatal("the stream stayed open")
	}
}
