package testkit

import (
	"bytes"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/kittest"
)

// Site is a seeded world's Kit served over real HTTP: the fixture the
// kit, events and external suites share. Requests go out as a seeded user
// named by the caller, with {placeholders} expanded from the seed's IDs.
type Site struct {
	// Kit is the Kit under test.
	Kit *kit.Kit
	// Server serves Kit's API (kittest.Serve); it is closed when the test
	// ends.
	Server *httptest.Server
	// Seed is what seeding made; a suite may add tokens and ids.
	Seed
}

// Serve serves k, seeded as seed, on kittest.Serve.
func Serve(t testing.TB, k *kit.Kit, seed Seed) *Site {
	t.Helper()
	return &Site{Kit: k, Server: kittest.Serve(t, k), Seed: seed}
}

// Expand replaces the {placeholders} of s with the seed's ids.
func (s *Site) Expand(str string) string { return kittest.Expand(str, s.IDs) }

// Do sends method path (expanded) as caller: the name of a seeded user
// (or any name the suite added to Tokens), or "" for anonymous; an unknown
// caller fails t. body is expanded and sent with contentType when that is
// set; header holds name, value pairs, each value expanded.
func (s *Site) Do(t testing.TB, method, path, caller, contentType, body string, header ...string) *kittest.Response {
	t.Helper()
	r := kittest.Request{Method: method, URL: s.Server.URL + s.Expand(path), ContentType: contentType, Body: s.Expand(body)}
	if caller != "" {
		tok, ok := s.Tokens[caller]
		if !ok {
			t.Fatalf("no caller %q", caller)
		}
		r.Token = tok
	}
	if len(header) > 1 {
		r.Headers = map[string]string{}
		for i := 0; i+1 < len(header); i += 2 {
			r.Headers[header[i]] = s.Expand(header[i+1])
		}
	}
	return kittest.Send(t, r)
}

// Snapshot fingerprints every row of tables (kittest.TableRows).
func (s *Site) Snapshot(t testing.TB, tables ...string) map[string]string {
	t.Helper()
	return kittest.TableRows(t, s.Kit.DB(), tables...)
}

// CheckBody is kittest.CheckBody with every string of contains and
// notContains expanded with ids first.
func CheckBody(t testing.TB, body string, contains, notContains []string, ids map[string]string) {
	t.Helper()
	expand := func(ss []string) []string {
		out := make([]string, len(ss))
		for i, s := range ss {
			out[i] = kittest.Expand(s, ids)
		}
		return out
	}
	kittest.CheckBody(t, body, expand(contains), expand(notContains))
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
