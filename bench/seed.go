package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/events"
	"github.com/collectionkit/kit/internal/pgopen"
	"github.com/collectionkit/kit/internal/store"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// fixture is the seeded data of both servers and how to reach it: the
// same rows (same ids, timestamps and values) in kit's database and in the
// raw baseline's, each with a pristine copy every workload starts from.
type fixture struct {
	pg  bool
	dsn string
	// SQLite: the working files the children open and their seeded copies.
	kitPath, rawPath, kitSeed, rawSeed string
	// PostgreSQL: one schema per server, dropped by cleanup.
	kitSchema, rawSchema string

	kitToken, rawToken  string
	userID              string
	teamID, otherTeamID string
	teamSlug, otherSlug string
	ids                 []string // the loaded team's record ids
	// bulk: the servers were seeded in bulk (more than bulkOver rows),
	// and a PostgreSQL restore rebuilds their indexes the same way.
	bulk                  bool
	seedKitTook, seedTook time.Duration
	// changed names the PostgreSQL servers whose tables a workload may
	// have written since they were seeded or restored (see restore).
	changed map[string]bool
}

// seed stores ds in kit through its Go record API (so every row is what
// kit itself writes), or in bulk with kit's storage code when the loaded
// team has more than bulkOver rows, and copies the stored rows into the
// raw baseline's table with SQL.
func seed(ctx context.Context, dir, dsn string, ds *dataset, bulkOver, trail int, progress io.Writer) (_ *fixture, err error) {
	fx := &fixture{pg: dsn != "", dsn: dsn}
	var kdb, rdb *bun.DB
	if fx.pg {
		suffix := randomHex(4)
		fx.kitSchema, fx.rawSchema = "kitbench_"+suffix+"_kit", "kitbench_"+suffix+"_raw"
		admin, err := pgopen.Open(ctx, dsn, pgopen.Options{MaxOpenConns: 2})
		if err != nil {
			return nil, err
		}
		defer admin.Close()
		for _, s := range []string{fx.kitSchema, fx.rawSchema} {
			if _, err := admin.ExecContext(ctx, "CREATE SCHEMA "+s); err != nil {
				return nil, err
			}
		}
		defer func() {
			if err != nil {
				fx.cleanup()
			}
		}()
		if kdb, err = pgopen.Open(ctx, dsn, pgopen.Options{SearchPath: fx.kitSchema}); err != nil {
			return nil, err
		}
		defer kdb.Close()
		if rdb, err = pgopen.Open(ctx, dsn, pgopen.Options{SearchPath: fx.rawSchema}); err != nil {
			return nil, err
		}
		defer rdb.Close()
	} else {
		fx.kitPath, fx.rawPath = filepath.Join(dir, "kit.db"), filepath.Join(dir, "raw.db")
		fx.kitSeed, fx.rawSeed = fx.kitPath+".seed", fx.rawPath+".seed"
	}

	start := time.Now()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	k, err := openKit(fx.kitPath, kdb, quiet, 0)
	if err != nil {
		return nil, fmt.Errorf("open kit: %w", err)
	}
	defer func() {
		if k != nil {
			k.Close()
		}
	}()
	stored, err := fx.seedKit(ctx, k, ds, bulkOver, progress)
	if err != nil {
		return nil, err
	}
	fx.seedKitTook = time.Since(start)
	// The events add-on's table, empty: the kit server installs the
	// add-on, kit-no-events does not (seeding wrote no events).
	if _, err := events.Install(ctx, k, events.Config{}); err != nil {
		return nil, fmt.Errorf("install events: %w", err)
	}
	if err := seedTrail(ctx, k.DB(), fx.pg, kitTrail, trail); err != nil {
		return nil, err
	}
	if !fx.pg {
		if _, err := k.DB().ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
			return nil, err
		}
	}
	if err := k.Close(); err != nil {
		return nil, err
	}
	k = nil

	var raw *sql.DB
	if fx.pg {
		raw = rdb.DB
	} else {
		if raw, err = openRawSQLite(fx.rawPath); err != nil {
			return nil, err
		}
		defer raw.Close()
	}
	if err := fx.seedRaw(ctx, raw, stored, progress); err != nil {
		return nil, fmt.Errorf("seed raw: %w", err)
	}
	if err := seedTrail(ctx, raw, fx.pg, rawTrail, trail); err != nil {
		return nil, err
	}
	if fx.pg {
		for _, db := range []*bun.DB{kdb, rdb} {
			if _, err := db.ExecContext(ctx, "CREATE TABLE bench_seed AS TABLE shop_products"); err != nil {
				return nil, err
			}
		}
		// kit's row counts (kit_row_counts) and both audit tables are put
		// back with the rows.
		for _, q := range []struct {
			db   *bun.DB
			stmt string
		}{
			{kdb, "CREATE TABLE bench_seed_counts AS TABLE kit_row_counts"},
			{kdb, "CREATE TABLE bench_seed_events AS TABLE kit_events"},
			{rdb, "CREATE TABLE bench_seed_audit AS TABLE bench_audit"},
		} {
			if _, err := q.db.ExecContext(ctx, q.stmt); err != nil {
				return nil, err
			}
		}
		// The tables as restore leaves them, so that the first workload
		// of each server needs no restore.
		for _, db := range []*bun.DB{kdb, rdb} {
			if _, err := db.ExecContext(ctx, "VACUUM ANALYZE shop_products"); err != nil {
				return nil, err
			}
		}
		if _, err := kdb.ExecContext(ctx, "VACUUM ANALYZE "+store.SearchTable("shop_products")); err != nil {
			return nil, err
		}
	} else {
		if _, err := raw.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
			return nil, err
		}
		if err := raw.Close(); err != nil {
			return nil, err
		}
		if err := copyFile(fx.kitPath, fx.kitSeed); err != nil {
			return nil, err
		}
		if err := copyFile(fx.rawPath, fx.rawSeed); err != nil {
			return nil, err
		}
	}
	fx.seedTook = time.Since(start)
	return fx, nil
}

