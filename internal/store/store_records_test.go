package store_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/store"
	"github.com/collectionkit/kit/internal/testdb"
)

// fixture is a synced store with shop categories and products.
type fixture struct {
	db       *bun.DB
	s        *store.Store
	reg      *collections.Registry
	products *collections.Collection
	cats     *collections.Collection
}

func storeDefs() []collections.Definition {
	return []collections.Definition{
		{Name: "categories", Layer: "shop", Fields: []collections.Field{{Name: "name", Type: collections.TypeString}}},
		{Name: "products", Layer: "shop", Fields: []collections.Field{
			{Name: "title", Type: collections.TypeString},
			{Name: "notes", Type: collections.TypeText},
			{Name: "price", Type: collections.TypeDecimal, Meta: collections.FieldMeta{Precision: 10, Scale: 2}},
			{Name: "ratio", Type: collections.TypeDecimal, Meta: collections.FieldMeta{Precision: 3, Scale: 3}},
			{Name: "weight", Type: collections.TypeNumber},
			{Name: "isActive", Type: collections.TypeBoolean},
			{Name: "publishedAt", Type: collections.TypeDate},
			{Name: "specs", Type: collections.TypeJSON},
			{Name: "rows", Type: collections.TypeRepeater},
			{Name: "tags", Type: collections.TypeArray},
			{Name: "photo", Type: collections.TypeImage},
			{Name: "manual", Type: collections.TypeFile},
			{Name: "sku", Type: collections.TypeString, Meta: collections.FieldMeta{Unique: true}},
			{Name: "categoryId", Type: collections.TypeString, RefTarget: "categories"},
		}},
	}
}

func newFixture(t testing.TB, e testdb.Engine, defs ...collections.Definition) *fixture {
	t.Helper()
	if len(defs) == 0 {
		defs = storeDefs()
	}
	return newFixtureOn(t, testdb.Open(t, e), defs...)
}

// newFixtureOn is newFixture on db.
func newFixtureOn(t testing.TB, db *bun.DB, defs ...collections.Definition) *fixture {
	t.Helper()
	if len(defs) == 0 {
		defs = storeDefs()
	}
	reg, _, err := collections.Build(defs, collections.LoadOptions{})
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	s := store.New(db, func() *collections.Registry { return reg })
	if err := s.Sync(t.Context(), reg, store.SyncOptions{}); err != nil {
		t.Fatalf("Sync: %v", err)
	}
	f := &fixture{db: db, s: s, reg: reg}
	f.products, _ = reg.Get("shopProducts")
	f.cats, _ = reg.Get("shopCategories")
	return f
}

var recSeq int

// insert stores a product of team with the given fields and returns its id.
func (f *fixture) insert(t *testing.T, c *collections.Collection, team string, fields map[string]any) string {
	t.Helper()
	recSeq++
	id := fmt.Sprintf("rec-%04d", recSeq)
	now := time.Now().UTC().Truncate(time.Microsecond)
	rec := store.Record{"id": id, "teamId": team, "owner": "u1", "createdAt": now, "updatedAt": now, "createdBy": "u1", "updatedBy": "u1"}
	for k, v := range fields {
		rec[k] = v
	}
	if err := f.s.Insert(t.Context(), f.db, c, rec); err != nil {
		t.Fatalf("Insert %v: %v", fields, err)
	}
	return id
}

func (f *fixture) list(t *testing.T, team string, params url.Values) store.Page {
	t.Helper()
	q, err := f.products.ParseListQuery(params, collections.QueryLimits{})
	if err != nil {
		t.Fatalf("ParseListQuery %v: %v", params, err)
	}
	p, err := f.s.List(t.Context(), store.Read{}, f.products, team, q)
	if err != nil {
		t.Fatalf("List %v: %v", params, err)
	}
	return p
}

func values(recs []store.Record, field string) []any {
	out := make([]any, len(recs))
	for i, r := range recs {
		out[i] = r[field]
	}
	return out
}

