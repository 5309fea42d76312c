package kit_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// A host app opens a Kit, creates its first team, user, membership and
// password in Go, writes a record as that user and serves the HTTP API:
// the program of the README's first example.
func Example_firstTeam() {
	ctx := context.Background()
	k, err := kit.Open(ctx, kit.Config{
		SQLitePath: ":memory:example-first-team", // default: kit.db beside the program
		Logger:     slog.New(slog.DiscardHandler),
		Definitions: []collections.Definition{{Name: "products", Layer: "shop", Fields: []collections.Field{
			{Name: "title", Type: collections.TypeString, Meta: collections.FieldMeta{Required: true}},
		}}},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer k.Close()

	acc := k.Accounts()
	team, _ := acc.CreateTeam(ctx, teamauth.Team{Name: "Acme", Slug: "acme"})
	ann, _ := acc.CreateUser(ctx, teamauth.User{Name: "Ann", Email: "ann@example.com"})
	_, _ = acc.AddMember(ctx, team.ID, ann.ID, teamauth.RoleOwner)
	if err := acc.SetPassword(ctx, ann.ID, "a long passphrase"); err != nil {
		log.Fatal(err)
	}
	actor := kit.Actor{UserID: ann.ID, TeamID: team.ID, Role: teamauth.RoleOwner}
	rec, err := k.Records("shopProducts").Create(ctx, actor, map[string]any{"title": "Lamp"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(rec["title"])

	mux := http.NewServeMux()
	mux.Handle("/api/", k.Handler()) // then http.ListenAndServe(addr, mux)
	res := httptest.NewRecorder()
	mux.ServeHTTP(res, httptest.NewRequest("GET", "/api/teams/acme/shop-products", nil))
	fmt.Println(res.Code) // no credentials: sign in at POST /api/auth/login first
	// Output:
	// Lamp
	// 401
}
