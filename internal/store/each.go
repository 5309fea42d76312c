package store

import (
	"context"
	"fmt"

	"github.com/collectionkit/kit/collections"
)

// Each runs list query q of team teamID (its ids, filter, search and
// sort; its page does not apply) and calls fn with each matching record,
// in order, as the rows arrive: one statement whose rows are read one at
// a time, so the memory it holds does not grow with the number of rows.
// It runs on the Store's own pool, in the one snapshot of that statement.
// fn's error stops it and is returned as it is.
func (s *Store) Each(ctx context.Context, c *collections.Collection, teamID string, q collections.ListQuery, fn func(Record) error) error {
	where, args, err := s.where(c, teamID, q, false)
	if err != nil {
		return err
	}
	order := s.orderBy(q.Sort)
	if order != "" {
		order += ", "
	}
	order += quote("id")
	rows, err := s.query(ctx, s.db, "SELECT "+s.selectList(c)+" FROM "+quote(c.Table())+" WHERE "+where+" ORDER BY "+order, args...)
	if err != nil {
		return fmt.Errorf("store: query %s: %w", c.Table(), err)
	}
	defer rows.Close()
	attrs := c.Attributes()
	vals := make([]any, len(attrs))
	ptrs := make([]any, len(attrs))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return fmt.Errorf("store: scan %s: %w", c.Table(), err)
		}
		rec := make(Record, len(attrs))
		for i, a := range attrs {
			v, err := decode(s.dialect, a, vals[i])
			if err != nil {
				return err
			}
			rec[a.Name] = v
		}
		if err := fn(rec); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: read %s: %w", c.Table(), err)
	}
	return nil
}
