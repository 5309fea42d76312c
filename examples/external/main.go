// Command external serves kit with two external collections: teamUsers, a
// directory of users kept in a Go slice, and catalog, a proxy over kit's
// own shop products that turns each product into an {id, title} option.
// A stored collection, tasks, refers to teamUsers.
//
//	go run ./examples/external           # serve on 127.0.0.1:8080, print a token
//	go run ./examples/external -demo     # make a few requests, print them, exit
//
// The routes it adds:
//
//	GET /api/teams/{team}/teamUsers      team members only (?role=, ?includeBanned=, ?ids=)
//	GET /api/teams/{team}/catalog        proxy of /api/teams/{team}/shop-products
//	GET /api/admin/teamUsers             super-admins only, every team's users
//	GET /api/users/{user}/teamUsers      the caller's own directory entries
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/external"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// directoryUser is an entry of the outside directory the example reads.
type directoryUser struct {
	ID, Name, Email, Team, Role string
	Banned                      bool
	KitUser                     string // the kit user this entry belongs to, set at seeding
}

// directory is the external data source: a Go slice.
var directory = []directoryUser{
	{ID: "u-ada", Name: "Ada Lovelace", Email: "ada@acme.test", Team: "acme", Role: "admin"},
	{ID: "u-bob", Name: "Bob Bell", Email: "bob@acme.test", Team: "acme", Role: "member"},
	{ID: "u-cyd", Name: "Cyd Charisse", Email: "cyd@acme.test", Team: "acme", Role: "member", Banned: true},
	{ID: "u-dee", Name: "Dee Dee", Email: "dee@globex.test", Team: "globex", Role: "member"},
}

func userItem(u directoryUser) (external.Item, error) {
	return external.Item{"id": u.ID, "title": u.Name, "email": u.Email, "role": u.Role, "banned": u.Banned}, nil
}

