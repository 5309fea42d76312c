package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/store"
	"github.com/collectionkit/kit/internal/testdb"
)

// wordStore is a synced store with one collection, app/words: an indexed
// text field "word" and an unindexed one "note".
type wordStore struct {
	db  *bun.DB
	s   *store.Store
	c   *collections.Collection
	reg *collections.Registry
	log *queryLog
}

func wordsDefinition(fields ...collections.Field) []collections.Definition {
	if fields == nil {
		fields = []collections.Field{
			{Name: "word", Type: collections.TypeString, Meta: collections.FieldMeta{Index: true}},
			{Name: "note", Type: collections.TypeText},
		}
	}
	return []collections.Definition{{Name: "words", Layer: "app", Fields: fields}}
}

func newWordStore(t *testing.T, db *bun.DB, defs []collections.Definition) *wordStore {
	t.Helper()
	if defs == nil {
		defs = wordsDefinition()
	}
	reg, _, err := collections.Build(defs, collections.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := store.New(db, func() *collections.Registry { return reg })
	if err := s.Sync(t.Context(), reg, store.SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	c, _ := reg.Get("appWords")
	log := &queryLog{}
	s.SetQueryHook(log)
	return &wordStore{db: db, s: s, c: c, reg: reg, log: log}
}

func (ws *wordStore) put(t *testing.T, team, id string, data map[string]any) {
	t.Helper()
	now := time.Now().UTC().Truncate(time.Microsecond)
	rec := store.Record{"id": id, "teamId": team, "owner": "u", "createdAt": now, "updatedAt": now, "createdBy": "u", "updatedBy": "u"}
	for k, v := range data {
		rec[k] = v
	}
	if err := ws.s.Insert(t.Context(), ws.db, ws.c, rec); err != nil {
		t.Fatal(err)
	}
}

// list returns the field values of team's list for the query params.
func (ws *wordStore) list(t *testing.T, team, field string, params url.Values) []any {
	t.Helper()
	q, err := ws.c.ParseListQuery(params, collections.QueryLimits{})
	if err != nil {
		t.Fatalf("parse %v: %v", params, err)
	}
	page, err := ws.s.List(t.Context(), store.Read{}, ws.c, team, q)
	if err != nil {
		t.Fatalf("list %v: %v", params, err)
	}
	var out []any
	for _, r := range page.Records {
		out = append(out, r[field])
	}
	return out
}

func TestTextSortsAsPeopleReadIt(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		ws := newWordStore(t, testdb.Open(t, e), nil)
		words := []string{"zebra", "Émile", "cherry", "Banana", "apple", "Apple", "émile", "Zoë", "zoe"}
		for i, w := range words {
			ws.put(t, "acme", fmt.Sprintf("w%02d", i), map[string]any{"word": w, "note": w})
		}
		ws.put(t, "acme", "wnull", map[string]any{"note": nil})
		ws.put(t, "globex", "g1", map[string]any{"word": "aardvark"})

		asc := []any{nil, "Apple", "apple", "Banana", "cherry", "Émile", "émile", "zebra", "Zoë", "zoe"}
		desc := slices.Clone(asc)
		slices.Reverse(desc)
		cases := []struct {
			name   string
			field  string
			params url.Values
			want   []any
		}{
			{"an ascending sort ignores case and accents, nulls first, code point breaking ties", "word",
				url.Values{"sort": {"word"}}, asc},
			{"a descending sort is the exact reverse", "word",
				url.Values{"sort": {"-word"}}, desc},
			{"an unindexed text field sorts the same way", "note",
				url.Values{"sort": {"note"}}, asc},
			{"gt agrees with the order: Banana sorts before banana, so it is not greater", "word",
				url.Values{"sort": {"word"}, "filter": {`{"word":{"gt":"banana"}}`}}, []any{"cherry", "Émile", "émile", "zebra", "Zoë", "zoe"}},
			{"gt of a value whose key sorts first keeps its case variants after it", "word",
				url.Values{"sort": {"word"}, "filter": {`{"word":{"gt":"BANANA"}}`}}, []any{"Banana", "cherry", "Émile", "émile", "zebra", "Zoë", "zoe"}},
			{"gte of a value includes it", "word",
				url.Values{"sort": {"word"}, "filter": {`{"word":{"gte":"Émile"}}`}}, []any{"Émile", "émile", "zebra", "Zoë", "zoe"}},
			{"lt agrees with the order", "word",
				url.Values{"sort": {"word"}, "filter": {`{"word":{"lt":"cherry"}}`}}, []any{"Apple", "apple", "Banana"}},
			{"lte and gt together select a range", "word",
				url.Values{"sort": {"word"}, "filter": {`{"word":{"gt":"Banana","lte":"émile"}}`}}, []any{"cherry", "Émile", "émile"}},
			{"eq stays exact", "word",
				url.Values{"filter": {`{"word":{"eq":"apple"}}`}}, []any{"apple"}},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				got := ws.list(t, "acme", c.field, c.params)
				if !slices.Equal(got, c.want) {
					t.Errorf("got %q, want %q", got, c.want)
				}
			})
		}

		t.Run("an update rewrites the sort key", func(t *testing.T) {
			if err := ws.s.Update(t.Context(), ws.db, ws.c, "acme", "w00", store.Record{"word": "Aaron"}); err != nil {
				t.Fatal(err)
			}
			got := ws.list(t, "acme", "word", url.Values{"sort": {"word"}, "pageSize": {"2"}})
			if want := []any{nil, "Aaron"}; !slices.Equal(got, want) {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	})
}

func TestSortingByAnIndexedTextFieldUsesItsIndex(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		ws := newWordStore(t, testdb.Open(t, e), nil)
		// Enough rows, with statistics, that sorting a team's rows costs
		// more than walking the index.
		err := ws.db.RunInTx(t.Context(), nil, func(ctx context.Context, tx bun.Tx) error {
			now := time.Now().UTC()
			for i := range 4000 {
				rec := store.Record{"id": fmt.Sprintf("w%04d", i), "teamId": fmt.Sprintf("team%d", i%4), "owner": "u",
					"word": fmt.Sprintf("Word %d", i), "createdAt": now, "updatedAt": now, "createdBy": "u", "updatedBy": "u"}
				if err := ws.s.Insert(ctx, tx, ws.c, rec); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ws.db.ExecContext(t.Context(), "ANALYZE"); err != nil {
			t.Fatal(err)
		}
		for _, params := range []url.Values{
			{"sort": {"word"}},
			{"sort": {"-word"}},
		} {
			ws.list(t, "team1", "word", params)
			q := ws.log.lastWith("ORDER BY")
			plan := testdb.Explain(t, ws.db, []string{"enable_seqscan"}, q.sql, q.args...)
			if !strings.Contains(plan, "ix_app_words_word_sort") {
				t.Errorf("sort %v: plan\n%s\nwant it to use ix_app_words_word_sort (query %s)", params["sort"], plan, q.sql)
			}
			if e == testdb.EngineSQLite && strings.Contains(plan, "TEMP B-TREE") {
				t.Errorf("sort %v: plan\n%s\nwant no sort step: the index gives the order", params["sort"], plan)
			}
			if e != testdb.EngineSQLite && strings.Contains(plan, "Sort") && !strings.Contains(plan, "Incremental Sort") {
				t.Errorf("sort %v: plan\n%s\nwant no sort step: the index gives the order", params["sort"], plan)
			}
		}
	})
}

func TestSyncFillsTheSortKeysOfATableMadeWithoutThem(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		db := testdb.Open(t, e)
		ws := newWordStore(t, db, nil)
		for i, w := range []string{"zebra", "Émile", "apple"} {
			ws.put(t, "acme", fmt.Sprintf("w%d", i), map[string]any{"word": w})
		}
		// Make the table what a kit without sort keys left: no key
		// columns, and a stored definition that lists none.
		ctx := t.Context()
		for _, q := range []string{
			`DROP INDEX "ix_app_words_word_sort"`,
			`ALTER TABLE app_words DROP COLUMN word__key`,
			`ALTER TABLE app_words DROP COLUMN note__key`,
		} {
			if _, err := db.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		var def string
		if err := db.QueryRowContext(ctx, "SELECT definition FROM kit_collections WHERE key = 'appWords'").Scan(&def); err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(def), &m); err != nil {
			t.Fatal(err)
		}
		delete(m, "sortKeys")
		old, _ := json.Marshal(m)
		if _, err := db.ExecContext(ctx, "UPDATE kit_collections SET definition = ?, hash = 'before-sort-keys' WHERE key = 'appWords'", string(old)); err != nil {
			t.Fatal(err)
		}

		again := newWordStore(t, db, nil)
		got := again.list(t, "acme", "word", url.Values{"sort": {"word"}})
		if want := []any{"apple", "Émile", "zebra"}; !slices.Equal(got, want) {
			t.Errorf("got %q, want %q", got, want)
		}
		var n int
		if err := db.QueryRowContext(ctx, "SELECT count(*) FROM app_words WHERE word__key IS NULL").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("got %d rows without a sort key after sync, want 0", n)
		}
	})
}
