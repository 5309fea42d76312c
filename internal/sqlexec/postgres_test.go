package sqlexec_test

import (
	"context"
	"testing"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/internal/sqlexec"
	"github.com/collectionkit/kit/internal/testdb"
)

// onePostgresConn opens a fresh PostgreSQL schema (KIT_TEST_POSTGRES) on a
// pool of one connection, so that every statement meets the same server
// session, and a Runner on it.
func onePostgresConn(t *testing.T) (*sqlexec.Runner, *bun.DB) {
	t.Helper()
	db := testdb.PostgresDB(t)
	db.DB.SetMaxOpenConns(1)
	r := sqlexec.New(db)
	t.Cleanup(func() { r.Close() })
	return r, db
}

// preparedOnServer counts the prepared statements of the pool's one
// server session.
func preparedOnServer(t *testing.T, r *sqlexec.Runner, db *bun.DB) int {
	t.Helper()
	var n int
	if err := r.QueryRowOnce(t.Context(), db, "SELECT count(*) FROM pg_prepared_statements").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// runs are the three ways of running a statement, each asked for the sum
// 41 + 1 (Exec checks that it ran).
var runs = []struct {
	name        string
	keyed, each func(ctx context.Context, r *sqlexec.Runner, db bun.IDB) (int, error)
}{
	{
		"a query",
		func(ctx context.Context, r *sqlexec.Runner, db bun.IDB) (int, error) {
			return scanOne(r.QueryKeyed(ctx, db, "SELECT ?::int + 1", 41))
		},
		func(ctx context.Context, r *sqlexec.Runner, db bun.IDB) (int, error) {
			return scanOne(r.Query(ctx, db, "SELECT ?::int + 1", 41))
		},
	},
	{
		"a one-row query",
		func(ctx context.Context, r *sqlexec.Runner, db bun.IDB) (int, error) {
			var n int
			err := r.QueryRowKeyed(ctx, db, "SELECT ?::int + 1", 41).Scan(&n)
			return n, err
		},
		func(ctx context.Context, r *sqlexec.Runner, db bun.IDB) (int, error) {
			var n int
			err := r.QueryRow(ctx, db, "SELECT ?::int + 1", 41).Scan(&n)
			return n, err
		},
	},
	{
		"a statement",
		func(ctx context.Context, r *sqlexec.Runner, db bun.IDB) (int, error) {
			return execOne(r.ExecKeyed(ctx, db, "SELECT ?::int + 1", 41))
		},
		func(ctx context.Context, r *sqlexec.Runner, db bun.IDB) (int, error) {
			return execOne(r.Exec(ctx, db, "SELECT ?::int + 1", 41))
		},
	},
}

func scanOne(rows interface {
	Next() bool
	Scan(...any) error
	Close() error
	Err() error
}, err error) (int, error) {
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var n int
	for rows.Next() {
		if err := rows.Scan(&n); err != nil {
			return 0, err
		}
	}
	return n, rows.Err()
}

func execOne(res interface{ RowsAffected() (int64, error) }, err error) (int, error) {
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n) + 41, err // a SELECT of one row: 1 row affected
}

func TestOnPostgresOnlyKeyedStatementsArePrepared(t *testing.T) {
	for _, run := range runs {
		t.Run(run.name+" by key is prepared, the same query planned per call is not", func(t *testing.T) {
			r, db := onePostgresConn(t)
			if n, err := run.each(t.Context(), r, db); err != nil || n != 42 {
				t.Fatalf("planned per call: got %d, %v, want 42, nil", n, err)
			}
			if got := preparedOnServer(t, r, db); got != 0 {
				t.Errorf("prepared statements after a statement planned per call: got %d, want 0", got)
			}
			if n, err := run.keyed(t.Context(), r, db); err != nil || n != 42 {
				t.Fatalf("keyed: got %d, %v, want 42, nil", n, err)
			}
			if got := preparedOnServer(t, r, db); got != 1 {
				t.Errorf("prepared statements after a keyed statement: got %d, want 1", got)
			}
		})
	}
}

func TestAServerThatLosesAPreparedStatementTurnsPreparingOff(t *testing.T) {
	for _, run := range runs {
		t.Run(run.name+" by key runs again unprepared, and so does every later one", func(t *testing.T) {
			r, db := onePostgresConn(t)
			ctx := t.Context()
			if n, err := run.keyed(ctx, r, db); err != nil || n != 42 {
				t.Fatalf("before: got %d, %v, want 42, nil", n, err)
			}
			// What a pooler in transaction mode does to a session's
			// statements: the next server connection does not have them.
			if _, err := r.ExecOnce(ctx, db, "DEALLOCATE ALL"); err != nil {
				t.Fatal(err)
			}
			for i := range 2 {
				if n, err := run.keyed(ctx, r, db); err != nil || n != 42 {
					t.Fatalf("run %d after the statements were lost: got %d, %v, want 42, nil", i+1, n, err)
				}
			}
			if got := preparedOnServer(t, r, db); got != 0 {
				t.Errorf("prepared statements after the loss: got %d, want 0", got)
			}
		})
	}
}

func TestPrepareReadiesAKeyedStatementOnPostgres(t *testing.T) {
	r, db := onePostgresConn(t)
	ctx := t.Context()
	r.Prepare(ctx, "SELECT ?::int + 1")
	if got := preparedOnServer(t, r, db); got != 1 {
		t.Fatalf("prepared statements after Prepare: got %d, want 1", got)
	}
	var n int
	if err := r.QueryRowKeyed(ctx, db, "SELECT ?::int + 1", 41).Scan(&n); err != nil || n != 42 {
		t.Fatalf("the prepared statement's run: got %d, %v, want 42, nil", n, err)
	}
	if got := preparedOnServer(t, r, db); got != 1 {
		t.Errorf("prepared statements after its run: got %d, want 1 (the one Prepare made)", got)
	}
}
