package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/collectionkit/kit/teamauth"
)

// The account commands that change or end what "create" made: revoke a
// token, remove a member or change their role, ban a user, set a password,
// end sessions, rename a team.

func runTokenRevoke(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := newCommandFlags("token revoke", "--id TOKEN_ID [--db PATH]",
		"Revoke an API token by its id (shown by \"kit token create\" on stderr, and by\n"+
			"GET /api/me/tokens). It is refused from the next request on.")
	id := fl.String("id", "", "token `id`")
	dsn := fl.db()
	if code, ok := fl.parseRequired(args, stdout, stderr, "id"); !ok {
		return code
	}
	return withAccounts(ctx, *dsn, "token revoke", stderr, func(accounts *teamauth.Store) error {
		if err := accounts.RevokeToken(ctx, *id); err != nil {
			return fmt.Errorf("%w: %q", err, *id)
		}
		fmt.Fprintf(stderr, "kit: revoked token %s\n", *id)
		return nil
	})
}

// membershipOf finds the membership of user in team (id or slug).
func membershipOf(ctx context.Context, accounts *teamauth.Store, team, user string) (*teamauth.Team, *teamauth.Membership, error) {
	t, err := accounts.Team(ctx, team)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %q", err, team)
	}
	m, err := accounts.Membership(ctx, t.ID, user)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: user %q in %s", err, user, t.Slug)
	}
	return t, m, nil
}

func runMemberRemove(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := newCommandFlags("member remove", "--team ID_OR_SLUG --user ID [--db PATH]",
		"Remove a user from a team. The team's last owner cannot be removed.")
	team := fl.String("team", "", "team `id or slug`")
	user := fl.String("user", "", "user `id`")
	dsn := fl.db()
	if code, ok := fl.parseRequired(args, stdout, stderr, "team", "user"); !ok {
		return code
	}
	return withAccounts(ctx, *dsn, "member remove", stderr, func(accounts *teamauth.Store) error {
		t, m, err := membershipOf(ctx, accounts, *team, *user)
		if err != nil {
			return err
		}
		if err := accounts.RemoveMembership(ctx, t.ID, m.ID); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "kit: removed user %s from %s\n", *user, t.Slug)
		return nil
	})
}

func runMemberRole(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := newCommandFlags("member role", "--team ID_OR_SLUG --user ID --role owner|admin|member [--db PATH]",
		"Change a member's role. The team's last owner cannot be demoted.")
	team := fl.String("team", "", "team `id or slug`")
	user := fl.String("user", "", "user `id`")
	role := fl.String("role", "", "team `role`: owner, admin or member")
	dsn := fl.db()
	if code, ok := fl.parseRequired(args, stdout, stderr, "team", "user", "role"); !ok {
		return code
	}
	if !teamauth.Role(*role).Valid() {
		return fl.usageError(stderr, "--role must be owner, admin or member, not %q", *role)
	}
	return withAccounts(ctx, *dsn, "member role", stderr, func(accounts *teamauth.Store) error {
		t, m, err := membershipOf(ctx, accounts, *team, *user)
		if err != nil {
			return err
		}
		if _, err := accounts.SetMemberRole(ctx, t.ID, m.ID, teamauth.Role(*role)); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "kit: user %s is %s of %s\n", *user, *role, t.Slug)
		return nil
	})
}

func runUserBan(ctx context.Context, banned bool, args []string, stdout, stderr io.Writer) int {
	name, summary := "user ban", "Ban a user: every request of theirs is refused with 403 and their sessions end."
	if !banned {
		name, summary = "user unban", "Lift a user's ban. Sessions the ban ended stay ended."
	}
	fl := newCommandFlags(name, "--user ID [--db PATH]", summary)
	user := fl.String("user", "", "user `id`")
	dsn := fl.db()
	if code, ok := fl.parseRequired(args, stdout, stderr, "user"); !ok {
		return code
	}
	return withAccounts(ctx, *dsn, name, stderr, func(accounts *teamauth.Store) error {
		if err := accounts.SetBanned(ctx, *user, banned); err != nil {
			return fmt.Errorf("%w: %q", err, *user)
		}
		fmt.Fprintf(stderr, "kit: %s %s\n", map[bool]string{true: "banned", false: "unbanned"}[banned], *user)
		return nil
	})
}

