package kit_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// seedExample creates a team, a member and a token, and returns the token.
func seedExample(k *kit.Kit) string {
	ctx := context.Background()
	team, _ := k.Accounts().CreateTeam(ctx, teamauth.Team{Name: "Acme", Slug: "acme"})
	user, _ := k.Accounts().CreateUser(ctx, teamauth.User{Name: "Alice"})
	k.Accounts().AddMember(ctx, team.ID, user.ID, teamauth.RoleOwner)
	token, _, _ := k.Accounts().CreateToken(ctx, user.ID, "example")
	return token
}

func call(url, method, token, body string) string {
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err.Error()
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	first, _, _ := strings.Cut(string(b), ":")
	return fmt.Sprintf("%d %s", res.StatusCode, first)
}

// Mount kit on the standard library's ServeMux.
func ExampleKit_Handler() {
	k, err := kit.New(kit.Config{
		SQLitePath: ":memory:example-servemux",
		Definitions: []collections.Definition{{Name: "tasks", Fields: []collections.Field{
			{Name: "title", Type: collections.TypeString, Meta: collections.FieldMeta{Required: true}},
		}}},
	})
	if err != nil {
		panic(err)
	}
	defer k.Close()
	token := seedExample(k)

	mux := http.NewServeMux()
	mux.Handle("/api/", k.Handler())
	srv := httptest.NewServer(mux)
	defer srv.Close()

	fmt.Println(call(srv.URL+"/api/teams/acme/app-tasks", "POST", token, `{"title":"Write docs"}`))
	fmt.Println(call(srv.URL+"/api/teams/acme/app-tasks", "GET", token, ""))
	fmt.Println(call(srv.URL+"/api/teams/acme/app-tasks", "GET", "wrong", ""))
	// Output:
	// 201 {"createdAt"
	// 200 {"items"
	// 401 {"status"
}

// Mount kit on a chi router. chi's Mount strips nothing from the path for
// handlers that are not chi routers, so mount the whole prefix and let kit
// route below it.
func Example_chi() {
	k, err := kit.New(kit.Config{
		SQLitePath: ":memory:example-chi",
		Definitions: []collections.Definition{{Name: "tasks", Fields: []collections.Field{
			{Name: "title", Type: collections.TypeString},
		}}},
	})
	if err != nil {
		panic(err)
	}
	defer k.Close()
	token := seedExample(k)

	r := chi.NewRouter()
	r.Mount("/api", k.Handler())
	r.Get("/healthz", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") })
	srv := httptest.NewServer(r)
	defer srv.Close()

	fmt.Println(call(srv.URL+"/api/teams/acme/app-tasks?pageSize=5", "GET", token, ""))
	// Output:
	// 200 {"items"
}
