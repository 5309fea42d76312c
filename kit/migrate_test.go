package kit_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/uptrace/bun/migrate"

	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/internal/testkit"
	"github.com/collectionkit/kit/kit"
)

// addonMigrations is an add-on's migration set, read from SQL files the
// way bun/migrate discovers them.
func addonMigrations(t testing.TB, files map[string]string) *migrate.Migrations {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, sql := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(sql)}
	}
	ms := migrate.NewMigrations()
	if err := ms.Discover(fsys); err != nil {
		t.Fatalf("discover migrations: %v", err)
	}
	return ms
}

// appliedMigrations counts the rows kit_migrations holds for name.
func appliedMigrations(t testing.TB, k *kit.Kit, name string) int {
	t.Helper()
	var n int
	if err := k.DB().QueryRowContext(t.Context(), "SELECT count(*) FROM kit_migrations WHERE name = ?", name).Scan(&n); err != nil {
		t.Fatalf("count kit_migrations: %v", err)
	}
	return n
}

func TestMigrateRunsAnAddOnsMigrationsInKitsTables(t *testing.T) {
	widgets := map[string]string{
		"20261123000100_addon_widgets.up.sql": "CREATE TABLE addon_widgets (id TEXT PRIMARY KEY)",
	}
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		t.Run("two instances migrating together both succeed and apply it once", func(t *testing.T) {
			open := testdb.Shared(t, e)
			kits := make([]*kit.Kit, 2)
			for i := range kits {
				kits[i] = newKitConfig(t, kit.Config{DB: open()})
			}
			errs := testkit.AtOnce(len(kits), func(i int) error {
				return kits[i].Migrate(t.Context(), addonMigrations(t, widgets))
			})
			for i, err := range errs {
				if err != nil {
					t.Errorf("instance %d: got %v, want nil", i, err)
				}
			}
			if got := appliedMigrations(t, kits[0], "20261123000100"); got != 1 {
				t.Errorf("kit_migrations rows for the add-on: got %d, want 1", got)
			}
			if got := countRows(t, kits[1], "addon_widgets"); got != 0 {
				t.Errorf("rows in addon_widgets: got %d, want 0", got)
			}
		})
		t.Run("running it again applies nothing and succeeds", func(t *testing.T) {
			k := newKitOn(t, e)
			for range 2 {
				if err := k.Migrate(t.Context(), addonMigrations(t, widgets)); err != nil {
					t.Fatalf("Migrate: got %v, want nil", err)
				}
			}
			if got := appliedMigrations(t, k, "20261123000100"); got != 1 {
				t.Errorf("kit_migrations rows for the add-on: got %d, want 1", got)
			}
		})
		t.Run("a failing migration's error surfaces and the lock is released", func(t *testing.T) {
			k := newKitOn(t, e)
			broken := addonMigrations(t, map[string]string{
				"20261123000200_addon_broken.up.sql": "SELECT missing_column FROM no_such_table",
			})
			err := k.Migrate(t.Context(), broken)
			if err == nil || !strings.Contains(err.Error(), "no_such_table") {
				t.Fatalf("Migrate: got %v, want an error naming no_such_table", err)
			}
			if got := appliedMigrations(t, k, "20261123000200"); got != 0 {
				t.Errorf("kit_migrations rows for the failed migration: got %d, want 0", got)
			}
			if err := k.Migrate(t.Context(), addonMigrations(t, widgets)); err != nil {
				t.Errorf("Migrate after a failure: got %v, want nil (the lock released)", err)
			}
		})
	})
}

func TestMigrateStopsWhenItCannotGoOn(t *testing.T) {
	widgets := map[string]string{
		"20261123000100_addon_widgets.up.sql": "CREATE TABLE addon_widgets (id TEXT PRIMARY KEY)",
	}
	t.Run("a cancelled context is returned", func(t *testing.T) {
		k := newKit(t)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if err := k.Migrate(ctx, addonMigrations(t, widgets)); !errors.Is(err, context.Canceled) {
			t.Errorf("Migrate: got %v, want context.Canceled", err)
		}
	})
	t.Run("a closed Kit answers ErrClosed", func(t *testing.T) {
		k := newKit(t)
		k.Close()
		if err := k.Migrate(t.Context(), addonMigrations(t, widgets)); !errors.Is(err, kit.ErrClosed) {
			t.Errorf("Migrate: got %v, want ErrClosed", err)
		}
	})
	t.Run("a cancelled context stops Open", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		k, err := kit.Open(ctx, kit.Config{SQLitePath: memPath(t), Logger: quietLogger()})
		if err == nil {
			k.Close()
		}
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Open: got %v, want context.Canceled", err)
		}
	})
}
