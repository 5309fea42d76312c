package kittest_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/kittest"
	"github.com/collectionkit/kit/teamauth"
)

// notes is the collection of the examples: app-notes, one text field.
var notes = []collections.Definition{{Name: "notes", Fields: []collections.Field{
	{Name: "body", Type: collections.TypeText, Meta: collections.FieldMeta{Required: true}},
}}}

// A host's test of its notes API. In a test file this is the body of
// func TestNotes(t *testing.T), with scenario.Run(t, app) to run each
// scenario as a subtest; the example stands in a small testing.TB for t.
func Example() {
	t := newExampleT()
	defer t.finish()

	app := kittest.NewApp(t, kit.Config{Definitions: notes})
	acme := app.Team("acme")
	alice := app.User("alice")
	app.AddMember(acme, alice, teamauth.RoleOwner)
	stranger := app.User("stranger")
	app.AddMember(app.Team("initech"), stranger, teamauth.RoleOwner)

	for _, s := range []kittest.Scenario{
		{Name: "a member creates a note in their team", Method: "POST",
			URL: "/api/teams/acme/app-notes", Token: app.Token(alice), Body: `{"body":"hello"}`,
			ExpectedStatus:      201,
			ExpectedContent:     []string{`"body":"hello"`, `"teamId":"{acme}"`, `"owner":"{alice}"`},
			ExpectedMutations:   map[string]int{"create appNotes": 1},
			ExpectedRowsChanged: map[string]int{"appNotes": 1}},
		{Name: "a user of another team cannot list acme's notes", Method: "GET",
			URL: "/api/teams/acme/app-notes", Token: app.Token(stranger),
			ExpectedStatus:      403,
			ExpectedContent:     []string{"not a member of this team"},
			NotExpectedContent:  []string{"hello"},
			ExpectedMutations:   map[string]int{},
			ExpectedRowsChanged: map[string]int{}},
		{Name: "an anonymous caller is asked to authenticate", Method: "GET",
			URL:            "/api/teams/acme/app-notes",
			ExpectedStatus: 401},
	} {
		res := s.Test(t, app)
		fmt.Println(res.Status, s.Name)
	}
	fmt.Println("failed checks:", t.failures)
	// Output:
	// 201 a member creates a note in their team
	// 403 a user of another team cannot list acme's notes
	// 401 an anonymous caller is asked to authenticate
	// failed checks: 0
}

// exampleT is the part of a *testing.T the example needs: failures are
// printed and counted, cleanups run at finish. The embedded nil
// testing.TB is never called.
type exampleT struct {
	testing.TB
	ctx      context.Context
	cancel   context.CancelFunc
	cleanups []func()
	failures int
}

func newExampleT() *exampleT {
	ctx, cancel := context.WithCancel(context.Background())
	return &exampleT{ctx: ctx, cancel: cancel}
}

func (t *exampleT) Helper()                  {}
func (t *exampleT) Name() string             { return "Example" }
func (t *exampleT) Context() context.Context { return t.ctx }
func (t *exampleT) Cleanup(f func())         { t.cleanups = append(t.cleanups, f) }
func (t *exampleT) Errorf(format string, args ...any) {
	t.failures++
	fmt.Printf("error: "+format+"\n", args...)
}
func (t *exampleT) Fatalf(format string, args ...any) {
	t.Errorf(format, args...)
	panic("fatal")
}

func (t *exampleT) finish() {
	t.cancel()
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
}
