package kit_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
)

// Schema evolution on a populated table, reopened with a changed
// definition (a new pool on the same database, as a restarted process
// would open it): renames, conversions, kept and dropped columns, and the
// refusals that change nothing. See docs/schema-changes.md.

const (
	samplesKey   = "labSamples"
	samplesTable = "lab_samples"
)

// samplesDef is a collection of a title and fields.
func samplesDef(fields ...collections.Field) collections.Definition {
	return collections.Definition{Name: "samples", Layer: "lab", Fields: append([]collections.Field{
		{Name: "title", Type: collections.TypeString},
	}, fields...)}
}

// openSamples opens a Kit on db with def (destructive changes allowed when
// drop) and closes it when t ends.
func openSamples(t *testing.T, db *bun.DB, drop bool, def collections.Definition) *kit.Kit {
	t.Helper()
	k, err := openOn(db, drop, def)
	if err != nil {
		t.Fatalf("kit.New: %v", err)
	}
	t.Cleanup(func() { k.Close() })
	return k
}

// schemaState describes everything of table that a sync could change: the
// catalog's columns, indexes and triggers, every row (all columns, as the
// driver reads them), its row counts and its kit_collections row.
func schemaState(t *testing.T, k *kit.Kit, table string) string {
	t.Helper()
	ph := "?"
	catalog := `SELECT type || ' ' || name || ' ' || coalesce(sql, '') FROM sqlite_master WHERE tbl_name = ? ORDER BY type, name`
	if isPostgres(k) {
		ph = "$1"
		catalog = `SELECT 'column ' || column_name || ' ' || data_type || ' ' || is_nullable FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1
			UNION ALL SELECT 'index ' || indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = $1
			UNION ALL SELECT 'trigger ' || tgname FROM pg_trigger WHERE tgrelid = $1::regclass AND NOT tgisinternal ORDER BY 1`
	}
	var b strings.Builder
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{catalog, []any{table}},
		{`SELECT * FROM "` + table + `" ORDER BY "id"`, nil},
		{`SELECT team_id, n FROM kit_row_counts WHERE table_name = ` + ph + ` ORDER BY team_id`, []any{table}},
		{`SELECT key, table_name, definition, hash, updated_at FROM kit_collections WHERE table_name = ` + ph, []any{table}},
	} {
		sqlText := q.sql
		rows, err := k.DB().DB.QueryContext(t.Context(), sqlText, q.args...)
		if err != nil {
			t.Fatalf("read %s: %v", table, err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			line, _ := json.Marshal(vals)
			b.Write(line)
			b.WriteByte('\n')
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
	return b.String()
}

// indexNames lists the names of table's indexes, sorted.
func indexNames(t *testing.T, k *kit.Kit, table string) []string {
	t.Helper()
	q := `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND name NOT LIKE 'sqlite_%' ORDER BY name`
	if isPostgres(k) {
		q = `SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = ? AND indexname NOT LIKE '%_pkey' ORDER BY indexname`
	}
	rows, err := k.DB().QueryContext(t.Context(), q, table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	return names
}

// rawValues reads column col of table for ids, by SQL, as text ("<nil>"
// for null).
func rawValues(t *testing.T, k *kit.Kit, table, col string, ids ...string) []string {
	t.Helper()
	var out []string
	for _, id := range ids {
		var v any
		if err := k.DB().QueryRowContext(t.Context(), `SELECT "`+col+`" FROM "`+table+`" WHERE "id" = ?`, id).Scan(&v); err != nil {
			t.Fatalf("read %s.%s: %v", table, col, err)
		}
		if b, ok := v.([]byte); ok {
			v = string(b)
		}
		out = append(out, fmt.Sprint(v))
	}
	return out
}

func TestSchemaEvolution(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		t.Run("renaming a field keeps its values, indexes, sort and unique keys and search", func(t *testing.T) { testFieldRename(t, e) })
		t.Run("a rename of a column the table lacks is refused before any change", func(t *testing.T) { testRefusedRename(t, e) })
		t.Run("a type change converts every stored value in place", func(t *testing.T) { testConversions(t, e) })
		t.Run("a type change some stored values cannot take is refused and changes nothing", func(t *testing.T) { testRefusedConversion(t, e) })
		t.Run("a removed field's column is kept until a sync with drop", func(t *testing.T) { testKeptColumn(t, e) })
		t.Run("columns kept when metadata and a reference go do not block writes", func(t *testing.T) { testKeptConstraints(t, e) })
		t.Run("renaming a collection keeps its table, rows, counts and search", func(t *testing.T) { testCollectionRename(t, e) })
		t.Run("a renamed reference keeps its foreign key, which goes when the field is removed", func(t *testing.T) { testRenamedReference(t, e) })
	})
}

func testFieldRename(t *testing.T, e testdb.Engine) {
	open := testdb.Shared(t, e)
	sku := collections.Field{Name: "sku", Type: collections.TypeString, Meta: collections.FieldMeta{Unique: true, UniqueIgnoreCase: true}}
	k1 := openSamples(t, open(), false, samplesDef(sku))
	var made []string
	for _, v := range []string{"Beta-2", "alpha-1", "Gamma-3"} {
		made = append(made, mustCreate(t, k1, samplesKey, aliceA, map[string]any{"title": "t " + v, "sku": v})["id"].(string))
	}
	k1.Close()

	code := collections.Field{Name: "code", Type: collections.TypeString, Meta: collections.FieldMeta{Unique: true, UniqueIgnoreCase: true, RenamedFrom: "sku"}}
	for i := range 2 { // the second open meets the renamed column: renamedFrom is ignored
		k := openSamples(t, open(), false, samplesDef(code))
		cols := columns(t, k, samplesTable)
		for _, c := range []string{"code", "code__key", "code__ukey"} {
			if !slices.Contains(cols, c) {
				t.Errorf("open %d: columns %v lack %s", i+1, cols, c)
			}
		}
		for _, c := range cols {
			if strings.HasPrefix(c, "sku") {
				t.Errorf("open %d: columns %v still have %s", i+1, cols, c)
			}
		}
		want := []string{"ix_lab_samples_code_sort", "ix_lab_samples_team_created", "ux_lab_samples_code", "ux_lab_samples_code_ukey"}
		if got := indexNames(t, k, samplesTable); !slices.Equal(got, want) {
			t.Errorf("open %d: indexes: got %v, want %v", i+1, got, want)
		}
		if got := fieldValues(mustList(t, k, samplesKey, aliceA, query("sort", "code")).Items, "code"); !slices.Equal(got, []any{"alpha-1", "Beta-2", "Gamma-3"}) {
			t.Errorf("open %d: sorted by code: got %v, want alpha-1, Beta-2, Gamma-3", i+1, got)
		}
		if got := ids(mustList(t, k, samplesKey, aliceA, query("search", "amma-")).Items); !slices.Equal(got, made[2:3]) {
			t.Errorf("open %d: search amma-: got %v, want %v", i+1, got, made[2:3])
		}
		if got := ids(mustList(t, k, samplesKey, aliceA, query("filter", `{"code":{"gte":"b"}}`, "sort", "code")).Items); !slices.Equal(got, []string{made[0], made[2]}) {
			t.Errorf("open %d: filter code >= b: got %v, want %v", i+1, got, []string{made[0], made[2]})
		}
		if _, err := k.Records(samplesKey).Create(t.Context(), aliceA, map[string]any{"title": "dup", "code": "ALPHA-1"}); kit.StatusOf(err) != 409 {
			t.Errorf("open %d: a code that differs in case only: got %v, want 409", i+1, err)
		}
		if i == 1 {
			fresh := mustCreate(t, k, samplesKey, aliceA, map[string]any{"title": "new", "code": "Delta-4"})
			if got := ids(mustList(t, k, samplesKey, aliceA, query("search", "elta-4")).Items); !slices.Equal(got, []string{fresh["id"].(string)}) {
				t.Errorf("search for a record written after the rename: got %v", got)
			}
		}
		k.Close()
	}
}

func testRefusedRename(t *testing.T, e testdb.Engine) {
	open := testdb.Shared(t, e)
	sku := collections.Field{Name: "sku", Type: collections.TypeString, Meta: collections.FieldMeta{Index: true}}
	k1 := openSamples(t, open(), false, samplesDef(sku))
	mustCreate(t, k1, samplesKey, aliceA, map[string]any{"title": "a", "sku": "A-1"})
	before := schemaState(t, k1, samplesTable)
	k1.Close()

	typo := collections.Field{Name: "code", Type: collections.TypeString, Meta: collections.FieldMeta{RenamedFrom: "skuu"}}
	_, err := openOn(open(), false, samplesDef(sku, typo))
	wantDrift(t, err, kit.DriftError{Collection: samplesKey, Field: "code", RenamedFrom: "skuu"})
	k3 := openSamples(t, open(), false, samplesDef(sku))
	if after := schemaState(t, k3, samplesTable); after != before {
		t.Errorf("table after a refused rename:\ngot  %s\nwant %s", after, before)
	}
}

// conversionCases are the type changes kit makes in place: values stored
// under from, and what the field reads as under to.
var conversionCases = []struct {
	name     string
	from, to collections.Field
	values   []any
	want     []any
}{
	{"string to text", collections.Field{Type: collections.TypeString}, collections.Field{Type: collections.TypeText},
		[]any{"hello", nil}, []any{"hello", nil}},
	{"text to string", collections.Field{Type: collections.TypeText}, collections.Field{Type: collections.TypeString, Meta: collections.FieldMeta{Index: true}},
		[]any{"long text", "b"}, []any{"long text", "b"}},
	{"string to image", collections.Field{Type: collections.TypeString}, collections.Field{Type: collections.TypeImage},
		[]any{"https://example.com/a.png"}, []any{"https://example.com/a.png"}},
	{"number to decimal within precision and scale", collections.Field{Type: collections.TypeNumber},
		collections.Field{Type: collections.TypeDecimal, Meta: collections.FieldMeta{Precision: 10, Scale: 2}},
		[]any{12.5, 3, -0.25, nil}, []any{"12.50", "3.00", "-0.25", nil}},
	{"integer to decimal", collections.Field{Type: collections.TypeNumber, Meta: collections.FieldMeta{Integer: true}},
		collections.Field{Type: collections.TypeDecimal, Meta: collections.FieldMeta{Precision: 6, Scale: 0}},
		[]any{42, -7}, []any{"42", "-7"}},
	{"integer widening to number", collections.Field{Type: collections.TypeNumber, Meta: collections.FieldMeta{Integer: true}},
		collections.Field{Type: collections.TypeNumber}, []any{7, 9007199254740992}, []any{7.0, 9007199254740992.0}},
	{"number to integer when every value is whole", collections.Field{Type: collections.TypeNumber},
		collections.Field{Type: collections.TypeNumber, Meta: collections.FieldMeta{Integer: true}}, []any{8.0, -3}, []any{8.0, -3.0}},
	{"decimal to a wider decimal", collections.Field{Type: collections.TypeDecimal, Meta: collections.FieldMeta{Precision: 6, Scale: 2}},
		collections.Field{Type: collections.TypeDecimal, Meta: collections.FieldMeta{Precision: 12, Scale: 4}},
		[]any{"1234.56", "-0.01"}, []any{"1234.5600", "-0.0100"}},
	{"decimal to number when the double is exact", collections.Field{Type: collections.TypeDecimal, Meta: collections.FieldMeta{Precision: 10, Scale: 2}},
		collections.Field{Type: collections.TypeNumber}, []any{"9.99", "-120.50"}, []any{9.99, -120.5}},
	{"string to date when every value parses", collections.Field{Type: collections.TypeString}, collections.Field{Type: collections.TypeDate},
		[]any{"2026-05-01", "2026-05-01T10:30:00+02:00"}, []any{"2026-05-01T00:00:00Z", "2026-05-01T08:30:00Z"}},
	{"string to number when every value parses", collections.Field{Type: collections.TypeString}, collections.Field{Type: collections.TypeNumber},
		[]any{"42", "-1.5"}, []any{42.0, -1.5}},
	{"string to decimal when every value fits", collections.Field{Type: collections.TypeString},
		collections.Field{Type: collections.TypeDecimal, Meta: collections.FieldMeta{Precision: 8, Scale: 2}}, []any{"19.9", "0"}, []any{"19.90", "0.00"}},
	{"date to text", collections.Field{Type: collections.TypeDate}, collections.Field{Type: collections.TypeText},
		[]any{"2026-05-01T08:30:00Z"}, []any{"2026-05-01T08:30:00Z"}},
	{"number to string", collections.Field{Type: collections.TypeNumber}, collections.Field{Type: collections.TypeString},
		[]any{12.5, 1e21}, []any{"12.5", "1000000000000000000000"}},
	{"boolean to string", collections.Field{Type: collections.TypeBoolean}, collections.Field{Type: collections.TypeString},
		[]any{true, false}, []any{"true", "false"}},
	{"array to json", collections.Field{Type: collections.TypeArray}, collections.Field{Type: collections.TypeJSON},
		[]any{[]any{"a", 1.0}}, []any{[]any{"a", 1.0}}},
}

func testConversions(t *testing.T, e testdb.Engine) {
	for _, tc := range conversionCases {
		t.Run(tc.name, func(t *testing.T) {
			open := testdb.Shared(t, e)
			from, to := tc.from, tc.to
			from.Name, to.Name = "value", "value"
			k1 := openSamples(t, open(), false, samplesDef(from))
			var made []string
			for i, v := range tc.values {
				made = append(made, mustCreate(t, k1, samplesKey, aliceA, map[string]any{"title": fmt.Sprint("r", i), "value": v})["id"].(string))
			}
			k1.Close()

			k2 := openSamples(t, open(), false, samplesDef(to))
			for i, id := range made {
				got := mustGet(t, k2, samplesKey, aliceA, id)["value"]
				want := tc.want[i]
				if s, ok := want.(string); ok && to.Type == collections.TypeDate {
					want = date(t, s)
				}
				if !equalValue(got, want) {
					t.Errorf("record %d: got %#v (%T), want %#v", i, got, got, want)
				}
			}
			// The column is what a fresh table of the new type has.
			// (On SQLite a column whose declared type changes is made again,
			// last; between number and integer it keeps its declared type.)
			types := columnTypes(t, k2, samplesTable)
			freshTypes := columnTypes(t, newKitOn(t, e, samplesDef(to)), samplesTable)
			if keepsDeclaredType := e == testdb.EngineSQLite && from.Type == collections.TypeNumber && to.Type == collections.TypeNumber; !keepsDeclaredType && types != freshTypes {
				t.Errorf("column types: got %v, want a fresh table's %v", types, freshTypes)
			}
			// Writes and filters of the new type work on the old rows.
			if _, err := k2.Records(samplesKey).Update(t.Context(), aliceA, made[0], map[string]any{"title": "updated"}); err != nil {
				t.Errorf("update after the conversion: %v", err)
			}
			if to.Type != collections.TypeJSON {
				l := mustList(t, k2, samplesKey, aliceA, query("filter", `{"value":{"ne":null}}`, "sort", "value"))
				if len(l.Items) != countNonNil(tc.want) {
					t.Errorf("filter value not null: got %d records, want %d", len(l.Items), countNonNil(tc.want))
				}
			}
		})
	}
}

// columnTypes lists table's columns with their types, by name.
func columnTypes(t *testing.T, k *kit.Kit, table string) string {
	t.Helper()
	names, types := columnInfo(t, k, table)
	pairs := make([]string, len(names))
	for i := range names {
		pairs[i] = names[i] + " " + types[i]
	}
	slices.Sort(pairs)
	return strings.Join(pairs, ", ")
}

func countNonNil(vs []any) int {
	n := 0
	for _, v := range vs {
		if v != nil {
			n++
		}
	}
	return n
}

func testRefusedConversion(t *testing.T, e testdb.Engine) {
	open := testdb.Shared(t, e)
	when := collections.Field{Name: "shippedOn", Type: collections.TypeString, Meta: collections.FieldMeta{Index: true}}
	k1 := openSamples(t, open(), false, samplesDef(when))
	var made []string
	for _, v := range []string{"2026-01-02", "soon", "2026-02-03", "n/a"} {
		made = append(made, mustCreate(t, k1, samplesKey, aliceA, map[string]any{"title": v, "shippedOn": v})["id"].(string))
	}
	before := schemaState(t, k1, samplesTable)
	k1.Close()

	// A rename of another field in the same sync is refused with it.
	title := collections.Field{Name: "name", Type: collections.TypeString, Meta: collections.FieldMeta{RenamedFrom: "title"}}
	changed := collections.Definition{Name: "samples", Layer: "lab", Fields: []collections.Field{title,
		{Name: "shippedOn", Type: collections.TypeDate}}}
	_, err := openOn(open(), false, changed)
	problem := "must be a date (RFC 3339 like 2026-01-02T15:04:05Z, or YYYY-MM-DD)"
	wantDrift(t, err, kit.DriftError{Collection: samplesKey, Field: "shippedOn", OldType: "string", NewType: "date", Rows: 2, Total: 4,
		Sample: sortedSample([]kit.DriftValue{{ID: made[1], Value: `"soon"`, Problem: problem}, {ID: made[3], Value: `"n/a"`, Problem: problem}})})

	k3 := openSamples(t, open(), false, samplesDef(when))
	if after := schemaState(t, k3, samplesTable); after != before {
		t.Errorf("table after a refused conversion:\ngot  %s\nwant %s", after, before)
	}
}

// sortedSample orders a drift sample by record id, as sync reads it.
func sortedSample(s []kit.DriftValue) []kit.DriftValue {
	slices.SortFunc(s, func(a, b kit.DriftValue) int { return strings.Compare(a.ID, b.ID) })
	return s
}

func testKeptColumn(t *testing.T, e testdb.Engine) {
	open := testdb.Shared(t, e)
	legacy := collections.Field{Name: "legacyCode", Type: collections.TypeString, Meta: collections.FieldMeta{Unique: true}}
	k1 := openSamples(t, open(), false, samplesDef(legacy))
	old := mustCreate(t, k1, samplesKey, aliceA, map[string]any{"title": "old", "legacyCode": "L-1"})["id"].(string)
	k1.Close()

	k2 := openSamples(t, open(), false, samplesDef())
	if got := rawValues(t, k2, samplesTable, "legacy_code", old); !slices.Equal(got, []string{"L-1"}) {
		t.Errorf("kept column: got %v, want [L-1]", got)
	}
	if got := indexNames(t, k2, samplesTable); slices.ContainsFunc(got, func(n string) bool { return strings.Contains(n, "legacy") }) {
		t.Errorf("indexes: got %v, want none on the kept column", got)
	}
	if _, ok := mustGet(t, k2, samplesKey, aliceA, old)["legacyCode"]; ok {
		t.Error("a record read while the field is removed has legacyCode")
	}
	// The unique index went with the field: rows without a value come and go.
	fresh := mustCreate(t, k2, samplesKey, aliceA, map[string]any{"title": "fresh"})["id"].(string)
	mustCreate(t, k2, samplesKey, aliceA, map[string]any{"title": "fresh too"})
	k2.Close()

	// The field comes back: its column, values and index with it.
	k3 := openSamples(t, open(), false, samplesDef(legacy))
	if got := mustGet(t, k3, samplesKey, aliceA, old)["legacyCode"]; got != "L-1" {
		t.Errorf("restored field: got %#v, want L-1", got)
	}
	if got := mustGet(t, k3, samplesKey, aliceA, fresh)["legacyCode"]; got != nil {
		t.Errorf("restored field of a record made meanwhile: got %#v, want nil", got)
	}
	if _, err := k3.Records(samplesKey).Create(t.Context(), aliceA, map[string]any{"title": "dup", "legacyCode": "L-1"}); kit.StatusOf(err) != 409 {
		t.Errorf("unique after the restore: got %v, want 409", err)
	}
	k3.Close()

	// Removed again, then dropped by a sync with destructive changes.
	openSamples(t, open(), false, samplesDef()).Close()
	if !slices.Contains(columns(t, openSamples(t, open(), false, samplesDef()), samplesTable), "legacy_code") {
		t.Fatal("the column is gone before a sync with drop")
	}
	k5 := openSamples(t, open(), true, samplesDef())
	if cols := columns(t, k5, samplesTable); slices.Contains(cols, "legacy_code") {
		t.Errorf("columns after a sync with drop: got %v, want legacy_code dropped", cols)
	}
	if got := mustGet(t, k5, samplesKey, aliceA, old)["title"]; got != "old" {
		t.Errorf("record after the drop: got title %v, want old", got)
	}
}

func testKeptConstraints(t *testing.T, e testdb.Engine) {
	open := testdb.Shared(t, e)
	withRef := collections.Definition{Name: "samples", Layer: "lab", Fields: []collections.Field{
		{Name: "title", Type: collections.TypeString},
		{Name: "categoryId", Type: collections.TypeString, RefTarget: "categories"},
	}}
	k1, err := openOn(open(), false, categoriesDef(), withRef)
	if err != nil {
		t.Fatal(err)
	}
	cat := mustCreate(t, k1, categoriesKey, aliceA, map[string]any{"name": "c"})["id"].(string)
	rec := mustCreate(t, k1, samplesKey, aliceA, map[string]any{"title": "a", "categoryId": cat})["id"].(string)
	k1.Close()

	off := false
	plain := samplesDef()
	plain.Config = &collections.Config{UseMetadata: &off}
	k2, err := openOn(open(), false, categoriesDef(), plain)
	if err != nil {
		t.Fatalf("kit.New without metadata and the reference: %v", err)
	}
	defer k2.Close()
	for _, col := range []string{"category_id", "created_at", "updated_at", "created_by", "updated_by"} {
		if !slices.Contains(columns(t, k2, samplesTable), col) {
			t.Errorf("columns %v lack the kept %s", columns(t, k2, samplesTable), col)
		}
	}
	if got := rawValues(t, k2, samplesTable, "category_id", rec); !slices.Equal(got, []string{cat}) {
		t.Errorf("kept reference: got %v, want [%s]", got, cat)
	}
	// NOT NULL went from the kept metadata columns, the foreign key from
	// the kept reference: inserts without them work, and so does deleting
	// the category the kept column names.
	mustCreate(t, k2, samplesKey, aliceA, map[string]any{"title": "b"})
	if err := k2.Records(categoriesKey).Delete(t.Context(), aliceA, cat); err != nil {
		t.Errorf("delete of a category only a kept column names: %v", err)
	}
}

func testRenamedReference(t *testing.T, e testdb.Engine) {
	open := testdb.Shared(t, e)
	withRef := func(f collections.Field) collections.Definition {
		return collections.Definition{Name: "samples", Layer: "lab", Fields: []collections.Field{{Name: "title", Type: collections.TypeString}, f}}
	}
	k1, err := openOn(open(), false, categoriesDef(), withRef(collections.Field{Name: "categoryId", Type: collections.TypeString, RefTarget: "categories"}))
	if err != nil {
		t.Fatal(err)
	}
	cat := mustCreate(t, k1, categoriesKey, aliceA, map[string]any{"name": "c"})["id"].(string)
	mustCreate(t, k1, samplesKey, aliceA, map[string]any{"title": "a", "categoryId": cat})
	k1.Close()

	renamed := collections.Field{Name: "mainCategoryId", Type: collections.TypeString, RefTarget: "categories", Meta: collections.FieldMeta{RenamedFrom: "categoryId"}}
	k2, err := openOn(open(), false, categoriesDef(), withRef(renamed))
	if err != nil {
		t.Fatal(err)
	}
	if err := k2.Records(categoriesKey).Delete(t.Context(), aliceA, cat); kit.StatusOf(err) != 409 {
		t.Errorf("delete of a category the renamed reference names: got %v, want 409", err)
	}
	if _, err := k2.Records(samplesKey).Create(t.Context(), aliceA, map[string]any{"title": "b", "mainCategoryId": "no-such-category"}); kit.StatusOf(err) != 400 {
		t.Errorf("a renamed reference to nothing: got %v, want 400", err)
	}
	k2.Close()

	k3, err := openOn(open(), false, categoriesDef(), samplesDef())
	if err != nil {
		t.Fatal(err)
	}
	defer k3.Close()
	if err := k3.Records(categoriesKey).Delete(t.Context(), aliceA, cat); err != nil {
		t.Errorf("delete of a category only a kept column names: %v", err)
	}
}

func testCollectionRename(t *testing.T, e testdb.Engine) {
	open := testdb.Shared(t, e)
	probes := collections.Definition{Name: "probes", Layer: "lab", Fields: []collections.Field{
		{Name: "title", Type: collections.TypeString, Meta: collections.FieldMeta{Index: true}},
	}}
	k1 := openSamples(t, open(), false, probes)
	var made []string
	for _, v := range []string{"first apple", "second pear"} {
		made = append(made, mustCreate(t, k1, "labProbes", aliceA, map[string]any{"title": v})["id"].(string))
	}
	k1.Close()

	renamed := samplesDef()
	renamed.Fields[0].Meta.Index = true
	renamed.Config = &collections.Config{RenamedFrom: "labProbes"}
	for i := range 2 {
		k := openSamples(t, open(), false, renamed)
		if got := ids(mustList(t, k, samplesKey, aliceA, query("sort", "title")).Items); !slices.Equal(got, made) {
			t.Errorf("open %d: records: got %v, want %v", i+1, got, made)
		}
		l := mustList(t, k, samplesKey, aliceA, query("search", "pear"))
		if got := ids(l.Items); !slices.Equal(got, made[1:2]) {
			t.Errorf("open %d: search pear: got %v, want %v", i+1, got, made[1:2])
		}
		if l.Pagination.TotalItems != 1 {
			t.Errorf("open %d: search total: got %d, want 1", i+1, l.Pagination.TotalItems)
		}
		if got := mustList(t, k, samplesKey, aliceA, nil).Pagination.TotalItems; got != len(made) {
			t.Errorf("open %d: total from the kept row counts: got %d, want %d", i+1, got, len(made))
		}
		want := []string{"ix_lab_samples_team_created", "ix_lab_samples_title", "ix_lab_samples_title_sort"}
		if got := indexNames(t, k, samplesTable); !slices.Equal(got, want) {
			t.Errorf("open %d: indexes: got %v, want %v", i+1, got, want)
		}
		var n int
		if err := k.DB().QueryRowContext(t.Context(), `SELECT count(*) FROM kit_collections WHERE key = 'labProbes' OR table_name = 'lab_probes'`).Scan(&n); err != nil || n != 0 {
			t.Errorf("open %d: kit_collections rows of the old key: got %d (%v), want 0", i+1, n, err)
		}
		made = append(made, mustCreate(t, k, samplesKey, aliceA, map[string]any{"title": fmt.Sprint("x made after open ", i+1)})["id"].(string))
		k.Close()
	}
}

// statementCounter is a bun.QueryHook that counts the statements that
// contain a text.
type statementCounter struct {
	text string
	n    atomic.Int64
}

func (c *statementCounter) BeforeQuery(ctx context.Context, ev *bun.QueryEvent) context.Context {
	if strings.Contains(ev.Query, c.text) {
		c.n.Add(1)
	}
	return ctx
}

func (c *statementCounter) AfterQuery(context.Context, *bun.QueryEvent) {}

func TestSchemaChangeAppliedOnceByInstancesStartingTogether(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		open := testdb.Shared(t, e)
		sku := collections.Field{Name: "sku", Type: collections.TypeString, Meta: collections.FieldMeta{Index: true}}
		k1 := openSamples(t, open(), false, samplesDef(sku))
		rec := mustCreate(t, k1, samplesKey, aliceA, map[string]any{"title": "a", "sku": "A-1"})["id"].(string)
		k1.Close()

		code := collections.Field{Name: "code", Type: collections.TypeString, Meta: collections.FieldMeta{Index: true, RenamedFrom: "sku"}}
		renames := &statementCounter{text: "RENAME COLUMN"}
		const instances = 4
		kits := make([]*kit.Kit, instances)
		errs := make([]error, instances)
		var wg sync.WaitGroup
		for i := range instances {
			db := open()
			wg.Go(func() {
				kits[i], errs[i] = kit.New(kit.Config{DB: db, Definitions: []collections.Definition{samplesDef(code)}, QueryHook: renames, Logger: quietLogger()})
			})
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("instance %d: %v", i, err)
			}
			defer kits[i].Close()
		}
		// The column and its sort key column: one rename each, by one instance.
		if got := renames.n.Load(); got != 2 {
			t.Errorf("RENAME COLUMN statements: got %d, want 2 (one instance renamed code and code__key)", got)
		}
		for i, k := range kits {
			if got := mustGet(t, k, samplesKey, aliceA, rec)["code"]; got != "A-1" {
				t.Errorf("instance %d: code: got %#v, want A-1", i, got)
			}
		}
	})
}

