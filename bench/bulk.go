package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/store"
	"github.com/collectionkit/kit/kit"
)

// bulkOver is the size of the loaded team above which seeding writes
// kit's rows in bulk (bulkSeed) instead of one Create each: --rows 1000000
// seeds in minutes instead of the better part of an hour.
const bulkOver = 100_000

// bulkChunk is how many rows one bulk transaction writes.
const bulkChunk = 10_000

// bulkSeed stores ds's rows in kit's table with kit's own storage code
// (store.Insert: the same encoding, sort keys and row counts as a Create)
// in large transactions, and brings SQLite's search index up to date once
// at the end. The rows are what Create would store (validated and
// canonical, ids UUIDv7, timestamps one microsecond apart in the order of
// ds) without the HTTP layer, the write queue, hooks or the change log.
// PostgreSQL writes on four connections at once.
func (fx *fixture) bulkSeed(ctx context.Context, k *kit.Kit, ds *dataset, teamID, otherID, userID string, progress io.Writer) ([]storedRow, error) {
	reg := k.Collections()
	c, ok := reg.Get(productsKey)
	if !ok {
		return nil, fmt.Errorf("no collection %s", productsKey)
	}
	s := store.New(k.DB(), func() *collections.Registry { return reg })
	defer s.Close()
	all := len(ds.Main) + len(ds.Other)
	out := make([]storedRow, all)
	base := time.Now().UTC().Truncate(time.Second).Add(-time.Duration(all) * time.Microsecond)
	for i := range out {
		r := storedRow{team: teamID}
		if i < len(ds.Main) {
			r.p = ds.Main[i]
		} else {
			r.p, r.team = ds.Other[i-len(ds.Main)], otherID
		}
		id, err := uuid.NewV7()
		if err != nil {
			return nil, err
		}
		r.id = id.String()
		r.createdAt = base.Add(time.Duration(i) * time.Microsecond)
		r.updatedAt = r.createdAt
		out[i] = r
	}
	write := func(rows []storedRow) error {
		return k.DB().RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			for _, r := range rows {
				vals, err := c.ValidateCreate(map[string]any{
					"title": r.p.Title, "sku": r.p.SKU, "description": r.p.Description,
					"price": r.p.PriceString(), "stock": float64(r.p.Stock), "isActive": r.p.IsActive,
				})
				if err != nil {
					return err
				}
				rec := store.Record{"id": r.id, "teamId": r.team, "owner": userID,
					"createdAt": r.createdAt, "updatedAt": r.updatedAt, "createdBy": userID, "updatedBy": userID}
				for k, v := range vals {
					rec[k] = v
				}
				for _, a := range c.Attributes() {
					if _, ok := rec[a.Name]; !ok {
						rec[a.Name] = nil
					}
				}
				if err := s.Insert(ctx, tx, c, rec); err != nil {
					return err
				}
			}
			return nil
		})
	}
	workers := 1 // SQLite has one writer
	if fx.pg {
		workers = 4
	}
	chunks := make(chan []storedRow)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	done := 0
	for range workers {
		wg.Go(func() {
			for rows := range chunks {
				err := write(rows)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				done += len(rows)
				if progress != nil && done%100_000 < bulkChunk {
					fmt.Fprintf(progress, "seeded %d of %d rows into kit (bulk)\n", done, all)
				}
				mu.Unlock()
			}
		})
	}
	for i := 0; i < all; i += bulkChunk {
		chunks <- out[i:min(i+bulkChunk, all)]
	}
	close(chunks)
	wg.Wait()
	if firstErr != nil {
		return nil, fmt.Errorf("bulk seed kit: %w", firstErr)
	}
	if fx.pg {
		// Each insert wrote a delta row of kit's row counts; sum them now,
		// as kit's reads would in steps of 10,000.
		if _, err := k.DB().ExecContext(ctx, `WITH d AS (DELETE FROM kit_row_counts RETURNING table_name, team_id, n)
			INSERT INTO kit_row_counts SELECT table_name, team_id, sum(n) FROM d GROUP BY table_name, team_id`); err != nil {
			return nil, err
		}
	}
	start := time.Now()
	if err := s.FlushSearch(ctx, k.DB(), c); err != nil {
		return nil, err
	}
	if progress != nil && !fx.pg {
		fmt.Fprintf(progress, "built kit's search index in %s\n", time.Since(start).Round(time.Second))
	}
	fx.ids = make([]string, len(ds.Main))
	for i := range ds.Main {
		fx.ids[i] = out[i].id
	}
	return out, nil
}
