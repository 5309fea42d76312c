package store

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
)

// Type changes. A field whose type changed keeps its column and its
// values when every stored value converts to the new type: each value is
// read as the old type reads it, converted (convertValue) and checked as
// a write of the new type would be (collections.NormalizeValue), so a
// converted value is one the API could have stored. One value that does
// not convert refuses the change (a *DriftError counting them, with a
// sample), before sync changes anything. The pairs kit converts:
//
//	string, text, image, file -> each other (the values are kept as they are)
//	string, text, image, file -> number, decimal, date (when every value parses)
//	number <-> integer        (integer: whole and within 2^53; see retypeNumber)
//	number, integer -> decimal(p,s), decimal -> decimal (within precision and scale)
//	decimal -> number         (when the double holds the value exactly)
//	number, decimal, boolean, date -> string, text (their JSON text; dates RFC 3339)
//	repeater, array -> json
//
// Any other change of type is refused (a *DriftError without rows).

// maxDriftSample bounds the values a type change's drift error shows.
const maxDriftSample = 5

// textStored reports whether values of t are plain strings (string, text,
// image, file): the same storage on every engine.
func textStored(t collections.FieldType) bool {
	return t.IsTextual() || t == collections.TypeImage || t == collections.TypeFile
}

// convertible reports whether kit converts values of type from to type to
// in place (see the list above).
func convertible(from, to collections.FieldType) bool {
	switch {
	case textStored(to):
		return !from.IsStructured()
	case textStored(from):
		return to == collections.TypeNumber || to == collections.TypeDecimal || to == collections.TypeDate
	case to == collections.TypeNumber || to == collections.TypeDecimal:
		return from == collections.TypeNumber || from == collections.TypeDecimal
	case to == collections.TypeJSON:
		return from.IsStructured()
	}
	return false
}

// attributeOfLabel is the attribute a stored column of type label (see
// typeLabel) held for a: a's name and column with the old type and, for a
// decimal, its precision and scale. false when label is not a type label.
func attributeOfLabel(a *collections.Attribute, label string) (*collections.Attribute, bool) {
	f := collections.Field{Name: a.Name}
	switch {
	case label == integerLabel:
		f.Type, f.Meta.Integer = collections.TypeNumber, true
	case strings.HasPrefix(label, "decimal("):
		if _, err := fmt.Sscanf(label, "decimal(%d,%d)", &f.Meta.Precision, &f.Meta.Scale); err != nil {
			return nil, false
		}
		f.Type = collections.TypeDecimal
	default:
		f.Type = collections.FieldType(label)
		if !f.Type.Valid() {
			return nil, false
		}
	}
	return &collections.Attribute{Name: a.Name, Type: f.Type, Column: a.Column, Field: &f}, true
}

// convertValue converts v, a canonical value of from, to the canonical
// value of to, or says why it cannot.
func convertValue(from, to *collections.Attribute, v any) (any, error) {
	switch {
	case textStored(to.Type) && !textStored(from.Type):
		v = textOf(v)
	case to.Type == collections.TypeNumber && from.Type == collections.TypeDecimal:
		f, err := exactFloat(v.(string), from)
		if err != nil {
			return nil, err
		}
		v = f
	case to.Type == collections.TypeNumber && textStored(from.Type):
		f, err := strconv.ParseFloat(v.(string), 64)
		if err != nil || math.IsInf(f, 0) {
			return nil, fmt.Errorf("must be a number")
		}
		v = f
	}
	return collections.NormalizeValue(to.Field, v)
}

