package testkit

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// ServeAPI serves api (kit's Handler) under /api/ the documented way, on
// a test server closed when t ends.
func ServeAPI(t testing.TB, api http.Handler) *httptest.Server {
	mux := http.NewServeMux()
	mux.Handle("/api/", api)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// Buffer is a bytes.Buffer safe for a writer and a reader in different
// goroutines: a logger's output, or a command's stderr read while it runs.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String returns everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