func TestStoreRecordsOnEveryEngine(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		f := newFixture(t, e)
		ctx := t.Context()

		t.Run("every type comes back canonical from Get", func(t *testing.T) {
			when := time.Date(2026, 3, 1, 8, 0, 0, 123456000, time.UTC)
			in := map[string]any{
				"title": "Tee 'quoted' %_", "notes": "a\nb", "price": "-12.30", "ratio": "0.500", "weight": 1.25,
				"isActive": false, "publishedAt": when, "specs": map[string]any{"a": []any{1.0, "x", nil}},
				"rows": []any{map[string]any{"k": "v"}}, "tags": []any{"t1", 2.0}, "photo": "/p.png", "manual": "m.pdf",
			}
			id := f.insert(t, f.products, "t1", in)
			got, err := f.s.Get(ctx, store.Read{}, f.products, "t1", id)
			if err != nil {
				t.Fatalf("Get: %v", err)
			}
			for k, want := range in {
				if wt, ok := want.(time.Time); ok {
					if gt, ok := got[k].(time.Time); !ok || !gt.Equal(wt) || gt.Location() != time.UTC {
						t.Errorf("%s: got %#v, want %v UTC", k, got[k], wt)
					}
					continue
				}
				if !reflect.DeepEqual(got[k], want) {
					t.Errorf("%s: got %#v, want %#v", k, got[k], want)
				}
			}
			for _, k := range []string{"sku", "categoryId"} {
				if v, ok := got[k]; !ok || v != nil {
					t.Errorf("%s: got %#v (present %v), want nil", k, v, ok)
				}
			}
			if got["teamId"] != "t1" || got["owner"] != "u1" || got["id"] != id {
				t.Errorf("system fields: got %v %v %v", got["id"], got["teamId"], got["owner"])
			}
		})

		t.Run("another team's record is not found by Get, Update or Delete", func(t *testing.T) {
			id := f.insert(t, f.products, "t1", map[string]any{"title": "mine"})
			if _, err := f.s.Get(ctx, store.Read{}, f.products, "t2", id); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("Get: got %v, want ErrNotFound", err)
			}
			if err := f.s.Update(ctx, f.db, f.products, "t2", id, store.Record{"title": "theirs"}); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("Update: got %v, want ErrNotFound", err)
			}
			if err := f.s.Delete(ctx, f.db, f.products, "t2", id); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("Delete: got %v, want ErrNotFound", err)
			}
			got, err := f.s.Get(ctx, store.Read{}, f.products, "t1", id)
			if err != nil || got["title"] != "mine" {
				t.Errorf("record after foreign writes: got %v, %v", got, err)
			}
			if ok, _ := f.s.Exists(ctx, f.db, f.products, "t2", id); ok {
				t.Error("Exists for another team: got true")
			}
			if ok, _ := f.s.Exists(ctx, f.db, f.products, "t1", id); !ok {
				t.Error("Exists for the team: got false")
			}
			if got, err := f.s.GetAnyTeam(ctx, f.db, f.products, id); err != nil || got["teamId"] != "t1" {
				t.Errorf("GetAnyTeam: got %v, %v", got, err)
			}
			many, err := f.s.GetMany(ctx, store.Read{}, f.products, "t2", []string{id})
			if err != nil || len(many) != 0 {
				t.Errorf("GetMany for another team: got %d records, %v", len(many), err)
			}
		})

		t.Run("Taken looks only at other records of the same team", func(t *testing.T) {
			sku, _ := f.products.Attribute("sku")
			id := f.insert(t, f.products, "t1", map[string]any{"title": "s", "sku": "TAKEN-1"})
			cases := []struct {
				team, except string
				want         bool
			}{
				{"t1", "", true},
				{"t1", id, false},
				{"t2", "", false},
			}
			for _, c := range cases {
				got, err := f.s.Taken(ctx, f.db, f.products, sku, c.team, c.except, "TAKEN-1")
				if err != nil || got != c.want {
					t.Errorf("Taken(team %s, except %q): got %v, %v; want %v", c.team, c.except, got, err, c.want)
				}
			}
		})

		t.Run("deleting a referenced record is refused naming the referencing collection", func(t *testing.T) {
			cat := f.insert(t, f.cats, "t1", map[string]any{"name": "c"})
			f.insert(t, f.products, "t1", map[string]any{"title": "ref", "categoryId": cat})
			err := f.s.Delete(ctx, f.db, f.cats, "t1", cat)
			var ce *store.ConstraintError
			if !errors.As(err, &ce) || ce.Kind != collections.ConstraintReferenced || ce.HTTPStatus() != 409 {
				t.Fatalf("Delete: got %v, want a referenced ConstraintError (409)", err)
			}
			if len(ce.ReferencedBy) != 1 || ce.ReferencedBy[0].Collection != f.products.Key() || ce.ReferencedBy[0].Field != "categoryId" || ce.ReferencedBy[0].Count != 1 {
				t.Errorf("ReferencedBy: got %+v, want one referrer %s.categoryId with count 1", ce.ReferencedBy, f.products.Key())
			}
			if ok, _ := f.s.Exists(ctx, f.db, f.cats, "t1", cat); !ok {
				t.Error("referenced record was deleted")
			}
		})

		t.Run("the database refuses a reference to no record", func(t *testing.T) {
			recSeq++
			rec := store.Record{"id": fmt.Sprint("bad-ref-", recSeq), "teamId": "t1", "owner": "u1", "title": "x", "categoryId": "no-such-category",
				"createdAt": time.Now().UTC(), "updatedAt": time.Now().UTC(), "createdBy": "u1", "updatedBy": "u1"}
			err := f.s.Insert(ctx, f.db, f.products, rec)
			var ce *store.ConstraintError
			if !errors.As(err, &ce) || ce.Kind != "foreignKey" {
				t.Errorf("Insert: got %v, want a foreignKey ConstraintError", err)
			}
		})

		t.Run("lists sort decimals numerically and search literally", func(t *testing.T) {
			team := "t-list"
			for _, p := range []struct{ title, price, ratio string }{
				{"9.99 a_b", "9.99", "0.5"}, {"10.50 axb", "10.50", "-0.25"}, {"-0.01 100%", "-0.01", "0.001"}, {"-5 1000", "-5", "0"},
			} {
				f.insert(t, f.products, team, map[string]any{"title": p.title, "price": mustValue(collections.ParseDecimal(p.price, 10, 2)), "ratio": mustValue(collections.ParseDecimal(p.ratio, 3, 3))})
			}
			cases := []struct {
				name   string
				params url.Values
				field  string
				want   []any
			}{
				{"price ascending", url.Values{"sort": {"price"}}, "price", []any{"-5.00", "-0.01", "9.99", "10.50"}},
				{"price descending", url.Values{"sort": {"-price"}}, "price", []any{"10.50", "9.99", "-0.01", "-5.00"}},
				{"ratio ascending", url.Values{"sort": {"ratio"}}, "ratio", []any{"-0.250", "0.000", "0.001", "0.500"}},
				{"price gt 0", url.Values{"sort": {"price"}, "filter": {`{"price":{"gt":"0"}}`}}, "price", []any{"9.99", "10.50"}},
				{"price in", url.Values{"sort": {"price"}, "filter": {`{"price":{"in":["-5","10.5"]}}`}}, "price", []any{"-5.00", "10.50"}},
				{"search a_b", url.Values{"search": {"a_b"}}, "title", []any{"9.99 a_b"}},
				{"search 0%", url.Values{"search": {"0%"}}, "title", []any{"-0.01 100%"}},
				{"contains A_B", url.Values{"filter": {`{"title":{"contains":"A_B"}}`}}, "title", []any{"9.99 a_b"}},
			}
			for _, c := range cases {
				p := f.list(t, team, c.params)
				if got := values(p.Records, c.field); !slices.Equal(got, c.want) {
					t.Errorf("%s: got %v, want %v", c.name, got, c.want)
				}
				if p.Total != len(c.want) {
					t.Errorf("%s: total %d, want %d", c.name, p.Total, len(c.want))
				}
			}
		})

		t.Run("search and contains ignore the case of accented letters", func(t *testing.T) {
			team := "t-unicode"
			for _, title := range []string{"Crème Brûlée", "Ärger*?[x]", "Ärgerlich", "plain"} {
				f.insert(t, f.products, team, map[string]any{"title": title})
			}
			cases := []struct {
				params url.Values
				want   []any
			}{
				{url.Values{"search": {"CRÈME"}, "sort": {"title"}}, []any{"Crème Brûlée"}},
				{url.Values{"search": {"ärger"}, "sort": {"title"}}, []any{"Ärger*?[x]", "Ärgerlich"}},
				{url.Values{"search": {"ärger*"}, "sort": {"title"}}, []any{"Ärger*?[x]"}},
				{url.Values{"search": {"ä_ger"}, "sort": {"title"}}, []any{}},
				{url.Values{"filter": {`{"title":{"startsWith":"är"}}`}, "sort": {"title"}}, []any{"Ärger*?[x]", "Ärgerlich"}},
				{url.Values{"filter": {`{"title":{"contains":"ÛLÉE"}}`}, "sort": {"title"}}, []any{"Crème Brûlée"}},
			}
			for _, c := range cases {
				if got := values(f.list(t, team, c.params).Records, "title"); !slices.Equal(got, c.want) {
					t.Errorf("%v: got %v, want %v", c.params, got, c.want)
				}
			}
		})

		t.Run("syncing the same registry again changes nothing", func(t *testing.T) {
			if err := f.s.Sync(ctx, f.reg, store.SyncOptions{}); err != nil {
				t.Fatalf("second Sync: %v", err)
			}
		})

		t.Run("a removed field's column is kept, the change naming the field, not its column", func(t *testing.T) {
			defs := storeDefs()
			defs[1].Fields = slices.DeleteFunc(defs[1].Fields, func(fl collections.Field) bool { return fl.Name == "publishedAt" })
			reg, _, err := collections.Build(defs, collections.LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var got []store.SchemaChange
			opts := store.SyncOptions{DryRun: true, Changes: func(ch store.SchemaChange) { got = append(got, ch) }}
			if err := store.New(f.db, func() *collections.Registry { return reg }).Sync(ctx, reg, opts); err != nil {
				t.Fatalf("Sync: %v", err)
			}
			want := []store.SchemaChange{{Collection: "shopProducts", Table: "shop_products", Kind: store.SchemaKeep, Field: "publishedAt", Values: 1}}
			if !slices.Equal(got, want) {
				t.Errorf("changes: got %+v, want %+v", got, want)
			}
		})
	})
}

