package external_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/collectionkit/kit/external"
	"github.com/collectionkit/kit/internal/testkit"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// person is a user of an outside directory: the source of the external
// collections below.
type person struct {
	ID, Name, Team, Role, Email string
	Banned                      bool
}

var people = []person{
	{ID: "p-ada", Name: "Ada", Team: "acme", Role: "admin", Email: "ada@acme.test"},
	{ID: "p-bob", Name: "Bob", Team: "acme", Role: "member", Email: "bob@acme.test"},
	{ID: "p-cyd", Name: "Cyd", Team: "acme", Role: "member", Email: "cyd@acme.test", Banned: true},
	{ID: "p-dee", Name: "Dee", Team: "globex", Role: "member", Email: "dee@globex.test"},
}

func personItem(p person) (external.Item, error) {
	return external.Item{"id": p.ID, "title": p.Name, "role": p.Role, "email": p.Email, "banned": p.Banned}, nil
}

// filterPeople applies the route-defined query parameters: role (a string)
// and includeBanned (a boolean as a string; anything but "true" or "false"
// is a 400 naming it).
func filterPeople(r *http.Request, in []person) ([]person, error) {
	q := r.URL.Query()
	includeBanned := false
	switch v := q.Get("includeBanned"); v {
	case "", "false":
	case "true":
		includeBanned = true
	default:
		return nil, &kit.Error{Status: http.StatusBadRequest, Message: `includeBanned must be "true" or "false"`,
			Data: map[string]any{"param": "includeBanned"}}
	}
	role := q.Get("role")
	var out []person
	for _, p := range in {
		if (p.Banned && !includeBanned) || (role != "" && p.Role != role) {
			continue
		}
		out = append(out, p)
	}
	return out, nil
}

// fetchTeamPeople lists the people of the route's team: the team guard
// put the caller's access in the context.
func fetchTeamPeople(r *http.Request) ([]person, error) {
	acc, ok := teamauth.AccessFrom(r.Context())
	if !ok {
		return nil, errors.New("no team access")
	}
	var mine []person
	for _, p := range people {
		if p.Team == acc.Team.Slug {
			mine = append(mine, p)
		}
	}
	return filterPeople(r, mine)
}

const peopleSchema = `{"properties": {
	"email": {"type": "string", "format": "email"},
	"role": {"enum": ["admin", "member"]},
	"banned": {"type": "boolean"}
}, "required": ["email"]}`

