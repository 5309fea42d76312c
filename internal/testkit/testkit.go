package testkit

import (
	"encoding/json"
	"sync"
	"testing"
)

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

// DecodeJSON decodes body, a JSON document, into v, or fails t.
func DecodeJSON(t testing.TB, body string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(body), v); err != nil {
		t.Fatalf("decode %q: %v", body, err)
	}
}
