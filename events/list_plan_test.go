package events_test

import (
	"context"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/events"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// eventStatements is a bun query hook that keeps the statements run on
// kit_events.
type eventStatements struct {
	mu    sync.Mutex
	stmts []string
}

func (s *eventStatements) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	return ctx
}

func (s *eventStatements) AfterQuery(_ context.Context, ev *bun.QueryEvent) {
	if strings.Contains(ev.Query, "kit_events") {
		s.mu.Lock()
		s.stmts = append(s.stmts, ev.Query)
		s.mu.Unlock()
	}
}

// take returns the statements kept since the last call and forgets them.
func (s *eventStatements) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.stmts
	s.stmts = nil
	return out
}

// TestListFiltersReadTheirIndexInTheListsOrder: every query of the list
// endpoint (its page and its count) is answered from an index, and the
// page comes in the list's order (timestamp, then id) with no sort on
// SQLite, and on PostgreSQL none but of the rows of equal timestamps.
// SQLite keeps no statistics here, so its plan does not depend on the rows
// and must be a search of the filter's own index, one team's range of it.
// PostgreSQL plans from the statistics of 5,000 seeded events
// (seedEvents), which may favour another index; it is asked with
// sequential scans, bitmap scans and sorts discouraged, so that a sort or
// a scan in its plan means no index can give the answer in order.
func TestListFiltersReadTheirIndexInTheListsOrder(t *testing.T) {
	from := time.Now().Add(-10 * time.Minute)
	cases := []struct {
		name string
		q    events.Query
		// On SQLite: page is the index the page is read from; count is
		// the index, or the prefix of the indexes, its count may read;
		// covered says the count reads that index alone.
		page, count string
		covered     bool
	}{
		{"the unfiltered list reads the team's index", events.Query{}, "kit_events_team_time_idx", "kit_events_team_time_idx", true},
		{"a later page reads the team's index", events.Query{Page: 3}, "kit_events_team_time_idx", "kit_events_team_time_idx", true},
		{"a record's history reads the item index", events.Query{ItemID: seedID('a', 1)}, "kit_events_team_item_idx", "kit_events_team_item_idx", true},
		{"a user's changes read the user index", events.Query{UserID: seedID('b', 1)}, "kit_events_team_user_idx", "kit_events_team_user_idx", true},
		{"a collection's changes read the collection index", events.Query{CollectionName: "shopProducts"}, "kit_events_team_collection_idx", "kit_events_team_collection_idx", true},
		{"one operation reads the team's index", events.Query{Operation: kit.OpDelete}, "kit_events_team_time_idx", "kit_events_team_", false},
		{"a date range reads the team's index", events.Query{DateFrom: from, DateTo: from.Add(5 * time.Minute)}, "kit_events_team_time_idx", "kit_events_team_time_idx", true},
		{"a record's history in one collection reads the item index", events.Query{ItemID: seedID('a', 1), CollectionName: "shopProducts"}, "kit_events_team_item_idx", "kit_events_team_item_idx", false},
	}
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		ctx := t.Context()
		hook := &eventStatements{}
		db := testdb.Open(t, e).WithQueryHook(hook)
		k, tr := openTracked(t, db)
		team, err := k.Accounts().CreateTeam(ctx, teamauth.Team{Name: "Acme", Slug: "acme"})
		if err != nil {
			t.Fatal(err)
		}
		seedEvents(t, db, e, team.ID, 5000)
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				hook.take()
				if _, err := tr.Events(ctx, team.ID, tc.q); err != nil {
					t.Fatal(err)
				}
				stmts := hook.take()
				if len(stmts) != 2 {
					t.Fatalf("got %d statements on kit_events, want 2 (the page and its count):\n%s", len(stmts), strings.Join(stmts, "\n"))
				}
				for _, stmt := range stmts {
					plan := testdb.Explain(t, db, []string{"enable_seqscan", "enable_bitmapscan", "enable_sort"}, stmt)
					index, count := tc.page, strings.Contains(stmt, "count(*)")
					if count {
						index = tc.count
					}
					switch {
					case e == testdb.EngineSQLite && !strings.Contains(plan, index):
						t.Errorf("got the plan\n%s\nof %s\nwant it to read %s", plan, stmt, index)
					case e == testdb.EngineSQLite && (strings.Contains(plan, "TEMP B-TREE") || strings.Contains(plan, "SCAN ")):
						t.Errorf("got the plan\n%s\nof %s\nwant a search of %s with no sort", plan, stmt, index)
					case e == testdb.EngineSQLite && count && tc.covered && !strings.Contains(plan, "COVERING INDEX "+index):
						t.Errorf("got the plan\n%s\nof %s\nwant the count to read %s alone", plan, stmt, index)
					case e == testdb.EnginePostgres && (fullSort.MatchString(plan) || strings.Contains(plan, "Seq Scan")):
						t.Errorf("got the plan\n%s\nof %s\nwant an index scan with no sort but of equal timestamps", plan, stmt)
					}
				}
			})
		}
	})
}

// fullSort matches a sort node of a PostgreSQL plan other than an
// incremental sort (one of rows that come sorted by a prefix of the key).
var fullSort = regexp.MustCompile(`(?m)^(\s*->)?\s*Sort\s+\(`)
