package kittest

import (
	"maps"
	"net/http"
	"strings"
	"testing"

	"github.com/collectionkit/kit/internal/rowdiff"
)

// Scenario is one HTTP request to an App and what must come back. The
// zero value of every Expected field but ExpectedStatus means "not
// checked". Every string field is expanded with App.Expand first, so
// "{acme}" stands for the id of team acme.
type Scenario struct {
	// Name names the subtest; write it as a sentence.
	Name string

	// Method is the HTTP method. Default GET.
	Method string
	// URL is the path and query on the App's server, starting with "/":
	// "/api/teams/acme/shop-products?limit=5".
	URL string
	// Token, when set, is sent as "Authorization: Bearer <Token>".
	Token string
	// Headers are sent as given. A scenario with a Body and no
	// Content-Type header sends "Content-Type: application/json".
	Headers map[string]string
	// Body is the request body.
	Body string

	// ExpectedStatus is the status the response must have. Required: a
	// zero ExpectedStatus fails the scenario.
	ExpectedStatus int
	// ExpectedContent are strings the response body must contain.
	ExpectedContent []string
	// NotExpectedContent are strings the response body must not contain.
	NotExpectedContent []string
	// ExpectedMutations, when not nil, are the mutations that must commit
	// during the request, counted by "<operation> <collection key>":
	// {"create shopProducts": 1}. An empty, non-nil map means none.
	ExpectedMutations map[string]int
	// ExpectedRowsChanged, when not nil, is how many rows of each
	// collection's table (by collection key) the request must add, remove
	// or change; every collection it does not name must stay unchanged.
	// An empty, non-nil map means no row of any collection changes.
	ExpectedRowsChanged map[string]int

	// BeforeTest runs before the request, to seed or change what this
	// scenario alone needs.
	BeforeTest func(t testing.TB, app *App)
	// AfterTest runs after the checks, for assertions the fields above
	// cannot express.
	AfterTest func(t testing.TB, app *App, res *Response)
}

// Response is what a scenario's request got back.
type Response struct {
	Status int
	Header http.Header
	Body   string
}

// Run runs s as the subtest s.Name of t against app (see Test).
// Scenarios that share an App see each other's changes and must not run
// in parallel with each other.
func (s Scenario) Run(t *testing.T, app *App) {
	t.Helper()
	t.Run(s.Name, func(t *testing.T) { s.Test(t, app) })
}

// Test runs s in t itself against app: BeforeTest, the request, the
// checks (each failed check is a t.Errorf), AfterTest. It returns the
// response for further checks.
func (s Scenario) Test(t testing.TB, app *App) *Response {
	t.Helper()
	if s.BeforeTest != nil {
		s.BeforeTest(t, app)
	}
	var before map[string]map[string]string
	if s.ExpectedRowsChanged != nil {
		before = app.rowFingerprints(t)
	}
	seen := len(app.Mutations())
	res := app.send(t, s)
	if s.ExpectedStatus == 0 {
		t.Errorf("scenario has no ExpectedStatus; the response was %d %s", res.Status, res.Body)
	} else if res.Status != s.ExpectedStatus {
		t.Errorf("status: got %d, want %d; body: %s", res.Status, s.ExpectedStatus, res.Body)
	}
	CheckBody(t, res.Body, app.expandAll(s.ExpectedContent), app.expandAll(s.NotExpectedContent))
	if s.ExpectedMutations != nil {
		got := map[string]int{}
		for _, m := range app.Mutations()[seen:] {
			got[string(m.Operation)+" "+m.Collection]++
		}
		if want := nonZero(s.ExpectedMutations); !maps.Equal(got, want) {
			t.Errorf("mutations committed: got %v, want %v", got, want)
		}
	}
	if s.ExpectedRowsChanged != nil {
		after := app.rowFingerprints(t)
		got := map[string]int{}
		for key := range after {
			if n := rowdiff.Count(before[key], after[key]); n > 0 {
				got[key] = n
			}
		}
		if want := nonZero(s.ExpectedRowsChanged); !maps.Equal(got, want) {
			t.Errorf("rows changed: got %v, want %v", got, want)
		}
	}
	if s.AfterTest != nil {
		s.AfterTest(t, app, res)
	}
	return res
}

// send sends the scenario's request and reads the whole response.
func (a *App) send(t testing.TB, s Scenario) *Response {
	t.Helper()
	r := Request{Method: s.Method, URL: a.URL(s.URL), Token: a.Expand(s.Token), Body: a.Expand(s.Body),
		Client: a.Server.Client()}
	if s.Body != "" {
		r.ContentType = "application/json"
	}
	if len(s.Headers) > 0 {
		r.Headers = map[string]string{}
		for name, value := range s.Headers {
			r.Headers[name] = a.Expand(value)
		}
	}
	return Send(t, r)
}

// rowFingerprints returns, per stored collection key, a fingerprint of
// each row of its table keyed by the row's id (see TableRows).
func (a *App) rowFingerprints(t testing.TB) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{}
	for _, c := range a.Kit.Collections().All() {
		if c.External() {
			continue
		}
		rows, err := rowdiff.Table(t.Context(), a.Kit.DB(), c.Table())
		if err != nil {
			t.Fatalf("kittest: %v", err)
		}
		out[c.Key()] = rows
	}
	return out
}

// CheckBody reports (t.Errorf) each string of contains that body lacks
// and each string of notContains that it holds, as a Scenario checks its
// ExpectedContent and NotExpectedContent.
func CheckBody(t testing.TB, body string, contains, notContains []string) {
	t.Helper()
	for _, want := range contains {
		if !strings.Contains(body, want) {
			t.Errorf("body: got %s, want it to contain %q", body, want)
		}
	}
	for _, unwanted := range notContains {
		if strings.Contains(body, unwanted) {
			t.Errorf("body: got %s, want it not to contain %q", body, unwanted)
		}
	}
}

// Expand replaces every {name} in s whose name is a key of ids with its
// id; other braces are left alone. App.Expand expands with App.IDs.
func Expand(s string, ids map[string]string) string {
	if !strings.Contains(s, "{") {
		return s
	}
	for name, id := range ids {
		s = strings.ReplaceAll(s, "{"+name+"}", id)
	}
	return s
}

// nonZero returns m without its zero counts, so {"x": 0} reads as "x
// does not change".
func nonZero(m map[string]int) map[string]int {
	out := map[string]int{}
	for k, v := range m {
		if v != 0 {
			out[k] = v
		}
	}
	return out
}