// storedRow is a record as kit stored it, for the raw copy.
type storedRow struct {
	p                    product
	id, team             string
	createdAt, updatedAt time.Time
}

func (fx *fixture) seedKit(ctx context.Context, k *kit.Kit, ds *dataset, bulkOver int, progress io.Writer) ([]storedRow, error) {
	acc := k.Accounts()
	team, err := acc.CreateTeam(ctx, teamauth.Team{Name: "Acme", Slug: "acme"})
	if err != nil {
		return nil, err
	}
	other, err := acc.CreateTeam(ctx, teamauth.Team{Name: "Globex", Slug: "globex"})
	if err != nil {
		return nil, err
	}
	user, err := acc.CreateUser(ctx, teamauth.User{Name: "Bench", Email: "bench@example.com"})
	if err != nil {
		return nil, err
	}
	for _, t := range []string{team.ID, other.ID} {
		if _, err := acc.AddMember(ctx, t, user.ID, teamauth.RoleOwner); err != nil {
			return nil, err
		}
	}
	if fx.kitToken, _, err = acc.CreateToken(ctx, user.ID, "bench"); err != nil {
		return nil, err
	}
	fx.rawToken = "raw-" + randomHex(16)
	fx.userID, fx.teamID, fx.otherTeamID = user.ID, team.ID, other.ID
	fx.teamSlug, fx.otherSlug = team.Slug, other.Slug
	if len(ds.Main) > bulkOver {
		fx.bulk = true
		return fx.bulkSeed(ctx, k, ds, team.ID, other.ID, user.ID, progress)
	}

	type job struct {
		i    int
		team string
		p    product
	}
	all := len(ds.Main) + len(ds.Other)
	out := make([]storedRow, all)
	jobs := make(chan job)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	done := 0
	recs := k.Records(productsKey)
	// A few writers: SQLite serializes them anyway, PostgreSQL gains from
	// the overlap.
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				rec, err := recs.Create(ctx, kit.Actor{UserID: user.ID, TeamID: j.team, Role: teamauth.RoleOwner}, map[string]any{
					"title": j.p.Title, "sku": j.p.SKU, "description": j.p.Description,
					"price": j.p.PriceString(), "stock": float64(j.p.Stock), "isActive": j.p.IsActive,
				})
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				if err == nil {
					out[j.i] = storedRow{p: j.p, id: rec["id"].(string), team: j.team,
						createdAt: rec["createdAt"].(time.Time), updatedAt: rec["updatedAt"].(time.Time)}
				}
				done++
				if progress != nil && done%10000 == 0 {
					fmt.Fprintf(progress, "seeded %d of %d rows into kit\n", done, all)
				}
				mu.Unlock()
			}
		}()
	}
	for i := 0; i < all; i++ {
		j := job{i: i, team: team.ID}
		if i < len(ds.Main) {
			j.p = ds.Main[i]
		} else {
			j.p, j.team = ds.Other[i-len(ds.Main)], other.ID
		}
		mu.Lock()
		failed := firstErr != nil
		mu.Unlock()
		if failed {
			break
		}
		jobs <- j
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return nil, fmt.Errorf("seed kit: %w", firstErr)
	}
	fx.ids = make([]string, len(ds.Main))
	for i := range ds.Main {
		fx.ids[i] = out[i].id
	}
	return out, nil
}

