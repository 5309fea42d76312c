package collections

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Op is a filter operator.
type Op string

// The filter operators. A bare value in a filter ({"field": value}) is Eq;
// null is IsNull true.
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

// QueryLimits bounds what one list request may ask for. Zero fields take
// the defaults in parentheses, those of [DefaultQueryLimits].
type QueryLimits struct {
	MaxPageSize    int // (100)
	MaxFilterBytes int // (4096)
	MaxConditions  int // (50)
	MaxInValues    int // (100), also the most ids one request may name
	MaxSortKeys    int // (4)
	MaxSearchBytes int // (256)
}

// DefaultQueryLimits returns the limits a zero QueryLimits field stands
// for. It is the one place they are set.
func DefaultQueryLimits() QueryLimits {
	return QueryLimits{
		MaxPageSize:    100,
		MaxFilterBytes: 4096,
		MaxConditions:  50,
		MaxInValues:    100,
		MaxSortKeys:    4,
		MaxSearchBytes: 256,
	}
}

// WithDefaults returns l with every field that is zero or negative set to
// its default from [DefaultQueryLimits]. The result has no zero field.
func (l QueryLimits) WithDefaults() QueryLimits {
	d := DefaultQueryLimits()
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.MaxPageSize, d.MaxPageSize)
	def(&l.MaxFilterBytes, d.MaxFilterBytes)
	def(&l.MaxConditions, d.MaxConditions)
	def(&l.MaxInValues, d.MaxInValues)
	def(&l.MaxSortKeys, d.MaxSortKeys)
	def(&l.MaxSearchBytes, d.MaxSearchBytes)
	return l
}

// ListQuery is a validated list request. Every field name in it is an
// attribute of the collection it was parsed for, and every value has the
// attribute's canonical type.
type ListQuery struct {
	Page     int
	PageSize int
	// Search is a case-insensitive substring looked for in every string and
	// text field, in Unicode NFC as stored values are; "%" and "_" in it
	// are literal.
	Search string
	// Sort always ends with id, so pages never overlap.
	Sort   []SortKey
	Filter []Condition
	// IDs restricts the list to these record ids.
	IDs []string
}

// SortKey is one ORDER BY key.
type SortKey struct {
	Attr *Attribute
	Desc bool
}

// Condition is one filter condition. Value is canonical for the
// attribute's type; for In and Nin it is a []any; for IsNull a bool.
type Condition struct {
	Attr  *Attribute
	Op    Op
	Value any
}

// Offset is the number of rows before the page.
func (q ListQuery) Offset() int { return (q.Page - 1) * q.PageSize }

// SortBy and SortDirection describe the first sort key for pagination data.
func (q ListQuery) SortBy() (string, string) {
	if len(q.Sort) == 0 {
		return "", ""
	}
	if q.Sort[0].Desc {
		return q.Sort[0].Attr.Name, "desc"
	}
	return q.Sort[0].Attr.Name, "asc"
}

// QueryError reports a bad list parameter. It answers HTTP 400.
type QueryError struct {
	// Param is the query parameter at fault ("page", "filter", ...).
	Param string
	// Message says what is wrong.
	Message string
}

// Error returns "invalid <param>: <message>".
func (e *QueryError) Error() string { return "invalid " + e.Param + ": " + e.Message }

// HTTPStatus is 400.
func (e *QueryError) HTTPStatus() int { return 400 }

// ErrorData names the parameter.
func (e *QueryError) ErrorData() any { return map[string]any{"param": e.Param} }

// Unwrap lets errors.Is(err, ErrBadQuery) match.
func (e *QueryError) Unwrap() error { return ErrBadQuery }

func qerr(param, format string, args ...any) *QueryError {
	return &QueryError{Param: param, Message: fmt.Sprintf(format, args...)}
}

