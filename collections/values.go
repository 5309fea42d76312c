package collections

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Canonical values. After validation a record holds, per field type:
//
//	string, text, image, file  string, in Unicode NFC
//	number                     float64
//	decimal                    string, canonical ("10.50" for scale 2)
//	boolean                    bool
//	date                       time.Time in UTC, microsecond precision
//	json, repeater, array      the decoded JSON value (map, slice, ...)
//
// and nil for null.

// NormalizeValue checks v against the field's type and returns its
// canonical value. Numbers may come as float64, any Go integer or
// json.Number; dates as RFC 3339 or YYYY-MM-DD strings or time.Time.
// Strings of the text-stored types (string, text, image, file) are
// returned in Unicode normalization form C, so that "é" typed as one code
// point or as "e" and a combining accent is stored, compared and kept
// unique as one value. The error text is a public, per-field message
// ("must be a number").
func NormalizeValue(f *Field, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch f.Type {
	case TypeString, TypeText, TypeImage, TypeFile:
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("must be a string")
		}
		if err := checkText(s); err != nil {
			return nil, err
		}
		if f.RefTarget != "" && s == "" {
			return nil, nil
		}
		return norm.NFC.String(s), nil
	case TypeNumber:
		if !exactInteger(v) {
			return nil, fmt.Errorf("must be an integer between -9007199254740992 and 9007199254740992 (2^53) to be stored exactly")
		}
		n, ok := toFloat(v)
		if !ok {
			return nil, fmt.Errorf("must be a number")
		}
		if f.Meta.Integer {
			if n != math.Trunc(n) || math.Abs(n) > maxExactInteger {
				return nil, errors.New(integerExpectation)
			}
			if n == 0 {
				n = 0 // -0 is 0
			}
			return n, nil
		}
		return n, nil
	case TypeDecimal:
		var s string
		switch x := v.(type) {
		case string:
			s = x
		case json.Number:
			s = x.String()
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("must be a decimal number")
			}
			s = strconv.FormatFloat(x, 'f', -1, 64)
		case float32:
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, fmt.Errorf("must be a decimal number")
			}
			s = strconv.FormatFloat(float64(x), 'f', -1, 32)
		default:
			i, ok := integerString(v)
			if !ok {
				return nil, fmt.Errorf("must be a decimal number as a string, like \"12.34\"")
			}
			s = i
		}
		return ParseDecimal(s, f.Meta.Precision, f.Meta.Scale)
	case TypeBoolean:
		b, ok := v.(bool)
		if !ok {
			return nil, fmt.Errorf("must be true or false")
		}
		return b, nil
	case TypeDate:
		switch x := v.(type) {
		case time.Time:
			return checkDate(x)
		case string:
			t, err := ParseDate(x)
			if err != nil {
				return nil, err
			}
			return t, nil
		}
		return nil, fmt.Errorf("must be a date string (RFC 3339 or YYYY-MM-DD)")
	case TypeJSON:
		return checkJSON(v)
	case TypeRepeater:
		arr, ok := asArray(v)
		if !ok {
			return nil, fmt.Errorf("must be an array of objects")
		}
		out, err := checkJSON(arr)
		if err != nil {
			return nil, err
		}
		for _, it := range out.([]any) {
			if _, ok := it.(map[string]any); !ok {
				return nil, fmt.Errorf("must be an array of objects")
			}
		}
		return out, nil
	case TypeArray:
		arr, ok := asArray(v)
		if !ok {
			return nil, fmt.Errorf("must be an array")
		}
		return checkJSON(arr)
	}
	return nil, fmt.Errorf("has unknown type %q", f.Type)
}

// checkJSON refuses NUL characters anywhere in a JSON document (PostgreSQL
// cannot store them in JSONB) and turns json.Number leaves into float64 so
// documents compare and encode the same on every engine.
func checkJSON(v any) (any, error) {
	switch x := v.(type) {
	case string:
		if err := checkText(x); err != nil {
			return nil, err
		}
	case json.Number:
		f, err := x.Float64()
		if err != nil || math.IsInf(f, 0) {
			return nil, fmt.Errorf("holds a number out of range")
		}
		return f, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if err := checkText(k); err != nil {
				return nil, err
			}
			n, err := checkJSON(e)
			if err != nil {
				return nil, err
			}
			out[k] = n
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			n, err := checkJSON(e)
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("holds a number out of range")
		}
	case bool, nil:
	default:
		// A Go value from host code: round-trip it through JSON.
		b, err := json.Marshal(x)
		if err != nil {
			return nil, fmt.Errorf("must be JSON-encodable")
		}
		var back any
		if err := json.Unmarshal(b, &back); err != nil {
			return nil, fmt.Errorf("must be JSON-encodable")
		}
		return checkJSON(back)
	}
	return v, nil
}

// asArray returns v as a []any: a []any as it is, a typed Go slice (a
// []string or []map[string]any from host code) through JSON.
func asArray(v any) ([]any, bool) {
	if arr, ok := v.([]any); ok {
		return arr, true
	}
	if rv := reflect.ValueOf(v); rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return nil, false
	}
	back, err := checkJSON(v)
	if err != nil {
		return nil, false
	}
	arr, ok := back.([]any)
	return arr, ok
}

