package store

import (
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/collectionkit/kit/collections"
)

func TestDecimalKeyRoundTrip(t *testing.T) {
	cases := []struct {
		precision, scale int
		in               string
	}{
		{10, 2, "0.00"},
		{10, 2, "12345678.90"},
		{10, 2, "-0.01"},
		{10, 2, "99999999.99"},
		{10, 2, "-99999999.99"},
		{10, 2, "1.00"},
		{4, 4, "0.0000"},
		{4, 4, "0.1234"},
		{4, 4, "-0.9999"},
		{1, 1, "0.5"},
		{1, 1, "-0.5"},
		{6, 0, "0"},
		{6, 0, "999999"},
		{6, 0, "-1"},
		{38, 4, "1234567890123456789012345678901234.5678"},
		{38, 0, "-99999999999999999999999999999999999999"},
		{38, 38, "0.12345678901234567890123456789012345678"},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("decimal(%d,%d) %s survives the key", tc.precision, tc.scale, tc.in), func(t *testing.T) {
			canon, err := collections.ParseDecimal(tc.in, tc.precision, tc.scale)
			if err != nil {
				t.Fatalf("ParseDecimal: %v", err)
			}
			key := decimalKey(canon, tc.precision, tc.scale)
			if len(key) != 1+tc.precision {
				t.Errorf("key %q: got length %d, want %d", key, len(key), 1+tc.precision)
			}
			got, err := decimalFromKey(key, tc.precision, tc.scale)
			if err != nil {
				t.Fatalf("decimalFromKey(%q): %v", key, err)
			}
			if got != canon {
				t.Errorf("round trip: got %q, want %q", got, canon)
			}
		})
	}
}

// randomDecimal returns a canonical decimal(p,s) with a random number of
// digits, so keys of short and long values are compared.
func randomDecimal(r *rand.Rand, precision, scale int) string {
	var b strings.Builder
	if r.IntN(2) == 0 {
		b.WriteByte('-')
	}
	intDigits := r.IntN(precision - scale + 1)
	for i := 0; i < intDigits; i++ {
		b.WriteByte(byte('0' + r.IntN(10)))
	}
	if intDigits == 0 {
		b.WriteByte('0')
	}
	if scale > 0 {
		b.WriteByte('.')
		for i := 0; i < scale; i++ {
			b.WriteByte(byte('0' + r.IntN(10)))
		}
	}
	s, err := collections.ParseDecimal(b.String(), precision, scale)
	if err != nil {
		panic(err)
	}
	return s
}

func TestDecimalKeyOrderIsNumericOrder(t *testing.T) {
	for _, ps := range [][2]int{{10, 2}, {4, 4}, {6, 0}, {38, 10}, {1, 0}} {
		precision, scale := ps[0], ps[1]
		t.Run(fmt.Sprintf("byte order of decimal(%d,%d) keys is numeric order", precision, scale), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(precision), uint64(scale)))
			vals := []string{"0"}
			for range 500 {
				vals = append(vals, randomDecimal(r, precision, scale))
			}
			for i, v := range vals {
				vals[i], _ = collections.ParseDecimal(v, precision, scale)
			}
			byKey := slices.Clone(vals)
			slices.SortStableFunc(byKey, func(a, b string) int {
				return strings.Compare(decimalKey(a, precision, scale), decimalKey(b, precision, scale))
			})
			byValue := slices.Clone(vals)
			slices.SortStableFunc(byValue, func(a, b string) int {
				ra, _ := new(big.Rat).SetString(a)
				rb, _ := new(big.Rat).SetString(b)
				return ra.Cmp(rb)
			})
			for i := range byKey {
				ra, _ := new(big.Rat).SetString(byKey[i])
				rb, _ := new(big.Rat).SetString(byValue[i])
				if ra.Cmp(rb) != 0 {
					t.Fatalf("position %d: key order gives %s, numeric order %s", i, byKey[i], byValue[i])
				}
			}
			for _, v := range vals {
				k1 := decimalKey(v, precision, scale)
				for _, w := range vals[:20] {
					ra, _ := new(big.Rat).SetString(v)
					rb, _ := new(big.Rat).SetString(w)
					if (ra.Cmp(rb) == 0) != (k1 == decimalKey(w, precision, scale)) {
						t.Errorf("equal values %s and %s must have equal keys and only they", v, w)
					}
				}
			}
		})
	}
}

func TestDecimalFromKeyAcceptsPlainDecimals(t *testing.T) {
	got, err := decimalFromKey("12.5", 10, 2)
	if err != nil || got != "12.50" {
		t.Errorf("decimalFromKey(12.5): got %q, %v; want 12.50", got, err)
	}
	if _, err := decimalFromKey("x12", 10, 2); err == nil {
		t.Error("decimalFromKey(x12): got nil error, want one")
	}
}

