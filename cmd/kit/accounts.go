package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// The account commands print what scripts capture (an id, a token) on
// stdout and everything meant for people on stderr.

// runTeam implements "kit team create|list|rename".
func runTeam(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return subcommand("team", args, stdout, stderr, map[string]func([]string) int{
		"create": func(args []string) int { return runTeamCreate(ctx, args, stdout, stderr) },
		"list":   func(args []string) int { return runTeamList(ctx, args, stdout, stderr) },
		"rename": func(args []string) int { return runTeamRename(ctx, args, stdout, stderr) },
	})
}

func runTeamCreate(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := newCommandFlags("team create", "--name NAME [--slug SLUG] [--db PATH]",
		"Create a team and print its id. The slug (lower-case letters, digits and hyphens)\n"+
			"names the team in URLs: /api/teams/SLUG/...; by default it is made from the name.")
	name := fl.String("name", "", "team `name`")
	slug := fl.String("slug", "", "team `slug` (default: made from --name)")
	dsn := fl.db()
	if code, ok := fl.parse(args, 0, stdout, stderr); !ok {
		return code
	}
	if *name == "" && *slug == "" {
		return fl.usageError(stderr, "--name is required")
	}
	return withAccounts(ctx, *dsn, "team create", stderr, func(accounts *teamauth.Store) error {
		t, err := accounts.CreateTeam(ctx, teamauth.Team{Name: *name, Slug: *slug})
		switch {
		case (errors.Is(err, teamauth.ErrSlugTaken) || errors.Is(err, teamauth.ErrInvalidSlug)) && *slug == "":
			return fmt.Errorf("%w (the slug is made from --name %q; pass --slug)", err, *name)
		case errors.Is(err, teamauth.ErrSlugTaken):
			return fmt.Errorf("%w: %q", err, *slug)
		case err != nil:
			return err
		}
		fmt.Fprintf(stderr, "kit: created team %q (slug %s)\n", t.Name, t.Slug)
		fmt.Fprintln(stdout, t.ID)
		return nil
	})
}

func runTeamList(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := newCommandFlags("team list", "[--db PATH]", "List every team, oldest first: id, slug and name, separated by tabs.")
	dsn := fl.db()
	if code, ok := fl.parse(args, 0, stdout, stderr); !ok {
		return code
	}
	return withAccounts(ctx, *dsn, "team list", stderr, func(accounts *teamauth.Store) error {
		teams, err := accounts.Teams(ctx)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		for _, t := range teams {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", t.ID, t.Slug, t.Name)
		}
		return tw.Flush()
	})
}

// runUser implements "kit user create|list|ban|unban|passwd|sessions revoke".
func runUser(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return subcommand("user", args, stdout, stderr, map[string]func([]string) int{
		"create":   func(args []string) int { return runUserCreate(ctx, args, stdout, stderr) },
		"list":     func(args []string) int { return runUserList(ctx, args, stdout, stderr) },
		"ban":      func(args []string) int { return runUserBan(ctx, true, args, stdout, stderr) },
		"unban":    func(args []string) int { return runUserBan(ctx, false, args, stdout, stderr) },
		"passwd":   func(args []string) int { return runUserPasswd(ctx, args, stdout, stderr) },
		"sessions": func(args []string) int { return runUserSessions(ctx, args, stdout, stderr) },
	})
}

func runUserCreate(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := newCommandFlags("user create", "--name NAME [--email EMAIL] [--role admin] [--db PATH]",
		"Create a user and print their id. --role admin makes a super-admin, who may use the\n"+
			"/api/super-admin routes; team rights come from \"kit member add\" only.")
	name := fl.String("name", "", "user's `name`")
	email := fl.String("email", "", "user's `email`")
	role := fl.String("role", "", "global `role`: empty, or admin for a super-admin")
	dsn := fl.db()
	if code, ok := fl.parseRequired(args, stdout, stderr, "name"); !ok {
		return code
	}
	if *role != "" && *role != teamauth.UserRoleAdmin {
		return fl.usageError(stderr, "--role must be empty or %q, not %q (team roles are set with kit member add)", teamauth.UserRoleAdmin, *role)
	}
	return withAccounts(ctx, *dsn, "user create", stderr, func(accounts *teamauth.Store) error {
		u, err := accounts.CreateUser(ctx, teamauth.User{Name: *name, Email: *email, Role: *role})
		if err != nil {
			return err
		}
		what := "user"
		if u.IsAdmin() {
			what = "super-admin"
		}
		fmt.Fprintf(stderr, "kit: created %s %q\n", what, u.Name)
		fmt.Fprintln(stdout, u.ID)
		return nil
	})
}

