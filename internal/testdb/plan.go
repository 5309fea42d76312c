package testdb

import (
	"context"
	"database/sql"
	"fmt"
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
