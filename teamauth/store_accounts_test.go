package teamauth

import (
	"errors"
	"sync"
	"testing"

	"github.com/collectionkit/kit/internal/testdb"
)

// TestConcurrentDemotionsKeepAnOwner demotes the two owners of a team at
// the same time, many times over: one demotion wins, the other is
// ErrLastOwner, and the team always keeps an owner.
func TestConcurrentDemotionsKeepAnOwner(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		f := newFixture(t, e)
		ctx := t.Context()
		s := f.store
		for round := 0; round < 10; round++ {
			a, err := s.AddMember(ctx, f.team.ID, f.users["owner"].ID, RoleOwner)
			if err != nil {
				t.Fatal(err)
			}
			b, err := s.AddMember(ctx, f.team.ID, f.users["admin"].ID, RoleOwner)
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			errs := make([]error, 2)
			for i, m := range []*Membership{a, b} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, errs[i] = s.SetMemberRole(ctx, f.team.ID, m.ID, RoleMember)
				}()
			}
			wg.Wait()
			lastOwner := 0
			for _, err := range errs {
				switch {
				case errors.Is(err, ErrLastOwner):
					lastOwner++
				case err != nil:
					t.Fatalf("round %d: got %v, want nil or ErrLastOwner", round, err)
				}
			}
			ms, err := s.Members(ctx, f.team.ID)
			if err != nil {
				t.Fatal(err)
			}
			owners := 0
			for _, m := range ms {
				if m.Role == RoleOwner {
					owners++
				}
			}
			if owners != 1 || lastOwner != 1 {
				t.Fatalf("round %d: got %d owners and %d ErrLastOwner, want 1 and 1", round, owners, lastOwner)
			}
		}
	})
}