func TestCodecRoundTrip(t *testing.T) {
	attr := func(typ collections.FieldType) *collections.Attribute {
		f := &collections.Field{Name: "v", Type: typ}
		if typ == collections.TypeDecimal {
			f.Meta = collections.FieldMeta{Precision: 10, Scale: 2}
		}
		return &collections.Attribute{Name: "v", Type: typ, Column: "v", Field: f}
	}
	when := time.Date(2026, 3, 1, 8, 0, 0, 123456000, time.UTC)
	cases := []struct {
		typ    collections.FieldType
		value  any
		stored any // SQLite's stored form
	}{
		{collections.TypeString, "héllo 'x'", "héllo 'x'"},
		{collections.TypeText, "a\nb", "a\nb"},
		{collections.TypeImage, "/a.png", "/a.png"},
		{collections.TypeFile, "f.pdf", "f.pdf"},
		{collections.TypeNumber, 1.5, 1.5},
		{collections.TypeDecimal, "-12.30", "n9999998769"},
		{collections.TypeDecimal, "12.30", "p0000001230"},
		{collections.TypeBoolean, true, int64(1)},
		{collections.TypeBoolean, false, int64(0)},
		{collections.TypeDate, when, "2026-03-01T08:00:00.123456Z"},
		{collections.TypeJSON, map[string]any{"a": []any{1.0, "b"}}, `{"a":[1,"b"]}`},
		{collections.TypeRepeater, []any{map[string]any{"k": "v"}}, `[{"k":"v"}]`},
		{collections.TypeArray, []any{"x", nil}, `["x",null]`},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s %v encodes for SQLite and decodes back", tc.typ, tc.value), func(t *testing.T) {
			a := attr(tc.typ)
			enc, err := encode(sqliteDialect{}, a, tc.value)
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			if !reflect.DeepEqual(enc, tc.stored) {
				t.Errorf("stored form: got %#v, want %#v", enc, tc.stored)
			}
			dec, err := decode(sqliteDialect{}, a, enc)
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if wt, ok := tc.value.(time.Time); ok {
				if gt, ok := dec.(time.Time); !ok || !gt.Equal(wt) || gt.Location() != time.UTC {
					t.Errorf("decoded: got %#v, want %v UTC", dec, wt)
				}
				return
			}
			if !reflect.DeepEqual(dec, tc.value) {
				t.Errorf("decoded: got %#v, want %#v", dec, tc.value)
			}
			// Drivers may hand text back as []byte.
			if s, ok := enc.(string); ok {
				if dec2, err := decode(sqliteDialect{}, a, []byte(s)); err != nil || !reflect.DeepEqual(dec2, dec) {
					t.Errorf("decode([]byte): got %#v, %v; want %#v", dec2, err, dec)
				}
			}
		})
	}
	t.Run("null encodes and decodes as nil for every type", func(t *testing.T) {
		for _, typ := range collections.FieldTypes() {
			if v, err := encode(sqliteDialect{}, attr(typ), nil); v != nil || err != nil {
				t.Errorf("encode(%s, nil): got %#v, %v", typ, v, err)
			}
			if v, err := decode(sqliteDialect{}, attr(typ), nil); v != nil || err != nil {
				t.Errorf("decode(%s, nil): got %#v, %v", typ, v, err)
			}
		}
	})
	t.Run("a value of the wrong Go type is an encode error", func(t *testing.T) {
		for typ, v := range map[collections.FieldType]any{
			collections.TypeDecimal: 1.5, collections.TypeBoolean: "true", collections.TypeDate: "2026-01-01",
		} {
			if _, err := encode(sqliteDialect{}, attr(typ), v); err == nil {
				t.Errorf("encode(%s, %#v): got nil error, want one", typ, v)
			}
		}
	})
	t.Run("fixed-width dates sort as text in time order", func(t *testing.T) {
		a := attr(collections.TypeDate)
		times := []time.Time{
			time.Date(2025, 12, 31, 23, 59, 59, 999999000, time.UTC),
			time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
			time.Date(2026, 1, 1, 0, 0, 0, 1000, time.UTC),
			time.Date(2026, 1, 1, 0, 0, 1, 0, time.UTC),
		}
		var prev string
		for _, tm := range times {
			v, _ := encode(sqliteDialect{}, a, tm)
			if s := v.(string); s <= prev {
				t.Errorf("%q does not sort after %q", s, prev)
			} else {
				prev = s
			}
		}
	})
}