// ParseListQuery validates list parameters: page, pageSize or limit,
// search, sort (or sortBy and sortDirection), filter and ids. Defaults
// come from the collection's defaultPagination, else page 1 of 20 newest
// first. Unknown parameters are ignored (hosts add their own).
func (c *Collection) ParseListQuery(v url.Values, lim QueryLimits) (ListQuery, error) {
	lim = lim.WithDefaults()
	q := ListQuery{Page: 1, PageSize: 20}
	if p := c.config.DefaultPagination; p != nil {
		if p.CurrentPage > 0 {
			q.Page = p.CurrentPage
		}
		if p.PageSize > 0 {
			q.PageSize = min(p.PageSize, lim.MaxPageSize)
		}
	}
	if s, ok := single(v, "page"); ok {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return q, qerr("page", "must be a whole number of at least 1")
		}
		if n > 1_000_000 {
			return q, qerr("page", "must be at most 1000000")
		}
		q.Page = n
	}
	size, sizeParam, err := pageSize(v)
	if err != nil {
		return q, err
	}
	if sizeParam != "" {
		n, err := strconv.Atoi(size)
		if err != nil || n < 1 {
			return q, qerr(sizeParam, "must be a whole number of at least 1")
		}
		if n > lim.MaxPageSize {
			return q, qerr(sizeParam, "must be at most %d", lim.MaxPageSize)
		}
		q.PageSize = n
	}
	if s, ok := single(v, "search"); ok {
		if len(s) > lim.MaxSearchBytes {
			return q, qerr("search", "must be at most %d bytes", lim.MaxSearchBytes)
		}
		if err := checkText(s); err != nil {
			return q, qerr("search", "%s", err)
		}
		q.Search = norm.NFC.String(strings.TrimSpace(s))
	}
	if q.Sort, err = c.parseSort(v, lim); err != nil {
		return q, err
	}
	if s, ok := single(v, "filter"); ok && s != "" {
		if q.Filter, err = c.parseFilter(s, lim); err != nil {
			return q, err
		}
	}
	if s, ok := single(v, "ids"); ok {
		if q.IDs, err = ParseIDs(s, lim.MaxInValues); err != nil {
			return q, err
		}
	}
	for _, p := range []string{"page", "pageSize", "limit", "search", "sort", "sortBy", "sortDirection", "filter", "ids"} {
		if len(v[p]) > 1 {
			return q, qerr(p, "must be given once")
		}
	}
	return q, nil
}

func single(v url.Values, key string) (string, bool) {
	vals, ok := v[key]
	if !ok || len(vals) == 0 {
		return "", false
	}
	return vals[0], true
}

func pageSize(v url.Values) (string, string, error) {
	ps, hasPS := single(v, "pageSize")
	l, hasL := single(v, "limit")
	switch {
	case hasPS && hasL && ps != l:
		return "", "", qerr("limit", "conflicts with pageSize (they are aliases; give one)")
	case hasPS:
		return ps, "pageSize", nil
	case hasL:
		return l, "limit", nil
	}
	return "", "", nil
}

// ParseIDs splits a comma-separated id list: at most max ids, none empty,
// each at most 128 bytes without NUL; duplicates are dropped, order kept.
func ParseIDs(s string, max int) ([]string, error) {
	if max <= 0 {
		max = 100
	}
	parts := strings.Split(s, ",")
	if len(parts) > max {
		return nil, qerr("ids", "must name at most %d ids", max)
	}
	out := make([]string, 0, len(parts))
	seen := make(map[string]bool, len(parts))
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			return nil, qerr("ids", "must be a comma-separated list of ids without empty entries")
		}
		if len(p) > 128 || checkText(p) != nil {
			return nil, qerr("ids", "holds an id that is too long or not text")
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out, nil
}

