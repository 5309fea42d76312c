package kit_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/kittest"
	"github.com/collectionkit/kit/teamauth"
)

// Teams and users of the fixtures. IDs are plain strings, seeded as rows
// by newKitConfig (seedActors): a Go caller's Actor must name a team and a
// user that exist.
const (
	teamA = "team-a"
	teamB = "team-b"
)

var (
	aliceA = kit.Actor{UserID: "alice", TeamID: teamA, Role: teamauth.RoleMember}
	bobA   = kit.Actor{UserID: "bob", TeamID: teamA, Role: teamauth.RoleMember}
	adminA = kit.Actor{UserID: "ada", TeamID: teamA, Role: teamauth.RoleAdmin}
	ownerA = kit.Actor{UserID: "olga", TeamID: teamA, Role: teamauth.RoleOwner}
	carolB = kit.Actor{UserID: "carol", TeamID: teamB, Role: teamauth.RoleMember}
	adminB = kit.Actor{UserID: "boris", TeamID: teamB, Role: teamauth.RoleAdmin}
)

// Collection keys and tables of the fixtures.
const (
	productsKey     = "shopProducts"
	productsTable   = "shop_products"
	categoriesKey   = "shopCategories"
	categoriesTable = "shop_categories"
	specimensKey    = "labSpecimens"
	specimensTable  = "lab_specimens"
)

// categoriesDef is the target of productsDef's categoryId reference.
func categoriesDef() collections.Definition {
	return collections.Definition{Name: "categories", Layer: "shop", Fields: []collections.Field{
		{Name: "name", Type: collections.TypeString, Meta: collections.FieldMeta{Required: true}},
	}}
}

// productsDef is the main fixture: a required title, defaults, a unique
// and an indexed field, decimals at three shapes (ordinary, 38 digits, all
// scale) and a reference.
func productsDef() collections.Definition {
	return collections.Definition{Name: "products", Layer: "shop", Fields: []collections.Field{
		{Name: "title", Type: collections.TypeString, Meta: collections.FieldMeta{Required: true}},
		{Name: "description", Type: collections.TypeText},
		{Name: "status", Type: collections.TypeString, Meta: collections.FieldMeta{Default: "draft", Index: true}},
		{Name: "sku", Type: collections.TypeString, Meta: collections.FieldMeta{Unique: true}},
		{Name: "price", Type: collections.TypeDecimal, Meta: collections.FieldMeta{Precision: 10, Scale: 2}},
		{Name: "amount", Type: collections.TypeDecimal, Meta: collections.FieldMeta{Precision: 38, Scale: 4}},
		{Name: "ratio", Type: collections.TypeDecimal, Meta: collections.FieldMeta{Precision: 4, Scale: 4}},
		{Name: "quantity", Type: collections.TypeDecimal, Meta: collections.FieldMeta{Precision: 6, Scale: 0}},
		{Name: "weight", Type: collections.TypeNumber},
		{Name: "isActive", Type: collections.TypeBoolean, Meta: collections.FieldMeta{Default: true}},
		{Name: "publishedAt", Type: collections.TypeDate},
		{Name: "tags", Type: collections.TypeArray, Meta: collections.FieldMeta{Default: []any{"new"}}},
		{Name: "categoryId", Type: collections.TypeString, RefTarget: "categories"},
	}}
}

// specimensDef has one optional field of each of the eleven types.
func specimensDef() collections.Definition {
	return collections.Definition{Name: "specimens", Layer: "lab", Fields: []collections.Field{
		{Name: "label", Type: collections.TypeString},
		{Name: "notes", Type: collections.TypeText},
		{Name: "weight", Type: collections.TypeNumber},
		{Name: "price", Type: collections.TypeDecimal, Meta: collections.FieldMeta{Precision: 12, Scale: 2}},
		{Name: "isFragile", Type: collections.TypeBoolean},
		{Name: "collectedAt", Type: collections.TypeDate},
		{Name: "attributes", Type: collections.TypeJSON},
		{Name: "measurements", Type: collections.TypeRepeater},
		{Name: "tags", Type: collections.TypeArray},
		{Name: "photo", Type: collections.TypeImage},
		{Name: "report", Type: collections.TypeFile},
	}}
}

// shopDefs is the categories and products fixture.
func shopDefs() []collections.Definition {
	return []collections.Definition{categoriesDef(), productsDef()}
}

var dbSeq atomic.Int64