func TestLikeEscape(t *testing.T) {
	cases := map[string]string{
		"plain":  "plain",
		"100%":   `100\%`,
		"a_b":    `a\_b`,
		`c:\dir`: `c:\\dir`,
		`%_\`:    `\%\_\\`,
	}
	for in, want := range cases {
		if got := likeEscape(in); got != want {
			t.Errorf("likeEscape(%q): got %q, want %q", in, got, want)
		}
	}
}

func TestSQLiteDSN(t *testing.T) {
	cases := []struct {
		name, path, want string
	}{
		{"a memory name becomes an isolated memdb database", ":memory:tests", "file:/tests?vfs=memdb&" + memPragmas},
		{"a bare memory path gets a default name", ":memory:", "file:/kit?vfs=memdb&" + memPragmas},
		{"a memory name is path-escaped", ":memory:a b/c", "file:/a%20b%2Fc?vfs=memdb&" + memPragmas},
		{"a file path gets WAL and immediate transactions", "/tmp/x/kit.db", "file:/tmp/x/kit.db?" + sqlitePragmas},
		{"a file URI keeps its query and gains the pragmas", "file:kit.db?mode=rwc", "file:kit.db?mode=rwc&" + sqlitePragmas},
		{"a file URI with its own pragmas is left alone", "file:kit.db?_pragma=foreign_keys(ON)", "file:kit.db?_pragma=foreign_keys(ON)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := SQLiteDSN(tc.path); got != tc.want {
				t.Errorf("SQLiteDSN(%q): got %q, want %q", tc.path, got, tc.want)
			}
		})
	}
	for _, p := range []string{sqlitePragmas, memPragmas} {
		for _, want := range []string{"busy_timeout", "foreign_keys(ON)", "_txlock=immediate"} {
			if !strings.Contains(p, want) {
				t.Errorf("pragmas %q lack %s", p, want)
			}
		}
	}
}

type codeErr int

func (e codeErr) Error() string { return fmt.Sprintf("sqlite error %d", int(e)) }
func (e codeErr) Code() int     { return int(e) }

type stateErr string

func (e stateErr) Error() string    { return "pg error " + string(e) }
func (e stateErr) SQLState() string { return string(e) }

func TestClassify(t *testing.T) {
	cases := []struct {
		name      string
		err       error
		kind      collections.ConstraintKind
		status    int
		unchanged bool
	}{
		{"a SQLite unique violation is a 409 constraint error", codeErr(sqliteConstraintUnique), "unique", 409, false},
		{"a SQLite primary key violation is a 409 constraint error", codeErr(sqliteConstraintPrimaryKey), "unique", 409, false},
		{"a SQLite foreign key violation is a 400 constraint error", codeErr(sqliteConstraintForeignKey), "foreignKey", 400, false},
		{"a PostgreSQL unique violation is a 409 constraint error", stateErr("23505"), "unique", 409, false},
		{"a PostgreSQL foreign key violation is a 400 constraint error", stateErr("23503"), "foreignKey", 400, false},
		{"another SQLite error is left alone", codeErr(5), "", 0, true},
		{"another PostgreSQL error is left alone", stateErr("40001"), "", 0, true},
		{"a plain error is left alone", errors.New("boom"), "", 0, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wrapped := fmt.Errorf("store: insert x: %w", tc.err)
			got := classify(wrapped)
			if tc.unchanged {
				if got != wrapped {
					t.Errorf("classify: got %v, want the error unchanged", got)
				}
				return
			}
			var ce *ConstraintError
			if !errors.As(got, &ce) {
				t.Fatalf("classify: got %v (%T), want *ConstraintError", got, got)
			}
			if ce.Kind != tc.kind || ce.HTTPStatus() != tc.status {
				t.Errorf("got kind %q status %d, want %q %d", ce.Kind, ce.HTTPStatus(), tc.kind, tc.status)
			}
			if !errors.Is(got, tc.err) {
				t.Errorf("the driver error is not in the chain of %v", got)
			}
		})
	}
	if classify(nil) != nil {
		t.Error("classify(nil): want nil")
	}
}

func TestQuoteRefusesUnsafeIdentifiers(t *testing.T) {
	if got := quote("shop_products"); got != `"shop_products"` {
		t.Errorf("quote: got %s", got)
	}
	for _, bad := range []string{"", "Upper", `a"b`, "a b", "1abc", "x;drop", strings.Repeat("a", 64)} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("quote(%q): want a panic", bad)
				}
			}()
			quote(bad)
		}()
	}
}

