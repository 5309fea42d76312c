package main

import (
	"io"
	"net/http"
	"time"
)

// serveTimeouts are the HTTP server's timeouts. A request body has no
// deadline for its whole length, which would cut a long upload short
// however steadily it arrives: each read waits at most bodyIdle for the
// next bytes, so a slow but steady upload goes on while a stalled client
// is cut off.
type serveTimeouts struct {
	// readHeader bounds reading a request's line and headers.
	readHeader time.Duration
	// bodyIdle bounds the wait for the next bytes of a request body.
	bodyIdle time.Duration
	// write bounds writing the answer: from the request's headers, and
	// again from the last bytes of its body that arrived.
	write time.Duration
	// idle bounds the wait for the next request on a kept-alive connection.
	idle time.Duration
}

// defaultServeTimeouts are kit serve's timeouts: generous for an API of
// small JSON bodies and for uploads over slow links, short enough that
// slow or idle clients cannot hold connections forever.
func defaultServeTimeouts() serveTimeouts {
	return serveTimeouts{readHeader: 10 * time.Second, bodyIdle: 30 * time.Second, write: 60 * time.Second, idle: 2 * time.Minute}
}

// server returns an http.Server for h with the timeouts t: the header
// and idle timeouts as they are, no whole-request ReadTimeout, and h
// wrapped in withBodyDeadlines.
func (t serveTimeouts) server(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           withBodyDeadlines(h, t),
		ReadHeaderTimeout: t.readHeader,
		WriteTimeout:      t.write,
		IdleTimeout:       t.idle,
	}
}

// withBodyDeadlines bounds the reading of each request body by its
// idleness: the connection's read deadline is bodyIdle from the start of
// the body and moves on as bytes arrive, and the write deadline moves
// with it (write after the last bytes), so that the answer to a long
// upload still has its time. At the end of the body the read deadline is
// lifted again (the server then waits on the connection only to notice a
// client that goes away). A request without a body is left as it is.
func withBodyDeadlines(h http.Handler, t serveTimeouts) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody || t.bodyIdle <= 0 {
			h.ServeHTTP(w, r)
			return
		}
		b := &idleBody{ReadCloser: r.Body, rc: http.NewResponseController(w), t: t}
		b.extend(time.Now())
		r.Body = b
		h.ServeHTTP(w, r)
	})
}

// idleBody is a request body whose reads move the connection's deadlines.
type idleBody struct {
	io.ReadCloser
	rc       *http.ResponseController
	t        serveTimeouts
	extended time.Time // when the deadlines were last moved
	done     bool
}

// extend moves the read deadline to bodyIdle and the write deadline to
// write from now.
func (b *idleBody) extend(now time.Time) {
	b.extended = now
	_ = b.rc.SetReadDeadline(now.Add(b.t.bodyIdle))
	if b.t.write > 0 {
		_ = b.rc.SetWriteDeadline(now.Add(b.t.write))
	}
}

// Read reads from the body and moves the deadlines once an eighth of
// bodyIdle has passed since they last moved (so not on every small read),
// and lifts the read deadline at the end of the body.
func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if b.done {
		return n, err
	}
	now := time.Now()
	switch {
	case err == io.EOF:
		b.done = true
		b.extend(now)
		_ = b.rc.SetReadDeadline(time.Time{})
	case n > 0 && now.Sub(b.extended) >= b.t.bodyIdle/8:
		b.extend(now)
	}
	return n, err
}
