package teamauth

import (
	"strings"
	"testing"

	"github.com/collectionkit/kit/internal/testdb"
)

// TestSignInFindsTheUserThroughTheEmailIndex: the sign-in lookup
// (sqlUserPasswordByEmail) is planned through kit_users_email_key, the
// partial index on lower(email), so its cost does not grow with the users
// table. PostgreSQL is asked with sequential scans discouraged, so that
// the answer depends on whether the index can serve the query at all,
// not on the size of the test's table.
func TestSignInFindsTheUserThroughTheEmailIndex(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		db, s := newStore(t, e)
		ctx := t.Context()
		for _, email := range []string{"a@example.com", "b@example.com", ""} {
			if _, err := s.CreateUser(ctx, User{Name: "user " + email, Email: email}); err != nil {
				t.Fatalf("CreateUser(%q): %v", email, err)
			}
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		explain := "EXPLAIN QUERY PLAN "
		if e == testdb.EnginePostgres {
			if _, err := tx.ExecContext(ctx, "SET LOCAL enable_seqscan = off"); err != nil {
				t.Fatal(err)
			}
			explain = "EXPLAIN "
		}
		plan, err := testdb.PlanLines(ctx, tx, explain+sqlUserPasswordByEmail, "A@example.com")
		if err != nil {
			t.Fatalf("explain: %v", err)
		}
		if got := strings.Join(plan, "\n"); !strings.Contains(got, "kit_users_email_key") {
			t.Errorf("got the plan\n%s\nwant it to read kit_users through kit_users_email_key", got)
		}
	})
}