func runUserSessions(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return subcommand("user sessions", args, stdout, stderr, map[string]func([]string) int{
		"revoke": func(args []string) int {
			fl := newCommandFlags("user sessions revoke", "--user ID [--db PATH]",
				"End every sign-in session of a user; their API tokens keep working.")
			user := fl.String("user", "", "user `id`")
			dsn := fl.db()
			if code, ok := fl.parseRequired(args, stdout, stderr, "user"); !ok {
				return code
			}
			return withAccounts(ctx, *dsn, "user sessions revoke", stderr, func(accounts *teamauth.Store) error {
				n, err := accounts.EndSessions(ctx, *user)
				if err != nil {
					return fmt.Errorf("%w: %q", err, *user)
				}
				fmt.Fprintf(stderr, "kit: ended %d sessions of %s\n", n, *user)
				return nil
			})
		},
	})
}

// runUserPasswd implements "kit user passwd", reading the password from
// os.Stdin: typed twice without echo on a terminal, else its first line.
func runUserPasswd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runUserPasswdFrom(ctx, args, os.Stdin, stdout, stderr)
}

func runUserPasswdFrom(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fl := newCommandFlags("user passwd", "--user ID [--db PATH] < password",
		"Set a user's password, read from the terminal (typed twice, not shown) or from the\n"+
			"first line of stdin, never from a flag. It must have at least 10 characters. Their\n"+
			"sessions end; they sign in with POST /api/auth/login {email, password}.")
	user := fl.String("user", "", "user `id`")
	dsn := fl.db()
	if code, ok := fl.parseRequired(args, stdout, stderr, "user"); !ok {
		return code
	}
	password, err := readPassword(stdin, stderr)
	if err != nil {
		return fail(stderr, "user passwd", err)
	}
	return withAccounts(ctx, *dsn, "user passwd", stderr, func(accounts *teamauth.Store) error {
		if err := accounts.SetPassword(ctx, *user, password); err != nil {
			if errors.Is(err, teamauth.ErrUserNotFound) {
				return fmt.Errorf("%w: %q", err, *user)
			}
			return err
		}
		fmt.Fprintf(stderr, "kit: set the password of %s\n", *user)
		return nil
	})
}

// readPassword reads a password from in: from a terminal twice without
// echo (prompting on prompt), else the first line, without its line end.
func readPassword(in io.Reader, prompt io.Writer) (string, error) {
	if f, ok := in.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprint(prompt, "New password: ")
		first, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(prompt)
		if err != nil {
			return "", err
		}
		fmt.Fprint(prompt, "Again: ")
		again, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(prompt)
		if err != nil {
			return "", err
		}
		if string(first) != string(again) {
			return "", errors.New("the two passwords differ")
		}
		return string(first), nil
	}
	line, err := bufio.NewReader(in).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	return strings.TrimRight(line, "\r\n"), nil
}

func runTeamRename(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := newCommandFlags("team rename", "--team ID_OR_SLUG [--name NAME] [--slug SLUG] [--db PATH]",
		"Rename a team, change its slug, or both. URLs with the old slug stop working.")
	team := fl.String("team", "", "team `id or slug`")
	name := fl.String("name", "", "new `name`")
	slug := fl.String("slug", "", "new `slug`")
	dsn := fl.db()
	if code, ok := fl.parseRequired(args, stdout, stderr, "team"); !ok {
		return code
	}
	if *name == "" && *slug == "" {
		return fl.usageError(stderr, "give --name, --slug or both")
	}
	return withAccounts(ctx, *dsn, "team rename", stderr, func(accounts *teamauth.Store) error {
		t, err := accounts.Team(ctx, *team)
		if err != nil {
			return fmt.Errorf("%w: %q", err, *team)
		}
		var p teamauth.TeamPatch
		if *name != "" {
			p.Name = name
		}
		if *slug != "" {
			p.Slug = slug
		}
		t, err = accounts.UpdateTeam(ctx, t.ID, p)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "kit: team %s is %q (slug %s)\n", t.ID, t.Name, t.Slug)
		return nil
	})
}
