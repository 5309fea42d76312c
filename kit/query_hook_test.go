package kit_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
)

// queryLog is a bun.QueryHook, as a host would register (bunotel,
// bundebug): it records each statement it is told about.
type queryLog struct {
	mu      sync.Mutex
	before  int
	entries []queryEntry
}

type queryEntry struct {
	query string
	args  []any
	err   error
}

func (l *queryLog) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.before++
	return ctx
}

func (l *queryLog) AfterQuery(_ context.Context, ev *bun.QueryEvent) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries = append(l.entries, queryEntry{query: ev.Query, args: ev.QueryArgs, err: ev.Err})
}

// since returns the statements seen after the first n.
func (l *queryLog) since(n int) []queryEntry {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.entries[n:])
}

func (l *queryLog) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.entries)
}

// TestQueryHookSeesRecordStatements checks that a host's bun query hook,
// given in Config.QueryHook, sees the statements of a create, a list and
// an update, with their SQL text and arguments, on every engine.
func TestQueryHookSeesRecordStatements(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		log := &queryLog{}
		k := newKitConfig(t, kit.Config{DB: testdb.Open(t, e), Definitions: shopDefs(), QueryHook: log})
		alice := kit.Actor{UserID: "alice", TeamID: "acme"}
		seedActors(t, k, alice)
		products := k.Records("shopProducts")

		var id string
		steps := []struct {
			name string
			run  func() error
			want string // the statement that must be seen, by its start (or its WITH's record part)
			arg  any    // an argument it must carry
		}{
			{"a create is seen as its INSERT", func() error {
				rec, err := products.Create(t.Context(), alice, map[string]any{"title": "Lamp", "price": "19.90"})
				if err == nil {
					id = rec["id"].(string)
				}
				return err
			}, `INSERT INTO "shop_products"`, "Lamp"},
			{"a list is seen as its SELECT", func() error {
				_, err := products.List(t.Context(), alice, query("search", "lamp"))
				return err
			}, "SELECT ", "acme"},
			{"an update is seen as its UPDATE", func() error {
				_, err := products.Update(t.Context(), alice, id, map[string]any{"title": "Desk lamp"})
				return err
			}, `UPDATE "shop_products"`, "Desk lamp"},
		}
		for _, st := range steps {
			t.Run(st.name, func(t *testing.T) {
				n := log.len()
				if err := st.run(); err != nil {
					t.Fatal(err)
				}
				seen := log.since(n)
				var texts []string
				for _, q := range seen {
					texts = append(texts, q.query)
					// On PostgreSQL a record's INSERT or UPDATE is a part of
					// a WITH that also counts the row and logs the change
					// (store.counted, InsertLogged, UpdateLogged).
					// On SQLite a record's UPDATE is an UPDATE OR FAIL.
					text := strings.Replace(q.query, "UPDATE OR FAIL ", "UPDATE ", 1)
					starts := strings.HasPrefix(text, st.want) || strings.HasPrefix(text, "WITH ") && strings.Contains(text, "kit_row AS ("+st.want)
					if starts && strings.Contains(q.query, "shop_products") &&
						slices.ContainsFunc(q.args, func(a any) bool { return fmt.Sprint(a) == fmt.Sprint(st.arg) }) {
						if q.err != nil {
							t.Errorf("the hook saw %q fail: %v", q.query, q.err)
						}
						return
					}
				}
				t.Errorf("statements seen: got %q, want one starting %q on shop_products with argument %v", texts, st.want, st.arg)
			})
		}
		log.mu.Lock()
		defer log.mu.Unlock()
		if log.before != len(log.entries) {
			t.Errorf("BeforeQuery calls: got %d, want one per AfterQuery (%d)", log.before, len(log.entries))
		}
	})
}
