package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// The collections the demo seeds, by registry key: those of
// examples/schemas (embedded as demo/schemas).
const (
	demoCategories = "shopCategories"
	demoProducts   = "shopProducts"
	demoPosts      = "blogPosts"
)

// demoData is what seedDemo made or found, and one login per demo user.
type demoData struct {
	reused bool // team acme existed: its data was kept
	logins []demoLogin
}

// demoLogin is a demo user's fresh API token and a GET request that works
// with it.
type demoLogin struct {
	who   string // "Alice, owner of acme"
	token string
	path  string // below the API prefix: "/teams/acme/shop-products"
	// email and password sign in with POST /auth/login.
	email, password string
}

// seedDemo makes the demo teams, users, memberships and records, each only
// when missing (teams by slug, users by email, records for a team with no
// products yet), so running it on a database it seeded before reuses that
// data. It always makes new tokens: the database keeps only their hashes.
func seedDemo(ctx context.Context, k *kit.Kit) (*demoData, error) {
	apiPath := map[string]string{}
	for _, key := range []string{demoCategories, demoProducts, demoPosts} {
		c, ok := k.Collections().Get(key)
		if !ok {
			return nil, fmt.Errorf("the demo data fills the collections of examples/schemas (%s, %s, %s), and %s is not among the loaded schemas",
				demoCategories, demoProducts, demoPosts, key)
		}
		apiPath[key] = c.APIPath()
	}
	acc := k.Accounts()
	_, err := acc.Team(ctx, "acme")
	d := &demoData{reused: err == nil}
	if err != nil && !errors.Is(err, teamauth.ErrTeamNotFound) {
		return nil, err
	}

	acme, err := ensureTeam(ctx, acc, "acme", "Acme Corporation")
	if err != nil {
		return nil, err
	}
	globex, err := ensureTeam(ctx, acc, "globex", "Globex Corporation")
	if err != nil {
		return nil, err
	}
	users, err := acc.Users(ctx)
	if err != nil {
		return nil, err
	}
	alice, err := ensureUser(ctx, acc, users, teamauth.User{Name: "Alice", Email: "alice@acme.example"})
	if err != nil {
		return nil, err
	}
	bob, err := ensureUser(ctx, acc, users, teamauth.User{Name: "Bob", Email: "bob@acme.example"})
	if err != nil {
		return nil, err
	}
	carol, err := ensureUser(ctx, acc, users, teamauth.User{Name: "Carol", Email: "carol@globex.example"})
	if err != nil {
		return nil, err
	}
	root, err := ensureUser(ctx, acc, users, teamauth.User{Name: "Root", Email: "root@kit.example", Role: teamauth.UserRoleAdmin})
	if err != nil {
		return nil, err
	}
	for _, m := range []struct {
		team *teamauth.Team
		user *teamauth.User
		role teamauth.Role
	}{
		{acme, alice, teamauth.RoleOwner},
		{acme, bob, teamauth.RoleMember},
		{globex, carol, teamauth.RoleAdmin},
	} {
		if _, err := acc.AddMember(ctx, m.team.ID, m.user.ID, m.role); err != nil {
			return nil, fmt.Errorf("add %s to %s: %w", m.user.Name, m.team.Slug, err)
		}
	}

	aliceAtAcme := kit.Actor{UserID: alice.ID, TeamID: acme.ID, Role: teamauth.RoleOwner}
	bobAtAcme := kit.Actor{UserID: bob.ID, TeamID: acme.ID, Role: teamauth.RoleMember}
	carolAtGlobex := kit.Actor{UserID: carol.ID, TeamID: globex.ID, Role: teamauth.RoleAdmin}
	err = seedRecords(ctx, k, aliceAtAcme, bobAtAcme, []demoCategory{
		{"Tools", "Anvils, hammers and everything heavy.", []kit.Record{
			{"title": "Anvil", "sku": "ACME-ANVIL", "price": "49.99", "stock": 12, "tags": []any{"heavy", "classic"}, "releasedAt": "2024-03-01"},
			{"title": "Giant magnet", "sku": "ACME-MAGNET", "price": "15.50", "stock": 40},
		}},
		{"Footwear", "Rocket-powered and otherwise.", []kit.Record{
			{"title": "Rocket skates", "sku": "ACME-SKATES", "price": "129.00", "stock": 3, "dimensions": map[string]any{"lengthCm": 32}},
		}},
	}, kit.Record{"title": "Welcome to the Acme shop", "body": "Everything for the discerning coyote.", "publishedAt": "2026-01-15", "isFeatured": true})
	if err != nil {
		return nil, fmt.Errorf("seed acme: %w", err)
	}
	err = seedRecords(ctx, k, carolAtGlobex, carolAtGlobex, []demoCategory{
		{"Outdoor", "Hammocks and other ways to rest.", []kit.Record{
			{"title": "Hammock", "sku": "GLX-HAMMOCK", "price": "89.00", "stock": 7},
		}},
	}, kit.Record{"title": "Globex quarterly update", "body": "Record results, again."})
	if err != nil {
		return nil, fmt.Errorf("seed globex: %w", err)
	}

	// Root belongs to no team: their request reads an acme product
	// through the super-admin route.
	first, err := k.Records(demoProducts).List(ctx, aliceAtAcme, url.Values{"pageSize": {"1"}})
	if err != nil {
		return nil, err
	}
	if len(first.Items) == 0 {
		return nil, errors.New("team acme has no products")
	}
	productID, _ := first.Items[0]["id"].(string)

	for _, l := range []struct {
		user *teamauth.User
		who  string
		path string
	}{
		{alice, "Alice, owner of acme", "/teams/acme/" + apiPath[demoProducts]},
		{bob, "Bob, member of acme", "/teams/acme/" + apiPath[demoPosts]},
		{carol, "Carol, admin of globex", "/teams/globex/" + apiPath[demoProducts]},
		{root, "Root, super-admin in no team", "/super-admin/" + apiPath[demoProducts] + "/" + url.PathEscape(productID)},
	} {
		token, _, err := acc.CreateToken(ctx, l.user.ID, "demo")
		if err != nil {
			return nil, err
		}
		// A fresh password too, shown once like the token: kit keeps only
		// its argon2id hash.
		password := "demo-" + strings.TrimPrefix(token, "kit_")[:16]
		if err := acc.SetPassword(ctx, l.user.ID, password); err != nil {
			return nil, err
		}
		d.logins = append(d.logins, demoLogin{who: l.who, token: token, path: l.path, email: l.user.Email, password: password})
	}
	return d, nil
}

