package external_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/collectionkit/kit/external"
)

// TestHandlerKeepsAnItemWhoseTransformFailed checks the spec's rule for a
// transform that fails for one item: that item is answered unchanged and
// the failure logged with the spec's message, the others transformed.
func TestHandlerKeepsAnItemWhoseTransformFailed(t *testing.T) {
	source := []external.Item{
		{"id": "p-ada", "name": "Ada"},
		{"id": "p-bob", "name": "Bob"},
		{"id": "p-cyd", "name": "Cyd"},
	}
	// toItem maps a source row, and fails for Bob in the way named.
	toItem := func(how string) func(external.Item) (external.Item, error) {
		return func(in external.Item) (external.Item, error) {
			name, _ := in["name"].(string)
			if in["id"] == "p-bob" {
				in["name"] = "half-changed" // on its copy: the answer keeps the source's
				switch how {
				case "error":
					return nil, errors.New("directory row has no display name")
				case "panic":
					seen := unmadeIndex()
					seen["p-bob"] = 1 // assignment to a nil map
				}
			}
			return external.Item{"id": in["id"], "title": strings.ToUpper(name)}, nil
		}
	}
	type row struct {
		Key  string
		Name string
	}
	f := newFixture(t, nil, func(t *testing.T, f *fixture) {
		list := func(*http.Request) ([]external.Item, error) { return source, nil }
		logger := external.WithLogger(f.k.Config().Logger)
		for _, how := range []string{"error", "panic"} {
			f.k.Handle(http.MethodGet, "/directory/"+how, f.k.Auth().RequireUser()(external.CreateExternalCollectionHandler(list, toItem(how), logger)))
			f.k.Handle(http.MethodGet, "/directory/"+how+"/{id}", f.k.Auth().RequireUser()(external.CreateExternalCollectionHandler(list, toItem(how), logger)))
		}
		// A source type of the host's, and one that is not an object.
		f.k.Handle(http.MethodGet, "/rows", f.k.Auth().RequireUser()(external.CreateExternalCollectionHandler(
			func(*http.Request) ([]row, error) { return []row{{"r-1", "One"}, {"r-2", ""}}, nil },
			func(r row) (external.Item, error) {
				if r.Name == "" {
					return nil, errors.New("row without a name")
				}
				return external.Item{"id": r.Key, "title": r.Name}, nil
			}, logger)))
		f.k.Handle(http.MethodGet, "/words", f.k.Auth().RequireUser()(external.CreateExternalCollectionHandler(
			func(*http.Request) ([]string, error) { return []string{"alpha", "", "gamma"}, nil },
			func(s string) (external.Item, error) {
				if s == "" {
					return nil, errors.New("empty word")
				}
				return external.Item{"id": s, "title": s}, nil
			}, logger)))
	})
	for _, how := range []string{"error", "panic"} {
		t.Run("a transform that "+map[string]string{"error": "returns an error", "panic": "panics"}[how]+" for one item", func(t *testing.T) {
			res := f.get(t, "/api/directory/"+how, "mia")
			want := `[{"id":"p-ada","title":"ADA"},{"id":"p-bob","name":"Bob"},{"id":"p-cyd","title":"CYD"}]`
			if res.status != 200 || strings.TrimSpace(res.body) != want {
				t.Errorf("got %d %s, want 200 %s", res.status, res.body, want)
			}
			if got := okBody(t, f, "/api/directory/"+how+"?ids=p-bob,p-cyd"); got != `[{"id":"p-bob","name":"Bob"},{"id":"p-cyd","title":"CYD"}]` {
				t.Errorf("?ids=p-bob,p-cyd: got %s, want Bob unchanged then Cyd", got)
			}
			if got := okBody(t, f, "/api/directory/"+how+"/p-bob"); got != `{"id":"p-bob","name":"Bob"}` {
				t.Errorf("/p-bob: got %s, want Bob unchanged", got)
			}
		})
	}
	t.Run("each failure is logged with the spec's message and the item's id", func(t *testing.T) {
		lines := f.logLines("[useCollectionProxy] Transform failed for item p-bob")
		// Three requests to each route: the list, ?ids= and /p-bob.
		if len(lines) != 6 {
			t.Fatalf("got %d lines, want 6:\n%s", len(lines), f.logs.String())
		}
		for _, want := range []string{"directory row has no display name", "transform panicked: assignment to entry in nil map", "index=1", "path=/api/directory/error"} {
			if !slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, want) }) {
				t.Errorf("got no failure line with %q in:\n%s", want, strings.Join(lines, "\n"))
			}
		}
	})
	t.Run("a host type whose transform failed is answered as its JSON", func(t *testing.T) {
		res := f.get(t, "/api/rows", "mia")
		want := `[{"id":"r-1","title":"One"},{"Key":"r-2","Name":""}]`
		if res.status != 200 || strings.TrimSpace(res.body) != want {
			t.Errorf("got %d %s, want 200 %s", res.status, res.body, want)
		}
		if len(f.logLines("[useCollectionProxy] Transform failed for item at index 1")) != 1 {
			t.Errorf("got no failure line at index 1 (no id) in:\n%s", f.logs.String())
		}
	})
	t.Run("an item that is no JSON object cannot be kept and is skipped", func(t *testing.T) {
		res := f.get(t, "/api/words", "mia")
		var got []map[string]any
		if err := json.Unmarshal([]byte(res.body), &got); err != nil || res.status != 200 || len(got) != 2 {
			t.Fatalf("got %d %s, want 200 with alpha and gamma", res.status, res.body)
		}
		if len(f.logLines("the item whose transform failed is not a JSON object")) != 1 {
			t.Errorf("got no skip line in:\n%s", f.logs.String())
		}
	})
}

// okBody sends GET path as mia and returns the trimmed body, failing t
// on a status other than 200.
func okBody(t *testing.T, f *fixture, path string) string {
	t.Helper()
	res := f.get(t, path, "mia")
	if res.status != 200 {
		t.Fatalf("GET %s: got %d %s, want 200", path, res.status, res.body)
	}
	return strings.TrimSpace(res.body)
}
