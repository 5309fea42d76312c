package events_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/events"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// BenchmarkCreate measures create throughput with the add-on off (not
// installed, or Disabled: no listener either way) and on, through the Go
// record API and over HTTP, in one run, on an SQLite file (WAL, as in
// production) and, when KIT_TEST_POSTGRES is set, on a fresh PostgreSQL
// schema:
//
//	go test ./events/ -run '^$' -bench Create -benchtime 3s
//
// Besides the wall time it reports two figures a busy machine does not
// blur: cpu-µs/op, this process's CPU time (user and system) per create,
// which on SQLite is nearly all the work, and stmts/op, the statements
// sent to the database per create, each a round trip on PostgreSQL.
func BenchmarkCreate(b *testing.B) {
	benchEachEngine(b, benchmarkCreate)
}

// benchEachEngine runs fn once per engine as a sub-benchmark named after
// the engine; the PostgreSQL one skips when KIT_TEST_POSTGRES is unset.
func benchEachEngine(b *testing.B, fn func(b *testing.B, e testdb.Engine)) {
	for _, e := range []testdb.Engine{testdb.EngineSQLite, testdb.EnginePostgres} {
		b.Run(string(e), func(b *testing.B) {
			if e == testdb.EnginePostgres {
				testdb.PostgresDSN(b)
			}
			fn(b, e)
		})
	}
}

func benchmarkCreate(b *testing.B, e testdb.Engine) {
	for _, api := range []string{"go", "go-parallel", "http"} {
		for _, tc := range []struct {
			name    string
			install bool
			cfg     events.Config
		}{
			{"off", false, events.Config{}},
			{"disabled", true, events.Config{Disabled: true}},
			{"on", true, events.Config{}},
			{"on throw", true, events.Config{ErrorHandling: events.ErrorHandling{Mode: events.ModeThrow}}},
		} {
			b.Run(api+"/"+tc.name, func(b *testing.B) {
				// testdb.Shared: an SQLite file in b.TempDir() or a fresh
				// PostgreSQL schema.
				stmts := &statementCounter{}
				var cfg *events.Config
				if tc.install {
					cfg = &tc.cfg
				}
				k, user, actor := benchKit(b, testdb.Shared(b, e)().WithQueryHook(stmts), stmts, cfg)
				ctx := context.Background()
				uctx := teamauth.WithUser(ctx, user)
				data := map[string]any{"title": "Claw hammer", "price": "24.90", "stock": 12, "isActive": true,
					"dimensions": map[string]any{"w": 30, "h": 12}}
				const body = `{"title":"Claw hammer","price":"24.90","stock":12,"isActive":true,"dimensions":{"w":30,"h":12}}`
				var srv *httptest.Server
				var token string
				if api == "http" {
					srv = httptest.NewServer(k.Handler())
					defer srv.Close()
					token, _, _ = k.Accounts().CreateToken(ctx, user.ID, "bench")
				}
				stmts.n.Store(0)
				cpu := cpuTime()
				b.ResetTimer()
				if api == "go-parallel" {
					// Concurrent writers, as a server has: on SQLite the
					// write queue commits them in groups.
					b.SetParallelism(16)
					b.RunParallel(func(pb *testing.PB) {
						for pb.Next() {
							if _, err := k.Records("shopProducts").Create(uctx, actor, data); err != nil {
								b.Error(err)
								return
							}
						}
					})
				}
				for i := 0; i < b.N && api != "go-parallel"; i++ {
					if api == "go" {
						if _, err := k.Records("shopProducts").Create(uctx, actor, data); err != nil {
							b.Fatal(err)
						}
						continue
					}
					req, _ := http.NewRequest("POST", srv.URL+"/api/teams/acme/shop-products", strings.NewReader(body))
					req.Header.Set("Authorization", "Bearer "+token)
					req.Header.Set("Content-Type", "application/json")
					res, err := http.DefaultClient.Do(req)
					if err != nil {
						b.Fatal(err)
					}
					res.Body.Close()
					if res.StatusCode != 201 {
						b.Fatalf("status %d", res.StatusCode)
					}
				}
				b.StopTimer()
				b.ReportMetric(float64(cpuTime()-cpu)/float64(time.Microsecond)/float64(b.N), "cpu-µs/op")
				b.ReportMetric(float64(stmts.n.Load())/float64(b.N), "stmts/op")
			})
		}
	}
}

