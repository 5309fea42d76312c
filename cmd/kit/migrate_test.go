package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// writeSchema writes schemas/shop/products.json under dir.
func writeSchema(t *testing.T, dir, schema string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "shop"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "shop", "products.json"), []byte(schema), 0o644); err != nil {
		t.Fatal(err)
	}
}

// seedProducts opens a Kit on dsn with the schemas in dir and creates a
// product per body.
func seedProducts(t *testing.T, dsn, dir string, bodies ...map[string]any) {
	t.Helper()
	k, closeKit, err := openKit(t.Context(), dsn, kit.Config{Schemas: os.DirFS(dir), Logger: quietLogger(os.Stderr)})
	if err != nil {
		t.Fatal(err)
	}
	defer closeKit()
	team, err := k.Accounts().CreateTeam(t.Context(), teamauth.Team{Name: "Acme", Slug: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	user, err := k.Accounts().CreateUser(t.Context(), teamauth.User{Name: "Ann", Email: "ann@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	actor := kit.Actor{UserID: user.ID, TeamID: team.ID, Role: "owner"}
	for _, b := range bodies {
		if _, err := k.Records("shopProducts").Create(t.Context(), actor, b); err != nil {
			t.Fatal(err)
		}
	}
}

func TestMigratePlanAndApplyOnEveryEngine(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		db, dir := dbFor(t, e), t.TempDir()
		writeSchema(t, dir, `{"title": {"type": "string"}, "sku": {"type": "string", "meta": {"unique": true}}, "weight": {"type": "number"}, "legacy": {"type": "string"}}`)
		seedProducts(t, db, dir, map[string]any{"title": "a", "sku": "A-1", "weight": 1.5, "legacy": "x"}, map[string]any{"title": "b", "sku": "B-2", "weight": 2, "legacy": "y"})

		writeSchema(t, dir, `{"title": {"type": "string"}, "code": {"type": "string", "meta": {"unique": true, "renamedFrom": "sku"}}, "weight": {"type": "decimal", "meta": {"precision": 8, "scale": 2}}}`)
		wantChanges := []string{
			"rename field shopProducts.sku to code, keeping its values",
			"keep the column of removed field shopProducts.legacy (2 values) until a sync with drop",
			"convert field shopProducts.weight from number to decimal(8,2) (2 values)",
		}
		for range 2 { // a plan changes nothing: the second prints the same
			code, stdout, stderr := runKit(t, "migrate", "plan", "--schemas", dir, "--db", db)
			if code != exitOK {
				t.Fatalf("migrate plan: got exit %d (%s), want 0", code, stderr)
			}
			for _, want := range append(wantChanges, `RENAME COLUMN "sku" TO "code"`, `UPDATE "shop_products" SET "weight" = kit_v.v`) {
				if !strings.Contains(stdout, want) {
					t.Errorf("migrate plan: output lacks %q:\n%s", want, stdout)
				}
			}
		}

		code, stdout, stderr := runKit(t, "migrate", "plan", "--json", "--drop", "--schemas", dir, "--db", db)
		var plan struct {
			Engine  string             `json:"engine"`
			Changes []kit.SchemaChange `json:"changes"`
			Refused []string           `json:"refused"`
		}
		if err := json.Unmarshal([]byte(stdout), &plan); code != exitOK || err != nil {
			t.Fatalf("migrate plan --json: got exit %d, %v (%s), want 0 and JSON", code, err, stderr)
		}
		if len(plan.Changes) != 3 || plan.Changes[1].Kind != "drop" || !plan.Changes[1].Destructive || plan.Changes[1].Values != 2 {
			t.Errorf("migrate plan --json --drop: got changes %+v, want the legacy column dropped second", plan.Changes)
		}

		code, stdout, stderr = runKit(t, "migrate", "apply", "--schemas", dir, "--db", db)
		if code != exitOK || !strings.Contains(stdout, wantChanges[0]) {
			t.Fatalf("migrate apply: got exit %d, %q (%s), want 0 and the changes", code, stdout, stderr)
		}
		if code, stdout, _ = runKit(t, "migrate", "plan", "--schemas", dir, "--db", db); code != exitOK || !strings.Contains(stdout, "Nothing to change") {
			t.Errorf("migrate plan after apply: got exit %d, %q, want nothing to change", code, stdout)
		}
		code, stdout, stderr = runKit(t, "migrate", "apply", "--drop", "--schemas", dir, "--db", db)
		if want := "drop the column of removed field shopProducts.legacy (2 values lost)"; code != exitOK || !strings.Contains(stdout, want) {
			t.Errorf("migrate apply --drop: got exit %d, %q (%s), want 0 and %q", code, stdout, stderr, want)
		}
	})
}

func TestMigrateRefusesWhatTheDataCannotTake(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		db, dir := dbFor(t, e), t.TempDir()
		writeSchema(t, dir, `{"title": {"type": "string"}, "weight": {"type": "number"}}`)
		seedProducts(t, db, dir, map[string]any{"title": "not a date", "weight": 1.5})
		writeSchema(t, dir, `{"title": {"type": "date"}, "weight": {"type": "number"}, "color": {"type": "string"}}`)

		code, stdout, _ := runKit(t, "migrate", "plan", "--schemas", dir, "--db", db)
		want := `schema drift: shopProducts.title cannot change type from string to date: 1 of 1 stored values do not convert (record `
		if code != exitFail || !strings.Contains(stdout, "Refused") || !strings.Contains(stdout, want) {
			t.Errorf("migrate plan: got exit %d, %q, want 1 and %q", code, stdout, want)
		}
		code, _, stderr := runKit(t, "migrate", "apply", "--schemas", dir, "--db", db)
		if code != exitFail || !strings.Contains(stderr, want) || !strings.Contains(stderr, "nothing was changed; kit migrate plan lists every pending change") {
			t.Errorf("migrate apply: got exit %d, %q, want 1 and the refusal", code, stderr)
		}
		code, _, stderr = runKit(t, "serve", "--schemas", dir, "--db", db, "--addr", "127.0.0.1:0", "--no-admin")
		if code != exitFail || !strings.Contains(stderr, want) || !strings.Contains(stderr, "kit migrate plan (with the same --schemas and --db) lists every pending change") {
			t.Errorf("serve: got exit %d, %q, want 1 and a message naming kit migrate plan", code, stderr)
		}
		// Nothing changed: the color column the refused sync would add is not there.
		writeSchema(t, dir, `{"title": {"type": "string"}, "weight": {"type": "number"}}`)
		if code, stdout, _ := runKit(t, "migrate", "plan", "--schemas", dir, "--db", db); code != exitOK || !strings.Contains(stdout, "Nothing to change") {
			t.Errorf("migrate plan of the old schemas after refusals: got exit %d, %q, want nothing to change", code, stdout)
		}
	})
}

