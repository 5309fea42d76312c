package teamauth

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"

	"github.com/collectionkit/kit/internal/testdb"
)

// twinInserter is a bun query hook that, just before the first INSERT into
// kit_users, writes another user with the same email (in other case)
// through a second connection: the race of two sign-ups, made certain.
type twinInserter struct {
	db   *bun.DB
	once sync.Once
	err  error
}

func (h *twinInserter) BeforeQuery(ctx context.Context, ev *bun.QueryEvent) context.Context {
	if strings.HasPrefix(ev.Query, `INSERT INTO "kit_users"`) {
		h.once.Do(func() {
			_, h.err = h.db.NewInsert().Model(&userRow{ID: "twin", Name: "twin", Email: "RACER@example.com",
				CreatedAt: time.Now().UTC()}).Exec(ctx)
		})
	}
	return ctx
}

func (h *twinInserter) AfterQuery(context.Context, *bun.QueryEvent) {}

// TestAnEmailTakenBetweenCheckAndInsertIsRefused: CreateUser checks the
// email before inserting; kit_users_email_key refuses a user another
// writer created in between, and CreateUser answers ErrEmailTaken.
func TestAnEmailTakenBetweenCheckAndInsertIsRefused(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		db, _ := newStore(t, e)
		hook := &twinInserter{db: db}
		s := NewStore(db.WithQueryHook(hook))
		_, err := s.CreateUser(t.Context(), User{Name: "racer", Email: "racer@example.com"})
		if hook.err != nil {
			t.Fatalf("inserting the twin: %v", hook.err)
		}
		if !errors.Is(err, ErrEmailTaken) {
			t.Errorf("got %v, want ErrEmailTaken", err)
		}
		var rows int
		if err := db.NewSelect().Table("kit_users").ColumnExpr("count(*)").
			Where("lower(email) = ?", "racer@example.com").Scan(t.Context(), &rows); err != nil {
			t.Fatal(err)
		}
		if rows != 1 {
			t.Errorf("got %d users with the email, want 1 (the twin)", rows)
		}
		t.Run("users without an email do not collide", func(t *testing.T) {
			for range 2 {
				if _, err := s.CreateUser(t.Context(), User{Name: "no email"}); err != nil {
					t.Errorf("got %v, want nil", err)
				}
			}
		})
	})
}

// TestUpgradeWithDuplicateEmailsNamesThem: a database of an older kit may
// hold two users with one email; the sessions migration refuses it with
// the emails to fix instead of an index error, and applies once they are.
func TestUpgradeWithDuplicateEmailsNamesThem(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		ctx := t.Context()
		db := testdb.Open(t, e)
		s := NewStore(db)
		all := migrate.NewMigrations()
		s.RegisterMigrations(all)
		old := migrate.NewMigrations() // the two migrations of the older kit
		for _, m := range all.Sorted()[:2] {
			old.Add(m)
		}
		migrator := func(ms *migrate.Migrations) *migrate.Migrator {
			// As kit.Migrate runs them: a migration is recorded once it succeeded.
			return migrate.NewMigrator(db, ms, migrate.WithMarkAppliedOnSuccess(true),
				migrate.WithTableName("kit_migrations"), migrate.WithLocksTableName("kit_migration_locks"))
		}
		if err := migrator(old).Init(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := migrator(old).Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		// The older kit had no unique email: write the pair directly.
		for _, id := range []string{"u1", "u2"} {
			if _, err := db.NewInsert().Model(&userRow{ID: id, Name: id, Email: "Twin@example.com"}).Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
		_, err := migrator(all).Migrate(ctx)
		if err == nil || !strings.Contains(err.Error(), "several users share the email twin@example.com") {
			t.Fatalf("got %v, want the refusal naming twin@example.com", err)
		}
		var tables int
		if err := db.NewSelect().Table("kit_migrations").ColumnExpr("count(*)").
			Where("name = ?", "20261121000102").Scan(ctx, &tables); err != nil {
			t.Fatal(err)
		}
		if tables != 0 {
			t.Errorf("got the sessions migration recorded as applied, want it not applied")
		}
		if _, err := db.NewUpdate().Table("kit_users").Set("email = ?", "other@example.com").
			Where("id = ?", "u2").Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := migrator(all).Migrate(ctx); err != nil {
			t.Fatalf("got %v after fixing the emails, want the migration applied", err)
		}
	})
}