func mustValue[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestOpenSQLiteFileUsesWAL(t *testing.T) {
	db, err := store.OpenSQLite(t.TempDir() + "/kit.db")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	checks := map[string]string{"journal_mode": "wal", "foreign_keys": "1", "busy_timeout": "10000", "synchronous": "1"}
	for pragma, want := range checks {
		var got string
		if err := db.QueryRowContext(context.Background(), "PRAGMA "+pragma).Scan(&got); err != nil {
			t.Fatalf("PRAGMA %s: %v", pragma, err)
		}
		if got != want {
			t.Errorf("PRAGMA %s: got %q, want %q", pragma, got, want)
		}
	}
}

func TestOpenSQLiteMemoryNamesAreIsolated(t *testing.T) {
	a, err := store.OpenSQLite(":memory:" + t.Name() + "-a")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := store.OpenSQLite(":memory:" + t.Name() + "-b")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := a.Exec("CREATE TABLE only_in_a (x INTEGER)"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := b.QueryRow("SELECT count(*) FROM sqlite_master WHERE name = 'only_in_a'").Scan(&n); err != nil || n != 0 {
		t.Errorf("database b sees a's table: count %d, %v", n, err)
	}
	// Every connection of a's pool sees the same database.
	ctx := context.Background()
	for i := range 4 {
		conn, err := a.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM only_in_a").Scan(&n); err != nil {
			t.Errorf("a's table from connection %d: %v", i, err)
		}
	}
}