func TestMigratePlanDoesNotCreateADatabaseFile(t *testing.T) {
	dir := t.TempDir()
	writeSchema(t, dir, `{"title": {"type": "string"}}`)
	db := filepath.Join(t.TempDir(), "new.db")
	code, stdout, stderr := runKit(t, "migrate", "plan", "--schemas", dir, "--db", db)
	if code != exitOK || !strings.Contains(stdout, "does not exist yet") || !strings.Contains(stdout, "create table shop_products for shopProducts") {
		t.Errorf("migrate plan: got exit %d, %q (%s), want 0 and the table's creation", code, stdout, stderr)
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("database file after a plan: got %v, want none", err)
	}
}

func TestMigrateCommandLine(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		output string
	}{
		{"migrate without a subcommand prints its usage", []string{"migrate"}, exitUsage, "Usage: kit migrate apply|plan"},
		{"an unknown subcommand is a usage error", []string{"migrate", "undo"}, exitUsage, `unknown subcommand "undo"`},
		{"help migrate plan prints its flags", []string{"help", "migrate", "plan"}, exitOK, "--drop"},
		{"a positional argument is a usage error", []string{"migrate", "apply", "extra"}, exitUsage, `unexpected argument "extra"`},
		{"a missing schemas folder fails", []string{"migrate", "plan", "--schemas", "/nonexistent/schemas"}, exitFail, "no such folder"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runKit(t, tc.args...)
			if code != tc.code || !strings.Contains(stdout+stderr, tc.output) {
				t.Errorf("got exit %d, %q %q, want %d and %q", code, stdout, stderr, tc.code, tc.output)
			}
		})
	}
}