// mountPeopleRoutes registers teamUsers (query) and teamAccounts (restful)
// and mounts the admin, self and HandleTeam examples.
func mountPeopleRoutes(t *testing.T, f *fixture) {
	t.Helper()
	k := f.k
	users, err := external.DefineExternalCollection(external.Config{
		Name:    "teamUsers",
		Schema:  json.RawMessage(peopleSchema),
		Meta:    external.Meta{Label: "Team users", Description: "People of the team, from the directory"},
		Handler: external.CreateExternalCollectionHandler(fetchTeamPeople, personItem),
	})
	if err != nil {
		t.Fatal(err)
	}
	accounts, err := external.DefineExternalCollection(external.Config{
		Name:          "teamAccounts",
		FetchStrategy: "restful",
		Handler:       external.CreateExternalCollectionHandler(fetchTeamPeople, personItem),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := external.Register(t.Context(), k, users, accounts); err != nil {
		t.Fatal(err)
	}

	// /api/admin/people: every team's people, for super-admins.
	allPeople := external.CreateExternalCollectionHandler(func(r *http.Request) ([]person, error) {
		return filterPeople(r, people)
	}, personItem, external.WithLogger(k.Config().Logger))
	k.Handle(http.MethodGet, "/admin/people", k.Auth().RequireAdmin()(allPeople))

	// /api/users/{user}/teams: the caller's own teams, from kit's accounts.
	ownTeams := external.CreateExternalCollectionHandler(func(r *http.Request) ([]teamauth.Team, error) {
		return k.Accounts().TeamsOfUser(r.Context(), r.PathValue("user"))
	}, func(tm teamauth.Team) (external.Item, error) {
		return external.Item{"id": tm.ID, "title": tm.Name, "slug": tm.Slug}, nil
	})
	k.Handle(http.MethodGet, "/users/{user}/teams", k.Auth().RequireSelf()(ownTeams))

	// /api/teams/{team}/teamMembers: kit's memberships, behind HandleTeam,
	// whose handler gets the resolved access as an argument.
	k.HandleTeam(http.MethodGet, "teamMembers", func(w http.ResponseWriter, r *http.Request, acc *teamauth.Access) {
		external.CreateExternalCollectionHandler(func(r *http.Request) ([]teamauth.Membership, error) {
			all, err := k.Accounts().Members(r.Context(), acc.Team.ID)
			if err != nil {
				return nil, err
			}
			role := r.URL.Query().Get("role")
			return slices.DeleteFunc(all, func(m teamauth.Membership) bool { return role != "" && string(m.Role) != role }), nil
		}, func(m teamauth.Membership) (external.Item, error) {
			u, err := k.Accounts().User(r.Context(), m.UserID)
			if err != nil {
				return nil, err
			}
			return external.Item{"id": u.ID, "title": u.Name, "role": string(m.Role)}, nil
		}).ServeHTTP(w, r)
	})
}

func TestHandlerRoutes(t *testing.T) {
	f := newFixture(t, nil, mountPeopleRoutes)
	f.run(t, []scenario{
		{name: "a member lists the team's users without the banned ones", path: "/api/teams/acme/teamUsers", caller: "mia", status: 200,
			ids: []string{"p-ada", "p-bob"}, contains: []string{`"title":"Ada"`, `"email":"ada@acme.test"`}},
		{name: "the team may be named by id as well as by slug", path: "/api/teams/{acme}/teamUsers", caller: "mia", status: 200,
			ids: []string{"p-ada", "p-bob"}},
		{name: "includeBanned=true adds the banned users", path: "/api/teams/acme/teamUsers?includeBanned=true", caller: "mia", status: 200,
			ids: []string{"p-ada", "p-bob", "p-cyd"}},
		{name: "includeBanned=false leaves them out", path: "/api/teams/acme/teamUsers?includeBanned=false", caller: "mia", status: 200,
			ids: []string{"p-ada", "p-bob"}},
		{name: "role keeps the users of that role", path: "/api/teams/acme/teamUsers?role=member", caller: "mia", status: 200,
			ids: []string{"p-bob"}},
		{name: "role and includeBanned combine", path: "/api/teams/acme/teamUsers?role=member&includeBanned=true", caller: "mia", status: 200,
			ids: []string{"p-bob", "p-cyd"}},
		{name: "an includeBanned that is no boolean answers 400 naming it", path: "/api/teams/acme/teamUsers?includeBanned=yes", caller: "mia", status: 400,
			contains: []string{`"statusText":"Bad Request"`, `includeBanned must be`, `"param":"includeBanned"`}},
		{name: "ids answers those items in the order asked", path: "/api/teams/acme/teamUsers?ids=p-bob,p-ada", caller: "mia", status: 200,
			ids: []string{"p-bob", "p-ada"}},
		{name: "ids leaves out unknown ids and other teams' items", path: "/api/teams/acme/teamUsers?ids=nobody,p-dee,p-ada", caller: "mia", status: 200,
			ids: []string{"p-ada"}},
		{name: "ids naming nothing known answers an empty array", path: "/api/teams/acme/teamUsers?ids=nobody", caller: "mia", status: 200,
			ids: []string{}},
		{name: "a repeated id is answered once", path: "/api/teams/acme/teamUsers?ids=p-bob,p-bob", caller: "mia", status: 200,
			ids: []string{"p-bob"}},
		{name: "ids with an empty entry answers 400", path: "/api/teams/acme/teamUsers?ids=p-ada,,p-bob", caller: "mia", status: 400,
			contains: []string{`"param":"ids"`}},
		{name: "ids still goes through the route's filters", path: "/api/teams/acme/teamUsers?ids=p-cyd", caller: "mia", status: 200,
			ids: []string{}},
		{name: "another team's member sees that team's users", path: "/api/teams/globex/teamUsers", caller: "gina", status: 200,
			ids: []string{"p-dee"}},
		{name: "a non-member is refused", path: "/api/teams/acme/teamUsers", caller: "gina", status: 403,
			contains: []string{"not a member"}, absent: []string{"p-ada"}},
		{name: "an anonymous caller is refused", path: "/api/teams/acme/teamUsers", status: 401},
		{name: "an unknown team answers 404", path: "/api/teams/nowhere/teamUsers", caller: "mia", status: 404,
			contains: []string{"team not found"}},
		{name: "the query strategy answers /{id} with 404 in kit's error shape", path: "/api/teams/acme/teamUsers/p-ada", caller: "mia", status: 404,
			contains: []string{`"status":404`, `"statusText":"Not Found"`, "fetchStrategy query"}},
		{name: "the restful strategy answers /{id} with the item", path: "/api/teams/acme/teamAccounts/p-ada", caller: "mia", status: 200,
			id: "p-ada", contains: []string{`"title":"Ada"`}},
		{name: "the restful strategy answers an unknown id with 404", path: "/api/teams/acme/teamAccounts/nobody", caller: "mia", status: 404,
			contains: []string{"record not found"}},
		{name: "the restful strategy answers another team's id with 404", path: "/api/teams/acme/teamAccounts/p-dee", caller: "mia", status: 404},
		{name: "the restful strategy still answers ?ids= with an array", path: "/api/teams/acme/teamAccounts?ids=p-bob", caller: "mia", status: 200,
			ids: []string{"p-bob"}},
		{name: "a restful /{id} for a non-member is refused before anything else", path: "/api/teams/acme/teamAccounts/p-ada", caller: "gina", status: 403},

		{name: "an admin lists every team's people", path: "/api/admin/people", caller: "root", status: 200,
			ids: []string{"p-ada", "p-bob", "p-dee"}},
		{name: "an admin route takes the route's query parameters", path: "/api/admin/people?role=member&includeBanned=true", caller: "root", status: 200,
			ids: []string{"p-bob", "p-cyd", "p-dee"}},
		{name: "an admin route answers a bad includeBanned with 400", path: "/api/admin/people?includeBanned=1x", caller: "root", status: 400},
		{name: "a team owner who is no admin is refused the admin route", path: "/api/admin/people", caller: "alice", status: 403,
			contains: []string{"admin role required"}},
		{name: "an anonymous caller is refused the admin route", path: "/api/admin/people", status: 401},

		{name: "a user lists their own teams", path: "/api/users/{mia}/teams", caller: "mia", status: 200,
			ids: []string{"{acme}"}, contains: []string{`"title":"Acme"`}},
		{name: "a user's own teams answer ?ids=", path: "/api/users/{gina}/teams?ids={acme},{globex}", caller: "gina", status: 200,
			ids: []string{"{globex}"}},
		{name: "another user's teams are refused", path: "/api/users/{gina}/teams", caller: "mia", status: 403,
			contains: []string{"another user's data"}},

		{name: "a HandleTeam route lists the team's members", path: "/api/teams/acme/teamMembers", caller: "alice", status: 200,
			ids: []string{"{alice}", "{adam}", "{mia}", "{ben}"}},
		{name: "a HandleTeam route takes its role parameter", path: "/api/teams/acme/teamMembers?role=admin", caller: "mia", status: 200,
			ids: []string{"{adam}"}},
		{name: "a HandleTeam route refuses a non-member", path: "/api/teams/acme/teamMembers", caller: "gina", status: 403},
	})

	t.Run("a write to the external collection is not allowed", func(t *testing.T) {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, f.srv.URL+"/api/teams/acme/teamUsers", strings.NewReader(`{"title":"x"}`))
		req.Header.Set("Authorization", "Bearer "+f.tokens["mia"])
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("got status %d, want 405", res.StatusCode)
		}
	})
}

