package store

import (
	"context"
	"fmt"
	"slices"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
)

// Row counts: kit_row_counts holds, per collection table and team, the
// number of the team's rows, kept in the transaction of every write of
// kit that adds or removes rows, so that an unfiltered list answers its
// total without counting the team's rows (see List).
//
// SQLite: one row per (table, team). Store.Insert and Store.Delete note
// their +1 and -n in the write queue's request, and the group commit adds
// the sums of its successful writes with one upsert per (table, team)
// just before it commits (applyCounts): a write that fails or rolls back
// to its savepoint leaves nothing, and the group pays one statement
// instead of one per write. Outside the write queue (a transaction of the
// caller's) the upsert runs at once, in that transaction.
//
// PostgreSQL: delta rows. The record's INSERT or DELETE statement itself
// inserts a row of +1 or -1 (a data-modifying WITH, see counted): no
// round trip and no trigger of its own, and concurrent creates never wait
// for one another on a shared counter row (an UPDATE of one row would
// hold its lock until commit and serialize every create of the team). A
// total is the sum of the team's delta rows; a read that sums more than
// countCompactOver of them replaces the rows it can lock with their sum
// (compactCounts).
//
// Only kit's writes are counted: rows written to a collection's table by
// other means (SQL of another program, a TRUNCATE) are not, until schema
// sync rebuilds the counts (a new countFormat). kit never moves a record
// to another team, so an update leaves the number alone; it still marks
// the team's rows as changed, for the remembered totals of filtered lists
// (see totals.go): on SQLite the group's upsert raises gen for an update
// too, on PostgreSQL an update inserts a delta row of 0.

// countFormat is tableDef.Counted: the layout of the row counts. A table
// synced before they existed (Counted 0) gets its counts built by sync;
// one synced with format 1 (before the versions of totals.go) gets them
// built again, with the version column.
const countFormat = 2

// countCompactOver is how many delta rows of one (table, team) a
// PostgreSQL total sums before the read compacts them.
const countCompactOver = 64

// countDelta is a change of one (table, team) row count.
type countDelta struct {
	table, team string
	n           int64
}

// counted is the record statement q (an INSERT or a DELETE of c's table)
// made to count its rows on PostgreSQL: each row it writes adds a delta
// row of n for its team in the same statement. The statement's rows
// affected are the delta rows, as many as q's. On SQLite it is q.
func (s *Store) counted(c *collections.Collection, q string, n int) string {
	if !s.has(featDeltaCounts) {
		return q
	}
	return "WITH kit_row AS (" + q + ` RETURNING "team_id") ` + deltaRows(c, `"team_id"`, fmt.Sprint(n), false)
}

// deltaRows is the INSERT of the PostgreSQL delta rows of c's rows that a
// data-modifying WITH query named kit_row wrote: a row of n (SQL) for
// each row of kit_row, whose team is its column team, or with grouped one
// row per team, n then an aggregate (count(*)) or a constant. Every
// statement that writes c's rows and counts them in one builds its delta
// rows here.
func deltaRows(c *collections.Collection, team, n string, grouped bool) string {
	// The table name passed validIdent (quote): a safe literal.
	q := "INSERT INTO kit_row_counts (table_name, team_id, n) SELECT '" + c.Table() + "', " + team + ", " + n + " FROM kit_row"
	if grouped {
		q += " GROUP BY " + team
	}
	return q
}

// syncCounts makes c's row counts current in sync's transaction: the
// counts table, then the counts rebuilt from the rows. On PostgreSQL the
// table is locked against writers first (SHARE mode, until sync commits),
// so that no write of an older kit falls between the count and the end of
// the sync; on SQLite sync's transaction holds the write lock.
func (s *Store) syncCounts(ctx context.Context, tx bun.Tx, c *collections.Collection) error {
	for _, q := range s.dialect.countsDDL(c.Table()) {
		if _, err := s.execOnce(ctx, tx, q); err != nil {
			return fmt.Errorf("store: count rows of %s: %w", c.Table(), err)
		}
	}
	if !s.has(featDeltaCounts) {
		// The version column (totals.go) is added to a table made before
		// it.
		cols, err := s.tableColumns(ctx, tx, "kit_row_counts")
		if err != nil {
			return err
		}
		if !slices.Contains(cols, "gen") {
			if _, err := s.execOnce(ctx, tx, `ALTER TABLE kit_row_counts ADD COLUMN gen INTEGER NOT NULL DEFAULT 0`); err != nil {
				return fmt.Errorf("store: count rows of %s: %w", c.Table(), err)
			}
		}
	}
	return s.recount(ctx, tx, c)
}

