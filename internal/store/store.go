package store

import (
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/apierror"
	"github.com/collectionkit/kit/internal/sqlexec"
)

// Store is kit's storage of collection records on one bun.DB (SQLite or
// PostgreSQL). It never imports net/http; its errors carry HTTP statuses
// (an HTTPStatus() int method) for the layer above.
type Store struct {
	// Logger receives notices (a missing pg_trgm, a failed WAL checkpoint,
	// a write that panicked); nil means slog.Default().
	Logger *slog.Logger

	// CheckpointWAL says that the SQLite database was opened with
	// wal_autocheckpoint(0) (see [BackgroundCheckpoints]) and that the
	// Store runs passive WAL checkpoints itself, in the background, after
	// group commits; while writes go on it keeps one pool connection in a
	// read transaction to bound them (the checkpoint pin). Set it before
	// the Store is used.
	CheckpointWAL bool

	// SearchScans is how many searches that may read more than a few
	// thousand rows run at once; the others wait for a slot, or for their
	// context to end. On SQLite these are the searches for a term common
	// enough to scan the team's rows, or too short for the index; on
	// PostgreSQL, whose planner chooses on the server, every search. 0
	// means, on SQLite, half the CPUs Go uses (GOMAXPROCS), at least 1; on
	// PostgreSQL, GOMAXPROCS, at least 2 and at most half the pool's
	// MaxOpenConns. On PostgreSQL a search that starts while another
	// holds a slot runs without parallel workers (see sharedScan), so the
	// slots bound the server's processes, not only the pool's
	// connections. Set it before the Store is used.
	SearchScans int

	// ScanQueue is how many lists wait for a scan slot (see SearchScans
	// and scanslots.go) at once; one more is refused at once with ErrBusy.
	// 0 means 4 per slot. Set it before the Store is used.
	ScanQueue int

	// TotalsCache is how many totals of filtered and searched lists the
	// Store remembers (per table, team and query), each used again only
	// after the statement that reads the page confirms that the team's
	// rows have not changed since it was counted (see totals.go): exact,
	// and a list whose total is remembered skips its count. 0 means 1024;
	// a negative value remembers none. Set it before the Store is used.
	TotalsCache int

	// Committed, when not nil, receives the change log rows (see
	// RecordChange) of every group the SQLite write queue commits, with
	// their positions, in commit order, right after the commit and before
	// the group's writers return. It runs on the queue's goroutine, so it
	// must not block or write; it may keep the slice. Writes outside the
	// queue, and every write on PostgreSQL (where positions need not follow
	// commit order), are not handed over: their rows are in the log only.
	// Set it before the Store is used.
	Committed func([]Change)

	db       *bun.DB
	dialect  sqlDialect
	registry func() *collections.Registry

	noSearchIndex    bool // tests: search by scan only, to compare
	planRare         int  // tests: rareCandidates when > 0
	trgmNoticeLogged atomic.Bool
	scanOnce         sync.Once
	scanSlots        chan struct{} // SearchScans slots, made by acquireScan
	scanWaiting      atomic.Int64  // lists waiting for a slot (ScanQueue)
	run              *sqlexec.Runner
	writes           writeQueue // SQLite: writes committed in groups (RunWrite)
	batches          batcher    // PostgreSQL: creates and deletes that share statements
	closed           atomic.Bool
	totals           totalsCache // remembered totals (totals.go)
	texts            textMemo    // the record statements' SQL text (texts.go)
	rowInserts       rowInserts  // commit rows, one row a statement (commitrows_rows.go)
}

// New returns a Store on db. registry returns the current registry, so
// references resolve to tables registered later.
func New(db *bun.DB, registry func() *collections.Registry) *Store {
	s := &Store{db: db, dialect: dialectOf(db.Dialect().Name()), registry: registry, run: sqlexec.New(db)}
	s.writes.s = s
	return s
}

// HandsOverChanges reports whether Committed receives every change log
// row this Store's writes record: on SQLite, where every RunWrite commits
// in the write queue.
func (s *Store) HandsOverChanges() bool { return !s.has(featConcurrentWrites) }

// WritesAlone reports whether a record's create, update or delete may be
// one statement outside any transaction that also writes its row count
// and change log row (InsertLogged, UpdateLogged, UpdateReturningBefore,
// DeleteLogged): on PostgreSQL, whose writers run concurrently. On SQLite
// those return ErrUnsupported, and writes go through RunWrite.
func (s *Store) WritesAlone() bool { return s.has(featConcurrentWrites) }

// DB returns the underlying database.
func (s *Store) DB() *bun.DB { return s.db }

// Dialect returns the engine's dialect name.
func (s *Store) Dialect() dialect.Name { return s.dialect.name() }

