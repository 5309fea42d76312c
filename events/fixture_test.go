package events_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/events"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/internal/testkit"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// world is a kit with the events add-on, two teams, their members and
// some records, served over real HTTP through httptest.
type world struct {
	site   *testkit.Site
	engine testdb.Engine
	k      *kit.Kit
	tr     *events.Tracker
	srv    *httptest.Server
	tokens map[string]string // caller name -> bearer token
	ids    map[string]string // placeholder -> id
	actors map[string]kit.Actor
	logs   *testkit.Buffer
}

func shopDefinitions() []collections.Definition {
	return []collections.Definition{
		{Name: "categories", Layer: "shop", Fields: []collections.Field{
			{Name: "title", Type: collections.TypeString, Meta: collections.FieldMeta{Required: true}},
		}},
		{Name: "products", Layer: "shop", Fields: []collections.Field{
			{Name: "title", Type: collections.TypeString, Meta: collections.FieldMeta{Required: true}},
			{Name: "sku", Type: collections.TypeString, Meta: collections.FieldMeta{Unique: true}},
			{Name: "price", Type: collections.TypeDecimal, Meta: collections.FieldMeta{Precision: 10, Scale: 2}},
			{Name: "stock", Type: collections.TypeNumber},
			{Name: "isActive", Type: collections.TypeBoolean},
			{Name: "dimensions", Type: collections.TypeJSON},
			{Name: "categoryId", Type: collections.TypeString, RefTarget: "categories"},
		}},
		{Name: "notes", Layer: "app", Fields: []collections.Field{
			{Name: "body", Type: collections.TypeText},
		}},
	}
}

// shopWorld is the world of the events suites:
//
//	acme:   alice (owner), mia (member), max (member)
//	globex: gina (owner)
//	root:   global admin, member of nothing
//
// mia owns {miaProduct} (sku MIA-1, price 9.99, dimensions {"w":1,"h":2}),
// {acmeCategory}, and the notes {miaNote} and {miaNote2}; max owns
// {maxNote}; gina owns {ginaProduct} and {ginaNote}.
var shopWorld = testkit.World{
	Teams: []string{"acme", "globex"},
	Users: []testkit.WorldUser{
		worldUser("alice", "acme", teamauth.RoleOwner, ""),
		worldUser("mia", "acme", teamauth.RoleMember, ""),
		worldUser("max", "acme", teamauth.RoleMember, ""),
		worldUser("gina", "globex", teamauth.RoleOwner, ""),
		worldUser("root", "", "", teamauth.UserRoleAdmin),
	},
	Records: []testkit.WorldRecord{
		{Placeholder: "acmeCategory", Collection: "shopCategories", Owner: "mia", Data: map[string]any{"title": "Tools"}},
		{Placeholder: "miaProduct", Collection: "shopProducts", Owner: "mia", Data: map[string]any{
			"title": "mia's product", "sku": "MIA-1", "price": "9.99", "dimensions": map[string]any{"w": 1, "h": 2}}},
		{Placeholder: "ginaProduct", Collection: "shopProducts", Owner: "gina", Data: map[string]any{
			"title": "gina's product", "sku": "GINA-1", "price": "9.99", "dimensions": map[string]any{"w": 1, "h": 2}}},
		{Placeholder: "miaNote", Collection: "appNotes", Owner: "mia", Data: map[string]any{"body": "mia's note"}},
		{Placeholder: "miaNote2", Collection: "appNotes", Owner: "mia", Data: map[string]any{"body": "mia's second note"}},
		{Placeholder: "maxNote", Collection: "appNotes", Owner: "max", Data: map[string]any{"body": "max's note"}},
		{Placeholder: "ginaNote", Collection: "appNotes", Owner: "gina", Data: map[string]any{"body": "gina's note"}},
	},
}

// worldUser is a seeded user whose stored name is name, capitalised, with
// an avatar image.
func worldUser(name, team string, role teamauth.Role, global string) testkit.WorldUser {
	return testkit.WorldUser{Name: name, Team: team, Role: role, User: teamauth.User{
		Name: strings.ToUpper(name[:1]) + name[1:], Role: global, Image: "https://img.test/" + name + ".png"}}
}

// worlds seeds shopWorld once per engine and test binary.
var worlds testkit.Worlds