// memPath is a ":memory:" path unique to t (and to each call), so every
// test gets its own isolated in-memory database.
func memPath(t testing.TB) string {
	name := strings.NewReplacer("/", "_", " ", "_", "#", "_", "%", "_", "?", "_").Replace(t.Name())
	return fmt.Sprintf(":memory:%s-%d", name, dbSeq.Add(1))
}

// quietLogger drops kit's logs (schema lint warnings) so test output stays
// readable.
func quietLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// newKit opens a Kit on a fresh in-memory SQLite database with defs and
// closes it when t ends. Suites that must hold on every engine use
// newKitOn inside testdb.Each instead.
func newKit(t testing.TB, defs ...collections.Definition) *kit.Kit {
	t.Helper()
	return newKitConfig(t, kit.Config{Definitions: defs})
}

// newKitOn opens a Kit with defs on a database of engine e private to t
// (testdb.Open: an in-memory SQLite database or a fresh PostgreSQL schema,
// dropped when t ends) and closes the Kit when t ends.
func newKitOn(t testing.TB, e testdb.Engine, defs ...collections.Definition) *kit.Kit {
	t.Helper()
	return newKitConfig(t, kit.Config{DB: testdb.Open(t, e), Definitions: defs})
}

// isPostgres reports whether k runs on PostgreSQL.
func isPostgres(k *kit.Kit) bool { return k.DB().Dialect().Name().String() == "pg" }

// newKitConfig opens a Kit with cfg (a quiet logger unless cfg has one;
// a fresh in-memory SQLite database unless cfg names one) through
// kittest.NewKit, which closes it when t ends.
func newKitConfig(t testing.TB, cfg kit.Config) *kit.Kit {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = quietLogger()
	}
	k := kittest.NewKit(t, cfg)
	seedActors(t, k, fixtureActors...)
	return k
}

// fixtureActors are the actors the suites name without creating their
// teams and users through the accounts API; newKitConfig seeds them.
// (Their teams' slugs, team-a and team-b, are none a seeded world uses.)
var fixtureActors = []kit.Actor{
	aliceA, bobA, adminA, ownerA, carolB, adminB,
	{UserID: "alice", TeamID: teamB}, {UserID: "nobody", TeamID: teamA},
}

// seedActors inserts a team row (id and slug the actor's TeamID) and a
// user row for each of actors that k's accounts tables lack, so that Go
// callers' writes find them (kit checks that an Actor's team and user
// exist). Rows are written directly: the fixtures' ids are not UUIDs.
func seedActors(t testing.TB, k *kit.Kit, actors ...kit.Actor) {
	t.Helper()
	if err := insertActors(k.DB(), actors...); err != nil {
		t.Fatal(err)
	}
}

// insertActors is seedActors' work, for helpers without a testing.TB.
func insertActors(db bun.IDB, actors ...kit.Actor) error {
	ctx := context.Background()
	now := time.Now().UTC()
	for _, a := range actors {
		if a.TeamID != "" {
			if _, err := db.ExecContext(ctx, `INSERT INTO kit_teams (id, name, slug, description, avatar_url, settings, created_at)
				VALUES (?, ?, ?, '', '', '{}', ?) ON CONFLICT DO NOTHING`, a.TeamID, a.TeamID, a.TeamID, now); err != nil {
				return fmt.Errorf("seed team %s: %w", a.TeamID, err)
			}
		}
		if a.UserID != "" {
			if _, err := db.ExecContext(ctx, `INSERT INTO kit_users (id, name, email, role, banned, image, created_at)
				VALUES (?, ?, '', '', false, '', ?) ON CONFLICT DO NOTHING`, a.UserID, a.UserID, now); err != nil {
				return fmt.Errorf("seed user %s: %w", a.UserID, err)
			}
		}
	}
	return nil
}

// tempDBPath is a SQLite file path in a directory removed when t ends.
func tempDBPath(t testing.TB) string { return filepath.Join(t.TempDir(), "kit.db") }

// mustCreate creates a record or fails the test.
func mustCreate(t testing.TB, k *kit.Kit, key string, a kit.Actor, data map[string]any) kit.Record {
	t.Helper()
	rec, err := k.Records(key).Create(context.Background(), a, data)
	if err != nil {
		t.Fatalf("Create %s %v: %v", key, data, err)
	}
	return rec
}

// mustGet reads a record or fails the test.
func mustGet(t testing.TB, k *kit.Kit, key string, a kit.Actor, id string) kit.Record {
	t.Helper()
	rec, err := k.Records(key).Get(context.Background(), a, id)
	if err != nil {
		t.Fatalf("Get %s %s: %v", key, id, err)
	}
	return rec
}

