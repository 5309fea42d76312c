package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/google/uuid"
)

// The "raw-audit" server is the raw baseline writing an audit row by hand,
// the work kit's events add-on does: every create, update and delete runs
// in a transaction of its own that also inserts one row into bench_audit
// with the changed fields' old and new values as JSON. An update reads the
// row first (SELECT ... FOR UPDATE on PostgreSQL; SQLite's BEGIN IMMEDIATE
// already holds the write lock) to know the old values; a delete takes
// them from DELETE ... RETURNING. The audit table has the two indexes its
// reads need (a team's events in time order, one record's history), with
// the same pool and pragmas as the raw server.

// rawAuditSchema is the DDL of the hand-written audit table.
func rawAuditSchema(pg bool) []string {
	text, ts := "TEXT", "TEXT"
	if pg {
		text, ts = `TEXT COLLATE "C"`, "TIMESTAMPTZ"
	}
	return []string{
		`CREATE TABLE IF NOT EXISTS bench_audit (
  id ` + text + ` PRIMARY KEY NOT NULL,
  team_id ` + text + ` NOT NULL,
  at ` + ts + ` NOT NULL,
  operation ` + text + ` NOT NULL,
  item_id ` + text + ` NOT NULL,
  user_id ` + text + ` NOT NULL,
  changes TEXT NOT NULL
)`,
		`CREATE INDEX IF NOT EXISTS ix_bench_audit_team_at ON bench_audit (team_id, at)`,
		`CREATE INDEX IF NOT EXISTS ix_bench_audit_item ON bench_audit (team_id, item_id, at)`,
	}
}

// rawDB is what a write runs on: the pool, or the audit transaction.
type rawDB interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// rawWrite is one write of a handler: on db, it returns the record's
// values before (nil for a create) and after (nil for a delete).
type rawWrite func(db rawDB) (before, after *rawProduct, err error)

// write runs w on the pool, or, for the raw-audit server, in a
// transaction with the audit row of op.
func (s *rawServer) write(ctx context.Context, team, op string, w rawWrite) (before, after *rawProduct, err error) {
	if !s.audit {
		return w(s.db)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, nil, err
	}
	defer func() { _ = tx.Rollback() }()
	if before, after, err = w(tx); err != nil {
		return nil, nil, err
	}
	item := ""
	switch {
	case after != nil:
		item = after.ID
	case before != nil:
		item = before.ID
	}
	changes, err := json.Marshal(auditChanges(before, after))
	if err != nil {
		return nil, nil, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return nil, nil, err
	}
	q := &rawQuery{pg: s.pg}
	q.sql("INSERT INTO bench_audit (id, team_id, at, operation, item_id, user_id, changes) VALUES (").
		arg(id.String()).sql(", ").arg(team).sql(", ").arg(s.now()).sql(", ").arg(op).sql(", ").arg(item).
		sql(", ").arg(s.userID).sql(", ").arg(string(changes)).sql(")")
	if _, err := tx.ExecContext(ctx, q.sb.String(), q.args...); err != nil {
		return nil, nil, fmt.Errorf("audit: %w", err)
	}
	return before, after, tx.Commit()
}

// auditChange is one changed field of an audit row, kit's event shape.
type auditChange struct {
	FieldName string  `json:"fieldName"`
	OldValue  *string `json:"oldValue"`
	NewValue  *string `json:"newValue"`
}

// auditChanges lists the fields whose value differs between before and
// after (either may be nil), each value as text.
func auditChanges(before, after *rawProduct) []auditChange {
	fields := func(p *rawProduct) [6]*string {
		if p == nil {
			return [6]*string{}
		}
		var stock, active *string
		if p.Stock != nil {
			s := strconv.FormatFloat(*p.Stock, 'f', -1, 64)
			stock = &s
		}
		if p.IsActive != nil {
			s := strconv.FormatBool(*p.IsActive)
			active = &s
		}
		return [6]*string{p.Title, p.SKU, p.Description, p.Price, stock, active}
	}
	names := [6]string{"title", "sku", "description", "price", "stock", "isActive"}
	old, cur := fields(before), fields(after)
	changes := []auditChange{}
	for i, name := range names {
		o, n := old[i], cur[i]
		if o == nil && n == nil || o != nil && n != nil && *o == *n {
			continue
		}
		changes = append(changes, auditChange{FieldName: name, OldValue: o, NewValue: n})
	}
	return changes
}