func TestSchemaPlanChangesNothing(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		open := testdb.Shared(t, e)
		fields := []collections.Field{
			{Name: "sku", Type: collections.TypeString},
			{Name: "weight", Type: collections.TypeNumber},
			{Name: "legacy", Type: collections.TypeString},
		}
		k1 := openSamples(t, open(), false, samplesDef(fields...))
		mustCreate(t, k1, samplesKey, aliceA, map[string]any{"title": "a", "sku": "A-1", "weight": 1.5, "legacy": "x"})
		before := schemaState(t, k1, samplesTable)
		k1.Close()

		changed := samplesDef(
			collections.Field{Name: "code", Type: collections.TypeString, Meta: collections.FieldMeta{RenamedFrom: "sku"}},
			collections.Field{Name: "weight", Type: collections.TypeDecimal, Meta: collections.FieldMeta{Precision: 8, Scale: 2}},
			collections.Field{Name: "color", Type: collections.TypeString},
		)
		db := open()
		plan, err := kit.PlanSchema(t.Context(), kit.Config{DB: db, Definitions: []collections.Definition{changed}})
		if err != nil {
			t.Fatalf("PlanSchema: %v", err)
		}
		var got []string
		for _, ch := range plan.Changes {
			got = append(got, ch.Description)
		}
		want := []string{
			"rename field labSamples.sku to code, keeping its values",
			"keep the column of removed field labSamples.legacy (1 value) until a sync with drop",
			"add field labSamples.color (string)",
			"convert field labSamples.weight from number to decimal(8,2) (1 value)",
		}
		if !slices.Equal(got, want) {
			t.Errorf("changes:\ngot  %q\nwant %q", got, want)
		}
		sql := ""
		for _, st := range plan.Statements {
			sql += st.SQL + "\n"
		}
		for _, s := range []string{`RENAME COLUMN "sku" TO "code"`, `ADD COLUMN "color"`, `UPDATE "lab_samples" SET "weight"`} {
			if !strings.Contains(sql, s) {
				t.Errorf("plan SQL lacks %s:\n%s", s, sql)
			}
		}
		if plan.Destructive() {
			t.Error("Destructive: got true, want false for a plan that drops nothing")
		}
		k2 := openSamples(t, db, false, samplesDef(fields...))
		if after := schemaState(t, k2, samplesTable); after != before {
			t.Errorf("table after a plan:\ngot  %s\nwant %s", after, before)
		}
		k2.Close()

		// A refused change is reported with the rest of the plan.
		refused := samplesDef(fields[0], collections.Field{Name: "weight", Type: collections.TypeBoolean}, fields[2])
		plan, err = kit.PlanSchema(t.Context(), kit.Config{DB: db, Definitions: []collections.Definition{refused, categoriesDef()}})
		if !errors.Is(err, kit.ErrSchemaDrift) {
			t.Fatalf("PlanSchema of an impossible change: got %v, want ErrSchemaDrift", err)
		}
		if len(plan.Changes) != 1 || plan.Changes[0].Kind != "create" || plan.Changes[0].Collection != categoriesKey {
			t.Errorf("changes beside a refused one: got %+v, want the creation of %s", plan.Changes, categoriesKey)
		}
	})
}
