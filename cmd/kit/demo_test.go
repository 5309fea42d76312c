package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/collectionkit/kit/kit"
)

func openExampleKit(t *testing.T, db string) *kit.Kit {
	t.Helper()
	k, closeKit, err := openKit(t.Context(), db, kit.Config{Schemas: os.DirFS(exampleSchemas)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeKit() })
	return k
}

func TestSeedDemoReusesItsDataAndMakesFreshTokens(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "kit.db")
	k := openExampleKit(t, db)
	ctx := t.Context()

	first, err := seedDemo(ctx, k)
	if err != nil {
		t.Fatal(err)
	}
	if first.reused {
		t.Error("first run: got reused, want seeded")
	}
	teams, _ := k.Accounts().Teams(ctx)
	users, _ := k.Accounts().Users(ctx)

	second, err := seedDemo(ctx, k)
	if err != nil {
		t.Fatal(err)
	}
	if !second.reused {
		t.Error("second run: got seeded, want reused")
	}
	teamsAgain, _ := k.Accounts().Teams(ctx)
	usersAgain, _ := k.Accounts().Users(ctx)
	if len(teamsAgain) != len(teams) || len(usersAgain) != len(users) {
		t.Errorf("second run: got %d teams and %d users, want the first run's %d and %d",
			len(teamsAgain), len(usersAgain), len(teams), len(users))
	}
	acme, _ := k.Accounts().Team(ctx, "acme")
	alice := kit.Actor{TeamID: acme.ID}
	for _, u := range usersAgain {
		if u.Email == "alice@acme.example" {
			alice.UserID = u.ID
		}
	}
	for key, want := range map[string]int{demoCategories: 2, demoProducts: 3, demoPosts: 1} {
		list, err := k.Records(key).List(ctx, alice, nil)
		if err != nil || list.Pagination.TotalItems != want {
			t.Errorf("%s of acme after two runs: got %v (%v), want %d", key, list.Pagination.TotalItems, err, want)
		}
	}
	if len(second.logins) != 4 {
		t.Fatalf("got %d logins, want 4 (Alice, Bob, Carol, Root)", len(second.logins))
	}
	for i, l := range second.logins {
		if l.token == first.logins[i].token || !strings.HasPrefix(l.token, "kit_") {
			t.Errorf("%s: got token %q on the second run (first %q), want a fresh kit_ token", l.who, l.token, first.logins[i].token)
		}
		if l.path != first.logins[i].path {
			t.Errorf("%s: got request %s on the second run, want the first run's %s", l.who, l.path, first.logins[i].path)
		}
	}
}

func TestSeedDemoNeedsTheExampleCollections(t *testing.T) {
	t.Parallel()
	dir := writeSchemas(t, map[string]string{"tasks.json": `{"title": {"type": "string"}}`})
	k, closeKit, err := openKit(t.Context(), filepath.Join(t.TempDir(), "kit.db"), kit.Config{Schemas: os.DirFS(dir)})
	if err != nil {
		t.Fatal(err)
	}
	defer closeKit()
	_, err = seedDemo(t.Context(), k)
	if err == nil || !strings.Contains(err.Error(), "shopCategories is not among the loaded schemas") {
		t.Errorf("got error %v, want one naming the missing collection", err)
	}
}
