package events_test

import (
	"context"
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
	for _, e := range []testdb.Engine{testdb.EngineSQLite, testdb.EnginePostgres} {
		b.Run(string(e), func(b *testing.B) {
			if e == testdb.EnginePostgres {
				testdb.PostgresDSN(b)
			}
			benchmarkCreate(b, e)
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
