package kit

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/changehub"
	"github.com/collectionkit/kit/internal/store"
	"github.com/collectionkit/kit/openapi"
	"github.com/collectionkit/kit/teamauth"
)

// Config configures a Kit. The zero value runs on an embedded SQLite file
// named kit.db in the working directory, with no collections yet.
type Config struct {
	// DB is the database: a *bun.DB on SQLite (sqlitedialect) or PostgreSQL
	// (pgdialect). kit does not close a DB it was given. When nil, kit
	// opens SQLitePath. On PostgreSQL, New (and each schema sync) opens a
	// few of the pool's connections at once and returns them to it (the
	// search slots plus GOMAXPROCS plus one, at most MaxOpenConns less
	// one), so that a first burst of requests finds them open; the pool
	// keeps them as its MaxIdleConns allow (README, "Keep the pool's
	// connections").
	DB *bun.DB
	// SQLitePath is the SQLite file opened when DB is nil. Default
	// "kit.db"; ":memory:<name>" opens an in-memory database. A path gets
	// kit's pragmas (WAL, background checkpoints, a 256 MiB memory map:
	// see docs/getting-started.md); a "file:" URI with pragmas of
	// its own gets none added.
	SQLitePath string
	// QueryHook, when set, observes the statements kit's record service
	// runs (record, tree and search reads and writes, schema sync, the
	// write queue's savepoints, period claims). kit runs those through
	// database/sql with driver arguments and a prepared-statement cache,
	// past the hooks registered on DB, and calls QueryHook around each
	// instead, with a bun.QueryEvent (Query is the SQL text with
	// placeholders, QueryArgs the arguments), so bunotel and bundebug hooks
	// work unchanged. Statements made through bun's query builder (kit's
	// migrations) go through DB's own hooks: register the same hook there
	// (db.AddQueryHook) to see everything. When kit opens the SQLite
	// database itself, it registers QueryHook on it too. On PostgreSQL
	// concurrent writes may share one statement (see
	// docs/postgresql.md): the hook sees it once, with the context of the
	// write that runs it.
	QueryHook bun.QueryHook

	// Schemas is a schemas folder (embed.FS, os.DirFS, ...): one JSON file
	// per collection, optionally in one level of layer sub-directories, and
	// an optional kit.config.json.
	Schemas fs.FS
	// Definitions are collections defined in Go, built with the files.
	Definitions []collections.Definition
	// DefaultLayer is the layer of root-level schema files and Go
	// definitions without one. Default "app".
	DefaultLayer string
	// Collections overrides collection settings in Go, keyed by collection
	// name or registry key, over kit.config.json.
	Collections map[string]collections.Config
	// AllowDestructiveSchemaChanges lets schema sync drop the columns it
	// keeps for fields removed from their schemas, with their values
	// (each drop is logged as a warning with the number of values lost),
	// as `kit migrate apply --drop` does. Off, such columns stay: reads
	// and writes ignore them, and a field that comes back takes its column
	// again. Nothing else is destructive: a type change converts the
	// stored values or fails with ErrSchemaDrift, changing nothing (see
	// docs/schema-changes.md).
	AllowDestructiveSchemaChanges bool

	// Limits bounds list requests; zero fields take the defaults of
	// [collections.DefaultQueryLimits].
	Limits collections.QueryLimits
	// SearchScans is how many expensive lists run at once; the others
	// wait for a slot (at most ScanQueue of them), or until their request
	// ends, so no burst of them starves the server. Expensive lists are
	// those that may read more than an index range of a team's rows: on
	// SQLite the searches that may read more than a few thousand rows (a
	// term common enough that a scan of the team's rows beats the search
	// index, or one too short for it), on PostgreSQL, whose planner
	// chooses each search's plan, every search; and on both engines, for a
	// team of more than a few thousand records, a filter that no index
	// narrows (no condition on an indexed field) and a list sorted by a
	// field without an index. Default (0): on SQLite half the CPUs Go
	// uses, at least 1; on PostgreSQL the CPUs Go uses, at least 2 and at
	// most half the pool's open connections. On PostgreSQL a search that
	// starts while another runs does without the server's parallel
	// workers, so each slot is about one of the database's CPUs: when
	// PostgreSQL runs on another machine, set it to about that machine's
	// CPUs.
	SearchScans int
	// ScanQueue is how many expensive lists (see SearchScans) wait for a
	// slot at once. One more is refused at once with a 503 and a
	// Retry-After header (ErrBusy) instead of queueing without end.
	// Default (0): 4 per slot.
	ScanQueue int
	// TotalsCache is how many totals of filtered and searched lists kit
	// remembers (per collection, team and query). A list whose total is
	// remembered reads its page only: the statement that reads it also
	// checks that the team's records of the collection have not changed
	// since the total was counted (every create, update, delete, move and
	// reorder of kit marks them), and counts again when they have, so the
	// total is always exact. Paging through a filter, or listing the same
	// search again, then costs a page instead of a count of every match.
	// Default (0): 1024; negative: none remembered, every list counts.
	TotalsCache int

	// Prefix is where Handler serves the API. Default "/api".
	Prefix string
	// MaxBodyBytes limits request bodies. Default 1 MiB.
	MaxBodyBytes int64
	// MaxImportBytes limits the body of an import (POST
	// .../{apiPath}/import), read whole before anything is written; the
	// import holds its rows until it commits, about 45 times the CSV's
	// size in memory. Default 16 MiB.
	MaxImportBytes int64
	// Middleware wraps the whole API handler once (outermost first), for
	// rate limiters, logging: every request Handler serves, unknown
	// routes and wrong methods included, passes each middleware once
	// (CORS preflights excepted: see CORS).
	Middleware []func(http.Handler) http.Handler
	// CORS lets pages of other origins call the API with bearer tokens.
	// The zero value is off. See CORSConfig.
	CORS CORSConfig
	// Directory looks up teams, users and memberships. Default: kit's own
	// tables (teamauth.Store on DB).
	Directory teamauth.Directory
	// Authenticator identifies the caller. Default: a user put in the
	// request context with teamauth.WithUser, else a bearer API token from
	// kit's token table, else a session cookie from POST /api/auth/login.
	Authenticator teamauth.Authenticator
	// Accounts configures sign-in and the accounts routes (session cookie
	// and lifetimes, who may create teams, trusted origins, the sign-in
	// throttle). The zero value is the documented defaults.
	Accounts teamauth.AccountsConfig

	// Changes configures the change stream (GET
	// {prefix}/teams/{team}/kit-changes) and its change log, written in
	// every mutation's transaction. The zero value turns it on with the
	// documented defaults.
	Changes ChangesConfig
	// Presence configures the presence channel (GET
	// {prefix}/teams/{team}/kit-presence): who else has a collection or
	// record open. The zero value turns it on with the documented defaults.
	Presence PresenceConfig
	// Trash configures the trash of softDelete collections: how long a
	// deleted record stays restorable. The zero value is the documented
	// defaults (30 days, purged hourly).
	Trash TrashConfig
	// Backups schedules backups of a SQLite database to a folder, once
	// per interval across the instances; the zero value schedules none.
	Backups BackupConfig

	// Files says where the bytes of image and file fields live (a local
	// directory beside the SQLite file by default, or an S3-compatible
	// bucket) and how file URLs are signed. See FilesConfig.
	Files FilesConfig

	// Dev turns on development behaviour (add-ons may tell the caller more).
	Dev bool
	// Logger receives kit's logs. Default slog.Default().
	Logger *slog.Logger

	// schemaRec, set by ApplySchema, records what schema sync does.
	schemaRec *planRecorder
}

