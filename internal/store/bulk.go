package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
)

// bulkRowsPerStatement bounds the rows of one INSERT of InsertMany on
// PostgreSQL: the variables stay far below its limit of 65,535 for any
// collection of up to 100 columns.
const bulkRowsPerStatement = 500

// bulkRowsPerStatementSQLite is the bound on SQLite, far lower: the
// modernc driver finds each variable's argument by walking the argument
// list, a cost that grows with the square of the variables.
const bulkRowsPerStatementSQLite = 32

// InsertMany stores recs as len(recs) calls of Insert would, in
// multi-row INSERT statements: the same columns, encoding and sort keys,
// and the row counts raised by the rows of each team (one count change per
// team instead of one per row). Every record must hold every attribute of
// c (nil for none) and the system fields Insert needs. It is for loading
// data in bulk inside one transaction db; it writes no change log and
// leaves SQLite's search index to FlushSearch, as Insert does.
func (s *Store) InsertMany(ctx context.Context, db bun.IDB, c *collections.Collection, recs []Record) error {
	if len(recs) == 0 {
		return nil
	}
	attrs := c.Attributes()
	var cols []string
	for _, a := range attrs {
		cols = append(cols, quote(a.Column))
		if hasSortKey(a) {
			cols = append(cols, quote(sortKeyColumn(a)))
		}
		if hasUniqueKey(a) {
			cols = append(cols, quote(uniqueKeyColumn(a)))
		}
	}
	row := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ") + ")"
	per := s.dialect.bulkRowsPerStatement()
	counts := map[string]int64{}
	var teams []string
	for start := 0; start < len(recs); start += per {
		chunk := recs[start:min(start+per, len(recs))]
		args := make([]any, 0, len(chunk)*len(cols))
		for _, rec := range chunk {
			for _, a := range attrs {
				v, ok := rec[a.Name]
				if !ok {
					return fmt.Errorf("store: insert %s: record %v has no %s", c.Table(), rec["id"], a.Name)
				}
				ev, err := encode(s.dialect, a, v)
				if err != nil {
					return err
				}
				args = append(args, ev)
				if hasSortKey(a) {
					args = append(args, sortKeyValue(ev))
				}
				if hasUniqueKey(a) {
					args = append(args, uniqueKeyValue(ev))
				}
			}
			team, _ := rec["teamId"].(string)
			if _, ok := counts[team]; !ok {
				teams = append(teams, team)
			}
			counts[team]++
		}
		q := "INSERT INTO " + quote(c.Table()) + " (" + strings.Join(cols, ", ") + ") VALUES " +
			strings.TrimSuffix(strings.Repeat(row+", ", len(chunk)), ", ")
		run := s.exec
		if len(chunk) < per {
			run = s.execOnce // the last, shorter statement is not worth keeping prepared
		}
		if _, err := run(ctx, db, q, args...); err != nil {
			return classifyFor(c, fmt.Errorf("store: insert %s: %w", c.Table(), err))
		}
	}
	for _, team := range teams {
		if s.has(featDeltaCounts) {
			// One delta row per team, as counted's would be per row.
			if _, err := s.execOnce(ctx, db, `INSERT INTO kit_row_counts (table_name, team_id, n) VALUES (?, ?, ?)`, c.Table(), team, counts[team]); err != nil {
				return fmt.Errorf("store: count rows of %s: %w", c.Table(), err)
			}
			continue
		}
		if err := s.addCounts(ctx, db, []countDelta{{table: c.Table(), team: team, n: counts[team]}}); err != nil {
			return err
		}
	}
	return nil
}
