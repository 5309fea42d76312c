package events

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/uptrace/bun/migrate"

	"github.com/collectionkit/kit/kit"
)

// Tracker is the installed add-on of one Kit: it tracks the Kit's
// mutations, serves the event endpoints, and cleans up old events. Its
// methods are safe for concurrent use. Two Kits in one process each have
// their own Tracker and share nothing.
type Tracker struct {
	k      *kit.Kit
	cfg    Config
	logger *slog.Logger

	mu     sync.Mutex
	health Health

	// retentionRuns counts the cleanups the retention loop ran (claimed
	// periods), for tests.
	retentionRuns atomic.Int64
}

// Install adds event tracking to k, once per Kit:
//
//   - under ctx, it creates the kit_events table and its indexes with
//     [kit.Kit.Migrate] (migration 20261121000200_kit_events, recorded in
//     kit_migrations), waiting while another instance holds the migration
//     lock;
//   - unless cfg.Disabled, it registers a mutation listener that writes
//     each create, update and delete's events inside the mutation's own
//     transaction, so a change and its events commit or roll back
//     together, with [kit.Kit.OnMutationRows]: on SQLite the events of a
//     group commit are inserted together; on PostgreSQL an event joins
//     its change's statement where kit writes it as one (see rowsOf);
//   - it adds the routes GET /teams/{team}/kit-events, POST
//     /teams/{team}/kit-collection-events, POST
//     /teams/{team}/kit-events/{id}/revert and GET /kit-events/health under
//     k's prefix, and describes them in k's OpenAPI document
//     ([kit.Kit.DescribeAPI]).
//
// Retention does not start by itself: call [Tracker.StartRetention]. A
// Config with an unknown error mode, or a second Install on the same Kit,
// is an error.
func Install(ctx context.Context, k *kit.Kit, cfg Config) (*Tracker, error) {
	if k == nil {
		return nil, fmt.Errorf("events: Install: nil Kit")
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	t := &Tracker{k: k, cfg: cfg, logger: k.Config().Logger}
	if err := t.migrate(ctx); err != nil {
		return nil, err
	}
	if err := t.addRoutes(); err != nil {
		return nil, err
	}
	if !cfg.Disabled {
		// A delete's event records no changes (see changesOf).
		k.OnMutationRowsWith(t.rowsOf, kit.MutationRowsOptions{NoDeleteState: true})
	}
	return t, nil
}

// Config returns the configuration the Tracker runs with.
func (t *Tracker) Config() Config { return t.cfg }

// migrate runs the add-on's migration in kit's migration tables.
func (t *Tracker) migrate(ctx context.Context) error {
	ms := migrate.NewMigrations()
	registerMigrations(ms)
	if err := t.k.Migrate(ctx, ms); err != nil {
		return fmt.Errorf("events: migrate kit_events: %w", err)
	}
	return nil
}

// addRoutes registers the endpoints. kit panics on a route registered
// twice (a second Install): that becomes an error.
func (t *Tracker) addRoutes() (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("events: Install: add routes (installed twice on one Kit?): %v", p)
		}
	}()
	t.k.HandleTeam(http.MethodGet, "kit-events", t.serveList)
	t.k.HandleTeam(http.MethodPost, "kit-collection-events", t.serveTrack)
	t.k.HandleTeam(http.MethodPost, "kit-events/{id}/revert", t.serveRevert)
	t.k.Handle(http.MethodGet, "/kit-events/health", t.k.Auth().RequireAdmin()(http.HandlerFunc(t.serveHealth)))
	t.k.DescribeAPI(t.describe)
	return nil
}
