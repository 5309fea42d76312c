package store

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// Rows joined to a logged write (PostgreSQL).
//
// InsertLogged, UpdateLoggedAt and DeleteLogged take optional commit rows
// (an audit trail's events, say) and write them in the write's own
// statement: one more data-modifying CTE per model type, which inserts a
// write's rows only when its record was written. A shared statement (see
// batch.go) carries the rows of all its writes. So a write and its rows
// commit together, in one statement that commits by itself, as they would
// in a transaction of their own, at the price of one statement instead of
// a transaction's five.
//
// The rows are optional: a statement that PostgreSQL rejects wrote
// nothing, so a write whose statement failed runs again without its rows.
// When that succeeds, the rows' Done gets the first statement's error and
// the write commits without them; when it fails too, the write fails with
// its own error and Done is not called. Done(nil) is called once the
// statement that inserted the rows has committed.

// JoinsRows reports whether rows may join a logged write's statement: on
// PostgreSQL (WritesAlone), when every set is Optional and of a model
// whose fields are all plain values (a string, a number, a bool or a
// time.Time, without a tag that changes what bun would write).
func (s *Store) JoinsRows(rows []CommitRows) bool {
	if !s.has(featConcurrentWrites) {
		return false
	}
	for _, set := range rows {
		if set.Model == nil {
			continue
		}
		if !set.Optional || s.rowInserts.of(s.db, reflect.TypeOf(set.Model)) == nil {
			return false
		}
	}
	return true
}

// errRowsNotJoinable is the error of a logged write given rows that
// JoinsRows refuses.
var errRowsNotJoinable = errors.New("store: commit rows that cannot join a logged write (see JoinsRows)")

// joinedRowsParams returns how many statement parameters rows add to a
// write (their values and each row's member key), or an error when they
// cannot join it.
func (s *Store) joinedRowsParams(rows []CommitRows) (int, error) {
	if len(rows) > 0 && !s.JoinsRows(rows) {
		return 0, errRowsNotJoinable
	}
	n := 0
	for _, set := range rows {
		if set.Model == nil {
			continue
		}
		ri := s.rowInserts.of(s.db, reflect.TypeOf(set.Model))
		n += reflect.ValueOf(set.Model).Elem().Len() * (len(ri.fields) + 3)
	}
	return n, nil
}

// joinedRowsSQL appends to b the CTEs that insert the rows of batch's
// writes and returns args with their values: one INSERT per model type,
// of the rows in a VALUES list whose first row's values are cast to the
// columns' types (which then type the other rows), each row led by its
// write's position in batch, team and id (kit_r.kit_k, kit_team, kit_id).
// written is the SQL condition on those under which a row is inserted:
// its write's record was written.
func (s *Store) joinedRowsSQL(b *strings.Builder, args []any, batch []*batchReq, written string) ([]any, error) {
	type group struct {
		ri   *rowInsert
		rows [][]any
	}
	var groups []*group
	byType := map[reflect.Type]*group{}
	for k, r := range batch {
		for _, set := range r.rows {
			if set.Model == nil {
				continue
			}
			t := reflect.TypeOf(set.Model)
			g := byType[t]
			if g == nil {
				ri := s.rowInserts.of(s.db, t)
				if ri == nil {
					return nil, errRowsNotJoinable
				}
				g = &group{ri: ri}
				byType[t] = g
				groups = append(groups, g)
			}
			v := reflect.ValueOf(set.Model).Elem()
			for i := range v.Len() {
				vals, err := g.ri.args(v.Index(i), true)
				if err != nil {
					return nil, err
				}
				g.rows = append(g.rows, append([]any{k, r.team, r.id}, vals...))
			}
		}
	}
	for n, g := range groups {
		cols := make([]string, len(g.ri.fields))
		aliases := make([]string, len(g.ri.fields))
		first := make([]string, len(g.ri.fields))
		for i, f := range g.ri.fields {
			cols[i], aliases[i] = string(f.SQLName), fmt.Sprintf("kit_r.c%d", i)
			first[i] = "CAST(? AS " + g.ri.types[i] + ")"
		}
		fmt.Fprintf(b, ", kit_rows_%d AS (INSERT INTO %s (%s) SELECT %s FROM (VALUES ", n, g.ri.table, strings.Join(cols, ", "), strings.Join(aliases, ", "))
		for i, row := range g.rows {
			if i > 0 {
				b.WriteString(", (" + strings.Repeat("?, ", len(row)-1) + "?)")
			} else {
				b.WriteString("(CAST(? AS INTEGER), CAST(? AS TEXT), CAST(? AS TEXT), " + strings.Join(first, ", ") + ")")
			}
			args = append(args, row...)
		}
		b.WriteString(") AS kit_r (kit_k, kit_team, kit_id")
		for i := range g.ri.fields {
			fmt.Fprintf(b, ", c%d", i)
		}
		b.WriteString(") WHERE " + written + ")")
	}
	return args, nil
}

// wrote reports whether write r, which ended without an error, wrote its
// record (an update may find its record equal and write nothing).
func (r *batchReq) wrote() bool { return r.before == nil || r.written }

// rowsDone calls the Done of every set of rows with err.
func rowsDone(rows []CommitRows, err error) {
	for _, set := range rows {
		if set.Done != nil {
			set.Done(err)
		}
	}
}

// statementRefused reports whether SQLSTATE state is the server refusing
// a statement, which then wrote nothing, rather than the session ending
// (a connection exception, an operator's intervention such as a killed
// backend, a system or internal error), after which a write is not tried
// again: whatever the outcome, it is the write's.
func statementRefused(state string) bool {
	switch state[:min(2, len(state))] {
	case "08", "57", "58", "XX":
		return false
	}
	return true
}

// runAlone runs write r alone through one, and, when PostgreSQL refuses
// the statement of a write that carries rows (statementRefused), again
// without them (see the top of this file).
func runAlone(ctx context.Context, r *batchReq, one func(ctx context.Context, r *batchReq) error) error {
	err := one(ctx, r)
	if len(r.rows) == 0 {
		return err
	}
	var ps sqlStater
	if err != nil && errors.As(err, &ps) && statementRefused(ps.SQLState()) {
		rows := r.rows
		r.rows, r.before, r.written = nil, nil, false
		if again := one(ctx, r); again != nil {
			return again
		}
		rowsDone(rows, err)
		return nil
	}
	if err == nil && r.wrote() {
		rowsDone(r.rows, nil)
	}
	return err
}
