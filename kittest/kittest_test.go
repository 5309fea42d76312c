package kittest_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/kittest"
	"github.com/collectionkit/kit/teamauth"
)

// recorder is a testing.TB that keeps the failures a scenario reports, so
// a test can check that a wrong expectation fails. The embedded
// testing.TB is the real test, for everything else.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func TestScenarioChecks(t *testing.T) {
	app := kittest.NewApp(t, kit.Config{Definitions: notes})
	acme := app.Team("acme")
	alice := app.User("alice")
	app.AddMember(acme, alice, teamauth.RoleOwner)
	token := app.Token(alice)
	create := kittest.Scenario{Method: "POST", URL: "/api/teams/{acme}/app-notes", Token: token, Body: `{"body":"hi"}`}

	cases := []struct {
		name string
		edit func(*kittest.Scenario)
		// wantError is a phrase of the one failure the scenario must
		// report; empty means it passes.
		wantError string
	}{
		{"a scenario whose expectations hold passes", func(s *kittest.Scenario) {
			s.ExpectedStatus = 201
			s.ExpectedContent = []string{`"body":"hi"`, `"owner":"{alice}"`}
			s.NotExpectedContent = []string{`"body":"bye"`}
			s.ExpectedMutations = map[string]int{"create appNotes": 1}
			s.ExpectedRowsChanged = map[string]int{"appNotes": 1}
		}, ""},
		{"a wrong status fails", func(s *kittest.Scenario) { s.ExpectedStatus = 200 }, "status: got 201, want 200"},
		{"a missing status fails", func(s *kittest.Scenario) {}, "no ExpectedStatus"},
		{"content the body lacks fails", func(s *kittest.Scenario) {
			s.ExpectedStatus = 201
			s.ExpectedContent = []string{`"body":"bye"`}
		}, `want it to contain "\"body\":\"bye\""`},
		{"content the body must not have fails", func(s *kittest.Scenario) {
			s.ExpectedStatus = 201
			s.NotExpectedContent = []string{`"teamId":"{acme}"`}
		}, "want it not to contain"},
		{"a mutation that did not happen fails", func(s *kittest.Scenario) {
			s.ExpectedStatus = 201
			s.ExpectedMutations = map[string]int{"update appNotes": 1}
		}, "mutations committed: got map[create appNotes:1], want map[update appNotes:1]"},
		{"expecting no mutation fails when one commits", func(s *kittest.Scenario) {
			s.ExpectedStatus = 201
			s.ExpectedMutations = map[string]int{}
		}, "mutations committed: got map[create appNotes:1], want map[]"},
		{"a wrong row count fails", func(s *kittest.Scenario) {
			s.ExpectedStatus = 201
			s.ExpectedRowsChanged = map[string]int{"appNotes": 2}
		}, "rows changed: got map[appNotes:1], want map[appNotes:2]"},
		{"expecting no changed row fails when one is added", func(s *kittest.Scenario) {
			s.ExpectedStatus = 201
			s.ExpectedRowsChanged = map[string]int{}
		}, "rows changed: got map[appNotes:1], want map[]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := create
			c.edit(&s)
			rec := &recorder{TB: t}
			s.Test(rec, app)
			switch {
			case c.wantError == "" && len(rec.errors) > 0:
				t.Errorf("got failures %q, want none", rec.errors)
			case c.wantError != "" && (len(rec.errors) != 1 || !strings.Contains(rec.errors[0], c.wantError)):
				t.Errorf("got failures %q, want one containing %q", rec.errors, c.wantError)
			}
		})
	}
}

