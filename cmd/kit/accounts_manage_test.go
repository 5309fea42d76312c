package main

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

func TestAccountManagementCommands(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "kit.db")
	capturedID(t, "team", "create", "--name", "Acme", "--slug", "acme", "--db", db)
	ann := capturedID(t, "user", "create", "--name", "Ann", "--email", "ann@example.com", "--db", db)
	bob := capturedID(t, "user", "create", "--name", "Bob", "--email", "bob@example.com", "--db", db)
	capturedID(t, "member", "add", "--team", "acme", "--user", ann, "--role", "owner", "--db", db)
	capturedID(t, "member", "add", "--team", "acme", "--user", bob, "--role", "member", "--db", db)
	capturedID(t, "token", "create", "--user", bob, "--db", db)

	open := func(t *testing.T) (*kit.Kit, *teamauth.Store) {
		t.Helper()
		k, err := kit.New(kit.Config{SQLitePath: db})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { k.Close() })
		return k, k.Accounts()
	}
	passwd := func(t *testing.T, user, stdin string) (int, string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		code := runUserPasswdFrom(t.Context(), []string{"--user", user, "--db", db}, strings.NewReader(stdin), &stdout, &stderr)
		return code, stderr.String()
	}

	t.Run("user passwd reads the password from stdin and ends sessions", func(t *testing.T) {
		if code, stderr := passwd(t, ann, "ann-password-1\n"); code != 0 {
			t.Fatalf("got exit status %d (%s), want 0", code, stderr)
		}
		_, acc := open(t)
		if u, err := acc.CheckPassword(t.Context(), "ann@example.com", "ann-password-1"); err != nil || u.ID != ann {
			t.Errorf("got %v, %v signing in with the new password, want Ann", u, err)
		}
	})
	t.Run("user passwd refuses a weak password naming the rule and stores nothing", func(t *testing.T) {
		code, stderr := passwd(t, bob, "short\n")
		if code != 1 || !strings.Contains(stderr, "shorter than 10 characters") {
			t.Errorf("got exit status %d, stderr %q; want 1 naming the length rule", code, stderr)
		}
		_, acc := open(t)
		if ok, _ := acc.HasPassword(t.Context(), bob); ok {
			t.Errorf("got a password stored for Bob, want none")
		}
	})
	t.Run("user passwd has no password flag", func(t *testing.T) {
		if code, _, _ := runKit(t, "user", "passwd", "--user", bob, "--password", "x", "--db", db); code != 2 {
			t.Errorf("got exit status %d for --password, want 2", code)
		}
	})
	t.Run("user sessions revoke ends the sessions", func(t *testing.T) {
		_, acc := open(t)
		secret, _, err := acc.CreateSession(t.Context(), ann)
		if err != nil {
			t.Fatal(err)
		}
		if code, _, stderr := runKit(t, "user", "sessions", "revoke", "--user", ann, "--db", db); code != 0 || !strings.Contains(stderr, "ended 1 sessions") {
			t.Fatalf("got %d, %q; want 0 and 1 session ended", code, stderr)
		}
		if _, err := acc.UserBySession(t.Context(), secret); !errors.Is(err, teamauth.ErrInvalidSession) {
			t.Errorf("got %v with the revoked session, want ErrInvalidSession", err)
		}
	})
	t.Run("member role, and the last owner stays", func(t *testing.T) {
		if code, _, stderr := runKit(t, "member", "role", "--team", "acme", "--user", bob, "--role", "admin", "--db", db); code != 0 {
			t.Fatalf("got %d (%s), want 0", code, stderr)
		}
		if code, _, stderr := runKit(t, "member", "role", "--team", "acme", "--user", ann, "--role", "member", "--db", db); code != 1 || !strings.Contains(stderr, "at least one owner") {
			t.Errorf("demoting the last owner: got %d, %q; want 1 and the reason", code, stderr)
		}
		if code, _, stderr := runKit(t, "member", "remove", "--team", "acme", "--user", ann, "--db", db); code != 1 || !strings.Contains(stderr, "at least one owner") {
			t.Errorf("removing the last owner: got %d, %q; want 1 and the reason", code, stderr)
		}
		_, acc := open(t)
		ms, _ := acc.Members(t.Context(), mustTeam(t, acc, "acme").ID)
		roles := map[string]teamauth.Role{}
		for _, m := range ms {
			roles[m.UserID] = m.Role
		}
		if roles[ann] != teamauth.RoleOwner || roles[bob] != teamauth.RoleAdmin {
			t.Errorf("got roles %v, want Ann owner and Bob admin", roles)
		}
	})
	t.Run("member remove", func(t *testing.T) {
		if code, _, stderr := runKit(t, "member", "remove", "--team", "acme", "--user", bob, "--db", db); code != 0 {
			t.Fatalf("got %d (%s), want 0", code, stderr)
		}
		if code, _, _ := runKit(t, "member", "remove", "--team", "acme", "--user", bob, "--db", db); code != 1 {
			t.Errorf("removing again: got %d, want 1", code)
		}
	})
	t.Run("user ban and unban", func(t *testing.T) {
		if code, _, stderr := runKit(t, "user", "ban", "--user", bob, "--db", db); code != 0 {
			t.Fatalf("got %d (%s), want 0", code, stderr)
		}
		_, acc := open(t)
		if u, _ := acc.User(t.Context(), bob); !u.Banned {
			t.Errorf("got Bob not banned after user ban")
		}
		if code, _, _ := runKit(t, "user", "unban", "--user", bob, "--db", db); code != 0 {
			t.Fatalf("unban: got %d, want 0", code)
		}
		if u, _ := acc.User(t.Context(), bob); u.Banned {
			t.Errorf("got Bob banned after user unban")
		}
		if code, _, _ := runKit(t, "user", "ban", "--user", "nobody", "--db", db); code != 1 {
			t.Errorf("banning an unknown user: got %d, want 1", code)
		}
	})
	t.Run("token revoke", func(t *testing.T) {
		_, acc := open(t)
		toks, err := acc.Tokens(t.Context(), bob)
		if err != nil || len(toks) != 1 {
			t.Fatalf("got %d tokens (%v), want 1", len(toks), err)
		}
		if code, _, stderr := runKit(t, "token", "revoke", "--id", toks[0].ID, "--db", db); code != 0 {
			t.Fatalf("got %d (%s), want 0", code, stderr)
		}
		if toks, _ := acc.Tokens(t.Context(), bob); toks[0].RevokedAt == nil {
			t.Errorf("got the token not revoked")
		}
		if code, _, _ := runKit(t, "token", "revoke", "--id", "nope", "--db", db); code != 1 {
			t.Errorf("revoking an unknown token: got %d, want 1", code)
		}
	})
	t.Run("team rename", func(t *testing.T) {
		if code, _, stderr := runKit(t, "team", "rename", "--team", "acme", "--name", "Acme Inc", "--slug", "acme-inc", "--db", db); code != 0 {
			t.Fatalf("got %d (%s), want 0", code, stderr)
		}
		_, acc := open(t)
		if team := mustTeam(t, acc, "acme-inc"); team.Name != "Acme Inc" {
			t.Errorf("got name %q, want Acme Inc", team.Name)
		}
		if code, _, _ := runKit(t, "team", "rename", "--team", "acme-inc", "--db", db); code != 2 {
			t.Errorf("renaming without --name or --slug: got %d, want 2", code)
		}
	})
}

func mustTeam(t *testing.T, acc *teamauth.Store, slug string) *teamauth.Team {
	t.Helper()
	team, err := acc.Team(t.Context(), slug)
	if err != nil {
		t.Fatal(err)
	}
	return team
}