// mustList lists with params or fails the test.
func mustList(t testing.TB, k *kit.Kit, key string, a kit.Actor, params url.Values) *kit.List {
	t.Helper()
	l, err := k.Records(key).List(context.Background(), a, params)
	if err != nil {
		t.Fatalf("List %s %v: %v", key, params, err)
	}
	return l
}

// query builds url.Values from key, value pairs.
func query(kv ...string) url.Values {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return v
}

// countRows counts every row of table, all teams, with SQL.
func countRows(t testing.TB, k *kit.Kit, table string) int {
	t.Helper()
	var n int
	if err := k.DB().QueryRowContext(context.Background(), `SELECT count(*) FROM "`+table+`"`).Scan(&n); err != nil {
		t.Fatalf("count %s: %v", table, err)
	}
	return n
}

// ids returns the ids of recs in order.
func ids(recs []kit.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i], _ = r["id"].(string)
	}
	return out
}

// fieldValues returns field of every record in order.
func fieldValues(recs []kit.Record, field string) []any {
	out := make([]any, len(recs))
	for i, r := range recs {
		out[i] = r[field]
	}
	return out
}

// equalValue compares canonical values: times by instant and location
// (UTC), everything else deeply.
func equalValue(got, want any) bool {
	if wt, ok := want.(time.Time); ok {
		gt, ok := got.(time.Time)
		return ok && gt.Equal(wt) && gt.Location() == time.UTC
	}
	return reflect.DeepEqual(got, want)
}

// date parses an RFC 3339 instant for expectations.
func date(t testing.TB, s string) time.Time {
	t.Helper()
	d, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("parse %q: %v", s, err)
	}
	return d.UTC()
}

// hookRecorder counts and keeps the mutations both hook phases see.
type hookRecorder struct {
	mu    sync.Mutex
	tx    []kit.Mutation
	after []kit.Mutation
	// failTx, when set, is returned by the in-transaction hook.
	failTx error
}

// recordHooks registers a recorder for both phases on k.
func recordHooks(k *kit.Kit) *hookRecorder {
	h := &hookRecorder{}
	k.OnMutationTx(func(ctx context.Context, _ bun.Tx, m *kit.Mutation) error {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.tx = append(h.tx, *m)
		return h.failTx
	})
	k.OnMutation(func(ctx context.Context, m kit.Mutation) {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.after = append(h.after, m)
	})
	return h
}

// reset forgets the mutations seen so far.
func (h *hookRecorder) reset() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.tx, h.after = nil, nil
}

// counts returns how many mutations each phase has seen.
func (h *hookRecorder) counts() (tx, after int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.tx), len(h.after)
}

// last returns the last mutation seen after commit.
func (h *hookRecorder) last(t testing.TB) kit.Mutation {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.after) == 0 {
		t.Fatal("no mutation reached OnMutation")
	}
	return h.after[len(h.after)-1]
}

// setFailTx makes the in-transaction hook fail with err (nil: succeed).
func (h *hookRecorder) setFailTx(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.failTx = err
}

// wantNoHooks fails when either phase saw a mutation since (tx0, after0).
func (h *hookRecorder) wantNoHooks(t testing.TB, tx0, after0 int) {
	t.Helper()
	tx, after := h.counts()
	if tx != tx0 || after != after0 {
		t.Errorf("hooks fired: OnMutationTx got %d, want %d; OnMutation got %d, want %d", tx, tx0, after, after0)
	}
}

// asValidation returns err as a *kit.ValidationError or fails the test.
func asValidation(t testing.TB, err error) *kit.ValidationError {
	t.Helper()
	var ve *kit.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("got error %v (%T), want *kit.ValidationError", err, err)
	}
	if got := kit.StatusOf(err); got != 400 {
		t.Errorf("StatusOf(validation error) got %d, want 400", got)
	}
	return ve
}

// diffRecords describes how got differs from want, key by key, or returns
// "" when they hold the same keys and equal values.
func diffRecords(got, want kit.Record) string {
	var diffs []string
	for k, w := range want {
		g, ok := got[k]
		if !ok {
			diffs = append(diffs, fmt.Sprintf("%s missing (want %#v)", k, w))
			continue
		}
		if !equalValue(g, w) {
			diffs = append(diffs, fmt.Sprintf("%s: got %#v, want %#v", k, g, w))
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s unexpected (%#v)", k, g))
		}
	}
	slices.Sort(diffs)
	return strings.Join(diffs, "; ")
}
