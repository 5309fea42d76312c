package testkit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/internal/store"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/kittest"
	"github.com/collectionkit/kit/teamauth"
)

// World describes the teams, users and records a suite's tests start
// from. Teams are created first, then users (each with its membership and
// one API token), then records in order, then bans.
type World struct {
	// Teams are team slugs; a team's name is its slug, capitalised.
	Teams []string
	// Users are created in order.
	Users []WorldUser
	// Records are created in order, each by its owner's Actor.
	Records []WorldRecord
}

// WorldUser is one seeded user.
type WorldUser struct {
	// Name keys the user's id (Seed.IDs), token (Seed.Tokens) and Actor
	// (Seed.Actors).
	Name string
	// Team is the slug of the team the user is a member of, with Role;
	// empty for none.
	Team string
	Role teamauth.Role
	// User holds the stored fields (display name, email, image, global
	// role); an empty User.Name stores Name.
	User teamauth.User
	// Banned bans the user after everything else is seeded.
	Banned bool
}

// WorldRecord is one seeded record.
type WorldRecord struct {
	// Placeholder keys the record's id in Seed.IDs.
	Placeholder string
	// Collection is the registry key ("shopProducts").
	Collection string
	// Owner is the Name of the member who creates it.
	Owner string
	// Data is the record; string values are expanded with the ids seeded
	// so far ("{acmeCategory}").
	Data map[string]any
}

// Seed is what seeding a World made.
type Seed struct {
	// IDs maps team slugs, user names and record placeholders to ids.
	IDs map[string]string
	// Tokens maps user names to bearer tokens.
	Tokens map[string]string
	// Actors maps the names of users with a team to their Actor.
	Actors map[string]kit.Actor
}

// SeedWorld writes w through k's account store and record API.
func SeedWorld(ctx context.Context, k *kit.Kit, w World) (Seed, error) {
	s := Seed{IDs: map[string]string{}, Tokens: map[string]string{}, Actors: map[string]kit.Actor{}}
	acc := k.Accounts()
	for _, slug := range w.Teams {
		team, err := acc.CreateTeam(ctx, teamauth.Team{Name: strings.ToUpper(slug[:1]) + slug[1:], Slug: slug})
		if err != nil {
			return s, fmt.Errorf("team %s: %w", slug, err)
		}
		s.IDs[slug] = team.ID
	}
	for _, u := range w.Users {
		fields := u.User
		if fields.Name == "" {
			fields.Name = u.Name
		}
		user, err := acc.CreateUser(ctx, fields)
		if err != nil {
			return s, fmt.Errorf("user %s: %w", u.Name, err)
		}
		s.IDs[u.Name] = user.ID
		if u.Team != "" {
			if _, err := acc.AddMember(ctx, s.IDs[u.Team], user.ID, u.Role); err != nil {
				return s, fmt.Errorf("member %s of %s: %w", u.Name, u.Team, err)
			}
			s.Actors[u.Name] = kit.Actor{UserID: user.ID, TeamID: s.IDs[u.Team], Role: u.Role}
		}
		tok, _, err := acc.CreateToken(ctx, user.ID, "test")
		if err != nil {
			return s, fmt.Errorf("token of %s: %w", u.Name, err)
		}
		s.Tokens[u.Name] = tok
	}
	for _, r := range w.Records {
		data := make(map[string]any, len(r.Data))
		for name, v := range r.Data {
			if str, ok := v.(string); ok {
				v = kittest.Expand(str, s.IDs)
			}
			data[name] = v
		}
		rec, err := k.Records(r.Collection).Create(ctx, s.Actors[r.Owner], data)
		if err != nil {
			return s, fmt.Errorf("record %s: %w", r.Placeholder, err)
		}
		s.IDs[r.Placeholder] = rec["id"].(string)
	}
	for _, u := range w.Users {
		if u.Banned {
			if err := acc.SetBanned(ctx, s.IDs[u.Name], true); err != nil {
				return s, fmt.Errorf("ban %s: %w", u.Name, err)
			}
		}
	}
	return s, nil
}

// Worlds seeds each world once per test binary and gives every test its
// own copy: on SQLite a clone (testdb.CloneSQLite) of a template database
// seeded at the first request, on PostgreSQL a fresh schema seeded for the
// test. A suite keeps one Worlds in a package variable; it is safe for
// parallel tests.
type Worlds struct {
	mu        sync.Mutex
	templates map[string]*template
}

type template struct {
	once sync.Once
	db   *bun.DB
	seed Seed
	err  error
}

// Open returns a Kit on a private database holding w, and the seed. The
// database holds what a Kit on base made of w; the returned Kit is opened
// on base changed by mutate, which must not change the schema of the
// collections base defines (adding collections is fine). key names the
// world: one key, one base configuration and one World. The Kit is closed
// when t ends.
func (ws *Worlds) Open(t testing.TB, e testdb.Engine, key string, base kit.Config, w World, mutate ...func(*kit.Config)) (*kit.Kit, Seed) {
	t.Helper()
	cfg := base
	for _, m := range mutate {
		m(&cfg)
	}
	var seed Seed
	if e == testdb.EngineSQLite {
		tmpl := ws.template(key, base, w)
		if tmpl.err != nil {
			t.Fatalf("seed world %s: %v", key, tmpl.err)
		}
		cfg.DB = testdb.CloneSQLite(t, tmpl.db)
		seed = tmpl.seed.copy()
	} else {
		cfg.DB = testdb.Open(t, e)
	}
	k, err := kit.Open(t.Context(), cfg)
	if err != nil {
		t.Fatalf("kit.Open: %v", err)
	}
	t.Cleanup(func() { k.Close() })
	if e != testdb.EngineSQLite {
		if seed, err = SeedWorld(t.Context(), k, w); err != nil {
			t.Fatalf("seed world %s: %v", key, err)
		}
	}
	return k, seed
}

// template returns the seeded template database of key, seeding it at the
// first call. It stays open until the test binary exits.
func (ws *Worlds) template(key string, base kit.Config, w World) *template {
	ws.mu.Lock()
	if ws.templates == nil {
		ws.templates = map[string]*template{}
	}
	tmpl := ws.templates[key]
	if tmpl == nil {
		tmpl = &template{}
		ws.templates[key] = tmpl
	}
	ws.mu.Unlock()
	tmpl.once.Do(func() {
		var b [6]byte
		_, _ = rand.Read(b[:])
		db, err := store.OpenSQLite(":memory:world-" + key + "-" + hex.EncodeToString(b[:]))
		if err != nil {
			tmpl.err = err
			return
		}
		cfg := base
		cfg.DB = db
		cfg.Logger = slog.New(slog.DiscardHandler)
		ctx := context.Background()
		k, err := kit.Open(ctx, cfg)
		if err != nil {
			tmpl.err = err
			return
		}
		defer k.Close()
		tmpl.db = db
		tmpl.seed, tmpl.err = SeedWorld(ctx, k, w)
	})
	return tmpl
}

// copy returns s with maps of its own, so a test may add placeholders.
func (s Seed) copy() Seed {
	c := Seed{IDs: map[string]string{}, Tokens: map[string]string{}, Actors: map[string]kit.Actor{}}
	for k, v := range s.IDs {
		c.IDs[k] = v
	}
	for k, v := range s.Tokens {
		c.Tokens[k] = v
	}
	for k, v := range s.Actors {
		c.Actors[k] = v
	}
	return c
}
