package store

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/collectionkit/kit/collections"
)

// sqliteTime is the fixed-width UTC layout dates are stored in on SQLite,
// so text order is time order.
const sqliteTime = "2006-01-02T15:04:05.000000Z"

// columnType is the SQL type of an attribute on a dialect.
func columnType(d sqlDialect, a *collections.Attribute) string { return d.columnType(a) }

// encode turns a canonical value into the value stored on the dialect.
func encode(d sqlDialect, a *collections.Attribute, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch a.Type {
	case collections.TypeNumber:
		if f, ok := v.(float64); ok && a.WholeNumber() {
			// Whole and within 2^53 (collections.NormalizeValue).
			return int64(f), nil
		}
	case collections.TypeDecimal:
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("store: decimal %s: got %T", a.Name, v)
		}
		return d.encodeDecimal(a, s), nil
	case collections.TypeBoolean:
		b, ok := v.(bool)
		if !ok {
			return nil, fmt.Errorf("store: boolean %s: got %T", a.Name, v)
		}
		return d.encodeBool(b), nil
	case collections.TypeDate:
		t, ok := v.(time.Time)
		if !ok {
			return nil, fmt.Errorf("store: date %s: got %T", a.Name, v)
		}
		return d.encodeDate(t), nil
	case collections.TypeJSON, collections.TypeRepeater, collections.TypeArray:
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("store: json %s: %w", a.Name, err)
		}
		return string(b), nil
	}
	return v, nil
}

// decode turns a driver value into the canonical value. A value that is
// canonical already is returned as it came (v itself, not a copy of its
// contents: boxing a string or a float64 again would allocate, per column
// of every row read).
func decode(d sqlDialect, a *collections.Attribute, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	if b, ok := v.([]byte); ok {
		v = string(b)
	}
	switch a.Type {
	case collections.TypeNumber:
		switch x := v.(type) {
		case float64:
			return v, nil
		case int64:
			return float64(x), nil
		case string:
			return strconv.ParseFloat(x, 64)
		}
	case collections.TypeDecimal:
		s, ok := v.(string)
		if !ok {
			if f, isF := v.(float64); isF {
				s = strconv.FormatFloat(f, 'f', -1, 64)
			} else {
				return nil, fmt.Errorf("store: decimal %s: got %T", a.Name, v)
			}
		}
		return d.decodeDecimal(a, s)
	case collections.TypeBoolean:
		switch x := v.(type) {
		case bool:
			return x, nil
		case int64:
			return x != 0, nil
		}
	case collections.TypeDate:
		switch x := v.(type) {
		case time.Time:
			return x.UTC(), nil
		case string:
			if t, ok := parseSQLiteTime(x); ok {
				return t, nil
			}
			if t, err := time.Parse(sqliteTime, x); err == nil {
				return t, nil
			}
			return collections.ParseDate(x)
		}
	case collections.TypeJSON, collections.TypeRepeater, collections.TypeArray:
		s, ok := v.(string)
		if !ok {
			return v, nil
		}
		var out any
		if err := json.Unmarshal([]byte(s), &out); err != nil {
			return nil, fmt.Errorf("store: json %s: %w", a.Name, err)
		}
		return out, nil
	default:
		if _, ok := v.(string); ok {
			return v, nil
		}
		return fmt.Sprint(v), nil
	}
	return nil, fmt.Errorf("store: %s %s: unexpected %T", a.Type, a.Name, v)
}

// decimalKey encodes a canonical decimal as text whose byte order is its
// numeric order: "p" then the integer digits zero-padded to
// precision-scale and the fraction for positives; "n" then the nines'
// complement of the same digits for negatives ('n' < 'p').
func decimalKey(s string, precision, scale int) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, frac, _ := strings.Cut(s, ".")
	// The canonical form writes a zero integer part as "0"; it is padding
	// here, and with scale == precision (width 0) it must not be a digit at
	// all, or the key is one byte too long to decode.
	intPart = strings.TrimLeft(intPart, "0")
	width := precision - scale
	digits := strings.Repeat("0", max(0, width-len(intPart))) + intPart + frac
	if !neg {
		return "p" + digits
	}
	b := []byte(digits)
	for i, c := range b {
		b[i] = '9' - c + '0'
	}
	return "n" + string(b)
}

// decimalFromKey inverts decimalKey.
func decimalFromKey(key string, precision, scale int) (string, error) {
	if len(key) != 1+precision || key[0] != 'p' && key[0] != 'n' {
		// Not a key: a value written by hand; accept plain decimals.
		return collections.ParseDecimal(key, precision, scale)
	}
	digits := []byte(key[1:])
	neg := key[0] == 'n'
	if neg {
		for i, c := range digits {
			digits[i] = '9' - c + '0'
		}
	}
	width := precision - scale
	s := strings.TrimLeft(string(digits[:width]), "0")
	if s == "" {
		s = "0"
	}
	if scale > 0 {
		s += "." + string(digits[width:])
	}
	if neg {
		s = "-" + s
	}
	return s, nil
}

// parseSQLiteTime parses s in the sqliteTime layout without time.Parse's
// general machinery: ok is true exactly when s is a valid time in that
// layout (digits where the layout has them, every field in its range),
// and t is then what time.Parse(sqliteTime, s) returns.
func parseSQLiteTime(s string) (t time.Time, ok bool) {
	if len(s) != len(sqliteTime) || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[19] != '.' || s[26] != 'Z' {
		return time.Time{}, false
	}
	num := func(from, to int) int {
		n := 0
		for i := from; i < to; i++ {
			c := s[i]
			if c < '0' || c > '9' {
				return -1
			}
			n = n*10 + int(c-'0')
		}
		return n
	}
	year, month, day := num(0, 4), num(5, 7), num(8, 10)
	hour, minute, sec, micro := num(11, 13), num(14, 16), num(17, 19), num(20, 26)
	if year < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || sec < 0 || sec > 59 || micro < 0 {
		return time.Time{}, false
	}
	t = time.Date(year, time.Month(month), day, hour, minute, sec, micro*1000, time.UTC)
	if t.Day() != day { // day past the month's end, which time.Date carries over
		return time.Time{}, false
	}
	return t, true
}