// statusError is a host's own error type carrying a status.
type statusError struct {
	status int
	msg    string
}

func (e *statusError) Error() string   { return e.msg }
func (e *statusError) HTTPStatus() int { return e.status }

func TestHandlerErrors(t *testing.T) {
	failing := func(err error) func(*http.Request) ([]person, error) {
		return func(*http.Request) ([]person, error) { return nil, err }
	}
	cases := []struct {
		name        string
		fetch       func(*http.Request) ([]person, error)
		status      int
		message     string
		data        map[string]any
		secret      string // must not reach the client, must reach the log
		wantLogLine string
	}{
		{name: "a typed 502 from the source keeps its status and hides its cause",
			fetch:  failing(&kit.Error{Status: 502, Message: "directory down", Err: errors.New("dial tcp 10.0.0.7:389: connection refused")}),
			status: 502, message: "Bad Gateway", secret: "10.0.0.7", wantLogLine: "kit: request failed"},
		{name: "a host error type carrying 503 keeps its status",
			fetch:  failing(fmt.Errorf("list people: %w", &statusError{status: 503, msg: "directory in maintenance"})),
			status: 503, message: "Service Unavailable", secret: "list people", wantLogLine: "directory in maintenance"},
		{name: "a wrapped 4xx shows its own message and data",
			fetch:  failing(fmt.Errorf("lookup: %w", &kit.Error{Status: 404, Message: "no such directory", Data: map[string]any{"directory": "corp"}})),
			status: 404, message: "no such directory", data: map[string]any{"directory": "corp"}},
		{name: "teamauth's sentinels keep their status",
			fetch:  failing(teamauth.ErrNotMember),
			status: 403, message: "not a member of this team"},
		{name: "a plain error is a 500 without detail, logged",
			fetch:  failing(errors.New("query postgres://svc:hunter2@db/people: timeout")),
			status: 500, message: "Internal Server Error", secret: "hunter2", wantLogLine: "hunter2"},
		{name: "a panicking fetch is a logged 500",
			fetch:  func(*http.Request) ([]person, error) { panic("nil directory client") },
			status: 500, message: "Internal Server Error", secret: "nil directory client", wantLogLine: "fetch panicked"},
	}
	f := newFixture(t, nil, func(t *testing.T, f *fixture) {
		for i, c := range cases {
			h := external.CreateExternalCollectionHandler(c.fetch, personItem, external.WithLogger(f.k.Config().Logger))
			f.k.Handle(http.MethodGet, fmt.Sprintf("/sources/%d", i), f.k.Auth().RequireUser()(h))
		}
	})
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := f.get(t, fmt.Sprintf("/api/sources/%d", i), "mia")
			if res.status != c.status {
				t.Fatalf("got status %d, want %d (body %s)", res.status, c.status, res.body)
			}
			if ct := res.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("got Content-Type %q, want JSON", ct)
			}
			var body errorBody
			testkit.DecodeJSON(t, res.body, &body)
			if body.Status != c.status || body.StatusText != http.StatusText(c.status) || body.Message != c.message {
				t.Errorf("got body %+v, want status %d, statusText %q, message %q", body, c.status, http.StatusText(c.status), c.message)
			}
			if fmt.Sprint(body.Data) != fmt.Sprint(c.data) && !(body.Data == nil && c.data == nil) {
				t.Errorf("got data %v, want %v", body.Data, c.data)
			}
			if c.secret != "" && strings.Contains(res.body, c.secret) {
				t.Errorf("body %s: got %q, want no internal detail", res.body, c.secret)
			}
			if c.wantLogLine != "" && len(f.logLines(c.wantLogLine)) == 0 {
				t.Errorf("log %q: got no line with %q, want one", f.logs.String(), c.wantLogLine)
			}
		})
	}
}