// newWorld installs the add-on with cfg on a private copy of shopWorld
// (an in-memory SQLite clone, or a fresh PostgreSQL schema dropped when t
// ends). The seed is written before Install, so the event table starts
// empty.
func newWorld(t testing.TB, e testdb.Engine, cfg events.Config, mutate ...func(*kit.Config)) *world {
	t.Helper()
	logs := &testkit.Buffer{}
	mutate = append([]func(*kit.Config){func(c *kit.Config) { c.Logger = slog.New(slog.NewTextHandler(logs, nil)) }}, mutate...)
	k, seed := worlds.Open(t, e, "shop", kit.Config{Definitions: shopDefinitions()}, shopWorld, mutate...)
	tr, err := events.Install(t.Context(), k, cfg)
	if err != nil {
		t.Fatalf("events.Install: %v", err)
	}
	site := testkit.Serve(t, k, seed)
	return &world{site: site, engine: e, k: k, tr: tr, srv: site.Server, tokens: seed.Tokens, ids: seed.IDs, actors: seed.Actors, logs: logs}
}

// expand replaces {placeholders} with seeded ids.
func (w *world) expand(s string) string { return w.site.Expand(s) }

type response struct {
	status int
	header http.Header
	body   string
}

// do sends one request as caller (a seeded user's name, "" for anonymous)
// with a JSON body when body is set; header holds name, value pairs.
func (w *world) do(t testing.TB, method, path, caller, body string, header ...string) response {
	t.Helper()
	contentType := ""
	if body != "" {
		contentType = "application/json"
	}
	r := w.site.Do(t, method, path, caller, contentType, body, header...)
	return response{status: r.Status, header: r.Header, body: r.Body}
}

// storedEvent is a kit_events row as the table holds it, read with plain
// SQL so that assertions do not depend on the add-on's own reading code.
type storedEvent struct {
	ID, TeamID, Operation, CollectionName, ItemID, UserID, UserName string
	Changes                                                         []events.Change
	Metadata                                                        map[string]any
	rawChanges, rawMetadata                                         string
}

