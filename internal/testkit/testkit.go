package testkit

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/internal/testdb"
)

// Request is one HTTP request a test sends.
type Request struct {
	Method string
	URL    string
	// Token, when set, is sent as "Authorization: Bearer <Token>".
	Token       string
	ContentType string
	Body        string
	// Header holds name, value pairs.
	Header []string
}

// Response is what came back.
type Response struct {
	Status int
	Header http.Header
	Body   string
}

// Send sends r with http.DefaultClient and reads the whole response.
func Send(t testing.TB, r Request) Response {
	t.Helper()
	var body io.Reader
	if r.Body != "" {
		body = strings.NewReader(r.Body)
	}
	req, err := http.NewRequestWithContext(t.Context(), r.Method, r.URL, body)
	if err != nil {
		t.Fatal(err)
	}
	if r.ContentType != "" {
		req.Header.Set("Content-Type", r.ContentType)
	}
	if r.Token != "" {
		req.Header.Set("Authorization", "Bearer "+r.Token)
	}
	for i := 0; i+1 < len(r.Header); i += 2 {
		req.Header.Set(r.Header[i], r.Header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return Response{Status: res.StatusCode, Header: res.Header, Body: string(b)}
}

// Expand replaces every {name} in s with ids[name].
func Expand(s string, ids map[string]string) string {
	for k, v := range ids {
		s = strings.ReplaceAll(s, "{"+k+"}", v)
	}
	return s
}

// AtOnce runs fn(0) to fn(n-1) on n goroutines released at the same
// moment, as n processes starting together would, and returns their
// errors by index once all have returned.
func AtOnce(n int, fn func(i int) error) []error {
	errs := make([]error, n)
	var start, done sync.WaitGroup
	start.Add(1)
	for i := range n {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			errs[i] = fn(i)
		}()
	}
	start.Done()
	done.Wait()
	return errs
}

// CheckBody reports an error for each string of contains that body lacks
// and each string of notContains that it has, after Expand with ids.
func CheckBody(t testing.TB, body string, contains, notContains []string, ids map[string]string) {
	t.Helper()
	for _, s := range contains {
		if want := Expand(s, ids); !strings.Contains(body, want) {
			t.Errorf("body: got %s, want it to contain %q", body, want)
		}
	}
	for _, s := range notContains {
		if want := Expand(s, ids); strings.Contains(body, want) {
			t.Errorf("body: got %s, want it NOT to contain %q", body, want)
		}
	}
}

// TableSnapshot fingerprints every row of tables (testdb.TableSnapshot).
func TableSnapshot(t testing.TB, db bun.IDB, tables ...string) map[string]string {
	t.Helper()
	return testdb.TableSnapshot(t, db, tables...)
}

// SnapshotDiff counts the rows added, removed or changed between two
// snapshots (testdb.SnapshotDiff).
func SnapshotDiff(before, after map[string]string) int { return testdb.SnapshotDiff(before, after) }
