package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// capturedID runs a create command and returns the id it printed: one
// line on stdout.
func capturedID(t *testing.T, args ...string) string {
	t.Helper()
	code, stdout, stderr := runKit(t, args...)
	if code != 0 {
		t.Fatalf("kit %s: got exit status %d, want 0 (stderr %q)", strings.Join(args, " "), code, stderr)
	}
	id, ok := strings.CutSuffix(stdout, "\n")
	if !ok || id == "" || strings.Contains(id, "\n") {
		t.Fatalf("kit %s: got stdout %q, want one line with an id", strings.Join(args, " "), stdout)
	}
	return id
}

func TestAccountCommandsCreateATeamAUserAMembershipAndAWorkingToken(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "kit.db")
	teamID := capturedID(t, "team", "create", "--name", "Acme Corporation", "--slug", "acme", "--db", db)
	userID := capturedID(t, "user", "create", "--name", "Alice", "--email", "alice@example.com", "--db", db)
	adminID := capturedID(t, "user", "create", "--name", "Root", "--role", "admin", "--db", db)
	memberID := capturedID(t, "member", "add", "--team", "acme", "--user", userID, "--role", "owner", "--db", db)
	if again := capturedID(t, "member", "add", "--team", teamID, "--user", userID, "--role", "admin", "--db", db); again != memberID {
		t.Errorf("adding a member again by team id: got membership %s, want the same one, %s", again, memberID)
	}

	code, stdout, stderr := runKit(t, "token", "create", "--user", userID, "--name", "laptop", "--db", db)
	if code != 0 {
		t.Fatalf("token create: got exit status %d, want 0 (stderr %q)", code, stderr)
	}
	token, ok := strings.CutSuffix(stdout, "\n")
	if !ok || strings.Contains(token, "\n") || !strings.HasPrefix(token, "kit_") {
		t.Fatalf("token create: got stdout %q, want only the token: one line starting with kit_", stdout)
	}
	if strings.Contains(stderr, token) {
		t.Errorf("token create: got the token on stderr too, want it on stdout only")
	}

	// Everything is in the database, as the commands said.
	k, err := kit.New(kit.Config{SQLitePath: db})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	ctx := t.Context()
	acc := k.Accounts()
	team, err := acc.Team(ctx, "acme")
	if err != nil || team.ID != teamID || team.Name != "Acme Corporation" {
		t.Errorf("got team %+v, %v; want acme with id %s", team, err, teamID)
	}
	m, err := acc.Membership(ctx, teamID, userID)
	if err != nil || m.ID != memberID || m.Role != teamauth.RoleAdmin {
		t.Errorf("got membership %+v, %v; want %s with role admin", m, err, memberID)
	}
	admin, err := acc.User(ctx, adminID)
	if err != nil || !admin.IsAdmin() {
		t.Errorf("got user %+v, %v; want a super-admin", admin, err)
	}
	u, err := acc.UserByToken(ctx, token)
	if err != nil || u.ID != userID {
		t.Errorf("the printed token: got user %+v, %v; want %s", u, err, userID)
	}

	_, teams, _ := runKit(t, "team", "list", "--db", db)
	if !strings.Contains(teams, teamID) || !strings.Contains(teams, "acme") {
		t.Errorf("team list: got %q, want the acme team", teams)
	}
	_, users, _ := runKit(t, "user", "list", "--db", db)
	if !strings.Contains(users, userID) || !strings.Contains(users, adminID) {
		t.Errorf("user list: got %q, want both users", users)
	}
}

func TestAccountCommandsFailWithAMessageAndStatus1(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "kit.db")
	userID := capturedID(t, "user", "create", "--name", "Alice", "--db", db)
	capturedID(t, "team", "create", "--name", "Acme", "--db", db)
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"a taken slug", []string{"team", "create", "--name", "Other", "--slug", "acme", "--db", db}, `kit team create: team slug already taken: "acme"`},
		{"a name that makes a taken slug", []string{"team", "create", "--name", "ACME", "--db", db}, `the slug is made from --name "ACME"; pass --slug`},
		{"an unknown team", []string{"member", "add", "--team", "globex", "--user", userID, "--role", "member", "--db", db}, `kit member add: team not found: "globex"`},
		{"an unknown user", []string{"member", "add", "--team", "acme", "--user", "nobody", "--role", "member", "--db", db}, `kit member add: user not found: "nobody"`},
		{"a token for an unknown user", []string{"token", "create", "--user", "nobody", "--db", db}, `kit token create: user not found: "nobody"`},
		{"an unreachable PostgreSQL server", []string{"team", "create", "--name", "x", "--db", "postgres://kit@127.0.0.1:1/kit"}, "connect to postgres://kit@127.0.0.1:1/kit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runKit(t, tt.args...)
			if code != 1 {
				t.Errorf("got exit status %d, want 1", code)
			}
			if stdout != "" {
				t.Errorf("got stdout %q, want nothing", stdout)
			}
			if !strings.Contains(stderr, tt.stderr) {
				t.Errorf("got stderr %q, want it to contain %q", stderr, tt.stderr)
			}
		})
	}
}
