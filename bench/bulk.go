package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/store"
	"github.com/collectionkit/kit/kit"
)

// bulkSeed stores ds's rows in kit's table with kit's own storage code
// (store.InsertMany: the same encoding, sort keys and row counts as a
// Create, in multi-row INSERTs) in transactions of bulkTx rows, the
// table's indexes dropped during the load and created again after it
// (dropIndexes), and brings SQLite's search index up to date once at the
// end. The rows are what Create would store (validated and canonical, ids
// UUIDv7, timestamps one microsecond apart in the order of ds) without the
// HTTP layer, the write queue, hooks or the change log. SQLite writes on
// one connection without syncing (seedPragmas); PostgreSQL on four
// connections at once, each transaction with synchronous_commit off.
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
	recOf := func(r storedRow) (store.Record, error) {
		vals, err := c.ValidateCreate(map[string]any{
			"title": r.p.Title, "sku": r.p.SKU, "description": r.p.Description,
			"price": r.p.PriceString(), "stock": float64(r.p.Stock), "isActive": r.p.IsActive,
		})
		if err != nil {
			return nil, err
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
		return rec, nil
	}
	write := func(ctx context.Context, db bun.IDB, rows []storedRow) error {
		return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			if fx.pg {
				if _, err := tx.ExecContext(ctx, "SET LOCAL synchronous_commit = off"); err != nil {
					return err
				}
			}
			recs := make([]store.Record, len(rows))
			for i, r := range rows {
				rec, err := recOf(r)
				if err != nil {
					return err
				}
				recs[i] = rec
			}
			return s.InsertMany(ctx, tx, c, recs)
		})
	}
	// SQLite has one writer: the chunks go in turn over one connection
	// with the seeding's pragmas, the pool's only one (so that kit's
	// prepared statements are prepared on it). PostgreSQL writes on four
	// pooled connections at once. k is closed after seeding.
	var db bun.IDB = k.DB()
	workers := 4
	if !fx.pg {
		k.DB().SetMaxOpenConns(1)
		if err := seedPragmas(ctx, k.DB()); err != nil {
			return nil, err
		}
		workers = 1
	}
	indexes, err := dropIndexes(ctx, db, fx.pg, c.Table())
	if err != nil {
		return nil, err
	}
	if fx.pg {
		// The search table's trigram index too: its rows go in through
		// the collection table's insert trigger.
		more, err := dropIndexes(ctx, db, fx.pg, store.SearchTable(c.Table()))
		if err != nil {
			return nil, err
		}
		indexes = append(indexes, more...)
	}
	if err := inChunks(ctx, all, workers, progress, "kit", func(ctx context.Context, from, to int) error {
		return write(ctx, db, out[from:to])
	}); err != nil {
		return nil, fmt.Errorf("bulk seed kit: %w", err)
	}
	if err := createIndexes(ctx, k.DB().DB, fx.pg, indexes, progress, "kit"); err != nil {
		return nil, err
	}
	if fx.pg {
		// Each chunk wrote a delta row of kit's row counts per team; sum
		// them now, as kit's reads would in steps of 10,000.
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

// bulkTx is how many rows one transaction of a bulk load writes.
const bulkTx = 50_000

// inChunks calls write for the rows [from, to) of 0..n in chunks of
// bulkTx, on workers goroutines, and reports progress every 100,000 rows.
func inChunks(ctx context.Context, n, workers int, progress io.Writer, what string, write func(ctx context.Context, from, to int) error) error {
	chunks := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	done := 0
	start := time.Now()
	for range workers {
		wg.Go(func() {
			for from := range chunks {
				to := min(from+bulkTx, n)
				err := write(ctx, from, to)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				done += to - from
				if progress != nil && done%100_000 < bulkTx {
					fmt.Fprintf(progress, "seeded %d of %d rows into %s (bulk) in %s\n", done, n, what, time.Since(start).Round(time.Second))
				}
				mu.Unlock()
			}
		})
	}
	for from := 0; from < n; from += bulkTx {
		mu.Lock()
		failed := firstErr != nil
		mu.Unlock()
		if failed {
			break
		}
		chunks <- from
	}
	close(chunks)
	wg.Wait()
	return firstErr
}

// execQuerier is a database, a transaction or one connection.
type execQuerier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// seedPragmas makes a SQLite connection write without syncing, for
// seeding only (a crash mid-seed leaves a database nobody uses); the
// connection must be closed after the seeding. A larger page cache does
// not pay with modernc's SQLite: every cached page is a mapping of its
// own, mapped and unmapped with a system call.
func seedPragmas(ctx context.Context, conn execQuerier) error {
	_, err := conn.ExecContext(ctx, "PRAGMA synchronous = OFF")
	return err
}

// dropIndexes drops table's indexes that no constraint needs (the primary
// key and unique constraints stay) and returns the statements that create
// them again, exactly as they were: a load into a table without them and
// one CREATE INDEX each afterwards is several times faster than keeping
// them up to date row by row, and ends with the same indexes.
func dropIndexes(ctx context.Context, db execQuerier, pg bool, table string) ([]string, error) {
	// The table's name is a literal: a *bun.DB and a *sql.DB on
	// PostgreSQL disagree on placeholders. It is one of the harness's.
	if strings.ContainsAny(table, `'"`) {
		return nil, fmt.Errorf("table name %q", table)
	}
	q := `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = '` + table + `' AND sql IS NOT NULL ORDER BY name`
	if pg {
		q = `SELECT i.indexname, i.indexdef FROM pg_indexes i
			WHERE i.schemaname = current_schema() AND i.tablename = '` + table + `'
			AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = (quote_ident(i.schemaname) || '.' || quote_ident(i.indexname))::regclass)
			ORDER BY i.indexname`
	}
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("indexes of %s: %w", table, err)
	}
	var names, creates []string
	for rows.Next() {
		var name, create string
		if err := rows.Scan(&name, &create); err != nil {
			rows.Close()
			return nil, err
		}
		names, creates = append(names, name), append(creates, create)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, name := range names {
		if _, err := db.ExecContext(ctx, `DROP INDEX "`+name+`"`); err != nil {
			return nil, fmt.Errorf("drop index %s: %w", name, err)
		}
	}
	return creates, nil
}

// createIndexes runs the statements dropIndexes returned, on one
// connection of db; on PostgreSQL with 512 MiB of maintenance_work_mem
// (its default of 64 MiB makes a trigram index of a million rows spill
// to disk).
func createIndexes(ctx context.Context, db *sql.DB, pg bool, creates []string, progress io.Writer, what string) error {
	start := time.Now()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if pg {
		if _, err := conn.ExecContext(ctx, "SET maintenance_work_mem = '512MB'"); err != nil {
			return err
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), "RESET maintenance_work_mem")
	}
	for _, q := range creates {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	if progress != nil {
		fmt.Fprintf(progress, "built %d indexes of %s in %s\n", len(creates), what, time.Since(start).Round(time.Millisecond))
	}
	return nil
}
