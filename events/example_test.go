package events_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/events"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// Install the add-on, change a record over HTTP, and read the team's
// audit trail.
func Example() {
	ctx := context.Background()
	k, err := kit.Open(ctx, kit.Config{
		SQLitePath: ":memory:example-events",
		Definitions: []collections.Definition{{Name: "tasks", Fields: []collections.Field{
			{Name: "title", Type: collections.TypeString, Meta: collections.FieldMeta{Required: true}},
			{Name: "isDone", Type: collections.TypeBoolean},
		}}},
	})
	if err != nil {
		panic(err)
	}
	defer k.Close()
	if _, err := events.Install(ctx, k, events.Config{}); err != nil {
		panic(err)
	}

	team, _ := k.Accounts().CreateTeam(ctx, teamauth.Team{Name: "Acme", Slug: "acme"})
	user, _ := k.Accounts().CreateUser(ctx, teamauth.User{Name: "Alice"})
	k.Accounts().AddMember(ctx, team.ID, user.ID, teamauth.RoleOwner)
	token, _, _ := k.Accounts().CreateToken(ctx, user.ID, "example")

	srv := httptest.NewServer(k.Handler())
	defer srv.Close()
	send := func(method, path, body string) *http.Response {
		req, _ := http.NewRequest(method, srv.URL+"/api/teams/acme/"+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		return res
	}

	res := send("POST", "app-tasks", `{"title":"Write the docs"}`)
	var task map[string]any
	json.NewDecoder(res.Body).Decode(&task)
	res.Body.Close()
	send("PATCH", "app-tasks/"+task["id"].(string), `{"isDone":true}`).Body.Close()

	res = send("GET", "kit-events?collectionName=appTasks", "")
	defer res.Body.Close()
	var page events.EventPage
	json.NewDecoder(res.Body).Decode(&page)
	for _, e := range page.Items {
		fmt.Printf("%s by %s:", e.Operation, e.UserName)
		for _, c := range e.Changes {
			old := "null"
			if c.OldValue != nil {
				old = *c.OldValue
			}
			fmt.Printf(" %s %s -> %s", c.FieldName, old, *c.NewValue)
		}
		fmt.Println()
	}
	// Output:
	// update by Alice: isDone null -> true
	// create by Alice: title null -> "Write the docs"
}
