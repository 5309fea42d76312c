package kittest_test

import (
	"fmt"

	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/kittest"
	"github.com/collectionkit/kit/teamauth"
)

// Serve a Kit a test opened itself, and Send it requests as they are.
func ExampleSend() {
	t := newExampleT()
	defer t.finish()
	k := kittest.NewKit(t, kit.Config{Definitions: notes})
	acme, _ := k.Accounts().CreateTeam(t.Context(), teamauth.Team{Name: "Acme", Slug: "acme"})
	alice, _ := k.Accounts().CreateUser(t.Context(), teamauth.User{Name: "alice"})
	_, _ = k.Accounts().AddMember(t.Context(), acme.ID, alice.ID, teamauth.RoleOwner)
	token, _, _ := k.Accounts().CreateToken(t.Context(), alice.ID, "example")
	srv := kittest.Serve(t, k)

	res := kittest.Send(t, kittest.Request{Method: "POST", URL: srv.URL + "/api/teams/acme/app-notes",
		Token: token, ContentType: "text/plain", Body: `{"body":"hello"}`})
	fmt.Println(res.Status)
	res = kittest.Send(t, kittest.Request{Method: "POST", URL: srv.URL + "/api/teams/acme/app-notes",
		Token: token, ContentType: "application/json", Body: `{"body":"hello"}`})
	fmt.Println(res.Status)
	// Output:
	// 415
	// 201
}

// Assert that a refused request wrote nothing, and that an accepted one
// wrote one row.
func ExampleTableRows() {
	t := newExampleT()
	defer t.finish()
	app := kittest.NewApp(t, kit.Config{Definitions: notes})
	acme := app.Team("acme")
	alice := app.User("alice")
	app.AddMember(acme, alice, teamauth.RoleOwner)
	token := app.Token(alice)

	for _, body := range []string{`{"body":""}`, `{"body":"hello"}`} {
		before := kittest.TableRows(t, app.Kit.DB(), "app_notes")
		res := kittest.Send(t, kittest.Request{Method: "POST", URL: app.URL("/api/teams/acme/app-notes"),
			Token: token, ContentType: "application/json", Body: body})
		after := kittest.TableRows(t, app.Kit.DB(), "app_notes")
		fmt.Println(res.Status, kittest.RowsChanged(before, after))
	}
	// Output:
	// 400 0
	// 201 1
}

// Serve mounts a Kit's API under its prefix, as a host's ServeMux would.
func ExampleServe() {
	t := newExampleT()
	defer t.finish()
	k := kittest.NewKit(t, kit.Config{Definitions: notes, Prefix: "/v1"})
	srv := kittest.Serve(t, k)
	fmt.Println(kittest.Send(t, kittest.Request{URL: srv.URL + "/v1/teams/acme/app-notes"}).Status)
	fmt.Println(kittest.Send(t, kittest.Request{URL: srv.URL + "/api/teams/acme/app-notes"}).Status)
	// Output:
	// 401
	// 404
}

// Expand puts ids in for the {placeholders} it knows.
func ExampleExpand() {
	ids := map[string]string{"acme": "0193c8a2", "note": "0193c8a3"}
	fmt.Println(kittest.Expand("/api/teams/{acme}/app-notes/{note}?q={other}", ids))
	// Output:
	// /api/teams/0193c8a2/app-notes/0193c8a3?q={other}
}

// CheckBody reports what a body lacks, or holds against the expectation.
func ExampleCheckBody() {
	t := newExampleT()
	defer t.finish()
	body := `{"teamId":"0193c8a2","body":"hello"}`
	kittest.CheckBody(t, body, []string{`"teamId":"0193c8a2"`}, []string{`"body":"bye"`})
	kittest.CheckBody(t, body, []string{`"body":"bye"`}, nil)
	fmt.Println("failed checks:", t.failures)
	// Output:
	// error: body: got {"teamId":"0193c8a2","body":"hello"}, want it to contain "\"body\":\"bye\""
	// failed checks: 1
}
