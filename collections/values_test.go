package collections

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseDecimal(t *testing.T) {
	tests := []struct {
		name             string
		in               string
		precision, scale int
		want             string
	}{
		{"a short fraction is padded to the scale", "9.9", 10, 2, "9.90"},
		{"a whole number gets the scale's zeros", "10", 10, 2, "10.00"},
		{"negative zero is zero", "-0.00", 10, 2, "0.00"},
		{"negative zero without a point is zero", "-0", 5, 0, "0"},
		{"leading zeros are dropped", "007.50", 10, 2, "7.50"},
		{"a leading point is allowed", ".5", 3, 2, "0.50"},
		{"a trailing point is allowed", "5.", 3, 2, "5.00"},
		{"a plus sign is dropped", "+1.25", 3, 2, "1.25"},
		{"a negative value keeps its sign", "-12.3", 4, 2, "-12.30"},
		{"trailing zeros beyond the scale are fine", "1.2300", 3, 2, "1.23"},
		{"scale zero has no point", "42.0", 2, 0, "42"},
		{"the largest value of the precision fits", "99.99", 4, 2, "99.99"},
		{"precision 38 takes 38 digits", strings.Repeat("9", 38), 38, 0, strings.Repeat("9", 38)},
		{"all fraction digits", "0.123", 3, 3, "0.123"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseDecimal(tc.in, tc.precision, tc.scale)
			if err != nil || got != tc.want {
				t.Errorf("ParseDecimal(%q, %d, %d): got %q, %v, want %q, nil", tc.in, tc.precision, tc.scale, got, err, tc.want)
			}
		})
	}

	bad := []struct {
		name             string
		in               string
		precision, scale int
		contains         string
	}{
		{"an exponent is refused", "1e3", 10, 2, "must be a decimal number"},
		{"a capital exponent is refused", "1E-2", 10, 2, "must be a decimal number"},
		{"too many fraction digits are refused, not rounded", "9.999", 10, 2, "at most 2 digit(s) after the point"},
		{"too many integer digits are refused", "100", 4, 2, "at most 2 digit(s) before the point (precision 4, scale 2)"},
		{"any fraction is refused at scale zero", "1.5", 5, 0, "at most 0 digit(s) after the point"},
		{"an empty string is refused", "", 10, 2, "must be a decimal number"},
		{"a lone point is refused", ".", 10, 2, "must be a decimal number"},
		{"a lone sign is refused", "-", 10, 2, "must be a decimal number"},
		{"a sign and a point are refused", "-.", 10, 2, "must be a decimal number"},
		{"two signs are refused", "--1", 10, 2, "must be a decimal number"},
		{"two points are refused", "1.2.3", 10, 2, "must be a decimal number"},
		{"spaces are refused", " 1", 10, 2, "must be a decimal number"},
		{"a comma is refused", "1,5", 10, 2, "must be a decimal number"},
		{"NaN is refused", "NaN", 10, 2, "must be a decimal number"},
		{"Infinity is refused", "Infinity", 10, 2, "must be a decimal number"},
		{"a hexadecimal number is refused", "0x10", 10, 2, "must be a decimal number"},
		{"non-ASCII digits are refused", "١٢", 10, 2, "must be a decimal number"},
		{"a string longer than 100 bytes is refused", "1." + strings.Repeat("0", 100), 10, 2, "must be a decimal number"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseDecimal(tc.in, tc.precision, tc.scale)
			if err == nil || !strings.Contains(err.Error(), tc.contains) {
				t.Errorf("ParseDecimal(%q, %d, %d): got %q, %v, want an error containing %q", tc.in, tc.precision, tc.scale, got, err, tc.contains)
			}
		})
	}
}