// textOf is the text a number, decimal, boolean or date becomes: what the
// API answers for it, without JSON's quotes.
func textOf(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// exactFloat is the double of the canonical decimal s when it holds s
// exactly.
func exactFloat(s string, a *collections.Attribute) (float64, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err == nil {
		back, perr := collections.ParseDecimal(strconv.FormatFloat(f, 'f', -1, 64), a.Field.Meta.Precision, a.Field.Meta.Scale)
		if perr == nil && back == s {
			return f, nil
		}
	}
	return 0, fmt.Errorf("is not exactly a number (a double): keep it a decimal")
}

// conversion is a planned type change of one column: the new stored
// value of every row whose value changes.
type conversion struct {
	a    *collections.Attribute
	from *collections.Attribute
	// total is the number of non-null values; rows the ones to write.
	total int
	rows  []convertedRow
	// retype: the column's SQL type changes with it.
	retype bool
}

// convertedRow is one row's new stored value.
type convertedRow struct {
	id string
	v  any
}

// planConversion reads the stored values of a's column (old, its stored
// definition) and converts each to a's type. It returns a *DriftError,
// having changed nothing, when kit does not convert the old type to the
// new one, or when a value does not convert.
func (s *Store) planConversion(ctx context.Context, tx bun.Tx, c *collections.Collection, a *collections.Attribute, old columnDef) (*conversion, error) {
	label := typeLabel(a)
	drift := &DriftError{Collection: c.Key(), Field: a.Name, OldType: old.Type, NewType: label}
	from, ok := attributeOfLabel(a, old.Type)
	if !ok || !convertible(from.Type, a.Type) {
		return nil, drift
	}
	rows, err := s.queryOnce(ctx, tx, `SELECT "id", `+quote(a.Column)+" FROM "+quote(c.Table())+" WHERE "+quote(a.Column)+` IS NOT NULL ORDER BY "id"`)
	if err != nil {
		return nil, fmt.Errorf("store: read %s.%s: %w", c.Table(), a.Column, err)
	}
	defer rows.Close()
	conv := &conversion{a: a, from: from, retype: s.dialect.columnType(from) != s.dialect.columnType(a)}
	// Between number and integer no value is written (retypeNumber).
	numeric := isNumberLabel(old.Type) && isNumberLabel(label)
	for rows.Next() {
		var id string
		var raw any
		if err := rows.Scan(&id, &raw); err != nil {
			return nil, fmt.Errorf("store: read %s.%s: %w", c.Table(), a.Column, err)
		}
		conv.total++
		stored, err := s.convertStored(from, a, raw)
		if err != nil {
			drift.Rows++
			if len(drift.Sample) < maxDriftSample {
				drift.Sample = append(drift.Sample, collections.DriftValue{ID: id, Value: shownValue(s.dialect, from, raw), Problem: err.Error()})
			}
			continue
		}
		if !numeric && (conv.retype || !sameStored(raw, stored)) {
			conv.rows = append(conv.rows, convertedRow{id, stored})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: read %s.%s: %w", c.Table(), a.Column, err)
	}
	if drift.Rows > 0 {
		drift.Total = conv.total
		return nil, drift
	}
	return conv, nil
}

// convertStored turns raw, a stored value of from, into the stored value
// of to.
func (s *Store) convertStored(from, to *collections.Attribute, raw any) (any, error) {
	v, err := decode(s.dialect, from, raw)
	if err != nil {
		return nil, fmt.Errorf("cannot be read as %s", from.Type)
	}
	if v, err = convertValue(from, to, v); err != nil {
		return nil, err
	}
	return encode(s.dialect, to, v)
}

// shownValue is a stored value of a as JSON, for a drift error's sample.
func shownValue(d sqlDialect, a *collections.Attribute, raw any) string {
	v, err := decode(d, a, raw)
	if err != nil {
		v = fmt.Sprint(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// sameStored reports whether a stored value read back (raw) equals the
// value to store.
func sameStored(raw, v any) bool {
	if b, ok := raw.([]byte); ok {
		raw = string(b)
	}
	return raw == v
}

// applyConversion changes the column of cv.a to its new type and writes
// the converted values. Between number and integer the column is changed
// by retypeNumber (its values stay as they are); otherwise, when the SQL
// type changes, the column is emptied as the new type (its indexes go
// first; sync makes them again) and every value written anew, else only
// the values that change are written.
func (s *Store) applyConversion(ctx context.Context, tx bun.Tx, c *collections.Collection, cv *conversion, have tableDef) error {
	if isNumberLabel(typeLabel(cv.from)) && isNumberLabel(typeLabel(cv.a)) {
		return s.retypeNumber(ctx, tx, c, cv.a, typeLabel(cv.a))
	}
	if cv.retype {
		if err := s.dropIndexesOn(ctx, tx, cv.a.Column, have); err != nil {
			return err
		}
		for _, q := range s.dialect.retypeColumnSQL(c.Table(), cv.a.Column, columnType(s.dialect, cv.a), s.columnSQL(c, cv.a, false)) {
			if _, err := s.execOnce(ctx, tx, q); err != nil {
				return fmt.Errorf("store: change the type of %s.%s: %w", c.Table(), cv.a.Column, err)
			}
		}
	}
	if err := s.updateByID(ctx, tx, c.Table(), cv.a.Column, columnType(s.dialect, cv.a), cv.rows); err != nil {
		return fmt.Errorf("store: convert %s.%s: %w", c.Table(), cv.a.Column, err)
	}
	return nil
}

// updateByID sets column col of table, of SQL type typ, to each row's
// value, as many rows a statement as a bulk insert writes
// (bulkRowsPerStatement), not a statement (and a round trip) per row.
func (s *Store) updateByID(ctx context.Context, tx bun.Tx, table, col, typ string, rows []convertedRow) error {
	per := s.dialect.bulkRowsPerStatement()
	for start := 0; start < len(rows); start += per {
		chunk := rows[start:min(start+per, len(rows))]
		args := make([]any, 0, 2*len(chunk))
		for _, r := range chunk {
			args = append(args, r.id, r.v)
		}
		row := "(?, " + s.dialect.castValue("?", typ) + "), "
		q := "WITH kit_v (id, v) AS (VALUES " + strings.TrimSuffix(strings.Repeat(row, len(chunk)), ", ") + ")" +
			" UPDATE " + quote(table) + " SET " + quote(col) + " = kit_v.v FROM kit_v WHERE " + quote(table) + `."id" = kit_v.id`
		if _, err := s.execOnce(ctx, tx, q, args...); err != nil {
			return err
		}
	}
	return nil
}
