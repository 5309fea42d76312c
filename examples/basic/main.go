// Basic embeds kit in a program of its own: the collections of an embedded
// schemas folder, served on a standard library mux under /api/.
//
//	go run ./examples/basic [--addr 127.0.0.1:8080]
package main

import (
	"context"
	"embed"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"net/http"
	"time"

	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

//go:embed schemas
var schemaFiles embed.FS

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on")
	flag.Parse()
	if err := run(*addr); err != nil {
		log.Fatal(err)
	}
}

func run(addr string) error {
	schemas, err := fs.Sub(schemaFiles, "schemas")
	if err != nil {
		return err
	}
	// An in-memory database: every run starts afresh. Give a file path
	// ("tasks.db") to keep the data.
	ctx := context.Background()
	k, err := kit.Open(ctx, kit.Config{SQLitePath: ":memory:basic", Schemas: schemas})
	if err != nil {
		return err
	}
	defer k.Close()

	// A team, a user who owns it, and an API token for that user.
	accounts := k.Accounts()
	team, err := accounts.CreateTeam(ctx, teamauth.Team{Name: "Demo", Slug: "demo"})
	if err != nil {
		return err
	}
	user, err := accounts.CreateUser(ctx, teamauth.User{Name: "Ada", Email: "ada@example.com"})
	if err != nil {
		return err
	}
	if _, err := accounts.AddMember(ctx, team.ID, user.ID, teamauth.RoleOwner); err != nil {
		return err
	}
	token, _, err := accounts.CreateToken(ctx, user.ID, "example")
	if err != nil {
		return err
	}

	mux := http.NewServeMux()
	mux.Handle("/api/", k.Handler())

	tasks := fmt.Sprintf("http://%s/api/teams/%s/app-tasks", addr, team.Slug)
	fmt.Printf("curl -s -H 'Authorization: Bearer %s' -H 'Content-Type: application/json' -d '{\"title\":\"Try kit\",\"dueAt\":\"2030-01-01\"}' %s\n", token, tasks)
	fmt.Printf("curl -s -H 'Authorization: Bearer %s' %s\n", token, tasks)
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	return srv.ListenAndServe()
}
