package teamauth

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/collectionkit/kit/internal/testdb"
)

// TestCachedAccessAnswersOnlyWhatTheCacheHoldsInFull checks that
// CachedAccess answers, without a query, exactly the accesses that
// ResolveTeamAndCheckMembership granted and cached, and leaves every other
// case (a refusal, an unknown team, a use of the token due to be recorded)
// to ResolveTeamAndCheckMembership.
func TestCachedAccessAnswersOnlyWhatTheCacheHoldsInFull(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		tests := []struct {
			name   string
			token  string // a fixture token, or "unknown"
			slug   string // as in resolve
			warmBy string // the slug (as in resolve) resolved first, "" for none
			later  time.Duration
			want   string // "member as <role>" or "none"
		}{
			{"a member resolved before is answered", "member", "acme", "acme", 0, "member as member"},
			{"a member resolved by team id is answered by team id", "member", "{id}", "{id}", 0, "member as member"},
			{"an owner resolved before is answered with the role", "owner", "acme", "acme", 0, "member as owner"},
			{"a member never resolved is not answered", "member", "acme", "", 0, "none"},
			{"a member resolved by slug is not answered by team id", "member", "{id}", "acme", 0, "none"},
			{"a banned user is not answered", "banned", "acme", "acme", 0, "none"},
			{"an outsider is not answered", "outsider", "acme", "acme", 0, "none"},
			{"a revoked token is not answered", "revoked", "acme", "acme", 0, "none"},
			{"an unknown token is not answered", "unknown", "acme", "acme", 0, "none"},
			{"an unknown team is not answered", "member", "nope", "nope", 0, "none"},
			{"a token whose use is due to be recorded is not answered", "member", "acme", "acme", lastUsedEvery, "none"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				f := newFixture(t, e)
				a := &Auth{Directory: f.store}
				token := f.tokens[tt.token]
				if tt.token == "unknown" {
					token = tokenPrefix + strings.Repeat("A", tokenLen-len(tokenPrefix))
				}
				if tt.warmBy != "" {
					resolve(f, a, token, tt.warmBy)
				}
				slug := tt.slug
				if slug == "{id}" {
					slug = f.team.ID
				}
				if tt.later > 0 {
					now := time.Now().Add(tt.later)
					f.store.now = func() time.Time { return now }
				}
				acc, version, ok := f.store.CachedAccess(token, slug)
				got := "none"
				if ok {
					got = fmt.Sprintf("member as %s", acc.Membership.Role)
					if current, _ := f.store.AuthVersion(t.Context()); version != current {
						t.Errorf("version: got %d, want the current %d", version, current)
					}
				}
				if got != tt.want {
					t.Errorf("got %q, want %q", got, tt.want)
				}
			})
		}
	})
}

// TestCachedAccessAfterAChangeCarriesAVersionThatIsNoLongerCurrent checks
// the contract a caller of CachedAccess relies on: after a change that no
// lookup has read yet, the cache may still answer, but under a version
// that the current one no longer equals.
func TestCachedAccessAfterAChangeCarriesAVersionThatIsNoLongerCurrent(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		f := newFixture(t, e)
		a := &Auth{Directory: f.store}
		resolve(f, a, f.tokens["member"], "acme")
		if err := f.store.RemoveMember(t.Context(), f.team.ID, f.users["member"].ID); err != nil {
			t.Fatal(err)
		}
		_, version, ok := f.store.CachedAccess(f.tokens["member"], "acme")
		current, _ := f.store.AuthVersion(t.Context())
		if ok && version == current {
			t.Errorf("got the current version %d for an access read before the change, want an older one", version)
		}
		if got := resolve(f, a, f.tokens["member"], "acme"); got != "403 not a member of this team" {
			t.Errorf("resolve after the change: got %q, want a refusal", got)
		}
		if _, _, ok := f.store.CachedAccess(f.tokens["member"], "acme"); ok {
			t.Errorf("CachedAccess after the refusal: got ok, want none")
		}
	})
}