// TestValidIdentMatchesItsPattern checks the hand-written identifier
// check against the regular expression it stands for.
func TestValidIdentMatchesItsPattern(t *testing.T) {
	pattern := regexp.MustCompile(`^[a-z][a-z0-9_]{0,62}$`)
	idents := []string{"", "a", "z", "shop_products", "a_", "a9", "ix_2", strings.Repeat("a", 63), strings.Repeat("a", 64),
		"_a", "9a", "A", "aB", "a-b", "a b", "a\n", "é", "aé", "a`", "a{", "a/", "a:", "a@", "a[", "a\x00"}
	for _, id := range idents {
		t.Run(fmt.Sprintf("%q", id), func(t *testing.T) {
			if got, want := validIdent(id), pattern.MatchString(id); got != want {
				t.Errorf("validIdent: got %v, want %v", got, want)
			}
		})
	}
}

func TestIndexNameFitsPostgres(t *testing.T) {
	short := indexName("ix", "shop_products", "team_created")
	if short != "ix_shop_products_team_created" {
		t.Errorf("short name: got %q", short)
	}
	long1 := indexName("ux", strings.Repeat("a", 40), strings.Repeat("b", 40))
	long2 := indexName("ux", strings.Repeat("a", 40), strings.Repeat("b", 39)+"c")
	if len(long1) > 63 || len(long2) > 63 {
		t.Errorf("long names: got %d and %d bytes, want at most 63", len(long1), len(long2))
	}
	if long1 == long2 {
		t.Errorf("long names collide: %q", long1)
	}
	if !validIdent(long1) {
		t.Errorf("long name %q is not a safe identifier", long1)
	}
}

func TestGlobFold(t *testing.T) {
	cases := []struct {
		term string
		fold bool
		glob string
	}{
		{"plain ascii", false, "[pP][lL][aA][iI][nN] [aA][sſS][cC][iI][iI]"},
		{"ärger", true, "[äÄ][rR][gG][eE][rR]"},
		{"É*?[]", true, "[Éé][*][?][[]]"},
		{"100%_\\", false, "100%_\\"},
		{"日本", false, "日本"},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%q folds to a literal case-insensitive GLOB", tc.term), func(t *testing.T) {
			if got := needsUnicodeFold(tc.term); got != tc.fold {
				t.Errorf("needsUnicodeFold: got %v, want %v", got, tc.fold)
			}
			if got := globFold(tc.term); got != tc.glob {
				t.Errorf("globFold: got %q, want %q", got, tc.glob)
			}
		})
	}
}

func TestParseSQLiteTimeAgreesWithTimeParse(t *testing.T) {
	tests := []struct {
		name, in string
	}{
		{"a time with microseconds", "2026-11-24T10:30:59.123456Z"},
		{"the start of the year 1", "0001-01-01T00:00:00.000000Z"},
		{"the last microsecond of a year", "9999-12-31T23:59:59.999999Z"},
		{"a leap day", "2024-02-29T12:00:00.000000Z"},
		{"a leap day in a common year", "2023-02-29T12:00:00.000000Z"},
		{"the 31st of a 30-day month", "2026-04-31T00:00:00.000000Z"},
		{"month 0", "2026-00-10T00:00:00.000000Z"},
		{"month 13", "2026-13-10T00:00:00.000000Z"},
		{"day 0", "2026-01-00T00:00:00.000000Z"},
		{"hour 24", "2026-01-01T24:00:00.000000Z"},
		{"minute 60", "2026-01-01T23:60:00.000000Z"},
		{"second 60", "2026-01-01T23:59:60.000000Z"},
		{"a letter among the digits", "2026-01-0aT00:00:00.000000Z"},
		{"a sign among the digits", "2026-01-01T00:00:0-.000000Z"},
		{"a space for the T", "2026-01-01 00:00:00.000000Z"},
		{"no zone letter", "2026-01-01T00:00:00.0000000"},
		{"milliseconds only", "2026-01-01T00:00:00.000Z"},
		{"an offset instead of Z", "2026-01-01T00:00:00.000000+01:00"},
		{"empty", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := time.Parse(sqliteTime, tt.in)
			got, ok := parseSQLiteTime(tt.in)
			if ok != (err == nil) {
				t.Fatalf("got ok %v, want %v (time.Parse: %v)", ok, err == nil, err)
			}
			if ok && !got.Equal(want) || ok && got.Location() != want.Location() {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	}
}

// BenchmarkDecodeDate decodes a date as modernc's driver hands it over: a
// string.
func BenchmarkDecodeDate(b *testing.B) {
	a := &collections.Attribute{Name: "createdAt", Type: collections.TypeDate}
	var v any = "2026-11-24T10:30:59.123456Z"
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decode(sqliteDialect{}, a, v); err != nil {
			b.Fatal(err)
		}
	}
}