// validIdent reports whether ident has the only shape of identifier kit
// writes into SQL: a lowercase ASCII letter, then up to 62 lowercase ASCII
// letters, digits and underscores (^[a-z][a-z0-9_]{0,62}$). A loop, not a
// regular expression: quote runs for every column of every statement kit
// builds (docs/decisions/0009).
func validIdent(ident string) bool {
	if len(ident) == 0 || len(ident) > 63 || ident[0] < 'a' || ident[0] > 'z' {
		return false
	}
	for i := 1; i < len(ident); i++ {
		if b := ident[i]; (b < 'a' || b > 'z') && (b < '0' || b > '9') && b != '_' {
			return false
		}
	}
	return true
}

// quote double-quotes an identifier after checking it with validIdent.
// Identifiers come from validated definitions only; a name that does not
// pass is a programming error.
func quote(ident string) string {
	if !validIdent(ident) {
		panic(fmt.Sprintf("store: refusing identifier %q", ident))
	}
	return `"` + ident + `"`
}

// ErrNotFound is the error for no record with that id in that team (404).
var ErrNotFound error = apierror.New(404, "record not found")

// ConstraintError is the error of a broken unique or reference rule; see
// collections.ConstraintError.
type ConstraintError = collections.ConstraintError

// sqliteCoder is implemented by modernc.org/sqlite's *Error.
type sqliteCoder interface{ Code() int }

// sqlStater is implemented by pgx's *pgconn.PgError and lib/pq's errors.
type sqlStater interface{ SQLState() string }

// SQLite extended result codes (sqlite3.h).
const (
	sqliteConstraintForeignKey = 787
	sqliteConstraintUnique     = 2067
	sqliteConstraintPrimaryKey = 1555
	sqliteBusy                 = 5
)

// classify turns driver constraint errors into *ConstraintError by their
// codes, never by their text.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var sc sqliteCoder
	if errors.As(err, &sc) {
		switch sc.Code() {
		case sqliteConstraintUnique, sqliteConstraintPrimaryKey:
			return &ConstraintError{Kind: collections.ConstraintUnique, Message: "a record with this value already exists", Err: err}
		case sqliteConstraintForeignKey:
			return &ConstraintError{Kind: collections.ConstraintReference, Message: "the record is referenced by, or refers to, a record that does not allow it", Err: err}
		}
	}
	var ps sqlStater
	if errors.As(err, &ps) {
		switch ps.SQLState() {
		case "23505":
			return &ConstraintError{Kind: collections.ConstraintUnique, Message: "a record with this value already exists", Err: err}
		case "23503":
			return &ConstraintError{Kind: collections.ConstraintReference, Message: "the record is referenced by, or refers to, a record that does not allow it", Err: err}
		}
	}
	return err
}

// classifyFor classifies err and, for a unique violation the database
// raised (a race the in-transaction pre-check lost on PostgreSQL), names
// the field from the violated index, whose name kit chose.
func classifyFor(c *collections.Collection, err error) error {
	err = classify(err)
	var ce *ConstraintError
	if !errors.As(err, &ce) || ce.Kind != collections.ConstraintUnique || ce.Field != "" {
		return err
	}
	name := constraintName(err)
	if name == "" {
		// SQLite does not name the index; when the collection has one
		// unique index, it is that one.
		if f := SoleUniqueField(c); f != "" {
			name = indexName("ux", c.Table(), collections.ColumnName(f))
		}
	}
	for _, f := range c.AllFields() {
		if !f.Meta.Unique {
			continue
		}
		a, _ := c.Attribute(f.Name)
		if indexName("ux", c.Table(), collections.ColumnName(f.Name)) == name || a != nil && hasUniqueKey(a) && uniqueKeyIndex(c, a) == name {
			ce.Field = f.Name
			ce.Message = fmt.Sprintf("%s must be unique in the team; another record has this value", f.Name)
		}
	}
	return err
}

// SoleUniqueField returns the field of c's only unique index ("" when c
// has none or several): a unique violation on c can then only be on that
// field, so a write may leave the check to the index instead of looking
// first. Unique indexes are those of unique fields (indexesOf: one per
// field, two with meta.uniqueIgnoreCase); it reads the fields, not the
// index list, as it runs on every write.
func SoleUniqueField(c *collections.Collection) string {
	field := ""
	for _, f := range c.AllFields() {
		if f.Meta.Unique {
			if field != "" {
				return ""
			}
			field = f.Name
		}
	}
	return field
}

// constraintName reads the violated constraint's name from a driver error
// that carries it in a ConstraintName field (pgx's *pgconn.PgError, lib/pq's
// *pq.Error as Constraint), without importing a driver.
func constraintName(err error) string {
	for e := err; e != nil; e = errors.Unwrap(e) {
		v := reflect.ValueOf(e)
		if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
			continue
		}
		for _, field := range []string{"ConstraintName", "Constraint"} {
			if f := v.Elem().FieldByName(field); f.IsValid() && f.Kind() == reflect.String && f.String() != "" {
				return f.String()
			}
		}
	}
	return ""
}