func TestParseDate(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want time.Time
	}{
		{"UTC stays UTC", "2026-01-02T15:04:05Z", time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)},
		{"a positive offset is turned into UTC", "2026-01-02T15:04:05+02:00", time.Date(2026, 1, 2, 13, 4, 5, 0, time.UTC)},
		{"a negative offset crosses midnight", "2026-01-02T22:30:00-05:30", time.Date(2026, 1, 3, 4, 0, 0, 0, time.UTC)},
		{"nanoseconds are cut to microseconds", "2026-01-02T15:04:05.123456789Z", time.Date(2026, 1, 2, 15, 4, 5, 123456000, time.UTC)},
		{"a date alone is midnight UTC", "2026-01-02", time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)},
		{"a leap day is a date", "2028-02-29", time.Date(2028, 2, 29, 0, 0, 0, 0, time.UTC)},
		{"the last instant of year 9999 is a date", "9999-12-31T23:59:59.999999Z", time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC)},
		{"the first day of year 1 is a date", "0001-01-01", time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseDate(tc.in)
			if err != nil || !got.Equal(tc.want) || got.Location() != time.UTC {
				t.Errorf("ParseDate(%q): got %v, %v, want %v, nil", tc.in, got, err, tc.want)
			}
		})
	}

	for _, in := range []string{"", "garbage", "2026-13-01", "2026-02-30", "2026-01-02 15:04:05", "02/01/2026",
		"2026-01-02T15:04:05", "1767366245", "2026-1-2", "2026-01-02T25:00:00Z",
		"9999-12-31T23:00:00-05:00", "0000-01-01", "0001-01-01T00:30:00+01:00"} {
		t.Run("the date "+in+" is refused", func(t *testing.T) {
			got, err := ParseDate(in)
			if err == nil || !strings.Contains(err.Error(), "must be a date") {
				t.Errorf("ParseDate(%q): got %v, %v, want an error saying it must be a date", in, got, err)
			}
		})
	}
}