// integerString formats any Go integer in base 10.
func integerString(v any) (string, bool) {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(rv.Int(), 10), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(rv.Uint(), 10), true
	}
	return "", false
}

// checkText refuses what PostgreSQL cannot store in text or JSONB: NUL
// bytes and invalid UTF-8 (Go callers can pass any bytes in a string).
func checkText(s string) error {
	if strings.IndexByte(s, 0) >= 0 {
		return fmt.Errorf("must not contain NUL bytes")
	}
	if !utf8.ValidString(s) {
		return fmt.Errorf("must be valid UTF-8 text")
	}
	return nil
}

func toFloat(v any) (float64, bool) {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case float32:
		f = float64(x)
	case json.Number:
		var err error
		if f, err = x.Float64(); err != nil {
			return 0, false
		}
	default:
		rv := reflect.ValueOf(v)
		switch rv.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			f = float64(rv.Int())
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			f = float64(rv.Uint())
		default:
			return 0, false
		}
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// ParseDate accepts RFC 3339 (any offset) or YYYY-MM-DD (midnight UTC) and
// returns the instant in UTC, truncated to microseconds (the precision
// every engine keeps). The year in UTC must be 1 to 9999, the range
// PostgreSQL, SQLite and RFC 3339 output share.
func ParseDate(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return checkDate(t)
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return checkDate(t)
	}
	return time.Time{}, fmt.Errorf("must be a date (RFC 3339 like 2026-01-02T15:04:05Z, or YYYY-MM-DD)")
}

// checkDate returns t in UTC to the microsecond, or an error when its year
// is outside 1..9999 ("9999-12-31T23:00:00-05:00" is in year 10000 in UTC,
// which time.Time.MarshalJSON refuses and databases cannot store).
func checkDate(t time.Time) (time.Time, error) {
	t = t.UTC().Truncate(time.Microsecond)
	if y := t.Year(); y < 1 || y > 9999 {
		return time.Time{}, fmt.Errorf("must be a date between the years 1 and 9999 (UTC)")
	}
	return t, nil
}

// ParseDecimal checks s against a decimal(precision, scale) and returns its
// canonical form: no leading zeros, exactly scale digits after the point
// ("9.9" with scale 2 is "9.90"), no "-0". Exponents are refused; more
// fractional digits than scale, or more integer digits than
// precision-scale, are errors, never silent rounding.
func ParseDecimal(s string, precision, scale int) (string, error) {
	neg, intPart, frac, ok := splitDecimal(s)
	if !ok {
		return "", fmt.Errorf("must be a decimal number like \"12.34\"")
	}
	frac = strings.TrimRight(frac, "0")
	if len(frac) > scale {
		return "", fmt.Errorf("must have at most %d digit(s) after the point", scale)
	}
	intPart = strings.TrimLeft(intPart, "0")
	if len(intPart) > precision-scale {
		return "", fmt.Errorf("must have at most %d digit(s) before the point (precision %d, scale %d)", precision-scale, precision, scale)
	}
	if intPart == "" {
		intPart = "0"
	}
	frac += strings.Repeat("0", scale-len(frac))
	if strings.Trim(intPart+frac, "0") == "" {
		neg = false
	}
	out := intPart
	if scale > 0 {
		out += "." + frac
	}
	if neg {
		out = "-" + out
	}
	return out, nil
}

func splitDecimal(s string) (neg bool, intPart, frac string, ok bool) {
	if s == "" || len(s) > 100 {
		return false, "", "", false
	}
	switch s[0] {
	case '-':
		neg, s = true, s[1:]
	case '+':
		s = s[1:]
	}
	intPart, frac, hasPoint := strings.Cut(s, ".")
	if intPart == "" && frac == "" || hasPoint && frac == "" && intPart == "" {
		return false, "", "", false
	}
	for _, part := range []string{intPart, frac} {
		for i := 0; i < len(part); i++ {
			if part[i] < '0' || part[i] > '9' {
				return false, "", "", false
			}
		}
	}
	if intPart == "" && !hasPoint {
		return false, "", "", false
	}
	return neg, intPart, frac, true
}

// integerExpectation is the public message for a value that an integer
// number field refuses.
const integerExpectation = "must be a whole number between -9007199254740992 and 9007199254740992 (2^53)"

// maxExactInteger is 2^53: every integer of at most this magnitude has an
// exact float64.
const maxExactInteger = 1 << 53

// exactInteger reports whether v, when it is an integer (a JSON literal
// without fraction or exponent, or a Go integer), lies within ±2^53, so
// storing it as a float64 keeps it exact. Other values report true: a
// fraction is stored as the nearest float64, as the number type says.
func exactInteger(v any) bool {
	switch x := v.(type) {
	case json.Number:
		lit := string(x)
		if strings.ContainsAny(lit, ".eE") {
			return true
		}
		n, err := strconv.ParseInt(lit, 10, 64)
		return err == nil && n >= -maxExactInteger && n <= maxExactInteger
	case int64:
		return x >= -maxExactInteger && x <= maxExactInteger
	case int:
		return int64(x) >= -maxExactInteger && int64(x) <= maxExactInteger
	case uint64:
		return x <= maxExactInteger
	case uint:
		return uint64(x) <= maxExactInteger
	}
	return true
}
