package rowdiff

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
)

// Querier is a *sql.DB, *sql.Tx, *bun.DB or bun.Tx: anything that runs a
// query in the driver's own form.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Table returns a fingerprint of each row of table (the SHA-256, in hex,
// of the JSON array of its column values as the driver scans them), keyed
// by the row's id: its "id" column, else its first. Two calls compared
// with Count tell how many rows changed between them. table is quoted as
// an identifier.
func Table(ctx context.Context, db Querier, table string) (map[string]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT * FROM "`+table+`"`)
	if err != nil {
		return nil, fmt.Errorf("read table %s: %w", table, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, fmt.Errorf("read table %s: %w", table, err)
	}
	id := max(slices.Index(cols, "id"), 0)
	out := map[string]string{}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("read table %s: %w", table, err)
		}
		b, err := json.Marshal(vals)
		if err != nil {
			return nil, fmt.Errorf("fingerprint a row of %s: %w", table, err)
		}
		sum := sha256.Sum256(b)
		out[fmt.Sprint(vals[id])] = hex.EncodeToString(sum[:])
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read table %s: %w", table, err)
	}
	return out, nil
}

// Tables returns the fingerprints of the rows of every table in tables
// (see Table) in one map, keyed "<table>/<id>".
func Tables(ctx context.Context, db Querier, tables ...string) (map[string]string, error) {
	out := map[string]string{}
	for _, table := range tables {
		rows, err := Table(ctx, db, table)
		if err != nil {
			return nil, err
		}
		for id, fp := range rows {
			out[table+"/"+id] = fp
		}
	}
	return out, nil
}

// Count returns how many rows were added, removed or changed from before
// to after, two fingerprint maps of Table or of Tables.
func Count(before, after map[string]string) int {
	n := 0
	for key, fp := range before {
		if got, ok := after[key]; !ok || got != fp {
			n++
		}
	}
	for key := range after {
		if _, ok := before[key]; !ok {
			n++
		}
	}
	return n
}
