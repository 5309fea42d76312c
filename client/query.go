package client

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Query is a list request: the parameters of GET /teams/{team}/{apiPath}.
// The zero Query asks for the collection's default page.
type Query struct {
	// Page is 1-based; 0 leaves it to the server (1).
	Page int
	// PageSize is 1..100 on a default server; 0 leaves it to the
	// collection's default pagination (20).
	PageSize int
	// Search is a case-insensitive substring looked for in the
	// collection's string and text fields.
	Search string
	// Sort lists up to 4 fields, each prefixed with "-" for descending
	// ("-price", "title").
	Sort []string
	// Filter restricts the list; build it with [Where].
	Filter Filter
}

// Values returns the query as URL parameters, in kit's names. It fails
// only on a filter value JSON cannot encode.
func (q Query) Values() (url.Values, error) {
	v := url.Values{}
	if q.Page > 0 {
		v.Set("page", strconv.Itoa(q.Page))
	}
	if q.PageSize > 0 {
		v.Set("pageSize", strconv.Itoa(q.PageSize))
	}
	if q.Search != "" {
		v.Set("search", q.Search)
	}
	if len(q.Sort) > 0 {
		v.Set("sort", strings.Join(q.Sort, ","))
	}
	if !q.Filter.Empty() {
		b, err := q.Filter.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("kit client: filter: %w", err)
		}
		v.Set("filter", string(b))
	}
	return v, nil
}

// Op is a filter operator of kit's filter JSON.
type Op string

// The operators kit understands. Each applies only to the field types it
// fits: Contains and StartsWith to text; the orderings to text, numbers,
// decimals and dates; only Eq, Ne and IsNull to booleans; only IsNull to
// JSON fields. Ne and Nin include records where the field is null.
const (
	OpEq         Op = "eq"
	OpNe         Op = "ne"
	OpGt         Op = "gt"
	OpGte        Op = "gte"
	OpLt         Op = "lt"
	OpLte        Op = "lte"
	OpIn         Op = "in"
	OpNin        Op = "nin"
	OpContains   Op = "contains"
	OpStartsWith Op = "startsWith"
	OpIsNull     Op = "isNull"
)

// Filter is a list filter: conditions on fields, all of which a record
// must meet. It is immutable: each method returns a new Filter, so a
// Filter may be shared and extended. Its String is kit's filter JSON,
// {"price":{"gte":"10","lt":"20"},"isActive":{"eq":true}}. Values are
// sent as given: decimals as strings ("9.90"), dates as RFC 3339 or
// YYYY-MM-DD strings, or time.Time values.
type Filter struct {
	conds map[string]map[Op]any
}

// Where returns a Filter with one condition, field op value. With Eq or
// Ne and a nil value it is IsNull true or false.
func Where(field string, op Op, value any) Filter { return Filter{}.Where(field, op, value) }

// Where returns f with the condition field op value added; a second
// condition with the same field and operator replaces the first.
func (f Filter) Where(field string, op Op, value any) Filter {
	if value == nil && (op == OpEq || op == OpNe) {
		op, value = OpIsNull, op == OpEq
	}
	out := Filter{conds: make(map[string]map[Op]any, len(f.conds)+1)}
	for k, v := range f.conds {
		out.conds[k] = maps.Clone(v)
	}
	if out.conds[field] == nil {
		out.conds[field] = map[Op]any{}
	}
	out.conds[field][op] = value
	return out
}

// Eq adds field == value (nil: field is null).
func (f Filter) Eq(field string, value any) Filter { return f.Where(field, OpEq, value) }

// Ne adds field != value, null included (nil: field is not null).
func (f Filter) Ne(field string, value any) Filter { return f.Where(field, OpNe, value) }

// Gt adds field > value.
func (f Filter) Gt(field string, value any) Filter { return f.Where(field, OpGt, value) }

// Gte adds field >= value.
func (f Filter) Gte(field string, value any) Filter { return f.Where(field, OpGte, value) }

// Lt adds field < value.
func (f Filter) Lt(field string, value any) Filter { return f.Where(field, OpLt, value) }

// Lte adds field <= value.
func (f Filter) Lte(field string, value any) Filter { return f.Where(field, OpLte, value) }

// In adds "field is one of values" (1 to 100 values).
func (f Filter) In(field string, values ...any) Filter { return f.Where(field, OpIn, values) }

// Nin adds "field is none of values", null included.
func (f Filter) Nin(field string, values ...any) Filter { return f.Where(field, OpNin, values) }

// Contains adds "text field contains s" (case-sensitive).
func (f Filter) Contains(field, s string) Filter { return f.Where(field, OpContains, s) }

// StartsWith adds "text field starts with s".
func (f Filter) StartsWith(field, s string) Filter { return f.Where(field, OpStartsWith, s) }

// IsNull adds "field is null" (isNull true) or "field is not null".
func (f Filter) IsNull(field string, isNull bool) Filter { return f.Where(field, OpIsNull, isNull) }

// Empty reports whether f has no conditions.
func (f Filter) Empty() bool { return len(f.conds) == 0 }

// MarshalJSON writes kit's filter JSON, fields and operators in sorted
// order.
func (f Filter) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, field := range slices.Sorted(maps.Keys(f.conds)) {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(field)
		b.Write(k)
		b.WriteString(":{")
		ops := f.conds[field]
		for j, op := range slices.Sorted(maps.Keys(ops)) {
			if j > 0 {
				b.WriteByte(',')
			}
			o, _ := json.Marshal(string(op))
			v, err := json.Marshal(ops[op])
			if err != nil {
				return nil, err
			}
			b.Write(o)
			b.WriteByte(':')
			b.Write(v)
		}
		b.WriteByte('}')
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

// String returns kit's filter JSON ("{}" for no conditions, and for
// values JSON cannot encode).
func (f Filter) String() string {
	b, err := f.MarshalJSON()
	if err != nil {
		return "{}"
	}
	return string(b)
}