// benchKit opens a Kit of the shop collections on db, closed when b ends,
// with hook (when not nil) observing the statements of kit's record
// service (those bun runs go to db's own hooks), the events add-on
// installed with cfg (none when nil), and one team with its owner: it
// returns the Kit, the owner and the owner's actor.
func benchKit(b *testing.B, db *bun.DB, hook bun.QueryHook, cfg *events.Config) (*kit.Kit, *teamauth.User, kit.Actor) {
	b.Helper()
	k, err := kit.New(kit.Config{DB: db, Definitions: shopDefinitions(), QueryHook: hook})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { k.Close() })
	if cfg != nil {
		if _, err := events.Install(b.Context(), k, *cfg); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	team, _ := k.Accounts().CreateTeam(ctx, teamauth.Team{Name: "Acme", Slug: "acme"})
	user, _ := k.Accounts().CreateUser(ctx, teamauth.User{Name: "Bench"})
	if _, err := k.Accounts().AddMember(ctx, team.ID, user.ID, teamauth.RoleOwner); err != nil {
		b.Fatal(err)
	}
	return k, user, kit.Actor{TeamID: team.ID, UserID: user.ID, Role: teamauth.RoleOwner}
}

// statementCounter is a bun query hook counting the statements sent.
type statementCounter struct{ n atomic.Int64 }

func (c *statementCounter) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	c.n.Add(1)
	return ctx
}

func (c *statementCounter) AfterQuery(context.Context, *bun.QueryEvent) {}

// BenchmarkUpdate is BenchmarkCreate's go-parallel case for updates: 16
// goroutines update records of their own (one title change each time),
// with the add-on off and on, on an SQLite file and, when
// KIT_TEST_POSTGRES is set, on PostgreSQL:
//
//	go test ./events/ -run '^$' -bench Update -benchtime 3s
func BenchmarkUpdate(b *testing.B) {
	for _, e := range []testdb.Engine{testdb.EngineSQLite, testdb.EnginePostgres} {
		b.Run(string(e), func(b *testing.B) {
			if e == testdb.EnginePostgres {
				testdb.PostgresDSN(b)
			}
			for _, on := range []bool{false, true} {
				name := map[bool]string{false: "off", true: "on"}[on]
				b.Run(name, func(b *testing.B) {
					var cfg *events.Config
					if on {
						cfg = &events.Config{}
					}
					k, user, actor := benchKit(b, testdb.Shared(b, e)(), nil, cfg)
					uctx := teamauth.WithUser(context.Background(), user)
					products := k.Records("shopProducts")
					var next atomic.Int64
					ids := make(chan string, 64)
					for range 64 {
						rec, err := products.Create(uctx, actor, map[string]any{"title": "Claw hammer", "price": "24.90", "stock": 12})
						if err != nil {
							b.Fatal(err)
						}
						ids <- rec["id"].(string)
					}
					cpu := cpuTime()
					b.ResetTimer()
					b.SetParallelism(16)
					b.RunParallel(func(pb *testing.PB) {
						for pb.Next() {
							id := <-ids
							title := "Claw hammer " + strconv.FormatInt(next.Add(1), 10)
							if _, err := products.Update(uctx, actor, id, map[string]any{"title": title}); err != nil {
								b.Error(err)
								return
							}
							ids <- id
						}
					})
					b.StopTimer()
					b.ReportMetric(float64(cpuTime()-cpu)/float64(time.Microsecond)/float64(b.N), "cpu-µs/op")
				})
			}
		})
	}
}