func TestScenarioRowsChangedSeesUpdatesAndDeletes(t *testing.T) {
	app := kittest.NewApp(t, kit.Config{Definitions: notes})
	acme := app.Team("acme")
	alice := app.User("alice")
	actor := app.AddMember(acme, alice, teamauth.RoleOwner)
	token := app.Token(alice)
	note, err := app.Kit.Records("appNotes").Create(t.Context(), actor, map[string]any{"body": "first"})
	if err != nil {
		t.Fatal(err)
	}
	app.IDs["note"] = note["id"].(string)
	for _, s := range []kittest.Scenario{
		{Name: "an update changes one row", Method: "PATCH", URL: "/api/teams/acme/app-notes/{note}", Token: token,
			Body: `{"body":"second"}`, ExpectedStatus: 200, ExpectedContent: []string{`"body":"second"`},
			ExpectedMutations: map[string]int{"update appNotes": 1}, ExpectedRowsChanged: map[string]int{"appNotes": 1}},
		{Name: "a read changes nothing", URL: "/api/teams/acme/app-notes?ids={note}", Token: token,
			ExpectedStatus: 200, ExpectedContent: []string{`"body":"second"`}, ExpectedMutations: map[string]int{}, ExpectedRowsChanged: map[string]int{}},
		{Name: "a delete removes one row", Method: "DELETE", URL: "/api/teams/acme/app-notes/{note}", Token: token,
			ExpectedStatus: 204, ExpectedMutations: map[string]int{"delete appNotes": 1}, ExpectedRowsChanged: map[string]int{"appNotes": 1}},
		{Name: "the deleted note is gone", URL: "/api/teams/acme/app-notes?ids={note}", Token: token,
			ExpectedStatus: 200, NotExpectedContent: []string{"{note}"}, BeforeTest: func(t testing.TB, app *kittest.App) { app.ResetMutations() },
			AfterTest: func(t testing.TB, app *kittest.App, res *kittest.Response) {
				if got := len(app.Mutations()); got != 0 {
					t.Errorf("mutations after ResetMutations and a read: got %d, want 0", got)
				}
			}},
	} {
		s.Run(t, app)
	}
}

func TestNewKitGivesEachTestItsOwnDatabase(t *testing.T) {
	var first *kit.Kit
	t.Run("a team made in one test", func(t *testing.T) {
		first = kittest.NewKit(t, kit.Config{Definitions: notes})
		if _, err := first.Accounts().CreateTeam(t.Context(), teamauth.Team{Name: "Acme", Slug: "acme"}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("is not seen by the next", func(t *testing.T) {
		k := kittest.NewKit(t, kit.Config{Definitions: notes})
		teams, err := k.Accounts().Teams(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if len(teams) != 0 {
			t.Errorf("teams in a fresh Kit: got %d, want 0", len(teams))
		}
	})
	t.Run("and the first Kit is closed when its test ends", func(t *testing.T) {
		if err := first.DB().PingContext(context.Background()); err == nil {
			t.Error("ping the first Kit's database after its test: got nil, want an error")
		}
	})
}

func TestNewAppServesTheAPIUnderTheKitsPrefix(t *testing.T) {
	app := kittest.NewApp(t, kit.Config{Definitions: notes, Prefix: "/v1"})
	res, err := app.Server.Client().Get(app.URL("/v1/teams/acme/app-notes"))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET /v1/teams/acme/app-notes without a token: got %d, want %d", res.StatusCode, http.StatusUnauthorized)
	}
}

func TestAppHelpersRecordIDsForPlaceholders(t *testing.T) {
	app := kittest.NewApp(t, kit.Config{Definitions: notes})
	team := app.Team("acme")
	user := app.User("alice")
	admin := app.Admin("root")
	if admin.Role != teamauth.UserRoleAdmin {
		t.Errorf("Admin's role: got %q, want %q", admin.Role, teamauth.UserRoleAdmin)
	}
	got := app.Expand("/teams/{acme}/users/{alice}/{root}/{unknown}")
	want := "/teams/" + team.ID + "/users/" + user.ID + "/" + admin.ID + "/{unknown}"
	if got != want {
		t.Errorf("Expand: got %q, want %q", got, want)
	}
}