// demoEventsPath is the events list of team acme below the API prefix,
// which the events add-on serves.
const demoEventsPath = "/teams/acme/kit-events"

// print writes the demo block: a token and a curl line per user, and,
// when withEvents, a curl line for acme's audit events with the first
// user's (Alice's) token, and, when adminURL is not empty, the admin app's
// URL with the first user's sign-in. apiURL is the base of the API
// ("http://127.0.0.1:8080/api").
func (d *demoData) print(w io.Writer, apiURL, adminURL, db string, withEvents bool) {
	if d.reused {
		fmt.Fprintf(w, "kit demo: reusing the demo data in %s\n", db)
	} else {
		fmt.Fprintf(w, "kit demo: seeded %s with teams acme and globex, their categories, products and blog posts\n", db)
	}
	fmt.Fprintln(w, "\nA fresh API token and password per user, with a request to try and a sign-in that keeps the\nsession cookie in cookies.txt (shown once; kit keeps only their hashes):")
	for _, l := range d.logins {
		fmt.Fprintf(w, "\n  %s\n    token: %s\n    curl -s -H 'Authorization: Bearer %s' %s%s\n", l.who, l.token, l.token, apiURL, l.path)
		fmt.Fprintf(w, "    login: curl -s -c cookies.txt -H 'Content-Type: application/json' -d '{\"email\":\"%s\",\"password\":\"%s\"}' %s/auth/login\n",
			l.email, l.password, apiURL)
	}
	if withEvents && len(d.logins) > 0 {
		l := d.logins[0]
		fmt.Fprintf(w, "\nThe audit events of team acme, newest first, as %s:\n    curl -s -H 'Authorization: Bearer %s' %s%s\n",
			strings.SplitN(l.who, ",", 2)[0], l.token, apiURL, demoEventsPath)
	}
	if adminURL != "" && len(d.logins) > 0 {
		l := d.logins[0]
		fmt.Fprintf(w, "\nThe admin app: open %s and sign in as %s (acme; Carol's login above shows globex):\n    email: %s\n    password: %s\n",
			adminURL, strings.SplitN(l.who, ",", 2)[0], l.email, l.password)
	}
	fmt.Fprintln(w)
}

// demoCategory is a category and the products in it.
type demoCategory struct {
	title, description string
	products           []kit.Record
}

// seedRecords creates a team's categories and products as admin, and a
// blog post as author, unless the team has products already.
func seedRecords(ctx context.Context, k *kit.Kit, admin, author kit.Actor, categories []demoCategory, post kit.Record) error {
	have, err := k.Records(demoProducts).List(ctx, admin, url.Values{"pageSize": {"1"}})
	if err != nil {
		return err
	}
	if have.Pagination.TotalItems > 0 {
		return nil
	}
	for _, c := range categories {
		cat, err := k.Records(demoCategories).Create(ctx, admin, kit.Record{"title": c.title, "description": c.description})
		if err != nil {
			return fmt.Errorf("category %s: %w", c.title, err)
		}
		for _, p := range c.products {
			p["categoryId"] = cat["id"]
			if _, err := k.Records(demoProducts).Create(ctx, admin, p); err != nil {
				return fmt.Errorf("product %s: %w", p["title"], err)
			}
		}
	}
	if _, err := k.Records(demoPosts).Create(ctx, author, post); err != nil {
		return fmt.Errorf("blog post: %w", err)
	}
	return nil
}

// ensureTeam returns the team with slug, creating it when missing.
func ensureTeam(ctx context.Context, acc *teamauth.Store, slug, name string) (*teamauth.Team, error) {
	t, err := acc.Team(ctx, slug)
	if errors.Is(err, teamauth.ErrTeamNotFound) {
		t, err = acc.CreateTeam(ctx, teamauth.Team{Slug: slug, Name: name})
	}
	if err != nil {
		return nil, fmt.Errorf("team %s: %w", slug, err)
	}
	return t, nil
}

// ensureUser returns the user among users with u's email, creating u when
// there is none.
func ensureUser(ctx context.Context, acc *teamauth.Store, users []teamauth.User, u teamauth.User) (*teamauth.User, error) {
	for i := range users {
		if users[i].Email == u.Email {
			return &users[i], nil
		}
	}
	created, err := acc.CreateUser(ctx, u)
	if err != nil {
		return nil, fmt.Errorf("user %s: %w", u.Name, err)
	}
	return created, nil
}
