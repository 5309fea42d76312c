package kit_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
)

// syncProducts is a small products collection for schema sync tests;
// extra fields are appended after title and salePrice.
func syncProducts(extra ...collections.Field) collections.Definition {
	fields := []collections.Field{
		{Name: "title", Type: collections.TypeString, Meta: collections.FieldMeta{Required: true}},
		{Name: "salePrice", Type: collections.TypeDecimal, Meta: collections.FieldMeta{Precision: 10, Scale: 2}},
	}
	return collections.Definition{Name: "products", Layer: "shop", Fields: append(fields, extra...)}
}

// withoutField returns def without the named field.
func withoutField(def collections.Definition, name string) collections.Definition {
	def.Fields = slices.DeleteFunc(slices.Clone(def.Fields), func(f collections.Field) bool { return f.Name == name })
	return def
}

// withField returns def with the named field replaced by f.
func withField(def collections.Definition, f collections.Field) collections.Definition {
	def.Fields = slices.Clone(def.Fields)
	for i := range def.Fields {
		if def.Fields[i].Name == f.Name {
			def.Fields[i] = f
			return def
		}
	}
	def.Fields = append(def.Fields, f)
	return def
}

// openOn opens a Kit on db with the fixture actors' rows; the caller
// closes it (the Kit never closes a DB it was given: testdb does).
func openOn(db *bun.DB, allowDestructive bool, defs ...collections.Definition) (*kit.Kit, error) {
	k, err := kit.New(kit.Config{DB: db, Definitions: defs, AllowDestructiveSchemaChanges: allowDestructive, Logger: quietLogger()})
	if err != nil {
		return nil, err
	}
	if err := insertActors(k.DB(), fixtureActors...); err != nil {
		k.Close()
		return nil, err
	}
	return k, nil
}

// mustOpenOn opens a Kit on db and closes it when t ends.
func mustOpenOn(t *testing.T, db *bun.DB, defs ...collections.Definition) *kit.Kit {
	t.Helper()
	k, err := openOn(db, false, defs...)
	if err != nil {
		t.Fatalf("kit.New: %v", err)
	}
	t.Cleanup(func() { k.Close() })
	return k
}

// columnInfo lists the columns of table in order with their SQL types, as
// the engine's catalog reports them (PostgreSQL: information_schema of the
// current schema, numeric with its precision and scale; SQLite:
// pragma_table_info).
func columnInfo(t *testing.T, k *kit.Kit, table string) (names, types []string) {
	t.Helper()
	q := "SELECT name, type FROM pragma_table_info(?)"
	if isPostgres(k) {
		q = `SELECT column_name, CASE WHEN data_type = 'numeric' THEN 'numeric(' || numeric_precision || ',' || numeric_scale || ')' ELSE data_type END
			FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position`
	}
	rows, err := k.DB().QueryContext(context.Background(), q, table)
	if err != nil {
		t.Fatalf("columns of %s: %v", table, err)
	}
	defer rows.Close()
	for rows.Next() {
		var n, typ string
		if err := rows.Scan(&n, &typ); err != nil {
			t.Fatal(err)
		}
		names, types = append(names, n), append(types, typ)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("columns of %s: %v", table, err)
	}
	return names, types
}

// columns lists the columns of table in order.
func columns(t *testing.T, k *kit.Kit, table string) []string {
	t.Helper()
	names, _ := columnInfo(t, k, table)
	return names
}

// indexesOn counts the indexes of table whose name contains part.
func indexesOn(t *testing.T, k *kit.Kit, table, part string) int {
	t.Helper()
	// Team-first B-tree indexes only: ix_ and ux_ (the tg_ trigram search
	// indexes are counted by the search tests).
	q := `SELECT count(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND instr(name, ?) > 0 AND substr(name, 1, 3) <> 'tg_'`
	if isPostgres(k) {
		q = `SELECT count(*) FROM pg_indexes WHERE schemaname = current_schema() AND tablename = ? AND strpos(indexname, ?) > 0 AND left(indexname, 3) <> 'tg_'`
	}
	var n int
	if err := k.DB().QueryRowContext(context.Background(), q, table, part).Scan(&n); err != nil {
		t.Fatalf("indexes of %s: %v", table, err)
	}
	return n
}