// filterUsers applies the route's query parameters: role, and
// includeBanned ("true" or "false"; anything else is a 400).
func filterUsers(r *http.Request, keep func(directoryUser) bool) ([]directoryUser, error) {
	q := r.URL.Query()
	includeBanned := false
	switch q.Get("includeBanned") {
	case "", "false":
	case "true":
		includeBanned = true
	default:
		return nil, &kit.Error{Status: http.StatusBadRequest, Message: `includeBanned must be "true" or "false"`,
			Data: map[string]any{"param": "includeBanned"}}
	}
	var out []directoryUser
	for _, u := range directory {
		if keep(u) && (includeBanned || !u.Banned) && (q.Get("role") == "" || q.Get("role") == u.Role) {
			out = append(out, u)
		}
	}
	return out, nil
}

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address")
	demo := flag.Bool("demo", false, "make a few requests against the server, print them and exit")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	// teamUsers: the users of the route's team. Register mounts the handler
	// behind team membership, so fetch finds the team in the context.
	teamUsers, err := external.DefineExternalCollection(external.Config{
		Name:   "teamUsers",
		Schema: map[string]any{"properties": map[string]any{"email": map[string]any{"type": "string"}}, "required": []string{"email"}},
		Meta:   external.Meta{Label: "Team users", Description: "People of the team, from the directory"},
		Handler: external.CreateExternalCollectionHandler(func(r *http.Request) ([]directoryUser, error) {
			acc, _ := teamauth.AccessFrom(r.Context())
			return filterUsers(r, func(u directoryUser) bool { return u.Team == acc.Team.Slug })
		}, userItem),
	})
	if err != nil {
		log.Fatal(err)
	}
	// catalog: kit's own products as options, fetched one by one at /{id}.
	catalog, err := external.DefineExternalCollection(external.Config{
		Name:          "catalog",
		FetchStrategy: "restful",
		Meta:          external.Meta{Label: "Catalog"},
		Proxy: &collections.Proxy{Enabled: true, SourceEndpoint: "shop-products",
			Transform: func(p map[string]any) (map[string]any, error) {
				return map[string]any{"id": p["id"], "title": fmt.Sprintf("%s (%s)", p["title"], p["sku"]), "price": p["price"]}, nil
			}},
	})
	if err != nil {
		log.Fatal(err)
	}

	k, err := kit.Open(ctx, kit.Config{
		SQLitePath: ":memory:external-example",
		Definitions: []collections.Definition{
			{Name: "products", Layer: "shop", Fields: []collections.Field{
				{Name: "title", Type: collections.TypeString, Meta: collections.FieldMeta{Required: true}},
				{Name: "sku", Type: collections.TypeString},
				{Name: "price", Type: collections.TypeDecimal, Meta: collections.FieldMeta{Precision: 10, Scale: 2}},
			}},
			{Name: "tasks", Fields: []collections.Field{
				{Name: "title", Type: collections.TypeString, Meta: collections.FieldMeta{Required: true}},
				{Name: "assigneeId", Type: collections.TypeString, RefTarget: "teamUsers"},
			}},
			teamUsers.Definition(), // tasks.assigneeId refers to it
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer k.Close()
	if err := external.Register(ctx, k, teamUsers, catalog); err != nil {
		log.Fatal(err)
	}

	// The same source at other places, behind other guards.
	everyone := external.CreateExternalCollectionHandler(func(r *http.Request) ([]directoryUser, error) {
		return filterUsers(r, func(directoryUser) bool { return true })
	}, userItem, external.WithLogger(k.Config().Logger))
	k.Handle(http.MethodGet, "/admin/teamUsers", k.Auth().RequireAdmin()(everyone))
	own := external.CreateExternalCollectionHandler(func(r *http.Request) ([]directoryUser, error) {
		return filterUsers(r, func(u directoryUser) bool { return u.KitUser == r.PathValue("user") })
	}, userItem, external.WithLogger(k.Config().Logger))
	k.Handle(http.MethodGet, "/users/{user}/teamUsers", k.Auth().RequireSelf()(own))

	token, adminToken, aliceID, err := seed(ctx, k)
	if err != nil {
		log.Fatal(err)
	}

	mux := http.NewServeMux()
	mux.Handle("/api/", k.Handler())
	if *demo {
		*addr = "127.0.0.1:0" // any free port
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()
	base := "http://" + ln.Addr().String()

	if *demo {
		for _, c := range []struct{ token, path string }{
			{token, "/api/teams/acme/teamUsers"},
			{token, "/api/teams/acme/teamUsers?includeBanned=true&role=member"},
			{token, "/api/teams/acme/teamUsers?ids=u-bob,nobody,u-ada"},
			{token, "/api/teams/acme/teamUsers?includeBanned=maybe"},
			{token, "/api/teams/acme/teamUsers/u-ada"},
			{token, "/api/teams/acme/catalog?pageSize=5"},
			{token, "/api/users/" + aliceID + "/teamUsers"},
			{token, "/api/admin/teamUsers"},
			{adminToken, "/api/admin/teamUsers?role=member"},
			{token, "/api/teams/globex/catalog"},
		} {
			fmt.Printf("GET %s\n  %s\n", c.path, get(base+c.path, c.token))
		}
		return
	}
	log.Printf("external example on %s/api (member token %s, admin token %s)", base, token, adminToken)
	log.Printf("try: curl -H 'Authorization: Bearer %s' '%s/api/teams/acme/teamUsers?includeBanned=true'", token, base)
	<-ctx.Done()
}

// seed creates the teams acme and globex, alice (acme owner, linked to
// the directory entry u-ada), a super-admin, and two products.
func seed(ctx context.Context, k *kit.Kit) (token, adminToken, aliceID string, err error) {
	acc := k.Accounts()
	acme, err := acc.CreateTeam(ctx, teamauth.Team{Name: "Acme", Slug: "acme"})
	if err != nil {
		return "", "", "", err
	}
	if _, err := acc.CreateTeam(ctx, teamauth.Team{Name: "Globex", Slug: "globex"}); err != nil {
		return "", "", "", err
	}
	alice, err := acc.CreateUser(ctx, teamauth.User{Name: "Alice"})
	if err != nil {
		return "", "", "", err
	}
	directory[0].KitUser = alice.ID
	if _, err := acc.AddMember(ctx, acme.ID, alice.ID, teamauth.RoleOwner); err != nil {
		return "", "", "", err
	}
	root, err := acc.CreateUser(ctx, teamauth.User{Name: "Root", Role: teamauth.UserRoleAdmin})
	if err != nil {
		return "", "", "", err
	}
	if token, _, err = acc.CreateToken(ctx, alice.ID, "example"); err != nil {
		return "", "", "", err
	}
	if adminToken, _, err = acc.CreateToken(ctx, root.ID, "example"); err != nil {
		return "", "", "", err
	}
	actor := kit.Actor{UserID: alice.ID, TeamID: acme.ID, Role: teamauth.RoleOwner}
	for _, p := range []map[string]any{{"title": "Hammer", "sku": "H-1", "price": "12.50"}, {"title": "Saw", "sku": "S-1", "price": "19.00"}} {
		if _, err := k.Records("shopProducts").Create(ctx, actor, p); err != nil {
			return "", "", "", err
		}
	}
	return token, adminToken, alice.ID, nil
}

func get(url, token string) string {
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err.Error()
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return fmt.Sprintf("%d %s", res.StatusCode, strings.TrimSpace(string(b)))
}