// rawRowsPerStatement is how many rows one INSERT of seedRaw writes (13
// variables each) on PostgreSQL, and on SQLite, where the modernc driver's
// cost of binding grows with the square of a statement's variables.
const rawRowsPerStatement, rawRowsPerStatementSQLite = 500, 50

// seedRaw copies rows into the baseline's table: multi-row INSERTs in
// transactions of bulkTx rows, the indexes created after the load. On
// SQLite one connection writes without syncing (seedPragmas); on
// PostgreSQL four connections write at once.
func (fx *fixture) seedRaw(ctx context.Context, db *sql.DB, rows []storedRow, progress io.Writer) error {
	var creates []string
	for _, stmt := range append(rawSchema(fx.pg), rawAuditSchema(fx.pg)...) {
		if strings.HasPrefix(stmt, "CREATE INDEX") || strings.HasPrefix(stmt, "CREATE UNIQUE INDEX") {
			creates = append(creates, stmt)
			continue
		}
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	// SQLite: one connection, db's only one, writes without syncing (db
	// is closed after seeding); PostgreSQL: four at once.
	workers := 4
	if !fx.pg {
		db.SetMaxOpenConns(1)
		if err := seedPragmas(ctx, db); err != nil {
			return err
		}
		workers = 1
	}
	s := &rawServer{pg: fx.pg}
	ts := func(t time.Time) any {
		if fx.pg {
			return t
		}
		return t.UTC().Format(rawTimeLayout)
	}
	per := rawRowsPerStatement
	if !fx.pg {
		per = rawRowsPerStatementSQLite
	}
	insert := func(n int) (string, []any) {
		q := &rawQuery{pg: fx.pg}
		q.sql("INSERT INTO shop_products (" + rawColumns + ") VALUES ")
		for j := range n {
			if j > 0 {
				q.sql(", ")
			}
			q.sql("(")
			for k := range 13 {
				if k > 0 {
					q.sql(", ")
				}
				q.arg(nil)
			}
			q.sql(")")
		}
		return q.sb.String(), make([]any, 0, 13*n)
	}
	full, _ := insert(per)
	write := func(ctx context.Context, from, to int) error {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if fx.pg {
			if _, err := tx.ExecContext(ctx, "SET LOCAL synchronous_commit = off"); err != nil {
				return err
			}
		}
		stmt, err := tx.PrepareContext(ctx, full)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for i := from; i < to; i += per {
			chunk := rows[i:min(i+per, to)]
			q, args := insert(len(chunk))
			for _, r := range chunk {
				args = append(args, r.id, r.team, fx.userID, r.p.Title, r.p.SKU, r.p.Description,
					s.price(r.p.PriceCents), r.p.Stock, r.p.IsActive, ts(r.createdAt), ts(r.updatedAt), fx.userID, fx.userID)
			}
			if len(chunk) == per {
				_, err = stmt.ExecContext(ctx, args...)
			} else {
				_, err = tx.ExecContext(ctx, q, args...)
			}
			if err != nil {
				return err
			}
		}
		return tx.Commit()
	}
	if err := inChunks(ctx, len(rows), workers, progress, "the baseline", write); err != nil {
		return err
	}
	// No ANALYZE: kit does not run it on SQLite either, so both servers'
	// query planners work without statistics (PostgreSQL's restore
	// analyzes both).
	return createIndexes(ctx, db, fx.pg, creates, progress, "the baseline")
}

// restore puts the seeded data back before a server starts, so every
// workload of every server starts from the same rows. On PostgreSQL it
// does so only after a workload that writes (see writes) ran on server:
// copying a million rows back into kit's table, its trigram indexes
// included, takes minutes.
func (fx *fixture) restore(ctx context.Context, server string) error {
	server = family(server)
	if fx.pg && !fx.changed[server] {
		return nil
	}
	schema, path, seedPath := fx.place(server)
	if !fx.pg {
		for _, suffix := range []string{"-wal", "-shm"} {
			if err := os.Remove(path + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
		}
		return copyFile(seedPath, path)
	}
	db, err := pgopen.Open(ctx, fx.dsn, pgopen.Options{SearchPath: schema, MaxOpenConns: 1})
	if err != nil {
		return err
	}
	defer db.Close()
	// A bulk-seeded table is restored as it was seeded: without the
	// indexes no constraint needs (kit's search table's trigram index
	// among them), which are built again after the load, and a
	// checkpoint then, so that the next round does not pay for writing
	// out the restore (a million rows kept row by row in a trigram index
	// took minutes, and kit's next create round ran at 1,698 req/s
	// against 3,982 in the round before the restore).
	var rebuild []string
	if fx.bulk {
		tables := []string{"shop_products"}
		if server == "kit" {
			tables = append(tables, store.SearchTable("shop_products"))
		}
		for _, t := range tables {
			creates, err := dropIndexes(ctx, db, true, t)
			if err != nil {
				return fmt.Errorf("restore %s: %w", server, err)
			}
			rebuild = append(rebuild, creates...)
		}
	}
	stmts := []string{"TRUNCATE shop_products", "INSERT INTO shop_products SELECT * FROM bench_seed",
		"TRUNCATE bench_audit", "INSERT INTO bench_audit SELECT * FROM bench_seed_audit"}
	if server == "kit" {
		stmts = []string{"TRUNCATE shop_products", "INSERT INTO shop_products SELECT * FROM bench_seed",
			"TRUNCATE kit_row_counts", "INSERT INTO kit_row_counts SELECT * FROM bench_seed_counts",
			"TRUNCATE kit_events", "INSERT INTO kit_events SELECT * FROM bench_seed_events"}
	}
	for _, stmt := range stmts {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("restore %s: %s: %w", server, stmt, err)
		}
	}
	if len(rebuild) > 0 {
		if err := createIndexes(ctx, db.DB, true, rebuild, nil, server); err != nil {
			return fmt.Errorf("restore %s: %w", server, err)
		}
	}
	if _, err := db.ExecContext(ctx, "VACUUM ANALYZE shop_products"); err != nil {
		return fmt.Errorf("restore %s: %w", server, err)
	}
	if server == "kit" {
		// kit's search table was emptied and filled again by the
		// collection table's triggers, its trigram index kept up to date
		// row by row (the state of a table that took its rows one write
		// at a time, as the collection table's own trigram indexes were
		// restored before; docs/decisions/0012 has why), or, seeded in bulk,
		// built again once.
		if _, err := db.ExecContext(ctx, "VACUUM ANALYZE "+store.SearchTable("shop_products")); err != nil {
			return fmt.Errorf("restore %s: %w", server, err)
		}
	}
	if fx.bulk {
		if _, err := db.ExecContext(ctx, "CHECKPOINT"); err != nil {
			return fmt.Errorf("restore %s: %w", server, err)
		}
	}
	delete(fx.changed, server)
	return nil
}

// writes names the workloads that change the rows.
var writes = map[string]bool{"create": true, "update": true, "delete": true, "filter-writes": true}

// ran notes that workload ran on server: restore puts the rows back before
// the next one when it wrote.
func (fx *fixture) ran(server, workload string) {
	if writes[workload] {
		if fx.changed == nil {
			fx.changed = map[string]bool{}
		}
		fx.changed[family(server)] = true
	}
}

// family is the server whose data server runs on: kit-no-events on kit's,
// raw-audit on raw's.
func family(server string) string {
	if server == "kit-no-events" {
		return "kit"
	}
	if server == "raw-audit" {
		return "raw"
	}
	return server
}

// place is where server's family (see family) keeps its data: its schema
// on PostgreSQL, its working file and the seeded copy of it on SQLite.
func (fx *fixture) place(server string) (schema, path, seedPath string) {
	if family(server) == "raw" {
		return fx.rawSchema, fx.rawPath, fx.rawSeed
	}
	return fx.kitSchema, fx.kitPath, fx.kitSeed
}

// cleanup drops the PostgreSQL schemas; SQLite files go with the
// temporary directory.
func (fx *fixture) cleanup() {
	if !fx.pg {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db, err := pgopen.Open(ctx, fx.dsn, pgopen.Options{MaxOpenConns: 1})
	if err != nil {
		return
	}
	defer db.Close()
	for _, s := range []string{fx.kitSchema, fx.rawSchema} {
		_, _ = db.ExecContext(ctx, "DROP SCHEMA IF EXISTS "+s+" CASCADE")
	}
}

// serverArgs are the --serve arguments of a child for server.
func (fx *fixture) serverArgs(server string) []string {
	args := []string{"--serve", server}
	schema, path, _ := fx.place(server)
	if fx.pg {
		args = append(args, "--db", fx.dsn, "--schema", schema)
	} else {
		args = append(args, "--sqlite", path)
	}
	if family(server) != "kit" {
		args = append(args, "--token", fx.rawToken, "--user", fx.userID, "--teams", fx.teamID+","+fx.otherTeamID)
	}
	return args
}

// token is the bearer token of server.
func (fx *fixture) token(server string) string {
	if family(server) == "raw" {
		return fx.rawToken
	}
	return fx.kitToken
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