// userID is a host's named string type; its values are JSON strings.
type userID string

func TestHandlerSkipsInvalidItems(t *testing.T) {
	users, err := external.DefineExternalCollection(external.Config{Name: "strictUsers", Schema: json.RawMessage(peopleSchema)})
	if err != nil {
		t.Fatal(err)
	}
	items := []external.Item{
		{"id": "ok-1", "title": "Fine", "email": "fine@example.com"},
		{"title": "No id", "email": "x@example.com"},
		{"id": 42, "title": "Numeric id", "email": "x@example.com"},
		{"id": "", "title": "Empty id", "email": "x@example.com"},
		{"id": "no-title", "email": "x@example.com"},
		{"id": "num-title", "title": 7, "email": "x@example.com"},
		{"id": userID("ok-2"), "title": "Named string id", "email": "named@example.com"},
		{"id": "no-email", "title": "Breaks the schema"},
		{"id": "bad-role", "title": "Breaks the schema too", "email": "r@example.com", "role": "owner"},
		{"id": "no-json", "title": "Cannot encode", "email": "c@example.com", "extra": make(chan int)},
		nil,
	}
	f := newFixture(t, nil, func(t *testing.T, f *fixture) {
		list := func(*http.Request) ([]external.Item, error) { return items, nil }
		f.k.Handle(http.MethodGet, "/strict", f.k.Auth().RequireUser()(
			external.CreateExternalCollectionHandler(list, nil, external.WithSchema(users), external.WithLogger(f.k.Config().Logger))))
		f.k.Handle(http.MethodGet, "/loose", f.k.Auth().RequireUser()(
			external.CreateExternalCollectionHandler(list, nil, external.WithLogger(f.k.Config().Logger))))
	})
	t.Run("items without a string id or title, or breaking the schema, are skipped", func(t *testing.T) {
		res := f.get(t, "/api/strict", "mia")
		if res.status != 200 {
			t.Fatalf("got status %d, want 200 (body %s)", res.status, res.body)
		}
		if got, want := arrayIDs(t, res.body), []string{"ok-1", "ok-2"}; !slices.Equal(got, want) {
			t.Errorf("got ids %v, want %v", got, want)
		}
	})
	t.Run("each skipped item is logged with its index and reason", func(t *testing.T) {
		lines := f.logLines("external: item skipped")
		if got, want := len(lines), 9; got != want {
			t.Fatalf("got %d skip lines, want %d:\n%s", got, want, strings.Join(lines, "\n"))
		}
		for _, want := range []string{"index=1 ", `"id\" must be a non-empty string`, "index=5 ", `"title\" must be a string`,
			"index=7 ", "missing property 'email'", "index=9 ", "cannot be encoded as JSON", "index=10 ", "the item is null"} {
			if !strings.Contains(strings.Join(lines, "\n"), want) {
				t.Errorf("skip lines: got no %q, want it:\n%s", want, strings.Join(lines, "\n"))
			}
		}
	})
	t.Run("without a schema only id and title are required", func(t *testing.T) {
		res := f.get(t, "/api/loose", "mia")
		if got, want := arrayIDs(t, res.body), []string{"ok-1", "ok-2", "no-email", "bad-role"}; !slices.Equal(got, want) {
			t.Errorf("got ids %v, want %v", got, want)
		}
	})
}

