package teamauth_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/collectionkit/kit/internal/store"
	"github.com/collectionkit/kit/teamauth"
)

// A store on SQLite holds a team, a user who is a member, and the user's API
// token; RequireTeamMember guards a team-scoped route with it.
func Example() {
	ctx := context.Background()
	db, err := store.OpenSQLite(":memory:example")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()

	st := teamauth.NewStore(db)
	if err := st.CreateTables(ctx); err != nil {
		log.Fatal(err)
	}
	team, err := st.CreateTeam(ctx, teamauth.Team{Name: "Acme Rockets"}) // slug "acme-rockets"
	if err != nil {
		log.Fatal(err)
	}
	ada, err := st.CreateUser(ctx, teamauth.User{Name: "Ada", Email: "ada@example.com"})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := st.AddMember(ctx, team.ID, ada.ID, teamauth.RoleMember); err != nil {
		log.Fatal(err)
	}
	token, _, err := st.CreateToken(ctx, ada.ID, "laptop")
	if err != nil {
		log.Fatal(err)
	}

	auth := &teamauth.Auth{Directory: st}
	mux := http.NewServeMux()
	mux.Handle("GET /teams/{team}/hello", auth.RequireTeamMember()(http.HandlerFunc(
		func(w http.ResponseWriter, r *http.Request) {
			acc, _ := teamauth.AccessFrom(r.Context())
			fmt.Fprintf(w, "hello %s, %s of %s\n", acc.User.Name, acc.Membership.Role, acc.Team.Name)
		})))

	get := func(path, token string) {
		r := httptest.NewRequest(http.MethodGet, path, nil)
		if token != "" {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, r)
		body, _ := io.ReadAll(w.Body)
		fmt.Printf("%d %s", w.Code, body)
	}
	get("/teams/acme-rockets/hello", token)
	get("/teams/"+team.ID+"/hello", token)
	get("/teams/acme-rockets/hello", "")
	get("/teams/acme-rockets/hello", "kit_forged")
	get("/teams/nowhere/hello", token)
	// Output:
	// 200 hello Ada, member of Acme Rockets
	// 200 hello Ada, member of Acme Rockets
	// 401 {"status":401,"statusText":"Unauthorized","message":"authentication required"}
	// 401 {"status":401,"statusText":"Unauthorized","message":"invalid token"}
	// 404 {"status":404,"statusText":"Not Found","message":"team not found"}
}