func (c *Collection) parseSort(v url.Values, lim QueryLimits) ([]SortKey, error) {
	var keys []SortKey
	sortParam, hasSort := single(v, "sort")
	sortBy, hasBy := single(v, "sortBy")
	dir, hasDir := single(v, "sortDirection")
	if hasDir && dir != "asc" && dir != "desc" {
		return nil, qerr("sortDirection", "must be asc or desc")
	}
	switch {
	case hasSort && hasBy:
		return nil, qerr("sortBy", "conflicts with sort (give one)")
	case hasSort && sortParam != "":
		parts := strings.Split(sortParam, ",")
		if len(parts) > lim.MaxSortKeys {
			return nil, qerr("sort", "takes at most %d keys", lim.MaxSortKeys)
		}
		seen := map[string]bool{}
		for _, p := range parts {
			desc := strings.HasPrefix(p, "-")
			name := strings.TrimPrefix(strings.TrimPrefix(p, "-"), "+")
			a, err := c.sortAttr("sort", name)
			if err != nil {
				return nil, err
			}
			if seen[name] {
				return nil, qerr("sort", "names %q twice", name)
			}
			seen[name] = true
			keys = append(keys, SortKey{Attr: a, Desc: desc})
		}
	case hasBy && sortBy != "":
		a, err := c.sortAttr("sortBy", sortBy)
		if err != nil {
			return nil, err
		}
		keys = append(keys, SortKey{Attr: a, Desc: dir == "desc"})
	default:
		name, desc := c.DefaultSort()
		if hasDir {
			desc = dir == "desc"
		}
		a, ok := c.Attribute(name)
		if !ok {
			a = c.attrs["id"]
		}
		keys = append(keys, SortKey{Attr: a, Desc: desc})
	}
	if last := keys[len(keys)-1]; last.Attr.Name != "id" {
		hasID := false
		for _, k := range keys {
			hasID = hasID || k.Attr.Name == "id"
		}
		if !hasID {
			keys = append(keys, SortKey{Attr: c.attrs["id"], Desc: last.Desc})
		}
	}
	return keys, nil
}

func (c *Collection) sortAttr(param, name string) (*Attribute, error) {
	a, ok := c.attrs[name]
	if !ok {
		return nil, qerr(param, "unknown field %q", truncate(name))
	}
	if !a.Sortable() {
		return nil, qerr(param, "field %q (%s) cannot be sorted", name, a.Type)
	}
	return a, nil
}

func truncate(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}

// FilterOps lists the filter operators a field of type t accepts, in the
// order of the Op constants (a fresh slice). Equality with null, the
// isNull test, applies to every type.
func (t FieldType) FilterOps() []Op { return opsFor(t) }

// opsFor lists the operators that fit a type.
func opsFor(t FieldType) []Op {
	switch {
	case t.IsTextual() || t == TypeImage || t == TypeFile:
		return []Op{OpEq, OpNe, OpGt, OpGte, OpLt, OpLte, OpIn, OpNin, OpContains, OpStartsWith, OpIsNull}
	case t == TypeNumber || t == TypeDecimal || t == TypeDate:
		return []Op{OpEq, OpNe, OpGt, OpGte, OpLt, OpLte, OpIn, OpNin, OpIsNull}
	case t == TypeBoolean:
		return []Op{OpEq, OpNe, OpIsNull}
	}
	return []Op{OpIsNull}
}