// recount replaces c's row counts with a count of its rows. On PostgreSQL
// the new rows carry the recount's transaction id, which no remembered
// total has seen; on SQLite every team's gen of the table moves past the
// largest it had, and a team whose rows are all gone keeps a row of 0, so
// that no gen is ever given twice (see totals.go).
func (s *Store) recount(ctx context.Context, db bun.IDB, c *collections.Collection) error {
	s.totals.forget(c.Table())
	count := `SELECT ?, "team_id", count(*) FROM ` + quote(c.Table()) + ` GROUP BY "team_id"`
	stmts := [][]any{
		{`DELETE FROM kit_row_counts WHERE table_name = ?`, c.Table()},
		{`INSERT INTO kit_row_counts (table_name, team_id, n) ` + count, c.Table()},
	}
	if !s.has(featDeltaCounts) {
		var gen int64
		if err := s.queryRowOnce(ctx, db, `SELECT coalesce(max(gen), 0) FROM kit_row_counts WHERE table_name = ?`, c.Table()).Scan(&gen); err != nil {
			return fmt.Errorf("store: count rows of %s: %w", c.Table(), err)
		}
		stmts = [][]any{
			{`UPDATE kit_row_counts SET n = 0, gen = ? WHERE table_name = ?`, gen + 1, c.Table()},
			{`INSERT INTO kit_row_counts (table_name, team_id, n, gen) SELECT ?, "team_id", count(*), ? FROM ` + quote(c.Table()) + ` WHERE true GROUP BY "team_id"
	ON CONFLICT (table_name, team_id) DO UPDATE SET n = excluded.n, gen = excluded.gen`, c.Table(), gen + 1},
		}
	}
	for _, st := range stmts {
		if _, err := s.execOnce(ctx, db, st[0].(string), st[1:]...); err != nil {
			return fmt.Errorf("store: count rows of %s: %w", c.Table(), err)
		}
	}
	return nil
}

// touchTable marks the rows of every team of c's table as changed, for the
// remembered totals (totals.go), in sync's transaction: sync may have
// changed stored values (sort keys filled, managed columns backfilled, a
// column's type changed), and other Stores on the same database remember
// totals too.
func (s *Store) touchTable(ctx context.Context, tx bun.Tx, c *collections.Collection) error {
	s.totals.forget(c.Table())
	q := `UPDATE kit_row_counts SET gen = gen + 1 WHERE table_name = ?`
	if s.has(featDeltaCounts) {
		q = `INSERT INTO kit_row_counts (table_name, team_id, n) SELECT DISTINCT table_name, team_id, 0 FROM kit_row_counts WHERE table_name = ?`
	}
	if _, err := s.execOnce(ctx, tx, q, c.Table()); err != nil {
		return fmt.Errorf("store: count rows of %s: %w", c.Table(), err)
	}
	return nil
}

// countRows notes that a write of kit added (n > 0) or removed (n < 0) n
// rows of team teamID in c's table. On PostgreSQL the statement counted
// them (see counted).
func (s *Store) countRows(ctx context.Context, db bun.IDB, c *collections.Collection, teamID string, n int64) error {
	if s.has(featDeltaCounts) || n == 0 {
		return nil
	}
	return s.noteCount(ctx, db, countDelta{table: c.Table(), team: teamID, n: n})
}

// touchRows notes that a write of kit changed rows of team teamID in c's
// table without adding or removing any (an update, a move, a reorder), so
// that the team's remembered totals are counted again (see totals.go): on
// SQLite a delta of 0 that still raises gen, on PostgreSQL a delta row of
// 0 in db's transaction. The statements that write and count in one
// (see logged and updateBatchSQL) insert that row themselves.
func (s *Store) touchRows(ctx context.Context, db bun.IDB, c *collections.Collection, teamID string) error {
	if s.has(featDeltaCounts) {
		if _, err := s.exec(ctx, db, `INSERT INTO kit_row_counts (table_name, team_id, n) VALUES (?, ?, 0)`, c.Table(), teamID); err != nil {
			return fmt.Errorf("store: count rows of %s: %w", c.Table(), err)
		}
		return nil
	}
	return s.noteCount(ctx, db, countDelta{table: c.Table(), team: teamID})
}

