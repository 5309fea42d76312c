package pgopen

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// IsDSN reports whether dsn names a PostgreSQL database.
func IsDSN(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// Options tunes the pool; zero values take the defaults.
type Options struct {
	MaxOpenConns int // default 20
	// MaxIdleConns defaults to MaxOpenConns: a pool that closes the
	// connections a burst opened, to open them again at the next burst,
	// starts a PostgreSQL backend each time, which then plans kit's
	// prepared statements afresh (docs/decisions/0013). ConnMaxIdleTime closes them once the load is gone.
	MaxIdleConns    int
	ConnMaxIdleTime time.Duration // default 5 minutes
	ConnMaxLife     time.Duration // default 30 minutes
	// SearchPath, when set, is the schema search path of every connection.
	SearchPath string
}

// Open connects to dsn and checks the connection.
func Open(ctx context.Context, dsn string, opts Options) (*bun.DB, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("pgopen: parse %q: %w", redact(dsn), err)
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	if opts.SearchPath != "" {
		if cfg.RuntimeParams == nil {
			cfg.RuntimeParams = map[string]string{}
		}
		cfg.RuntimeParams["search_path"] = opts.SearchPath
	}
	sqldb := stdlib.OpenDB(*cfg)
	open := orInt(opts.MaxOpenConns, 20)
	sqldb.SetMaxOpenConns(open)
	sqldb.SetMaxIdleConns(orInt(opts.MaxIdleConns, open))
	sqldb.SetConnMaxIdleTime(orDuration(opts.ConnMaxIdleTime, 5*time.Minute))
	sqldb.SetConnMaxLifetime(orDuration(opts.ConnMaxLife, 30*time.Minute))
	if err := pingWithin(ctx, sqldb); err != nil {
		sqldb.Close()
		return nil, fmt.Errorf("pgopen: connect to %s: %w", redact(dsn), err)
	}
	return bun.NewDB(sqldb, pgdialect.New()), nil
}

func pingWithin(ctx context.Context, db *sql.DB) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return db.PingContext(ctx)
}

func orInt(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

func orDuration(v, def time.Duration) time.Duration {
	if v > 0 {
		return v
	}
	return def
}

// redact hides a password in a DSN for messages.
func redact(dsn string) string {
	at := strings.Index(dsn, "@")
	scheme := strings.Index(dsn, "://")
	if at < 0 || scheme < 0 || at < scheme {
		return dsn
	}
	creds := dsn[scheme+3 : at]
	if user, _, ok := strings.Cut(creds, ":"); ok {
		return dsn[:scheme+3] + user + ":***" + dsn[at:]
	}
	return dsn
}