func (c *Collection) parseFilter(s string, lim QueryLimits) ([]Condition, error) {
	if len(s) > lim.MaxFilterBytes {
		return nil, qerr("filter", "must be at most %d bytes", lim.MaxFilterBytes)
	}
	if !utf8.ValidString(s) {
		// Decoding would turn the bytes into U+FFFD and match that.
		return nil, qerr("filter", "is not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.UseNumber()
	var raw any
	if err := dec.Decode(&raw); err != nil {
		return nil, qerr("filter", "must be a JSON object: %s", jsonErrText(err))
	}
	if _, err := dec.Token(); err != io.EOF {
		// More() would let a stray "}" or "]" after the object through.
		return nil, qerr("filter", "must be one JSON object")
	}
	obj, ok := raw.(map[string]any)
	if !ok {
		return nil, qerr("filter", "must be a JSON object like {\"field\": value}")
	}
	var conds []Condition
	for _, name := range sortedKeys(obj) {
		a, ok := c.attrs[name]
		if !ok {
			return nil, qerr("filter", "unknown field %q", truncate(name))
		}
		val := obj[name]
		ops, isOps := val.(map[string]any)
		if !isOps || a.Type == TypeJSON && !looksLikeOps(ops) {
			cond, err := c.condition(a, OpEq, val, lim)
			if err != nil {
				return nil, err
			}
			conds = append(conds, cond)
			continue
		}
		if len(ops) == 0 {
			return nil, qerr("filter", "field %q has an empty operator object", name)
		}
		opNames := sortedKeys(ops)
		sort.Strings(opNames)
		for _, op := range opNames {
			cond, err := c.condition(a, Op(op), ops[op], lim)
			if err != nil {
				return nil, err
			}
			conds = append(conds, cond)
		}
		if len(conds) > lim.MaxConditions {
			break
		}
	}
	if len(conds) > lim.MaxConditions {
		return nil, qerr("filter", "has %d conditions; at most %d are allowed", len(conds), lim.MaxConditions)
	}
	return conds, nil
}

func looksLikeOps(m map[string]any) bool {
	for k := range m {
		switch Op(k) {
		case OpEq, OpNe, OpGt, OpGte, OpLt, OpLte, OpIn, OpNin, OpContains, OpStartsWith, OpIsNull:
		default:
			return false
		}
	}
	return len(m) > 0
}

func jsonErrText(err error) string {
	if se, ok := err.(*json.SyntaxError); ok {
		return fmt.Sprintf("syntax error at byte %d", se.Offset)
	}
	return "malformed JSON"
}

// condition checks that op fits the attribute and turns the value into the
// attribute's canonical type.
func (c *Collection) condition(a *Attribute, op Op, val any, lim QueryLimits) (Condition, error) {
	// Equality with null is a null test, which every type supports (a json
	// field takes {"field": null} though it has no eq).
	if op == OpEq && val == nil {
		return Condition{Attr: a, Op: OpIsNull, Value: true}, nil
	}
	if op == OpNe && val == nil {
		return Condition{Attr: a, Op: OpIsNull, Value: false}, nil
	}
	allowed := false
	for _, o := range opsFor(a.Type) {
		allowed = allowed || o == op
	}
	if !allowed {
		if !looksLikeOps(map[string]any{string(op): nil}) {
			return Condition{}, qerr("filter", "unknown operator %q on field %q", truncate(string(op)), a.Name)
		}
		return Condition{}, qerr("filter", "operator %q does not apply to %s field %q", op, a.Type, a.Name)
	}
	switch op {
	case OpIsNull:
		b, ok := val.(bool)
		if !ok {
			return Condition{}, qerr("filter", "isNull on %q takes true or false", a.Name)
		}
		return Condition{Attr: a, Op: op, Value: b}, nil
	case OpIn, OpNin:
		arr, ok := val.([]any)
		if !ok || len(arr) == 0 {
			return Condition{}, qerr("filter", "%s on %q takes a non-empty array", op, a.Name)
		}
		if len(arr) > lim.MaxInValues {
			return Condition{}, qerr("filter", "%s on %q takes at most %d values", op, a.Name, lim.MaxInValues)
		}
		out := make([]any, len(arr))
		for i, e := range arr {
			v, err := filterValue(a, e)
			if err != nil {
				return Condition{}, qerr("filter", "%s on %q: value %d %s", op, a.Name, i+1, err)
			}
			out[i] = v
		}
		return Condition{Attr: a, Op: op, Value: out}, nil
	case OpContains, OpStartsWith:
		s, ok := val.(string)
		if !ok || strings.IndexByte(s, 0) >= 0 {
			return Condition{}, qerr("filter", "%s on %q takes a string", op, a.Name)
		}
		// Stored text is in NFC (NormalizeValue): so is the part looked for.
		return Condition{Attr: a, Op: op, Value: norm.NFC.String(s)}, nil
	}
	v, err := filterValue(a, val)
	if err != nil {
		return Condition{}, qerr("filter", "%s on %q: value %s", op, a.Name, err)
	}
	return Condition{Attr: a, Op: op, Value: v}, nil
}

func filterValue(a *Attribute, v any) (any, error) {
	if v == nil {
		return nil, fmt.Errorf("must not be null")
	}
	f := a.Field
	if f == nil {
		f = &Field{Name: a.Name, Type: a.Type}
	} else if f.RefTarget != "" {
		cp := *f
		cp.RefTarget = ""
		f = &cp
	}
	n, err := NormalizeValue(f, v)
	if err != nil {
		return nil, err
	}
	return n, nil
}
