package kit

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/store"
)

// SchemaChange is one change schema sync makes (or would make) to a
// collection's table: see docs/schema-changes.md.
type SchemaChange struct {
	// Collection is the collection's registry key; Table its table.
	Collection string `json:"collection"`
	Table      string `json:"table"`
	// Kind is one of create, renameCollection, add, rename, convert,
	// keep, restore, drop.
	Kind string `json:"kind"`
	// Field is the field's name ("" for a change of the whole table).
	Field string `json:"field,omitempty"`
	// From is the former name (rename, renameCollection) or type
	// (convert).
	From string `json:"from,omitempty"`
	// To is the new type (convert, add).
	To string `json:"to,omitempty"`
	// Values counts the stored values the change concerns: converted,
	// kept, dropped.
	Values int `json:"values,omitempty"`
	// Destructive is true for the one change that loses values: drop.
	Destructive bool `json:"destructive,omitempty"`
	// Description says it in a sentence.
	Description string `json:"description"`
}

// SchemaStatement is one statement schema sync runs that changes the
// database, with how many times in a row it runs (once per row for a
// conversion's writes).
type SchemaStatement struct {
	// SQL is the statement's text, with the engine's placeholders.
	SQL string `json:"sql"`
	// Runs is how many times it runs in a row.
	Runs int `json:"runs"`
}

// SchemaPlan is what schema sync does, or would do, to one database: its
// changes and the statements that make them, in order.
type SchemaPlan struct {
	// Engine is the database's engine: "sqlite" or "pg".
	Engine string `json:"engine"`
	// Changes lists the changes to the collection tables.
	Changes []SchemaChange `json:"changes"`
	// Statements lists the statements that change the database (kit's
	// own bookkeeping included), not those that only read it.
	Statements []SchemaStatement `json:"statements"`
}

// Destructive reports whether a change of the plan loses stored values.
func (p *SchemaPlan) Destructive() bool {
	for _, ch := range p.Changes {
		if ch.Destructive {
			return true
		}
	}
	return false
}

// planRecorder fills a SchemaPlan from the store's changes and statements.
type planRecorder struct {
	mu   sync.Mutex
	plan SchemaPlan
}

// addChange records a change of the store.
func (p *planRecorder) addChange(ch store.SchemaChange) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.plan.Changes = append(p.plan.Changes, SchemaChange{Collection: ch.Collection, Table: ch.Table, Kind: string(ch.Kind), Field: ch.Field,
		From: ch.From, To: ch.To, Values: ch.Values, Destructive: ch.Destructive(), Description: ch.String()})
}

// observe records a statement the store runs, unless it only reads.
func (p *planRecorder) observe(query string, _ []any) {
	q := strings.TrimSpace(query)
	if i := strings.IndexAny(q, " \n\t"); i < 0 || strings.EqualFold(q[:i], "SELECT") || strings.EqualFold(q[:i], "WITH") && !strings.Contains(q, "UPDATE") {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	st := &p.plan.Statements
	if n := len(*st); n > 0 && (*st)[n-1].SQL == q {
		(*st)[n-1].Runs++
		return
	}
	*st = append(*st, SchemaStatement{SQL: q, Runs: 1})
}

// PlanSchema reports what opening cfg would do to the collection tables
// of its database (Config.DB, else Config.SQLitePath), changing nothing:
// it loads cfg's schemas and definitions and runs schema sync in a
// transaction that it rolls back, taking the same lock as a sync. kit's
// own tables are neither created nor migrated. With
// cfg.AllowDestructiveSchemaChanges the plan drops the kept columns of
// removed fields, as opening would.
//
// When sync would refuse changes, PlanSchema returns the plan of the
// other collections and the refusals: *DriftErrors (errors.Is
// ErrSchemaDrift), joined. Schema errors are a *collections.LoadError.
func PlanSchema(ctx context.Context, cfg Config) (*SchemaPlan, error) {
	db, closeDB, err := planDB(cfg)
	if err != nil {
		return nil, err
	}
	defer closeDB()
	reg, _, err := loadRegistry(cfg, cfg.Definitions)
	if err != nil {
		return nil, err
	}
	s := store.New(db, func() *collections.Registry { return reg })
	defer s.Close()
	rec := &planRecorder{plan: SchemaPlan{Engine: s.Dialect().String()}}
	s.ObserveQueries(rec.observe)
	err = s.Sync(ctx, reg, store.SyncOptions{Drop: cfg.AllowDestructiveSchemaChanges, DryRun: true, Changes: rec.addChange})
	if err != nil && !errors.Is(err, ErrSchemaDrift) {
		return nil, err
	}
	return &rec.plan, err
}

// planDB is cfg's database, and what closes it when PlanSchema opened it.
func planDB(cfg Config) (*bun.DB, func() error, error) {
	if cfg.DB != nil {
		return cfg.DB, func() error { return nil }, nil
	}
	path := cfg.SQLitePath
	if path == "" {
		path = "kit.db"
	}
	db, err := store.OpenSQLite(path)
	if err != nil {
		return nil, nil, err
	}
	return db, db.Close, nil
}

// ApplySchema opens cfg as Open does (kit's own tables created and
// migrated, every collection table brought in line with its definition
// under the cluster-wide schema lock, so that instances starting together
// apply a change once), closes it, and returns what schema sync did. With
// cfg.AllowDestructiveSchemaChanges it drops the kept columns of removed
// fields. A refused change fails as Open does, changing no collection
// table.
func ApplySchema(ctx context.Context, cfg Config) (*SchemaPlan, error) {
	rec := &planRecorder{}
	cfg.schemaRec = rec
	k, err := Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	rec.plan.Engine = k.store.Dialect().String()
	return &rec.plan, k.Close()
}

// loadRegistry builds the registry of cfg's schemas folder and defs.
func loadRegistry(cfg Config, defs []collections.Definition) (*collections.Registry, []collections.Finding, error) {
	opts := collections.LoadOptions{DefaultLayer: cfg.DefaultLayer, Overrides: cfg.Collections}
	if cfg.Schemas != nil {
		return collections.Load(cfg.Schemas, opts, defs...)
	}
	return collections.Build(defs, opts)
}