func TestNormalizeValue(t *testing.T) {
	decimal := &Field{Name: "price", Type: TypeDecimal, Meta: FieldMeta{Precision: 6, Scale: 2}}
	tests := []struct {
		name  string
		field *Field
		in    any
		want  any
	}{
		{"null is nil for every type", &Field{Type: TypeNumber}, nil, nil},
		{"a string stays a string", &Field{Type: TypeString}, "a", "a"},
		{"an empty string stays empty", &Field{Type: TypeString}, "", ""},
		{"an empty reference is nil", &Field{Type: TypeString, RefTarget: "categories"}, "", nil},
		{"text is a string", &Field{Type: TypeText}, "long", "long"},
		{"an image is a string", &Field{Type: TypeImage}, "a.png", "a.png"},
		{"a file is a string", &Field{Type: TypeFile}, "a.pdf", "a.pdf"},
		{"a float64 number stays", &Field{Type: TypeNumber}, 1.5, 1.5},
		{"an int number is a float64", &Field{Type: TypeNumber}, 3, 3.0},
		{"an int64 number is a float64", &Field{Type: TypeNumber}, int64(-3), -3.0},
		{"an int32 number is a float64", &Field{Type: TypeNumber}, int32(3), 3.0},
		{"a uint number is a float64", &Field{Type: TypeNumber}, uint(3), 3.0},
		{"a uint64 number is a float64", &Field{Type: TypeNumber}, uint64(3), 3.0},
		{"an int8 number is a float64", &Field{Type: TypeNumber}, int8(-3), -3.0},
		{"a float32 number is a float64", &Field{Type: TypeNumber}, float32(0.5), 0.5},
		{"a json.Number is a float64", &Field{Type: TypeNumber}, json.Number("1e3"), 1000.0},
		{"a decimal string is canonical", decimal, "1.5", "1.50"},
		{"a decimal json.Number is canonical", decimal, json.Number("1.5"), "1.50"},
		{"a decimal float64 is canonical", decimal, 9.9, "9.90"},
		{"a decimal int is canonical", decimal, 12, "12.00"},
		{"a decimal int64 is canonical", decimal, int64(-12), "-12.00"},
		{"a decimal uint16 is canonical", decimal, uint16(12), "12.00"},
		{"a boolean stays", &Field{Type: TypeBoolean}, false, false},
		{"a date string is a UTC time", &Field{Type: TypeDate}, "2026-01-02T01:00:00+01:00", time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)},
		{"a time.Time is UTC to the microsecond", &Field{Type: TypeDate}, time.Date(2026, 1, 2, 1, 0, 0, 1999, time.FixedZone("x", 3600)),
			time.Date(2026, 1, 2, 0, 0, 0, 1000, time.UTC)},
		{"json numbers become float64", &Field{Type: TypeJSON}, map[string]any{"a": []any{json.Number("1")}}, map[string]any{"a": []any{1.0}}},
		{"a json scalar stays", &Field{Type: TypeJSON}, "x", "x"},
		{"a Go struct in a json field is its JSON", &Field{Type: TypeJSON}, struct {
			A int `json:"a"`
		}{1}, map[string]any{"a": 1.0}},
		{"a repeater is an array of objects", &Field{Type: TypeRepeater}, []any{map[string]any{"a": "b"}}, []any{map[string]any{"a": "b"}}},
		{"an empty repeater is fine", &Field{Type: TypeRepeater}, []any{}, []any{}},
		{"a typed repeater is an array of objects", &Field{Type: TypeRepeater}, []map[string]any{{"a": 1}}, []any{map[string]any{"a": 1.0}}},
		{"an array holds anything", &Field{Type: TypeArray}, []any{1.0, "a", nil, []any{}}, []any{1.0, "a", nil, []any{}}},
		{"a typed array is an array", &Field{Type: TypeArray}, []int{1, 2}, []any{1.0, 2.0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := NormalizeValue(tc.field, tc.in)
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("NormalizeValue(%s, %#v): got %#v, %v, want %#v, nil", tc.field.Type, tc.in, got, err, tc.want)
			}
		})
	}

	bad := []struct {
		name     string
		field    *Field
		in       any
		contains string
	}{
		{"a number is not a string", &Field{Type: TypeString}, 1, "must be a string"},
		{"a NUL byte is refused", &Field{Type: TypeString}, "\x00", "must not contain NUL bytes"},
		{"invalid UTF-8 is refused", &Field{Type: TypeText}, "caf\xe9", "must be valid UTF-8 text"},
		{"invalid UTF-8 in a json key is refused", &Field{Type: TypeJSON}, map[string]any{"\xff": 1.0}, "must be valid UTF-8 text"},
		{"a time.Time past year 9999 is refused", &Field{Type: TypeDate}, time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), "between the years 1 and 9999"},
		{"a string is not a number", &Field{Type: TypeNumber}, "1", "must be a number"},
		{"NaN is not a number", &Field{Type: TypeNumber}, math.NaN(), "must be a number"},
		{"infinity is not a number", &Field{Type: TypeNumber}, math.Inf(1), "must be a number"},
		{"an out-of-range json.Number is not a number", &Field{Type: TypeNumber}, json.Number("1e400"), "must be a number"},
		{"a boolean is not a decimal", decimal, true, "must be a decimal number"},
		{"a NaN is not a decimal", decimal, math.NaN(), "must be a decimal number"},
		{"a decimal exponent is refused", decimal, json.Number("1e2"), "must be a decimal number"},
		{"a float with too many digits is refused", decimal, 1.005, "at most 2 digit(s) after the point"},
		{"a string is not a boolean", &Field{Type: TypeBoolean}, "false", "must be true or false"},
		{"a number is not a date", &Field{Type: TypeDate}, 5, "must be a date"},
		{"garbage is not a date", &Field{Type: TypeDate}, "soon", "must be a date"},
		{"a NUL byte deep in json is refused", &Field{Type: TypeJSON}, []any{map[string]any{"a": "\x00"}}, "must not contain NUL bytes"},
		{"a NaN deep in json is refused", &Field{Type: TypeJSON}, []any{math.NaN()}, "out of range"},
		{"an infinite json.Number in json is refused", &Field{Type: TypeJSON}, []any{json.Number("1e999")}, "out of range"},
		{"a channel is not JSON", &Field{Type: TypeJSON}, make(chan int), "must be JSON-encodable"},
		{"a repeater of strings is refused", &Field{Type: TypeRepeater}, []any{"a"}, "must be an array of objects"},
		{"a repeater that is an object is refused", &Field{Type: TypeRepeater}, map[string]any{}, "must be an array of objects"},
		{"an array that is a string is refused", &Field{Type: TypeArray}, "a", "must be an array"},
		{"a NUL byte in an array is refused", &Field{Type: TypeArray}, []any{"\x00"}, "must not contain NUL bytes"},
		{"an unknown type is refused", &Field{Type: "money"}, "1", `has unknown type "money"`},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			got, err := NormalizeValue(tc.field, tc.in)
			if err == nil || !strings.Contains(err.Error(), tc.contains) {
				t.Errorf("NormalizeValue(%s, %#v): got %#v, %v, want an error containing %q", tc.field.Type, tc.in, got, err, tc.contains)
			}
		})
	}
}

func TestFieldTypes(t *testing.T) {
	types := FieldTypes()
	if len(types) != 11 {
		t.Fatalf("FieldTypes: got %d types, want 11", len(types))
	}
	for _, typ := range types {
		if !typ.Valid() {
			t.Errorf("%s.Valid(): got false, want true", typ)
		}
	}
	for _, typ := range []FieldType{"", "varchar", "String", "integer"} {
		if typ.Valid() {
			t.Errorf("%q.Valid(): got true, want false", typ)
		}
	}
	for _, tc := range []struct {
		typ                 FieldType
		textual, structured bool
	}{
		{TypeString, true, false}, {TypeText, true, false}, {TypeImage, false, false}, {TypeFile, false, false},
		{TypeNumber, false, false}, {TypeJSON, false, true}, {TypeRepeater, false, true}, {TypeArray, false, true},
	} {
		if tc.typ.IsTextual() != tc.textual || tc.typ.IsStructured() != tc.structured {
			t.Errorf("%s: got textual %v structured %v, want %v %v", tc.typ, tc.typ.IsTextual(), tc.typ.IsStructured(), tc.textual, tc.structured)
		}
	}
}

