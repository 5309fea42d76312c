package main

import (
	"context"
	"database/sql"
	"io"
	"testing"

	"github.com/collectionkit/kit/internal/pgopen"
	"github.com/collectionkit/kit/internal/testdb"
)

func TestPastEventsFillBothAuditTablesAndComeBackWithTheRows(t *testing.T) {
	for _, engine := range []testdb.Engine{testdb.EngineSQLite, testdb.EnginePostgres} {
		t.Run("on "+string(engine), func(t *testing.T) {
			dsn := ""
			if engine == testdb.EnginePostgres {
				dsn = testdb.PostgresDSN(t)
			}
			t.Parallel()
			ctx := t.Context()
			const past = 40
			fx, err := seed(ctx, t.TempDir(), dsn, newDataset(200), 100_000, past, io.Discard)
			if err != nil {
				t.Fatalf("seed: %v", err)
			}
			t.Cleanup(fx.cleanup)
			for _, c := range []struct {
				server string
				trailTable
			}{{"kit", kitTrail}, {"raw", rawTrail}} {
				db := openSeeded(t, fx, c.server)
				counts := func() (events, products, distinct int) {
					t.Helper()
					q := `SELECT count(*), count(p.id), count(DISTINCT e.item_id) FROM ` + c.table +
						` e LEFT JOIN shop_products p ON p.id = e.item_id AND p.team_id = e.team_id`
					if err := db.QueryRowContext(ctx, q).Scan(&events, &products, &distinct); err != nil {
						t.Fatalf("%s: %v", c.table, err)
					}
					return events, products, distinct
				}
				t.Run(c.table+" holds the past updates of distinct seeded products", func(t *testing.T) {
					events, products, distinct := counts()
					if events != past || products != past || distinct != past {
						t.Errorf("got %d events, %d of a seeded product of their team, %d distinct items; want %d of each", events, products, distinct, past)
					}
					var future int
					if err := db.QueryRowContext(ctx, "SELECT count(*) FROM "+c.table+" WHERE "+c.timeColumn+" > "+nowSQL(fx.pg, c.trailTable)).Scan(&future); err != nil || future != 0 {
						t.Errorf("got %d events after now (err %v), want none", future, err)
					}
				})
				t.Run(c.table+" is as seeded again after a round wrote to it", func(t *testing.T) {
					if _, err := db.ExecContext(ctx, "DELETE FROM "+c.table); err != nil {
						t.Fatal(err)
					}
					if !fx.pg {
						// The children write the working file; restore
						// copies the seeded one over it.
						closeSeeded(t, db)
					}
					fx.ran(c.server, "delete")
					if err := fx.restore(ctx, c.server); err != nil {
						t.Fatalf("restore: %v", err)
					}
					if !fx.pg {
						db = openSeeded(t, fx, c.server)
					}
					if events, _, _ := counts(); events != past {
						t.Errorf("got %d events after the restore, want %d", events, past)
					}
				})
			}
		})
	}
}

// openSeeded opens the working database of server (kit or raw).
func openSeeded(t *testing.T, fx *fixture, server string) *sql.DB {
	t.Helper()
	schema, path, _ := fx.place(server)
	if fx.pg {
		db, err := pgopen.Open(context.Background(), fx.dsn, pgopen.Options{SearchPath: schema, MaxOpenConns: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = db.Close() })
		return db.DB
	}
	db, err := openRawSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func closeSeeded(t *testing.T, db *sql.DB) {
	t.Helper()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// nowSQL is a second from now as t's time column holds times.
func nowSQL(pg bool, t trailTable) string {
	if pg {
		return "now() + interval '1 second'"
	}
	return "strftime('" + t.sqliteTime + "', 'now', '+1 second')"
}
