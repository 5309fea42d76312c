package kittest

import (
	"context"
	"database/sql"
	"testing"

	"github.com/collectionkit/kit/internal/rowdiff"
)

// Querier is what TableRows reads tables through: a *bun.DB (Kit.DB), a
// bun.Tx, a *sql.DB or a *sql.Tx.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// TableRows fingerprints every row of tables (the hash of its column
// values), keyed "<table>/<id>" (the row's "id" column, else its first):
// take one before and one after a step and compare them with RowsChanged
// to assert that a refused request wrote nothing, or how many rows an
// accepted one wrote. A table that cannot be read fails t at once.
func TableRows(t testing.TB, db Querier, tables ...string) map[string]string {
	t.Helper()
	rows, err := rowdiff.Tables(t.Context(), db, tables...)
	if err != nil {
		t.Fatalf("kittest: %v", err)
	}
	return rows
}

// RowsChanged counts the rows added, removed or changed from before to
// after, two results of TableRows.
func RowsChanged(before, after map[string]string) int { return rowdiff.Count(before, after) }