// noteCount adds d to the SQLite row counts: in the write queue's request
// when the write runs in one (applyCounts adds it before the group
// commits), at once otherwise.
func (s *Store) noteCount(ctx context.Context, db bun.IDB, d countDelta) error {
	if r, ok := ctx.Value(writeReqKey{}).(*writeReq); ok {
		r.counts = append(r.counts, d)
		return nil
	}
	return s.addCounts(ctx, db, []countDelta{d})
}

// applyCounts adds the row counts the successful writes of a SQLite group
// noted, one upsert per (table, team).
func (s *Store) applyCounts(ctx context.Context, tx bun.Tx, ok []*writeReq) error {
	var sums []countDelta
	for _, r := range ok {
	next:
		for _, d := range r.counts {
			for i := range sums {
				if sums[i].table == d.table && sums[i].team == d.team {
					sums[i].n += d.n
					continue next
				}
			}
			sums = append(sums, d)
		}
	}
	return s.addCounts(ctx, tx, sums)
}

// addCounts upserts each delta into the SQLite row counts, raising the
// team's gen (totals.go) even for a delta of 0. A row starts at gen 1: a
// team without a row reads as gen 0.
func (s *Store) addCounts(ctx context.Context, db bun.IDB, deltas []countDelta) error {
	for _, d := range deltas {
		if _, err := s.exec(ctx, db, `INSERT INTO kit_row_counts (table_name, team_id, n, gen) VALUES (?, ?, ?, 1)
	ON CONFLICT (table_name, team_id) DO UPDATE SET n = kit_row_counts.n + excluded.n, gen = kit_row_counts.gen + 1`, d.table, d.team, d.n); err != nil {
			return fmt.Errorf("store: count rows of %s: %w", d.table, err)
		}
	}
	return nil
}

// teamRows returns the number of rows of team teamID in c's table from the
// row counts, read in r. On PostgreSQL a read on the Store's own pool
// that sums more than countCompactOver delta rows compacts them
// afterwards.
func (s *Store) teamRows(ctx context.Context, r Read, c *collections.Collection, teamID string) (int, error) {
	db := r.db(s)
	var total, rows int64
	err := s.queryRow(ctx, db, `SELECT coalesce(sum(n), 0), count(*) FROM kit_row_counts WHERE table_name = ? AND team_id = ?`,
		c.Table(), teamID).Scan(&total, &rows)
	if err != nil {
		return 0, fmt.Errorf("store: count %s: %w", c.Table(), err)
	}
	if s.has(featDeltaCounts) && rows > countCompactOver && r.pool() {
		if err := s.compactCounts(ctx, c, teamID); err != nil {
			s.logger().WarnContext(ctx, "store: compacting row counts failed; the next read retries", "table", c.Table(), "err", err.Error())
		}
	}
	return int(total), nil
}

// compactCounts replaces up to 10,000 PostgreSQL delta rows of (c, team)
// that no other transaction holds with one row of their sum, in one
// statement: rows a concurrent compaction locked are skipped (it sums
// them), rows inserted after the statement began and rows past the first
// 10,000 stay for the next read (so that no read pays for a long run of
// writes at once).
func (s *Store) compactCounts(ctx context.Context, c *collections.Collection, teamID string) error {
	_, err := s.execOnce(ctx, s.db, `WITH d AS (DELETE FROM kit_row_counts WHERE ctid = ANY(ARRAY(
	SELECT ctid FROM kit_row_counts WHERE table_name = ? AND team_id = ? LIMIT 10000 FOR UPDATE SKIP LOCKED)) RETURNING n)
INSERT INTO kit_row_counts (table_name, team_id, n) SELECT ?, ?, sum(n) FROM d HAVING count(*) > 0`,
		c.Table(), teamID, c.Table(), teamID)
	return err
}

// hasCounts reports whether a stored definition has current row counts.
func hasCounts(td *tableDef) bool { return td != nil && td.Counted == countFormat }