func TestHandlerOutsideKit(t *testing.T) {
	h := external.CreateExternalCollectionHandler(func(r *http.Request) ([]person, error) {
		if r.Header.Get("X-Directory") != "corp" {
			return nil, &kit.Error{Status: http.StatusBadRequest, Message: "X-Directory header required"}
		}
		return people, nil
	}, personItem)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	send := func(t *testing.T, method, query string, header ...string) (int, http.Header, string) {
		req, _ := http.NewRequestWithContext(t.Context(), method, srv.URL+query, nil)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, res.Header, string(b)
	}
	t.Run("fetch sees the request's headers", func(t *testing.T) {
		status, _, body := send(t, http.MethodGet, "/?ids=p-dee,p-ada", "X-Directory", "corp")
		if status != 200 {
			t.Fatalf("got status %d, want 200 (body %s)", status, body)
		}
		if got, want := arrayIDs(t, body), []string{"p-dee", "p-ada"}; !slices.Equal(got, want) {
			t.Errorf("got ids %v, want %v", got, want)
		}
		status, _, body = send(t, http.MethodGet, "/")
		if status != 400 || !strings.Contains(body, "X-Directory header required") {
			t.Errorf("without the header: got %d %s, want 400 naming the header", status, body)
		}
	})
	t.Run("a method other than GET answers 405 with Allow", func(t *testing.T) {
		status, header, body := send(t, http.MethodDelete, "/")
		if status != 405 || header.Get("Allow") != "GET, HEAD" || !strings.Contains(body, `"status":405`) {
			t.Errorf("got %d Allow %q %s, want 405 Allow \"GET, HEAD\" in kit's error shape", status, header.Get("Allow"), body)
		}
	})
	t.Run("an empty source answers an empty array, not null", func(t *testing.T) {
		empty := httptest.NewServer(external.CreateExternalCollectionHandler(func(*http.Request) ([]external.Item, error) { return nil, nil }, nil))
		defer empty.Close()
		res, err := http.Get(empty.URL)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if got := strings.TrimSpace(string(b)); got != "[]" {
			t.Errorf("got %s, want []", got)
		}
	})
	t.Run("setup mistakes panic", func(t *testing.T) {
		for name, build := range map[string]func(){
			"nil fetch": func() { external.CreateExternalCollectionHandler[person](nil, personItem) },
			"nil transform for a type that is no Item": func() {
				external.CreateExternalCollectionHandler(func(*http.Request) ([]person, error) { return nil, nil }, nil)
			},
		} {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s: got no panic, want one", name)
					}
				}()
				build()
			}()
		}
	})
}

// unmadeIndex returns a map that was never made, as a transform with a
// forgotten make would use.
func unmadeIndex() map[string]int { return nil }
