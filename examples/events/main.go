// Command events serves a small task list with kit's audit add-on: every
// create, update and delete is recorded, in the same transaction, and
// readable at /api/teams/acme/kit-events.
//
//	go run ./examples/events [--addr 127.0.0.1:8080] [--db events-example.db] [--dev] [--mode toast|silent|throw]
//
// It seeds a team (acme), a user and an API token on first start, and
// prints curl lines to try. Retention cleanup runs every hour; stop it with
// Ctrl-C.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"
	"time"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/events"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on")
	db := flag.String("db", "events-example.db", "SQLite database path")
	dev := flag.Bool("dev", false, "development mode: toast mode tells callers about tracking failures in a header")
	mode := flag.String("mode", "toast", "error mode: toast, silent or throw")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	k, err := kit.Open(ctx, kit.Config{
		SQLitePath: *db,
		Dev:        *dev,
		Definitions: []collections.Definition{{Name: "tasks", Fields: []collections.Field{
			{Name: "title", Type: collections.TypeString, Meta: collections.FieldMeta{Required: true}},
			{Name: "isDone", Type: collections.TypeBoolean},
		}}},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer k.Close()

	// The zero Config is the spec's defaults; set only what differs.
	tracker, err := events.Install(ctx, k, events.Config{ErrorHandling: events.ErrorHandling{Mode: events.Mode(*mode)}})
	if err != nil {
		log.Fatal(err)
	}

	token, err := seed(ctx, k)
	if err != nil {
		log.Fatal(err)
	}
	retention := tracker.StartRetention(ctx, time.Hour)

	mux := http.NewServeMux()
	mux.Handle("/api/", k.Handler())
	srv := &http.Server{Addr: *addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shutdown)
	}()

	base := "http://" + *addr + "/api/teams/acme"
	fmt.Printf("events %s (%s) on http://%s/api\n\n", events.Version, events.Stability, *addr)
	fmt.Printf("curl -H 'Authorization: Bearer %s' -H 'Content-Type: application/json' -d '{\"title\":\"Try kit\"}' %s/app-tasks\n", token, base)
	fmt.Printf("curl -H 'Authorization: Bearer %s' '%s/kit-events?enrichUserData=true'\n\n", token, base)
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
	<-retention
	h := tracker.Health()
	fmt.Printf("tracked %d mutations, %d failed\n", h.Total, h.Failed)
}

// seed creates the acme team and its owner once, and returns a new token
// for the owner on every start.
func seed(ctx context.Context, k *kit.Kit) (string, error) {
	acc := k.Accounts()
	team, err := acc.Team(ctx, "acme")
	if errors.Is(err, teamauth.ErrTeamNotFound) {
		if team, err = acc.CreateTeam(ctx, teamauth.Team{Name: "Acme", Slug: "acme"}); err != nil {
			return "", err
		}
		user, err := acc.CreateUser(ctx, teamauth.User{Name: "Alice"})
		if err != nil {
			return "", err
		}
		if _, err := acc.AddMember(ctx, team.ID, user.ID, teamauth.RoleOwner); err != nil {
			return "", err
		}
	} else if err != nil {
		return "", err
	}
	members, err := acc.Members(ctx, team.ID)
	if err != nil || len(members) == 0 {
		return "", fmt.Errorf("seed: no member in acme: %v", err)
	}
	token, _, err := acc.CreateToken(ctx, members[0].UserID, "events example")
	return token, err
}
