package main

import (
	"context"
	"fmt"
	"strings"
)

// trailTable is an audit table --events fills: kit's kit_events or the
// raw-audit server's bench_audit, and what its columns other than the
// shared ones (id, team, time, operation, item, user, changes) hold.
type trailTable struct {
	table, timeColumn string
	// sqliteTime is the strftime format of the time on SQLite, as the
	// server writes it.
	sqliteTime string
	// extra are further columns and their constant values.
	extra [][2]string
	// changes is each row's changes in the table's own encoding: one
	// price changed.
	changes string
}

var (
	kitTrail = trailTable{table: "kit_events", timeColumn: `"timestamp"`, sqliteTime: "%Y-%m-%d %H:%M:%f+00:00",
		extra:   [][2]string{{"collection_name", "'shopProducts'"}, {"user_name", "'History'"}, {"metadata", "'{}'"}},
		changes: `[["price","1.00","2.00"]]`}
	rawTrail = trailTable{table: "bench_audit", timeColumn: "at", sqliteTime: "%Y-%m-%dT%H:%M:%fZ",
		changes: `[{"fieldName":"price","oldValue":"1.00","newValue":"2.00"}]`}
)

// trailSQL is the statement that writes n update events of the seeded
// products into t, as a trail of past changes holds them: one a second up
// to now, each about a product picked by a stride through them all (so
// every product has a history, in no order of its ids), ids that sort as
// the times do and before any UUIDv7 of today.
func trailSQL(t trailTable, pg bool, n int) string {
	id := "printf('00000000-0000-7000-8000-%012d', n.i)"
	at := fmt.Sprintf("strftime('%s', 'now', '-' || (%d - n.i) || ' seconds')", t.sqliteTime, n)
	if pg {
		id = "'00000000-0000-7000-8000-' || lpad(n.i::text, 12, '0')"
		at = fmt.Sprintf("now() - (%d - n.i) * interval '1 second'", n)
	}
	cols := []string{"id", "team_id", t.timeColumn, "operation", "item_id", "user_id", "changes"}
	vals := []string{id, "p.team_id", at, "'update'", "p.id", "'history'", "'" + strings.ReplaceAll(t.changes, "'", "''") + "'"}
	for _, e := range t.extra {
		cols, vals = append(cols, e[0]), append(vals, e[1])
	}
	return fmt.Sprintf(`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < %d),
p AS (SELECT team_id, id, row_number() OVER (ORDER BY id) - 1 AS rn FROM shop_products),
c AS (SELECT count(*) AS cnt FROM shop_products)
INSERT INTO %s (%s)
SELECT %s FROM n CROSS JOIN c JOIN p ON p.rn = (CAST(n.i AS BIGINT) * 7919) %% c.cnt`,
		n-1, t.table, strings.Join(cols, ", "), strings.Join(vals, ", "))
}

// seedTrail writes n past events into t through db, kit's *bun.DB or the
// baseline's *sql.DB (nothing when n is 0).
func seedTrail(ctx context.Context, db rawDB, pg bool, t trailTable, n int) error {
	if n <= 0 {
		return nil
	}
	if _, err := db.ExecContext(ctx, trailSQL(t, pg, n)); err != nil {
		return fmt.Errorf("seed %d events into %s: %w", n, t.table, err)
	}
	return nil
}