// stored returns every event in the table, oldest first.
func (w *world) stored(t testing.TB) []storedEvent {
	t.Helper()
	rows, err := w.k.DB().QueryContext(context.Background(),
		`SELECT id, team_id, operation, collection_name, item_id, user_id, user_name, changes, metadata FROM kit_events ORDER BY "timestamp", id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []storedEvent
	for rows.Next() {
		var e storedEvent
		if err := rows.Scan(&e.ID, &e.TeamID, &e.Operation, &e.CollectionName, &e.ItemID, &e.UserID, &e.UserName, &e.rawChanges, &e.rawMetadata); err != nil {
			t.Fatal(err)
		}
		// The table stores changes as [fieldName, oldValue, newValue]
		// triples.
		var triples [][3]*string
		if err := json.Unmarshal([]byte(e.rawChanges), &triples); err != nil {
			t.Fatalf("changes %q: %v", e.rawChanges, err)
		}
		e.Changes = []events.Change{}
		for _, tr := range triples {
			e.Changes = append(e.Changes, events.Change{FieldName: *tr[0], OldValue: tr[1], NewValue: tr[2]})
		}
		if err := json.Unmarshal([]byte(e.rawMetadata), &e.Metadata); err != nil {
			t.Fatalf("metadata %q: %v", e.rawMetadata, err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// count returns the number of rows of table.
func (w *world) count(t testing.TB, table string) int {
	t.Helper()
	var n int
	if err := w.k.DB().QueryRowContext(context.Background(), "SELECT count(*) FROM "+table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// snapshot fingerprints every row of the collection tables.
func (w *world) snapshot(t testing.TB) map[string]string {
	t.Helper()
	return w.site.Snapshot(t, "shop_categories", "shop_products", "app_notes")
}

// failure is a way of making the event insert fail for real.
type failure string

const (
	// failTrigger: a trigger raises an error on every insert into
	// kit_events (SQLite: RAISE(ABORT); PostgreSQL: a PL/pgSQL function
	// raising an exception). The statement fails; on SQLite the
	// transaction lives on, on PostgreSQL only a savepoint saves it.
	failTrigger failure = "trigger"
	// failCheck: a CHECK constraint no row satisfies (PostgreSQL only:
	// SQLite cannot add a constraint to an existing table).
	failCheck failure = "check constraint"
	// failMissingTable: kit_events is renamed away, so the insert names no
	// table (on PostgreSQL an error at parse time, before execution).
	failMissingTable failure = "missing table"
	// failTxLost: the failure takes the whole transaction with it. SQLite:
	// a trigger's RAISE(ROLLBACK), as a failed statement does on
	// PostgreSQL when no savepoint isolates it. PostgreSQL: the trigger
	// terminates its own connection, as a failover or a killed backend
	// would.
	failTxLost failure = "transaction lost"
)

// statementFailures are the failures of a statement (not of the whole
// transaction) that engine e can stage.
func statementFailures(e testdb.Engine) []failure {
	if e == testdb.EnginePostgres {
		return []failure{failTrigger, failCheck, failMissingTable}
	}
	return []failure{failTrigger, failMissingTable}
}

// brokenBy is the text every failure's error carries.
const brokenBy = "broken by the test"

// breakTracking makes every insert into kit_events fail for real, the way
// f says, and returns the func that repairs it, and the text the failure's
// error carries.
func (w *world) breakTracking(t testing.TB, f failure) (repair func(), cause string) {
	t.Helper()
	ctx := context.Background()
	exec := func(stmts ...string) {
		t.Helper()
		for _, s := range stmts {
			if _, err := w.k.DB().ExecContext(ctx, s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
	}
	pg := w.engine == testdb.EnginePostgres
	cause = brokenBy
	var undo []string
	switch {
	case f == failTrigger && !pg, f == failTxLost && !pg:
		action := "ABORT"
		if f == failTxLost {
			action = "ROLLBACK"
		}
		exec(`CREATE TRIGGER kit_events_broken BEFORE INSERT ON kit_events
			BEGIN SELECT RAISE(` + action + `, 'kit_events is ` + brokenBy + `'); END`)
		undo = []string{`DROP TRIGGER kit_events_broken`}
	case f == failTrigger, f == failTxLost:
		body := `RAISE EXCEPTION 'kit_events is ` + brokenBy + `';`
		if f == failTxLost {
			body = `PERFORM pg_terminate_backend(pg_backend_pid()); RETURN NEW;`
			cause = "terminating connection"
		}
		exec(`CREATE FUNCTION kit_events_broken() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN `+body+` END $$`,
			`CREATE TRIGGER kit_events_broken BEFORE INSERT ON kit_events FOR EACH ROW EXECUTE FUNCTION kit_events_broken()`)
		undo = []string{`DROP TRIGGER kit_events_broken ON kit_events`, `DROP FUNCTION kit_events_broken()`}
	case f == failCheck && pg:
		// NOT VALID: the rows already there are not checked, every new
		// one is.
		exec(`ALTER TABLE kit_events ADD CONSTRAINT "kit_events ` + brokenBy + `" CHECK (operation = '') NOT VALID`)
		undo = []string{`ALTER TABLE kit_events DROP CONSTRAINT "kit_events ` + brokenBy + `"`}
	case f == failMissingTable:
		exec(`ALTER TABLE kit_events RENAME TO kit_events_moved_away`)
		undo = []string{`ALTER TABLE kit_events_moved_away RENAME TO kit_events`}
		cause = "kit_events"
	default:
		t.Fatalf("failure %q cannot be staged on %s", f, w.engine)
	}
	repaired := false
	return func() {
		t.Helper()
		if !repaired {
			repaired = true
			exec(undo...)
		}
	}, cause
}

// backdate sets the timestamp of event id.
func (w *world) backdate(t testing.TB, id string, ts time.Time) {
	t.Helper()
	_, err := w.k.DB().NewUpdate().Table("kit_events").Set("? = ?", bun.Ident("timestamp"), ts.UTC()).
		Where("id = ?", id).Exec(context.Background())
	if err != nil {
		t.Fatal(err)
	}
}

// str returns a pointer to s, for expected change values.
func str(s string) *string { return &s }

// changesJSON renders changes for comparison and messages.
func changesJSON(cs []events.Change) string {
	if cs == nil {
		cs = []events.Change{}
	}
	b, _ := json.Marshal(cs)
	return string(b)
}

// keys returns the sorted keys of m.
func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
