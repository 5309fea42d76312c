package teamauth

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/collectionkit/kit/internal/testdb"
)

// BenchmarkResolveTeam resolves a bearer-token request for a team by slug,
// as kit does before every team-scoped request: the token lookup and the
// team-and-membership lookup, uncached (two queries) and cached (one query
// reading the version), on a SQLite file in WAL mode (as kit opens one)
// and on PostgreSQL when KIT_TEST_POSTGRES is set.
func BenchmarkResolveTeam(b *testing.B) {
	for _, e := range []testdb.Engine{testdb.EngineSQLite, testdb.EnginePostgres} {
		b.Run(string(e), func(b *testing.B) {
			if e == testdb.EnginePostgres {
				testdb.PostgresDSN(b)
			}
			f := newFixtureOn(b, testdb.Shared(b, e)())
			for _, mode := range []struct {
				name     string
				uncached bool
			}{{"uncached", true}, {"cached", false}} {
				s := NewStore(f.db)
				s.uncached = mode.uncached
				a := &Auth{Directory: s}
				r := httptest.NewRequest(http.MethodGet, "/teams/acme/products/1", nil)
				r.SetPathValue("team", "acme")
				r.Header.Set("Authorization", "Bearer "+f.tokens["member"])
				resolveOnce := func(b *testing.B) {
					acc, err := a.ResolveTeamAndCheckMembership(r)
					if err != nil || acc.Membership.Role != RoleMember {
						b.Fatalf("got %v, %v; want a member", acc, err)
					}
				}
				b.Run(mode.name, func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						resolveOnce(b)
					}
				})
				b.Run(mode.name+"/parallel", func(b *testing.B) {
					b.ReportAllocs()
					b.RunParallel(func(pb *testing.PB) {
						for pb.Next() {
							resolveOnce(b)
						}
					})
				})
			}
		})
	}
}