// Kit is an embeddable collection service: collections from schema files
// or Go, stored team by team, served by Handler and by the Go record API.
// Several Kits can live in one process; they share nothing.
type Kit struct {
	cfg     Config
	db      *bun.DB
	ownsDB  bool
	store   *store.Store
	auth    *teamauth.Store
	logger  *slog.Logger
	limits  collections.QueryLimits // Config.Limits, defaults filled in
	answers answerBufs              // buffers of ?ids= answers (writeRecordsTagged)
	actors  checkedActors           // Go callers' actors found in the Directory (openForWrite)
	regMu   sync.Mutex              // serializes Register
	reg     atomic.Pointer[collections.Registry]
	defs    []collections.Definition
	closed  atomic.Bool
	hooksMu sync.RWMutex
	txHooks []MutationTxFunc
	// rowsHooks are the OnMutationRows listeners.
	rowsHooks []MutationRowsFunc
	// deleteStateHooks counts the rowsHooks that read a delete's
	// BeforeData (registered without MutationRowsOptions.NoDeleteState).
	deleteStateHooks int
	hooks            []MutationFunc
	hub              *changehub.Hub
	// presence holds the open presence streams (presence.go).
	presence *presenceRegistry
	// loopCtx is the periodic jobs' context (loops.go: the trash
	// retention, the scheduled backups, the file sweep), which Close
	// cancels (stopLoops) and then waits for them (loops) before it closes
	// the database.
	loopCtx   context.Context
	stopLoops context.CancelFunc
	loops     sync.WaitGroup
	// files keeps the blobs of image and file fields (files.go).
	files *fileStore

	routerOnce sync.Once
	router     router
	handler    http.Handler // built once by Open: see buildHandler
	teamAuth   *teamauth.Auth
	// defaultAuth: kit's own accounts answer who the caller is (the
	// default Authenticator over k.auth), so a read may authorize from
	// their cache (cached_access.go).
	defaultAuth bool

	describeMu sync.Mutex
	describers []func(*openapi.Document) error // see DescribeAPI
}