// BenchmarkList measures the list endpoint's queries (Tracker.Events: a
// page of 50 and its count) on a trail of 100,000 events (seedEvents), the
// most the default retention keeps. It runs on an SQLite file and, when
// KIT_TEST_POSTGRES is set, on PostgreSQL:
//
//	go test ./events/ -run '^$' -bench List
func BenchmarkList(b *testing.B) {
	benchEachEngine(b, benchmarkList)
}

func benchmarkList(b *testing.B, e testdb.Engine) {
	ctx := context.Background()
	db := testdb.Shared(b, e)()
	k, _, actor := benchKit(b, db, nil, nil)
	tr, err := events.Install(ctx, k, events.Config{})
	if err != nil {
		b.Fatal(err)
	}
	seedEvents(b, db, e, actor.TeamID, 100_000)
	for _, tc := range []struct {
		name string
		q    events.Query
	}{
		{"page 1", events.Query{}},
		{"page 500", events.Query{Page: 500}},
		{"a record's history", events.Query{ItemID: seedID('a', 1234)}},
		{"a user's changes", events.Query{UserID: seedID('b', 3)}},
		{"a collection's changes", events.Query{CollectionName: "shopCategories"}},
		{"the deletes", events.Query{Operation: kit.OpDelete}},
		{"the last hour", events.Query{DateFrom: time.Now().Add(-time.Hour)}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				page, err := tr.Events(ctx, actor.TeamID, tc.q)
				if err != nil {
					b.Fatal(err)
				}
				if len(page.Items) == 0 {
					b.Fatal("got no events, want a page")
				}
			}
		})
	}
}

// seedEvents writes n past events into kit_events in one statement, nine
// in ten of them team teamID's and the rest another team's: changes of n/5
// records (seedID('a', 0), seedID('a', 1), ...) in two collections by five
// users (seedID('b', 0) to seedID('b', 4)), one in fifty a delete and the
// rest updates, one a second up to now. On PostgreSQL it then analyzes the
// table, as autovacuum would.
func seedEvents(tb testing.TB, db bun.IDB, e testdb.Engine, teamID string, n int) {
	tb.Helper()
	ctx := context.Background()
	id := func(kind, num string) string {
		if e == testdb.EnginePostgres {
			return "'00000000-0000-7000-" + kind + "000-' || lpad((" + num + ")::text, 12, '0')"
		}
		return "printf('00000000-0000-7000-" + kind + "000-%012d', " + num + ")"
	}
	at := "strftime('%Y-%m-%d %H:%M:%f+00:00', 'now', '-' || (? - i) || ' seconds')"
	if e == testdb.EnginePostgres {
		at = "now() - (? - i) * interval '1 second'"
	}
	seed := `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ? - 1)
INSERT INTO kit_events (id, team_id, "timestamp", operation, collection_name, item_id, user_id, user_name, changes, metadata)
SELECT ` + id("8", "i") + `, CASE WHEN i % 10 = 9 THEN 'other' ELSE ? END, ` + at + `,
	CASE WHEN i % 50 = 0 THEN 'delete' ELSE 'update' END,
	CASE WHEN i % 7 = 0 THEN 'shopCategories' ELSE 'shopProducts' END,
	` + id("a", "(i * 7919) % ?") + `, ` + id("b", "i % 5") + `, 'History',
	'[["price","1.00","2.00"],["title","Claw hammer","Claw hammer XL"]]', '{}' FROM n`
	if _, err := db.NewRaw(seed, n, teamID, n, max(n/5, 1)).Exec(ctx); err != nil {
		tb.Fatalf("seed %d events: %v", n, err)
	}
	if e == testdb.EnginePostgres {
		if _, err := db.ExecContext(ctx, "ANALYZE kit_events"); err != nil {
			tb.Fatal(err)
		}
	}
}

// seedID is the id seedEvents gives the record (kind 'a') or user (kind
// 'b') number n: a UUID, as kit's ids are.
func seedID(kind byte, n int) string { return fmt.Sprintf("00000000-0000-7000-%c000-%012d", kind, n) }
