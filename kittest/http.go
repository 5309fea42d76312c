package kittest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/collectionkit/kit/kit"
)

// Serve serves k's API (Kit.Handler) under its prefix ("/api" by
// default) on a test server closed when t ends, the way a host mounts it
// on a ServeMux. NewApp serves its Kit with it.
func Serve(t testing.TB, k *kit.Kit) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle(k.Config().Prefix+"/", k.Handler())
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// Request is one HTTP request a test sends with Send, as given: nothing
// is expanded or defaulted but the method and the client.
type Request struct {
	// Method is the HTTP method. Default GET.
	Method string
	// URL is the absolute URL: a test server's URL and the path.
	URL string
	// Token, when set, is sent as "Authorization: Bearer <Token>".
	Token string
	// ContentType, when set, is sent as the Content-Type header.
	ContentType string
	// Headers are set after ContentType and Token, so they may replace
	// either.
	Headers map[string]string
	// Body is the request body; empty sends none.
	Body string
	// Client sends the request. Default http.DefaultClient.
	Client *http.Client
}

// Send sends r and reads the whole response. A request that cannot be
// built or sent, or whose response cannot be read, fails t at once.
func Send(t testing.TB, r Request) *Response {
	t.Helper()
	method := r.Method
	if method == "" {
		method = http.MethodGet
	}
	var body io.Reader
	if r.Body != "" {
		body = strings.NewReader(r.Body)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, r.URL, body)
	if err != nil {
		t.Fatalf("kittest: build the request: %v", err)
	}
	if r.ContentType != "" {
		req.Header.Set("Content-Type", r.ContentType)
	}
	if r.Token != "" {
		req.Header.Set("Authorization", "Bearer "+r.Token)
	}
	for name, value := range r.Headers {
		req.Header.Set(name, value)
	}
	client := r.Client
	if client == nil {
		client = http.DefaultClient
	}
	res, err := client.Do(req)
	if err != nil {
		t.Fatalf("kittest: %s %s: %v", method, req.URL, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("kittest: read the response to %s %s: %v", method, req.URL, err)
	}
	return &Response{Status: res.StatusCode, Header: res.Header, Body: string(b)}
}