// Open opens the database, creates kit's own tables, loads the schemas and
// brings every collection table in line with its definition, all under
// ctx: when ctx ends, Open stops and returns its error. Schema errors come
// back together as a *collections.LoadError (errors.Is ErrInvalidSchema);
// a table that drifted from its definition is a *DriftError (errors.Is
// ErrSchemaDrift). ctx bounds only the opening; the Kit outlives it.
func Open(ctx context.Context, cfg Config) (*Kit, error) {
	k := &Kit{cfg: cfg, logger: cfg.Logger, limits: cfg.Limits.WithDefaults()}
	if k.logger == nil {
		k.logger = slog.Default()
	}
	if k.cfg.Prefix == "" {
		k.cfg.Prefix = "/api"
	}
	if k.cfg.MaxBodyBytes <= 0 {
		k.cfg.MaxBodyBytes = 1 << 20
	}
	if k.cfg.MaxImportBytes <= 0 {
		k.cfg.MaxImportBytes = defaultMaxImportBytes
	}
	if err := cfg.CORS.check(); err != nil {
		return nil, err
	}
	k.db = cfg.DB
	checkpointWAL := false
	if k.db == nil {
		path := cfg.SQLitePath
		if path == "" {
			path = "kit.db"
		}
		db, err := store.OpenSQLite(path)
		if err != nil {
			return nil, err
		}
		if cfg.QueryHook != nil {
			db = db.WithQueryHook(cfg.QueryHook)
		}
		k.db, k.ownsDB = db, true
		checkpointWAL = store.BackgroundCheckpoints(path)
	}
	k.store = store.New(k.db, k.Collections)
	k.store.Logger = k.logger
	k.store.CheckpointWAL = checkpointWAL
	k.store.SearchScans = cfg.SearchScans
	k.store.ScanQueue = cfg.ScanQueue
	k.store.TotalsCache = cfg.TotalsCache
	k.store.SetQueryHook(cfg.QueryHook)
	if cfg.schemaRec != nil {
		k.store.ObserveQueries(cfg.schemaRec.observe)
	}
	fs, err := newFileStore(ctx, cfg)
	if err != nil {
		k.closeDB()
		return nil, fmt.Errorf("kit: Config.Files: %w", err)
	}
	k.files = fs
	k.auth = teamauth.NewStore(k.db)
	if k.cfg.Directory == nil {
		k.cfg.Directory = k.auth
	}
	k.auth.SessionLifetimes = cfg.Accounts.Sessions
	sessions, err := teamauth.NewSessionAuthenticator(k.auth, cfg.Accounts)
	if err != nil {
		k.closeDB()
		return nil, fmt.Errorf("kit: Config.Accounts: %w", err)
	}
	if k.cfg.Authenticator == nil {
		k.defaultAuth = k.cfg.Directory == teamauth.Directory(k.auth)
		k.cfg.Authenticator = teamauth.Chain(teamauth.ContextAuthenticator{}, teamauth.BearerAuthenticator{Tokens: k.auth}, sessions)
	}
	k.teamAuth = &teamauth.Auth{Directory: k.cfg.Directory, Authenticator: k.cfg.Authenticator, Logger: k.logger}
	k.handler = k.buildHandler()
	k.hub = k.newChangeHub(cfg.Changes)
	k.presence = newPresenceRegistry(cfg.Presence, k.presenceVersion())
	if k.changesOn() {
		k.store.Committed = k.hub.Handoff
	}
	if err := k.migrate(ctx); err != nil {
		k.closeDB()
		return nil, err
	}
	if err := k.load(ctx, cfg.Definitions); err != nil {
		k.closeDB()
		return nil, err
	}
	if k.changesOn() {
		k.hub.StartRetention()
	}
	k.loopCtx, k.stopLoops = context.WithCancel(context.Background())
	k.startTrashRetention()
	k.startBackups()
	k.startFileSweep()
	return k, nil
}

