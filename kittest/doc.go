// Package kittest helps a host app test its kit collections the way kit
// tests itself: against a real Kit on a fresh in-memory SQLite database,
// through real HTTP.
//
// # A Kit per test
//
// [NewKit] opens a [kit.Kit] on an in-memory SQLite database private to the test
// and closes it when the test ends. [NewApp] does the same and also serves
// the Kit's API on an httptest server and records every mutation hook
// that fires:
//
//	app := kittest.NewApp(t, kit.Config{Schemas: os.DirFS("schemas")})
//	acme := app.Team("acme")
//	alice := app.User("alice")
//	app.AddMember(acme, alice, teamauth.RoleOwner)
//	token := app.Token(alice)
//
// The helpers fail the test on any error, so a test reads as its setup.
// [App.Team] and [App.User] also remember the id they made under the slug or
// name in [App.IDs], for {placeholders} in scenarios.
//
// # Scenarios
//
// A [Scenario] is one HTTP request and what must come back, in the spirit of
// PocketBase's tests.ApiScenario: the status, strings the body must and
// must not contain, the mutation hooks that fire, and the rows of the
// collection tables the request adds, removes or changes. Run a table of
// them with [Scenario.Run], each as a subtest ([Scenario.Test] runs one in
// the calling test and returns the response):
//
//	for _, s := range []kittest.Scenario{
//		{Name: "a member lists the team's notes", Method: "GET",
//			URL: "/api/teams/acme/app-notes", Token: token,
//			ExpectedStatus: 200, ExpectedContent: []string{`"items"`}},
//	} {
//		s.Run(t, app)
//	}
//
// # Requests and rows outside scenarios
//
// The pieces a Scenario is built from serve tests of their own shape:
// [Serve] mounts a Kit's API on a test server, [Send] sends a [Request]
// exactly as given (any Content-Type, any header), [Expand] fills in
// {placeholders}, [CheckBody] checks a body's content, and [TableRows]
// with [RowsChanged] count the rows a step added, removed or changed:
//
//	before := kittest.TableRows(t, k.DB(), "app_notes")
//	res := kittest.Send(t, kittest.Request{Method: "POST", URL: srv.URL + "/api/teams/acme/app-notes",
//		Token: token, ContentType: "text/plain", Body: `{"body":"x"}`})
//	if n := kittest.RowsChanged(before, kittest.TableRows(t, k.DB(), "app_notes")); res.Status != 415 || n != 0 {
//		t.Errorf("got %d and %d rows written, want 415 and none", res.Status, n)
//	}
//
// # Engines
//
// Tests that set [kit.Config].DB run on that database instead, PostgreSQL
// included; kittest closes only the Kit, never a DB it was given.
package kittest
