package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// dataWorld is a SQLite database with a schemas folder of one collection,
// shopProducts, and a team acme whose owner Ann has two products.
type dataWorld struct {
	db, schemas string
	ann         string
}

func newDataWorld(t *testing.T) *dataWorld {
	t.Helper()
	dir := t.TempDir()
	w := &dataWorld{db: filepath.Join(dir, "kit.db"), schemas: filepath.Join(dir, "schemas")}
	if err := os.MkdirAll(filepath.Join(w.schemas, "shop"), 0o755); err != nil {
		t.Fatal(err)
	}
	schema := `{"title": {"type": "string", "meta": {"required": true}}, "sku": {"type": "string", "meta": {"unique": true}}, "price": {"type": "decimal", "meta": {"precision": 10, "scale": 2}}}`
	if err := os.WriteFile(filepath.Join(w.schemas, "shop", "products.json"), []byte(schema), 0o644); err != nil {
		t.Fatal(err)
	}
	k, err := kit.New(kit.Config{SQLitePath: w.db, Schemas: os.DirFS(w.schemas)})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	ctx := t.Context()
	team, err := k.Accounts().CreateTeam(ctx, teamauth.Team{Name: "Acme", Slug: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	user, err := k.Accounts().CreateUser(ctx, teamauth.User{Name: "Ann", Email: "ann@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Accounts().AddMember(ctx, team.ID, user.ID, teamauth.RoleOwner); err != nil {
		t.Fatal(err)
	}
	w.ann = user.ID
	actor := kit.Actor{UserID: user.ID, TeamID: team.ID, Role: teamauth.RoleOwner}
	for _, p := range []map[string]any{{"title": "Hammer", "sku": "H-1", "price": "9.99"}, {"title": "=HYPERLINK(\"x\")", "sku": "H-2"}} {
		if _, err := k.Records("shopProducts").Create(ctx, actor, p); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func (w *dataWorld) args(args ...string) []string {
	return append(args, "--db", w.db, "--schemas", w.schemas)
}

func TestExportCommand(t *testing.T) {
	w := newDataWorld(t)
	out := filepath.Join(t.TempDir(), "products.csv")
	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   []string
		stderr   string
		wantFile bool
	}{
		{name: "CSV goes to stdout with a header and escaped formulas",
			args: w.args("export", "--team", "acme", "--collection", "shopProducts", "--sort", "sku"), code: 0,
			stdout: []string{"id,teamId,owner,title,sku,price,createdAt,updatedAt,createdBy,updatedBy\n", ",Hammer,H-1,9.99,", `,"'=HYPERLINK(""x"")",H-2,,`}},
		{name: "NDJSON of a filtered query, the collection named by its apiPath",
			args: w.args("export", "--team", "acme", "--collection", "shop-products", "--format", "ndjson", "--filter", `{"sku":"H-1"}`), code: 0,
			stdout: []string{`"sku":"H-1"`}},
		{name: "--out writes a file",
			args: w.args("export", "--team", "acme", "--collection", "shopProducts", "--out", out), code: 0, wantFile: true},
		{name: "--out refuses a file that exists and leaves it alone",
			args: w.args("export", "--team", "acme", "--collection", "shopProducts", "--out", out), code: exitFail, stderr: "exists", wantFile: true},
		{name: "a bad filter fails naming it",
			args: w.args("export", "--team", "acme", "--collection", "shopProducts", "--filter", `{"nope":1}`), code: exitFail, stderr: "filter"},
		{name: "an unknown collection fails",
			args: w.args("export", "--team", "acme", "--collection", "nothing"), code: exitFail, stderr: "no such collection"},
		{name: "an unknown team fails",
			args: w.args("export", "--team", "nope", "--collection", "shopProducts"), code: exitFail, stderr: "--team nope"},
		{name: "a user who is no member fails",
			args: w.args("export", "--team", "acme", "--collection", "shopProducts", "--user", "someone"), code: exitFail, stderr: "no member"},
		{name: "--team is required",
			args: w.args("export", "--collection", "shopProducts"), code: exitUsage, stderr: "--team is required"},
		{name: "an unknown format is a usage error",
			args: w.args("export", "--team", "acme", "--collection", "shopProducts", "--format", "xml"), code: exitUsage, stderr: "--format"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runKit(t, tc.args...)
			if code != tc.code {
				t.Fatalf("got exit status %d (stderr %s), want %d", code, stderr, tc.code)
			}
			for _, s := range tc.stdout {
				if !strings.Contains(stdout, s) {
					t.Errorf("got stdout %q, want it to contain %q", stdout, s)
				}
			}
			if !strings.Contains(stderr, tc.stderr) {
				t.Errorf("got stderr %q, want it to contain %q", stderr, tc.stderr)
			}
			if tc.wantFile {
				raw, err := os.ReadFile(out)
				if err != nil || !strings.HasPrefix(string(raw), "id,teamId,owner,title") || strings.Count(string(raw), "\n") != 3 {
					t.Errorf("got file %q (%v), want a header and 2 rows", raw, err)
				}
			}
		})
	}
}