// New is Open with context.Background(): opening is bounded by nothing but
// the database's own timeouts. Prefer Open, which a host can cancel.
func New(cfg Config) (*Kit, error) {
	return Open(context.Background(), cfg)
}

// migrate creates kit's own tables through bun/migrate (see Migrate).
func (k *Kit) migrate(ctx context.Context) error {
	ms := migrate.NewMigrations()
	registerCoreMigrations(ms)
	registerPeriodicMigration(ms)
	registerChangesMigration(ms)
	registerLeanChangesMigration(ms)
	registerTrashMigration(ms)
	k.auth.RegisterMigrations(ms)
	if err := k.runMigrations(ctx, ms); err != nil {
		return fmt.Errorf("kit: migrate own tables: %w", err)
	}
	return nil
}

// load builds the registry from the schema folder and defs and syncs it.
func (k *Kit) load(ctx context.Context, defs []collections.Definition) error {
	reg, warnings, err := loadRegistry(k.cfg, defs)
	if err != nil {
		return err
	}
	prev := k.reg.Swap(reg)
	opts := store.SyncOptions{Drop: k.cfg.AllowDestructiveSchemaChanges}
	if k.cfg.schemaRec != nil {
		opts.Changes = k.cfg.schemaRec.addChange
	}
	if err := k.store.Sync(ctx, reg, opts); err != nil {
		k.reg.Store(prev)
		return fmt.Errorf("kit: schema sync: %w", err)
	}
	k.store.Warm(ctx, reg)
	k.defs = defs
	for _, w := range warnings {
		k.logger.Warn("kit: schema lint", slog.String("finding", w.String()))
	}
	return nil
}

// Register adds Go-defined collections. They are validated with every
// collection already registered (so references may point at them) and
// their tables are synced, under ctx, before Register returns. On an
// error the registry stays as it was.
func (k *Kit) Register(ctx context.Context, defs ...collections.Definition) error {
	if k.closed.Load() {
		return ErrClosed
	}
	k.regMu.Lock()
	defer k.regMu.Unlock()
	all := append(append([]collections.Definition(nil), k.defs...), defs...)
	return k.load(ctx, all)
}

// MustRegister is Register that panics on error, for setup code.
func (k *Kit) MustRegister(ctx context.Context, defs ...collections.Definition) {
	if err := k.Register(ctx, defs...); err != nil {
		panic(err)
	}
}

// Collections returns the current registry. It is immutable; Register
// replaces it.
func (k *Kit) Collections() *collections.Registry { return k.reg.Load() }

// DB returns the database kit stores in.
func (k *Kit) DB() *bun.DB { return k.db }

// Accounts returns kit's own team, user, membership and token store (the
// default Directory).
func (k *Kit) Accounts() *teamauth.Store { return k.auth }

// Limits returns the list-query limits in force: Config.Limits with every
// zero field set to its default, so no field is zero.
//
// Deprecated: use Config().Limits.
func (k *Kit) Limits() collections.QueryLimits { return k.limits }

// Dev reports whether Config.Dev is on.
//
// Deprecated: use Config().Dev.
func (k *Kit) Dev() bool { return k.cfg.Dev }

// Prefix returns the path prefix Handler serves under ("/api").
//
// Deprecated: use Config().Prefix.
func (k *Kit) Prefix() string { return k.cfg.Prefix }

// Logger returns kit's logger.
//
// Deprecated: use Config().Logger.
func (k *Kit) Logger() *slog.Logger { return k.logger }

// Close closes the database if kit opened it. Calls after the first
// return nil.
func (k *Kit) Close() error {
	if k.closed.Swap(true) {
		return nil
	}
	if k.stopLoops != nil {
		k.stopLoops()
	}
	k.hub.Close()
	k.loops.Wait()
	k.presence.closeAll()
	k.store.Close()
	return k.closeDB()
}

func (k *Kit) closeDB() error {
	if k.ownsDB {
		return k.db.Close()
	}
	return nil
}

func (k *Kit) collection(key string) (*collections.Collection, error) {
	if k.closed.Load() {
		return nil, ErrClosed
	}
	c, ok := k.Collections().Get(key)
	if !ok || c.External() {
		return nil, fmt.Errorf("%w: %q", ErrUnknownCollection, key)
	}
	return c, nil
}