func TestNames(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"the registry key is layer plus PascalCase name", RegistryKey("shop", "products"), "shopProducts"},
		{"the registry key of a camelCase name", RegistryKey("blog", "blogPosts"), "blogBlogPosts"},
		{"a registry key without a layer is the name", RegistryKey("", "products"), "products"},
		{"a column is snake_case", ColumnName("categoryId"), "category_id"},
		{"an acronym is one column word", ColumnName("imageURL"), "image_url"},
		{"an acronym followed by a word splits", ColumnName("pageURLPath"), "page_url_path"},
		{"digits stay with their word", ColumnName("line2Text"), "line2_text"},
		{"a lower-case name is its own column", ColumnName("title"), "title"},
		{"IsSystemField knows ownership fields", boolString(IsSystemField("owner")), "true"},
		{"IsSystemField does not know schema fields", boolString(IsSystemField("title")), "false"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %q, want %q", tc.got, tc.want)
			}
		})
	}
}

func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func TestNumbersAreStoredExactlyOrRefused(t *testing.T) {
	tests := []struct {
		name string
		in   any
		ok   bool
	}{
		{"a JSON integer at 2^53 is exact", json.Number("9007199254740992"), true},
		{"a JSON integer at -2^53 is exact", json.Number("-9007199254740992"), true},
		{"a JSON integer past 2^53 is refused", json.Number("9007199254740993"), false},
		{"a JSON integer past int64 is refused", json.Number("123456789012345678901234"), false},
		{"a JSON fraction is stored as the nearest float64", json.Number("0.1"), true},
		{"a JSON exponent is stored as the nearest float64", json.Number("1e300"), true},
		{"a Go int64 past 2^53 from the record API is refused", int64(1<<53 + 1), false},
		{"a Go uint64 past 2^53 from the record API is refused", uint64(1 << 63), false},
		{"a Go int within range is exact", 42, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NormalizeValue(&Field{Name: "stock", Type: TypeNumber}, tc.in)
			if got := err == nil; got != tc.ok {
				t.Errorf("NormalizeValue(number, %v): got err %v, want ok %v", tc.in, err, tc.ok)
			}
		})
	}
}

func TestIntegerNumbersTakeWholeNumbersWithinTwoToThe53(t *testing.T) {
	stock := &Field{Name: "stock", Type: TypeNumber, Meta: FieldMeta{Integer: true}}
	tests := []struct {
		name string
		in   any
		want any // nil: refused
	}{
		{"a JSON integer is kept", json.Number("42"), 42.0},
		{"a JSON number with a zero fraction is whole", json.Number("42.0"), 42.0},
		{"a JSON exponent that is whole is kept", json.Number("1e3"), 1000.0},
		{"a Go int is kept", -7, -7.0},
		{"a whole float64 is kept", 3.0, 3.0},
		{"2^53 is kept", json.Number("9007199254740992"), 9007199254740992.0},
		{"-2^53 is kept", json.Number("-9007199254740992"), -9007199254740992.0},
		{"a fraction is refused", json.Number("0.5"), nil},
		{"a fractional float64 is refused", 2.25, nil},
		{"a whole number past 2^53 written as an exponent is refused", json.Number("1e300"), nil},
		{"a JSON integer past 2^53 is refused", json.Number("9007199254740993"), nil},
		{"a string is refused", "5", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := NormalizeValue(stock, tc.in)
			if tc.want == nil {
				if err == nil {
					t.Fatalf("NormalizeValue(integer, %v): got %v, want an error", tc.in, got)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("NormalizeValue(integer, %v): got %v, %v, want %v", tc.in, got, err, tc.want)
			}
		})
	}
	t.Run("negative zero is stored as zero", func(t *testing.T) {
		got, err := NormalizeValue(stock, math.Copysign(0, -1))
		if f, ok := got.(float64); err != nil || !ok || math.Signbit(f) {
			t.Errorf("NormalizeValue(integer, -0): got %v, %v, want 0", got, err)
		}
	})
}
