package testdb

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// Querier is a *sql.DB, *sql.Tx or bun.IDB: statements in the driver's
// own form.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// PlanLines runs explain, an EXPLAIN statement, and returns its rows, one
// line per step, each the row's columns printed together.
func PlanLines(ctx context.Context, db Querier, explain string, args ...any) ([]string, error) {
	rows, err := db.QueryContext(ctx, explain, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var lines []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		lines = append(lines, fmt.Sprint(vals...))
	}
	return lines, rows.Err()
}

// Explain returns the plan of q, a statement in the driver's own form with
// args, one step a line: SQLite's EXPLAIN QUERY PLAN, or PostgreSQL's
// EXPLAIN with each planner setting of off (enable_seqscan, enable_sort,
// ...) turned off for it, in a transaction that is rolled back. A test
// table is small, and PostgreSQL would rather scan it than read an index:
// turning those settings off asks whether an index can serve q at all.
func Explain(t testing.TB, db *bun.DB, off []string, q string, args ...any) string {
	t.Helper()
	var lines []string
	err := db.RunInTx(t.Context(), nil, func(ctx context.Context, tx bun.Tx) error {
		prefix := "EXPLAIN QUERY PLAN "
		if db.Dialect().Name() == dialect.PG {
			for _, setting := range off {
				if _, err := tx.ExecContext(ctx, "SET LOCAL "+setting+" = off"); err != nil {
					return err
				}
			}
			prefix = "EXPLAIN "
		}
		var err error
		lines, err = PlanLines(ctx, tx.Tx, prefix+q, args...)
		return err
	})
	if err != nil {
		t.Fatalf("explain %s: %v", q, err)
	}
	return strings.Join(lines, "\n")
}
