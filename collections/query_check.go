package collections

import (
	"reflect"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// CheckListQuery validates a list query built in Go, as ParseListQuery
// validates list parameters, and returns it complete:
//
//   - Page 0 and PageSize 0 take the collection's defaultPagination, else
//     page 1 of 20; a negative Page or PageSize, a Page over 1000000 or a
//     PageSize over lim.MaxPageSize is an error naming "page" or
//     "pageSize";
//   - Search is trimmed and put in NFC; over lim.MaxSearchBytes or not
//     text is an error naming "search";
//   - Sort nil takes the collection's default sort; each key must name a
//     sortable attribute of c, once; id is appended unless present, so
//     pages never overlap ("sort");
//   - each Filter condition must name an attribute of c with an operator
//     that applies to its type, and its Value is made canonical: Go
//     numbers, strings, booleans and times as Create takes them, any
//     slice for OpIn and OpNin, a bool for OpIsNull; OpEq and OpNe with a
//     nil Value are null tests ("filter");
//   - IDs nil lists every record; otherwise they are trimmed, at least
//     one and at most lim.MaxInValues, none empty, duplicates dropped
//     ("ids"): an empty non-nil IDs is an error rather than every record.
//
// Attributes are looked up by their Name in c, so the ones from
// [Collection.Attribute] of an earlier registry of the same collection
// serve too. The errors are *QueryError, as ParseListQuery's.
func (c *Collection) CheckListQuery(q ListQuery, lim QueryLimits) (ListQuery, error) {
	lim = lim.WithDefaults()
	def, err := c.ParseListQuery(nil, lim)
	if err != nil {
		return q, err
	}
	out := ListQuery{Page: def.Page, PageSize: def.PageSize}
	switch {
	case q.Page < 0:
		return q, qerr("page", "must be a whole number of at least 1")
	case q.Page > 1_000_000:
		return q, qerr("page", "must be at most 1000000")
	case q.Page > 0:
		out.Page = q.Page
	}
	switch {
	case q.PageSize < 0:
		return q, qerr("pageSize", "must be a whole number of at least 1")
	case q.PageSize > lim.MaxPageSize:
		return q, qerr("pageSize", "must be at most %d", lim.MaxPageSize)
	case q.PageSize > 0:
		out.PageSize = q.PageSize
	}
	if q.Search != "" {
		if len(q.Search) > lim.MaxSearchBytes {
			return q, qerr("search", "must be at most %d bytes", lim.MaxSearchBytes)
		}
		if err := checkText(q.Search); err != nil {
			return q, qerr("search", "%s", err)
		}
		out.Search = norm.NFC.String(strings.TrimSpace(q.Search))
	}
	if out.Sort, err = c.checkSort(q.Sort, def.Sort, lim); err != nil {
		return q, err
	}
	if len(q.Filter) > lim.MaxConditions {
		return q, qerr("filter", "has %d conditions; at most %d are allowed", len(q.Filter), lim.MaxConditions)
	}
	for _, cond := range q.Filter {
		if cond.Attr == nil {
			return q, qerr("filter", "a condition names no attribute")
		}
		a, ok := c.attrs[cond.Attr.Name]
		if !ok {
			return q, qerr("filter", "unknown field %q", truncate(cond.Attr.Name))
		}
		val := cond.Value
		if cond.Op == OpIn || cond.Op == OpNin {
			val = anySlice(val)
		}
		checked, err := c.condition(a, cond.Op, val, lim)
		if err != nil {
			return q, err
		}
		out.Filter = append(out.Filter, checked)
	}
	if q.IDs != nil {
		if len(q.IDs) == 0 {
			return q, qerr("ids", "must name at least one id")
		}
		for _, id := range q.IDs {
			if strings.Contains(id, ",") {
				return q, qerr("ids", "holds an id with a comma")
			}
		}
		if out.IDs, err = ParseIDs(strings.Join(q.IDs, ","), lim.MaxInValues); err != nil {
			return q, err
		}
	}
	return out, nil
}

// checkSort validates sort keys built in Go; none gives def, the default
// sort ParseListQuery chose.
func (c *Collection) checkSort(keys, def []SortKey, lim QueryLimits) ([]SortKey, error) {
	if len(keys) == 0 {
		return def, nil
	}
	if len(keys) > lim.MaxSortKeys {
		return nil, qerr("sort", "takes at most %d keys", lim.MaxSortKeys)
	}
	out := make([]SortKey, 0, len(keys)+1)
	seen := map[string]bool{}
	for _, k := range keys {
		if k.Attr == nil {
			return nil, qerr("sort", "a sort key names no attribute")
		}
		a, err := c.sortAttr("sort", k.Attr.Name)
		if err != nil {
			return nil, err
		}
		if seen[a.Name] {
			return nil, qerr("sort", "names %q twice", a.Name)
		}
		seen[a.Name] = true
		out = append(out, SortKey{Attr: a, Desc: k.Desc})
	}
	if !seen["id"] {
		out = append(out, SortKey{Attr: c.attrs["id"], Desc: out[len(out)-1].Desc})
	}
	return out, nil
}

// anySlice returns v as a []any when it is a slice or array of any
// element type ([]string, []float64, ...), else v unchanged.
func anySlice(v any) any {
	if v == nil {
		return v
	}
	if s, ok := v.([]any); ok {
		return s
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return v
	}
	out := make([]any, rv.Len())
	for i := range out {
		out[i] = rv.Index(i).Interface()
	}
	return out
}