func runUserList(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := newCommandFlags("user list", "[--db PATH]", "List every user, oldest first: id, role, name and email, separated by tabs.")
	dsn := fl.db()
	if code, ok := fl.parse(args, 0, stdout, stderr); !ok {
		return code
	}
	return withAccounts(ctx, *dsn, "user list", stderr, func(accounts *teamauth.Store) error {
		users, err := accounts.Users(ctx)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		for _, u := range users {
			role := u.Role
			if role == "" {
				role = "-"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", u.ID, role, u.Name, u.Email)
		}
		return tw.Flush()
	})
}

// runMember implements "kit member add|remove|role".
func runMember(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return subcommand("member", args, stdout, stderr, map[string]func([]string) int{
		"add":    func(args []string) int { return runMemberAdd(ctx, args, stdout, stderr) },
		"remove": func(args []string) int { return runMemberRemove(ctx, args, stdout, stderr) },
		"role":   func(args []string) int { return runMemberRole(ctx, args, stdout, stderr) },
	})
}

func runMemberAdd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := newCommandFlags("member add", "--team ID_OR_SLUG --user ID --role owner|admin|member [--db PATH]",
		"Make a user a member of a team with a role, or change the role of a member, and\n"+
			"print the membership id. Members change their own records; admins and owners any\n"+
			"record of the team.")
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
	return withAccounts(ctx, *dsn, "member add", stderr, func(accounts *teamauth.Store) error {
		t, err := accounts.Team(ctx, *team)
		if err != nil {
			return fmt.Errorf("%w: %q", err, *team)
		}
		u, err := accounts.User(ctx, *user)
		if err != nil {
			return fmt.Errorf("%w: %q", err, *user)
		}
		m, err := accounts.AddMember(ctx, t.ID, u.ID, teamauth.Role(*role))
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "kit: %s is %s of %s\n", u.Name, m.Role, t.Slug)
		fmt.Fprintln(stdout, m.ID)
		return nil
	})
}

// runToken implements "kit token create|revoke".
func runToken(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return subcommand("token", args, stdout, stderr, map[string]func([]string) int{
		"create": func(args []string) int { return runTokenCreate(ctx, args, stdout, stderr) },
		"revoke": func(args []string) int { return runTokenRevoke(ctx, args, stdout, stderr) },
	})
}

func runTokenCreate(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := newCommandFlags("token create", "--user ID [--name NAME] [--db PATH]",
		"Create an API token for a user and print only the token, for\n"+
			"  curl -H \"Authorization: Bearer $(kit token create --user ID)\" ...\n"+
			"The token is shown this once; the database keeps only its hash.")
	user := fl.String("user", "", "user `id`")
	name := fl.String("name", "cli", "token `name`, to tell tokens apart")
	dsn := fl.db()
	if code, ok := fl.parseRequired(args, stdout, stderr, "user"); !ok {
		return code
	}
	return withAccounts(ctx, *dsn, "token create", stderr, func(accounts *teamauth.Store) error {
		plaintext, tok, err := accounts.CreateToken(ctx, *user, *name)
		if err != nil {
			return fmt.Errorf("%w: %q", err, *user)
		}
		fmt.Fprintf(stderr, "kit: created token %q (id %s) for user %s\n", tok.Name, tok.ID, tok.UserID)
		fmt.Fprintln(stdout, plaintext)
		return nil
	})
}

// withAccounts opens the database at dsn with kit's own tables (and no
// collections), runs do on its account store and closes it. An error is
// printed as "kit CMD: error" and makes the exit status 1.
func withAccounts(ctx context.Context, dsn, cmd string, stderr io.Writer, do func(*teamauth.Store) error) int {
	k, closeKit, err := openKit(ctx, dsn, kit.Config{Logger: newLogger(stderr)})
	if err != nil {
		return fail(stderr, cmd, err)
	}
	err = do(k.Accounts())
	if cerr := closeKit(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return fail(stderr, cmd, err)
	}
	return exitOK
}