// wantDrift checks that err is a schema drift naming collection, field
// and types.
func wantDrift(t *testing.T, err error, want kit.DriftError) {
	t.Helper()
	if err == nil {
		t.Fatal("kit.New: got no error, want ErrSchemaDrift")
	}
	if !errors.Is(err, kit.ErrSchemaDrift) {
		t.Fatalf("kit.New: got %v, want errors.Is ErrSchemaDrift", err)
	}
	var de *kit.DriftError
	if !errors.As(err, &de) {
		t.Fatalf("kit.New: got %v (%T), want a *kit.DriftError", err, err)
	}
	if !reflect.DeepEqual(*de, want) {
		t.Errorf("drift: got %+v, want %+v", *de, want)
	}
	for _, s := range []string{want.Collection, want.Field, want.OldType, want.NewType} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("message %q does not name %q", err.Error(), s)
		}
	}
}

// TestSchemaSync checks declarative schema sync on a database that is
// reopened (a new pool on the same database, as a restarted process would
// open it) with changed definitions, on every engine.
func TestSchemaSync(t *testing.T) {
	t.Parallel()
	testdb.Each(t, testSchemaSync)
}

func testSchemaSync(t *testing.T, e testdb.Engine) {
	ctx := t.Context()

	t.Run("reopening the database with the same definitions is idempotent", func(t *testing.T) {
		open := testdb.Shared(t, e)
		k1, err := openOn(open(), false, categoriesDef(), syncProducts())
		if err != nil {
			t.Fatalf("first New: %v", err)
		}
		rec := mustCreate(t, k1, productsKey, aliceA, map[string]any{"title": "kept", "salePrice": "1.50"})
		var stamp1 string
		if err := k1.DB().QueryRowContext(ctx, `SELECT hash || updated_at FROM kit_collections WHERE key = ?`, productsKey).Scan(&stamp1); err != nil {
			t.Fatalf("read kit_collections: %v", err)
		}
		cols1 := columns(t, k1, productsTable)
		if err := k1.Close(); err != nil {
			t.Fatal(err)
		}

		for i := range 2 {
			k2, err := openOn(open(), false, categoriesDef(), syncProducts())
			if err != nil {
				t.Fatalf("New #%d: %v", i+2, err)
			}
			if got := mustGet(t, k2, productsKey, aliceA, rec["id"].(string)); got["salePrice"] != "1.50" {
				t.Errorf("record after reopen: got salePrice %v, want 1.50", got["salePrice"])
			}
			var stamp2 string
			if err := k2.DB().QueryRowContext(ctx, `SELECT hash || updated_at FROM kit_collections WHERE key = ?`, productsKey).Scan(&stamp2); err != nil {
				t.Fatalf("read kit_collections: %v", err)
			}
			if stamp2 != stamp1 {
				t.Errorf("kit_collections row rewritten: got %q, want %q", stamp2, stamp1)
			}
			if cols2 := columns(t, k2, productsTable); !slices.Equal(cols2, cols1) {
				t.Errorf("columns: got %v, want %v", cols2, cols1)
			}
			var n int
			if err := k2.DB().QueryRowContext(ctx, `SELECT count(*) FROM kit_collections`).Scan(&n); err != nil || n != 2 {
				t.Errorf("kit_collections rows: got %d (%v), want 2", n, err)
			}
			k2.Close()
		}
	})

	t.Run("every field type gets the engine's column type", func(t *testing.T) {
		k := newKitOn(t, e, specimensDef())
		names, types := columnInfo(t, k, specimensTable)
		got := map[string]string{}
		for i, n := range names {
			got[n] = types[i]
		}
		// The engines store differently on purpose: PostgreSQL has native
		// types; SQLite keeps decimals, dates and JSON as canonical text.
		want := map[string]string{
			"label": "TEXT", "notes": "TEXT", "weight": "REAL", "price": "TEXT", "is_fragile": "INTEGER",
			"collected_at": "TEXT", "attributes": "TEXT", "measurements": "TEXT", "tags": "TEXT",
			"photo": "TEXT", "report": "TEXT", "created_at": "TEXT", "updated_at": "TEXT",
		}
		if e == testdb.EnginePostgres {
			want = map[string]string{
				"label": "text", "notes": "text", "weight": "double precision", "price": "numeric(12,2)", "is_fragile": "boolean",
				"collected_at": "timestamp with time zone", "attributes": "jsonb", "measurements": "jsonb", "tags": "jsonb",
				"photo": "text", "report": "text", "created_at": "timestamp with time zone", "updated_at": "timestamp with time zone",
			}
		}
		for col, w := range want {
			if got[col] != w {
				t.Errorf("column %s: got type %q, want %q", col, got[col], w)
			}
		}
	})

	t.Run("a new field is added to a populated table", func(t *testing.T) {
		open := testdb.Shared(t, e)
		k1, err := openOn(open(), false, categoriesDef(), syncProducts())
		if err != nil {
			t.Fatal(err)
		}
		old1 := mustCreate(t, k1, productsKey, aliceA, map[string]any{"title": "old one", "salePrice": "2"})
		old2 := mustCreate(t, k1, productsKey, aliceA, map[string]any{"title": "old two"})
		cat := mustCreate(t, k1, categoriesKey, aliceA, map[string]any{"name": "c"})
		k1.Close()

		v2 := syncProducts(
			collections.Field{Name: "colorName", Type: collections.TypeString, Meta: collections.FieldMeta{Index: true}},
			collections.Field{Name: "stockCount", Type: collections.TypeNumber},
			collections.Field{Name: "releasedAt", Type: collections.TypeDate},
			collections.Field{Name: "specs", Type: collections.TypeJSON},
			collections.Field{Name: "code", Type: collections.TypeString, Meta: collections.FieldMeta{Unique: true}},
			collections.Field{Name: "categoryId", Type: collections.TypeString, RefTarget: "categories"},
		)
		k2 := mustOpenOn(t, open(), categoriesDef(), v2)
		for _, c := range []string{"color_name", "stock_count", "released_at", "specs", "code", "category_id"} {
			if !slices.Contains(columns(t, k2, productsTable), c) {
				t.Errorf("columns: %v lack %s", columns(t, k2, productsTable), c)
			}
		}
		for _, old := range []kit.Record{old1, old2} {
			got := mustGet(t, k2, productsKey, aliceA, old["id"].(string))
			for _, f := range []string{"colorName", "stockCount", "releasedAt", "specs", "code", "categoryId"} {
				if v, ok := got[f]; !ok || v != nil {
					t.Errorf("old row %s: got %#v (present %v), want nil", f, v, ok)
				}
			}
			if got["title"] != old["title"] || got["salePrice"] != old["salePrice"] {
				t.Errorf("old row: got title %v salePrice %v, want %v %v", got["title"], got["salePrice"], old["title"], old["salePrice"])
			}
		}
		fresh := mustCreate(t, k2, productsKey, aliceA, map[string]any{
			"title": "new", "colorName": "teal", "stockCount": 3, "releasedAt": "2026-05-01",
			"specs": map[string]any{"a": 1.0}, "code": "X1", "categoryId": cat["id"],
		})
		got := mustGet(t, k2, productsKey, aliceA, fresh["id"].(string))
		want := map[string]any{"colorName": "teal", "stockCount": 3.0, "releasedAt": time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC),
			"specs": map[string]any{"a": 1.0}, "code": "X1", "categoryId": cat["id"]}
		for f, w := range want {
			if !equalValue(got[f], w) {
				t.Errorf("new row %s: got %#v, want %#v", f, got[f], w)
			}
		}
		l := mustList(t, k2, productsKey, aliceA, query("filter", `{"colorName":null}`, "sort", "createdAt"))
		if g := ids(l.Items); !slices.Equal(g, []string{old1["id"].(string), old2["id"].(string)}) {
			t.Errorf("filter colorName null: got %v, want the two old rows", g)
		}
		if _, err := k2.Records(productsKey).Create(ctx, aliceA, map[string]any{"title": "dup", "code": "X1"}); kit.StatusOf(err) != 409 {
			t.Errorf("unique on an added column: got %v, want 409", err)
		}
		if err := k2.Records(categoriesKey).Delete(ctx, aliceA, cat["id"].(string)); kit.StatusOf(err) != 409 {
			t.Errorf("delete referenced through an added column: got %v, want a 409 constraint error", err)
		}
		if n := indexesOn(t, k2, productsTable, "color_name"); n != 2 {
			t.Errorf("indexes on the added indexed text field: got %d, want 2 (its index and its sort index)", n)
		}
	})

	driftCases := []struct {
		name    string
		changed collections.Definition
		want    kit.DriftError
	}{
		{"changing text to json is a drift naming both types", withField(syncProducts(), collections.Field{Name: "title", Type: collections.TypeJSON}),
			kit.DriftError{Collection: productsKey, Field: "title", OldType: "string", NewType: "json"}},
		{"narrowing a decimal's scale below a stored value is a drift sampling it", withField(syncProducts(), collections.Field{Name: "salePrice", Type: collections.TypeDecimal, Meta: collections.FieldMeta{Precision: 10, Scale: 1}}),
			kit.DriftError{Collection: productsKey, Field: "salePrice", OldType: "decimal(10,2)", NewType: "decimal(10,1)", Rows: 1, Total: 1,
				Sample: []kit.DriftValue{{ID: "<id>", Value: `"9.99"`, Problem: "must have at most 1 digit(s) after the point"}}}},
		{"changing a string to a date it does not parse as is a drift sampling it", withField(syncProducts(), collections.Field{Name: "title", Type: collections.TypeDate}),
			kit.DriftError{Collection: productsKey, Field: "title", OldType: "string", NewType: "date", Rows: 1, Total: 1,
				Sample: []kit.DriftValue{{ID: "<id>", Value: `"before"`, Problem: "must be a date (RFC 3339 like 2026-01-02T15:04:05Z, or YYYY-MM-DD)"}}}},
	}
	for _, tc := range driftCases {
		t.Run(tc.name, func(t *testing.T) {
			open := testdb.Shared(t, e)
			k1, err := openOn(open(), false, categoriesDef(), syncProducts())
			if err != nil {
				t.Fatal(err)
			}
			rec := mustCreate(t, k1, productsKey, aliceA, map[string]any{"title": "before", "salePrice": "9.99"})
			cols1, types1 := columnInfo(t, k1, productsTable)
			k1.Close()

			k2, err := openOn(open(), false, categoriesDef(), tc.changed)
			if err == nil {
				k2.Close()
			}
			for i := range tc.want.Sample {
				tc.want.Sample[i].ID = rec["id"].(string)
			}
			wantDrift(t, err, tc.want)

			// Nothing changed: the old definition still opens with its data.
			k3 := mustOpenOn(t, open(), categoriesDef(), syncProducts())
			if cols3, types3 := columnInfo(t, k3, productsTable); !slices.Equal(cols3, cols1) || !slices.Equal(types3, types1) {
				t.Errorf("columns after a refused sync: got %v %v, want %v %v", cols3, types3, cols1, types1)
			}
			got := mustGet(t, k3, productsKey, aliceA, rec["id"].(string))
			if got["title"] != "before" || got["salePrice"] != "9.99" {
				t.Errorf("record after a refused sync: got %v", got)
			}
		})
	}

	codeField := collections.Field{Name: "code", Type: collections.TypeString, Meta: collections.FieldMeta{Unique: true}}
	refField := collections.Field{Name: "categoryId", Type: collections.TypeString, RefTarget: "categories"}
	destructive := []struct {
		name    string
		initial collections.Definition
		body    map[string]any // beside title and salePrice; "category" is replaced by a category id
		changed collections.Definition
		check   func(t *testing.T, k *kit.Kit, id string)
	}{
		{"with destructive changes allowed a removed field's column is dropped",
			syncProducts(), nil, withoutField(syncProducts(), "salePrice"),
			func(t *testing.T, k *kit.Kit, id string) {
				if slices.Contains(columns(t, k, productsTable), "sale_price") {
					t.Errorf("columns: got %v, want sale_price dropped", columns(t, k, productsTable))
				}
				got := mustGet(t, k, productsKey, aliceA, id)
				if _, ok := got["salePrice"]; ok || got["title"] != "before" {
					t.Errorf("record: got %v, want title kept and no salePrice", got)
				}
			}},
		{"with destructive changes allowed a changed type still converts its values",
			syncProducts(), nil, withField(syncProducts(), collections.Field{Name: "salePrice", Type: collections.TypeNumber}),
			func(t *testing.T, k *kit.Kit, id string) {
				if got := mustGet(t, k, productsKey, aliceA, id); got["salePrice"] != 9.99 {
					t.Errorf("salePrice after conversion: got %#v, want 9.99", got["salePrice"])
				}
				rec := mustCreate(t, k, productsKey, aliceA, map[string]any{"title": "n", "salePrice": 2.5})
				if got := mustGet(t, k, productsKey, aliceA, rec["id"].(string)); got["salePrice"] != 2.5 {
					t.Errorf("salePrice as number: got %#v, want 2.5", got["salePrice"])
				}
			}},
		{"with destructive changes allowed a unique field can be removed",
			syncProducts(codeField), map[string]any{"code": "C-1"}, syncProducts(),
			func(t *testing.T, k *kit.Kit, id string) {
				if slices.Contains(columns(t, k, productsTable), "code") {
					t.Errorf("columns: got %v, want code dropped", columns(t, k, productsTable))
				}
			}},
		{"a unique field can change type and stays unique",
			syncProducts(codeField), map[string]any{"code": "C-1"}, syncProducts(collections.Field{Name: "code", Type: collections.TypeText, Meta: collections.FieldMeta{Unique: true}}),
			func(t *testing.T, k *kit.Kit, id string) {
				if got := mustGet(t, k, productsKey, aliceA, id); got["code"] != "C-1" {
					t.Errorf("code after conversion: got %#v, want C-1", got["code"])
				}
				if _, err := k.Records(productsKey).Create(context.Background(), aliceA, map[string]any{"title": "b", "code": "C-1"}); kit.StatusOf(err) != 409 {
					t.Errorf("unique after conversion: got %v, want 409", err)
				}
			}},
		{"with destructive changes allowed a reference field can be removed",
			syncProducts(refField), map[string]any{"categoryId": "category"}, syncProducts(),
			func(t *testing.T, k *kit.Kit, id string) {
				if slices.Contains(columns(t, k, productsTable), "category_id") {
					t.Errorf("columns: got %v, want category_id dropped", columns(t, k, productsTable))
				}
				mustCreate(t, k, productsKey, aliceA, map[string]any{"title": "after"})
			}},
	}
	for _, tc := range destructive {
		t.Run(tc.name, func(t *testing.T) {
			open := testdb.Shared(t, e)
			k1, err := openOn(open(), false, categoriesDef(), tc.initial)
			if err != nil {
				t.Fatal(err)
			}
			body := map[string]any{"title": "before", "salePrice": "9.99"}
			for f, v := range tc.body {
				if v == "category" {
					v = mustCreate(t, k1, categoriesKey, aliceA, map[string]any{"name": "c"})["id"]
				}
				body[f] = v
			}
			rec := mustCreate(t, k1, productsKey, aliceA, body)
			k1.Close()

			k2, err := openOn(open(), true, categoriesDef(), tc.changed)
			if err != nil {
				t.Fatalf("kit.New with AllowDestructiveSchemaChanges: %v", err)
			}
			tc.check(t, k2, rec["id"].(string))
			k2.Close()

			// The result is stable: reopening without the option works.
			k3 := mustOpenOn(t, open(), categoriesDef(), tc.changed)
			mustGet(t, k3, productsKey, aliceA, rec["id"].(string))
		})
	}

	t.Run("without metadata there are no metadata columns and lists sort by id descending", func(t *testing.T) {
		off := false
		def := collections.Definition{Name: "notes", Layer: "desk", Fields: []collections.Field{
			{Name: "body", Type: collections.TypeText},
		}, Config: &collections.Config{UseMetadata: &off}}
		k := newKitOn(t, e, def)
		cols := columns(t, k, "desk_notes")
		if want := []string{"id", "team_id", "owner", "body", "body__key"}; !slices.Equal(cols, want) {
			t.Errorf("columns: got %v, want %v", cols, want)
		}
		var made []string
		for _, b := range []string{"first", "second", "third"} {
			rec := mustCreate(t, k, "deskNotes", aliceA, map[string]any{"body": b})
			for _, f := range []string{"createdAt", "updatedAt", "createdBy", "updatedBy"} {
				if _, ok := rec[f]; ok {
					t.Errorf("record has %s without metadata", f)
				}
			}
			made = append(made, rec["id"].(string))
		}
		l := mustList(t, k, "deskNotes", aliceA, nil)
		if l.Pagination.SortBy != "id" || l.Pagination.SortDirection != "desc" {
			t.Errorf("default sort: got %s %s, want id desc", l.Pagination.SortBy, l.Pagination.SortDirection)
		}
		slices.Reverse(made)
		if got := ids(l.Items); !slices.Equal(got, made) {
			t.Errorf("default order: got %v, want newest first %v", got, made)
		}
		got := mustGet(t, k, "deskNotes", aliceA, made[0])
		if got["body"] != "third" {
			t.Errorf("Get body: got %v, want third", got["body"])
		}
		if _, err := k.Records("deskNotes").Update(ctx, aliceA, made[0], map[string]any{"body": "3rd"}); err != nil {
			t.Errorf("Update without metadata: %v", err)
		}
		if _, err := k.Records("deskNotes").List(ctx, aliceA, query("sort", "createdAt")); kit.StatusOf(err) != 400 {
			t.Errorf("sort by createdAt without metadata: got %v, want a 400 query error", err)
		}
	})

	t.Run("Register adds a collection to a running kit", func(t *testing.T) {
		k := newKitOn(t, e, categoriesDef())
		if _, err := k.Records(productsKey).List(ctx, aliceA, nil); !errors.Is(err, kit.ErrUnknownCollection) {
			t.Fatalf("List before Register: got %v, want ErrUnknownCollection", err)
		}
		if err := k.Register(t.Context(), productsDef()); err != nil {
			t.Fatalf("Register: %v", err)
		}
		mustCreate(t, k, productsKey, aliceA, map[string]any{"title": "registered"})
		if err := k.Register(t.Context(), productsDef()); err == nil {
			t.Error("Register of the same collection twice: got nil, want an error")
		}
		mustList(t, k, productsKey, aliceA, nil)
	})
}
