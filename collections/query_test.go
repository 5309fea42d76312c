package collections

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"
)

// asQueryError returns the *QueryError err must be.
func asQueryError(t testing.TB, err error) *QueryError {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want a *QueryError")
	}
	if !errors.Is(err, ErrBadQuery) {
		t.Errorf("errors.Is(err, ErrBadQuery): got false, want true (%v)", err)
	}
	var qe *QueryError
	if !errors.As(err, &qe) {
		t.Fatalf("got %T (%v), want *QueryError", err, err)
	}
	return qe
}

// parseQuery parses a raw query string for c.
func parseQuery(t testing.TB, c *Collection, raw string, lim QueryLimits) (ListQuery, error) {
	t.Helper()
	v, err := url.ParseQuery(raw)
	if err != nil {
		t.Fatalf("bad test query %q: %v", raw, err)
	}
	return c.ParseListQuery(v, lim)
}

// requireOwnAttributes checks that every attribute in q is c's own
// *Attribute, found by name.
func requireOwnAttributes(t testing.TB, c *Collection, q ListQuery) {
	t.Helper()
	check := func(where string, a *Attribute) {
		if a == nil {
			t.Errorf("%s: got a nil attribute", where)
			return
		}
		own, ok := c.Attribute(a.Name)
		if !ok || own != a {
			t.Errorf("%s: got attribute %p (%s), want the collection's own %p", where, a, a.Name, own)
		}
	}
	for i, k := range q.Sort {
		check(fmt.Sprintf("Sort[%d]", i), k.Attr)
	}
	for i, cond := range q.Filter {
		check(fmt.Sprintf("Filter[%d]", i), cond.Attr)
	}
}

// sortString writes a sort as "-price,title,id".
func sortString(keys []SortKey) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k.Attr.Name
		if k.Desc {
			parts[i] = "-" + parts[i]
		}
	}
	return strings.Join(parts, ",")
}

// filterJSON builds a filter parameter with n conditions on string fields.
func manyConditions(n int) string {
	ops := []string{"eq", "ne", "gt", "gte", "lt", "lte", "contains", "startsWith"}
	fields := []string{"title", "description", "image", "manual", "categoryId", "owner", "teamId", "createdBy", "updatedBy", "id"}
	m := map[string]map[string]string{}
	for i := 0; i < n; i++ {
		f := fields[i/len(ops)]
		if m[f] == nil {
			m[f] = map[string]string{}
		}
		m[f][ops[i%len(ops)]] = "a"
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func TestParseListQueryRefusesBadParameters(t *testing.T) {
	c := shopProducts(t)
	longIn := `{"stock": {"in": [` + strings.TrimSuffix(strings.Repeat("1,", 101), ",") + `]}}`
	bigFilter := `{"title": "` + strings.Repeat("a", 4100) + `"}`
	manyIDs := strings.TrimSuffix(strings.Repeat("x,", 101), ",")
	tests := []struct {
		name  string
		query url.Values
		lim   QueryLimits
		param string
	}{
		{"page 0 is refused", url.Values{"page": {"0"}}, QueryLimits{}, "page"},
		{"a negative page is refused", url.Values{"page": {"-1"}}, QueryLimits{}, "page"},
		{"a page that is not a number is refused", url.Values{"page": {"two"}}, QueryLimits{}, "page"},
		{"a fractional page is refused", url.Values{"page": {"1.5"}}, QueryLimits{}, "page"},
		{"an empty page is refused", url.Values{"page": {""}}, QueryLimits{}, "page"},
		{"a page beyond a million is refused", url.Values{"page": {"1000001"}}, QueryLimits{}, "page"},
		{"a page given twice is refused", url.Values{"page": {"1", "2"}}, QueryLimits{}, "page"},
		{"a pageSize above the default maximum of 100 is refused", url.Values{"pageSize": {"101"}}, QueryLimits{}, "pageSize"},
		{"a pageSize above the configured maximum is refused", url.Values{"pageSize": {"51"}}, QueryLimits{MaxPageSize: 50}, "pageSize"},
		{"pageSize 0 is refused", url.Values{"pageSize": {"0"}}, QueryLimits{}, "pageSize"},
		{"a pageSize that is not a number is refused", url.Values{"pageSize": {"ten"}}, QueryLimits{}, "pageSize"},
		{"limit 0 is refused as limit", url.Values{"limit": {"0"}}, QueryLimits{}, "limit"},
		{"a limit above the maximum is refused as limit", url.Values{"limit": {"101"}}, QueryLimits{}, "limit"},
		{"limit and pageSize that differ are refused", url.Values{"limit": {"10"}, "pageSize": {"20"}}, QueryLimits{}, "limit"},
		{"a search over 256 bytes is refused", url.Values{"search": {strings.Repeat("a", 257)}}, QueryLimits{}, "search"},
		{"a search over the configured bytes is refused", url.Values{"search": {"abcd"}}, QueryLimits{MaxSearchBytes: 3}, "search"},
		{"a NUL byte in search is refused", url.Values{"search": {"a\x00"}}, QueryLimits{}, "search"},
		{"invalid UTF-8 in search is refused", url.Values{"search": {"caf\xe9"}}, QueryLimits{}, "search"},
		{"an unknown sort field is refused", url.Values{"sort": {"rank"}}, QueryLimits{}, "sort"},
		{"a sort on a json field is refused", url.Values{"sort": {"details"}}, QueryLimits{}, "sort"},
		{"a sort on an array field is refused", url.Values{"sort": {"-tags"}}, QueryLimits{}, "sort"},
		{"a sort on a repeater field is refused", url.Values{"sort": {"variants"}}, QueryLimits{}, "sort"},
		{"more than 4 sort keys are refused", url.Values{"sort": {"title,price,stock,image,manual"}}, QueryLimits{}, "sort"},
		{"more sort keys than configured are refused", url.Values{"sort": {"title,price"}}, QueryLimits{MaxSortKeys: 1}, "sort"},
		{"a sort key given twice is refused", url.Values{"sort": {"title,-title"}}, QueryLimits{}, "sort"},
		{"an empty sort key is refused", url.Values{"sort": {"title,"}}, QueryLimits{}, "sort"},
		{"a bare minus is refused", url.Values{"sort": {"-"}}, QueryLimits{}, "sort"},
		{"sort and sortBy together are refused", url.Values{"sort": {"title"}, "sortBy": {"title"}}, QueryLimits{}, "sortBy"},
		{"an unknown sortBy field is refused", url.Values{"sortBy": {"rank"}}, QueryLimits{}, "sortBy"},
		{"a sortBy on a json field is refused", url.Values{"sortBy": {"details"}}, QueryLimits{}, "sortBy"},
		{"a bad sortDirection is refused", url.Values{"sortBy": {"title"}, "sortDirection": {"up"}}, QueryLimits{}, "sortDirection"},
		{"an upper-case sortDirection is refused", url.Values{"sortDirection": {"DESC"}}, QueryLimits{}, "sortDirection"},
		{"malformed filter JSON is refused", url.Values{"filter": {`{"title": `}}, QueryLimits{}, "filter"},
		{"a filter with data after the object is refused", url.Values{"filter": {`{"stock": 1} {}`}}, QueryLimits{}, "filter"},
		{"a filter with a stray brace after the object is refused", url.Values{"filter": {`{"stock": 1}}`}}, QueryLimits{}, "filter"},
		{"a filter with a stray bracket after the object is refused", url.Values{"filter": {`{"stock": 1}]`}}, QueryLimits{}, "filter"},
		{"a filter that is an array is refused", url.Values{"filter": {`[{"stock": 1}]`}}, QueryLimits{}, "filter"},
		{"a filter that is a string is refused", url.Values{"filter": {`"stock"`}}, QueryLimits{}, "filter"},
		{"a filter that is null is refused", url.Values{"filter": {`null`}}, QueryLimits{}, "filter"},
		{"a filter over 4 KiB is refused", url.Values{"filter": {bigFilter}}, QueryLimits{}, "filter"},
		{"a filter over the configured bytes is refused", url.Values{"filter": {`{"stock": 10}`}}, QueryLimits{MaxFilterBytes: 10}, "filter"},
		{"a filter of 51 conditions is refused", url.Values{"filter": {manyConditions(51)}}, QueryLimits{}, "filter"},
		{"more conditions than configured are refused", url.Values{"filter": {`{"stock": {"gt": 1, "lt": 5}}`}}, QueryLimits{MaxConditions: 1}, "filter"},
		{"a filter given twice is refused", url.Values{"filter": {`{}`, `{}`}}, QueryLimits{}, "filter"},
		{"an unknown filter field is refused", url.Values{"filter": {`{"rank": 1}`}}, QueryLimits{}, "filter"},
		{"an unknown operator is refused", url.Values{"filter": {`{"title": {"like": "a%"}}`}}, QueryLimits{}, "filter"},
		{"an operator object that is empty is refused", url.Values{"filter": {`{"title": {}}`}}, QueryLimits{}, "filter"},
		{"contains on a number is refused", url.Values{"filter": {`{"stock": {"contains": "1"}}`}}, QueryLimits{}, "filter"},
		{"startsWith on a date is refused", url.Values{"filter": {`{"publishedAt": {"startsWith": "2026"}}`}}, QueryLimits{}, "filter"},
		{"gt on a boolean is refused", url.Values{"filter": {`{"isActive": {"gt": false}}`}}, QueryLimits{}, "filter"},
		{"in on a boolean is refused", url.Values{"filter": {`{"isActive": {"in": [true]}}`}}, QueryLimits{}, "filter"},
		{"eq on a json field is refused", url.Values{"filter": {`{"details": {"eq": 1}}`}}, QueryLimits{}, "filter"},
		{"a bare value on a json field is refused", url.Values{"filter": {`{"details": {"watts": 40}}`}}, QueryLimits{}, "filter"},
		{"a bare value on an array field is refused", url.Values{"filter": {`{"tags": ["a"]}`}}, QueryLimits{}, "filter"},
		{"a string for a number is refused", url.Values{"filter": {`{"stock": "5"}`}}, QueryLimits{}, "filter"},
		{"a string for a number in gt is refused", url.Values{"filter": {`{"stock": {"gt": "5"}}`}}, QueryLimits{}, "filter"},
		{"a number for a string is refused", url.Values{"filter": {`{"title": 5}`}}, QueryLimits{}, "filter"},
		{"a string for a boolean is refused", url.Values{"filter": {`{"isActive": "true"}`}}, QueryLimits{}, "filter"},
		{"a garbage date is refused", url.Values{"filter": {`{"createdAt": {"gte": "last week"}}`}}, QueryLimits{}, "filter"},
		{"a decimal with too many digits is refused", url.Values{"filter": {`{"price": {"gt": "1.999"}}`}}, QueryLimits{}, "filter"},
		{"a decimal exponent is refused", url.Values{"filter": {`{"price": 1e3}`}}, QueryLimits{}, "filter"},
		{"null in gt is refused", url.Values{"filter": {`{"stock": {"gt": null}}`}}, QueryLimits{}, "filter"},
		{"a NUL byte in a filter value is refused", url.Values{"filter": {`{"title": "a\u0000"}`}}, QueryLimits{}, "filter"},
		{"a NUL byte in contains is refused", url.Values{"filter": {`{"title": {"contains": "\u0000"}}`}}, QueryLimits{}, "filter"},
		{"contains with a number is refused", url.Values{"filter": {`{"title": {"contains": 5}}`}}, QueryLimits{}, "filter"},
		{"isNull with a string is refused", url.Values{"filter": {`{"title": {"isNull": "yes"}}`}}, QueryLimits{}, "filter"},
		{"an in-list of 101 values is refused", url.Values{"filter": {longIn}}, QueryLimits{}, "filter"},
		{"an in-list longer than configured is refused", url.Values{"filter": {`{"stock": {"nin": [1, 2]}}`}}, QueryLimits{MaxInValues: 1}, "filter"},
		{"an empty in-list is refused", url.Values{"filter": {`{"stock": {"in": []}}`}}, QueryLimits{}, "filter"},
		{"an in that is not a list is refused", url.Values{"filter": {`{"stock": {"in": 1}}`}}, QueryLimits{}, "filter"},
		{"a wrong type inside an in-list is refused", url.Values{"filter": {`{"stock": {"in": [1, "2"]}}`}}, QueryLimits{}, "filter"},
		{"null inside an in-list is refused", url.Values{"filter": {`{"title": {"nin": [null]}}`}}, QueryLimits{}, "filter"},
		{"101 ids are refused", url.Values{"ids": {manyIDs}}, QueryLimits{}, "ids"},
		{"more ids than configured are refused", url.Values{"ids": {"a,b"}}, QueryLimits{MaxInValues: 1}, "ids"},
		{"an empty id entry is refused", url.Values{"ids": {"a,,b"}}, QueryLimits{}, "ids"},
		{"a blank id entry is refused", url.Values{"ids": {"a, "}}, QueryLimits{}, "ids"},
		{"an empty ids parameter is refused", url.Values{"ids": {""}}, QueryLimits{}, "ids"},
		{"an id over 128 bytes is refused", url.Values{"ids": {strings.Repeat("x", 129)}}, QueryLimits{}, "ids"},
		{"a NUL byte in an id is refused", url.Values{"ids": {"a\x00"}}, QueryLimits{}, "ids"},
		{"invalid UTF-8 in an id is refused", url.Values{"ids": {"\xff"}}, QueryLimits{}, "ids"},
		{"a date past year 9999 in UTC is refused", url.Values{"filter": {`{"createdAt": {"lt": "9999-12-31T23:00:00-05:00"}}`}}, QueryLimits{}, "filter"},
		{"ids given twice are refused", url.Values{"ids": {"a", "b"}}, QueryLimits{}, "ids"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.ParseListQuery(tc.query, tc.lim)
			qe := asQueryError(t, err)
			if qe.Param != tc.param {
				t.Errorf("Param: got %q, want %q (%v)", qe.Param, tc.param, qe)
			}
			if qe.Message == "" {
				t.Errorf("Message: got empty, want a reason")
			}
		})
	}
}

func TestParseListQueryDefaults(t *testing.T) {
	c := shopProducts(t)
	q, err := c.ParseListQuery(url.Values{}, QueryLimits{})
	if err != nil {
		t.Fatalf("got %v, want nil", err)
	}
	requireOwnAttributes(t, c, q)
	if q.Page != 1 || q.PageSize != 20 || q.Search != "" || q.Filter != nil || q.IDs != nil {
		t.Errorf("got page %d, pageSize %d, search %q, filter %v, ids %v, want 1, 20, empty, nil, nil", q.Page, q.PageSize, q.Search, q.Filter, q.IDs)
	}
	if got := sortString(q.Sort); got != "-createdAt,-id" {
		t.Errorf("sort: got %q, want -createdAt,-id", got)
	}
	if by, dir := q.SortBy(); by != "createdAt" || dir != "desc" {
		t.Errorf("SortBy: got %q, %q, want createdAt, desc", by, dir)
	}
	if q.Offset() != 0 {
		t.Errorf("Offset: got %d, want 0", q.Offset())
	}
	if by, dir := (ListQuery{}).SortBy(); by != "" || dir != "" {
		t.Errorf("SortBy of an empty query: got %q, %q, want empty", by, dir)
	}
}

func TestParseListQueryUsesDefaultPagination(t *testing.T) {
	tests := []struct {
		name       string
		pagination string
		query      string
		lim        QueryLimits
		page, size int
		sort       string
	}{
		{"every default comes from the config", `{"currentPage": 2, "pageSize": 50, "sortBy": "title", "sortDirection": "asc"}`, "", QueryLimits{}, 2, 50, "title,id"},
		{"a sortBy without direction sorts descending", `{"sortBy": "price"}`, "", QueryLimits{}, 1, 20, "-price,-id"},
		{"a pageSize alone keeps the other defaults", `{"pageSize": 5}`, "", QueryLimits{}, 1, 5, "-createdAt,-id"},
		{"a configured pageSize above the maximum is cut to it", `{"pageSize": 500}`, "", QueryLimits{}, 1, 100, "-createdAt,-id"},
		{"parameters win over the config", `{"currentPage": 2, "pageSize": 50, "sortBy": "title"}`, "page=1&pageSize=10&sort=-stock", QueryLimits{}, 1, 10, "-stock,-id"},
		{"a sortDirection alone turns the configured sort", `{"sortBy": "title", "sortDirection": "asc"}`, "sortDirection=desc", QueryLimits{}, 1, 20, "-title,-id"},
		{"an id sortBy gets no second id", `{"sortBy": "id", "sortDirection": "asc"}`, "", QueryLimits{}, 1, 20, "id"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reg, _ := mustLoad(t, mapFS(withConfig(`{"products": {"defaultPagination": `+tc.pagination+`}}`)), LoadOptions{})
			c := mustGet(t, reg, "shopProducts")
			q, err := parseQuery(t, c, tc.query, tc.lim)
			if err != nil {
				t.Fatalf("got %v, want nil", err)
			}
			requireOwnAttributes(t, c, q)
			if q.Page != tc.page || q.PageSize != tc.size || sortString(q.Sort) != tc.sort {
				t.Errorf("got page %d, pageSize %d, sort %q, want %d, %d, %q", q.Page, q.PageSize, sortString(q.Sort), tc.page, tc.size, tc.sort)
			}
		})
	}
}

func TestParseListQueryPagingAndSorting(t *testing.T) {
	c := shopProducts(t)
	tests := []struct {
		name       string
		query      string
		lim        QueryLimits
		page, size int
		sort       string
	}{
		{"page and pageSize are read", "page=3&pageSize=10", QueryLimits{}, 3, 10, "-createdAt,-id"},
		{"limit is an alias of pageSize", "limit=7", QueryLimits{}, 1, 7, "-createdAt,-id"},
		{"limit and pageSize that agree are fine", "limit=7&pageSize=7", QueryLimits{}, 1, 7, "-createdAt,-id"},
		{"a pageSize of exactly the maximum is fine", "pageSize=100", QueryLimits{}, 1, 100, "-createdAt,-id"},
		{"a larger configured maximum is honoured", "pageSize=500", QueryLimits{MaxPageSize: 500}, 1, 500, "-createdAt,-id"},
		{"a page of a million is fine", "page=1000000", QueryLimits{}, 1000000, 20, "-createdAt,-id"},
		{"a sort gets id appended in the last key's direction", "sort=-price,title", QueryLimits{}, 1, 20, "-price,title,id"},
		{"a descending sort gets a descending id", "sort=title,-price", QueryLimits{}, 1, 20, "title,-price,-id"},
		{"a sort that names id gets no second id", "sort=id,title", QueryLimits{}, 1, 20, "id,title"},
		{"a plus sign sorts ascending", "sort=%2Btitle", QueryLimits{}, 1, 20, "title,id"},
		{"four sort keys are fine", "sort=title,price,stock,image", QueryLimits{}, 1, 20, "title,price,stock,image,id"},
		{"every sortable type sorts", "sort=isActive,publishedAt,manual,categoryId", QueryLimits{}, 1, 20, "isActive,publishedAt,manual,categoryId,id"},
		{"auto-generated fields sort", "sort=-updatedAt,owner", QueryLimits{}, 1, 20, "-updatedAt,owner,id"},
		{"sortBy sorts ascending by default", "sortBy=title", QueryLimits{}, 1, 20, "title,id"},
		{"sortBy takes sortDirection", "sortBy=title&sortDirection=desc", QueryLimits{}, 1, 20, "-title,-id"},
		{"sortDirection alone turns the default sort", "sortDirection=asc", QueryLimits{}, 1, 20, "createdAt,id"},
		{"an empty sort keeps the default", "sort=", QueryLimits{}, 1, 20, "-createdAt,-id"},
		{"an empty sortBy keeps the default", "sortBy=", QueryLimits{}, 1, 20, "-createdAt,-id"},
		{"unknown parameters are ignored", "team=x&page=2&foo=bar&foo=baz", QueryLimits{}, 2, 20, "-createdAt,-id"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q, err := parseQuery(t, c, tc.query, tc.lim)
			if err != nil {
				t.Fatalf("got %v, want nil", err)
			}
			requireOwnAttributes(t, c, q)
			if q.Page != tc.page || q.PageSize != tc.size || sortString(q.Sort) != tc.sort {
				t.Errorf("got page %d, pageSize %d, sort %q, want %d, %d, %q", q.Page, q.PageSize, sortString(q.Sort), tc.page, tc.size, tc.sort)
			}
			if wantOffset := (tc.page - 1) * tc.size; q.Offset() != wantOffset {
				t.Errorf("Offset: got %d, want %d", q.Offset(), wantOffset)
			}
		})
	}

	t.Run("search is trimmed", func(t *testing.T) {
		q, err := parseQuery(t, c, "search=%20%20lamp%25_%20", QueryLimits{})
		if err != nil || q.Search != "lamp%_" {
			t.Errorf("got %q, %v, want \"lamp%%_\", nil", q.Search, err)
		}
	})
	t.Run("ids are split, trimmed and deduplicated in order", func(t *testing.T) {
		q, err := parseQuery(t, c, "ids=b,%20a,b,c", QueryLimits{})
		if want := []string{"b", "a", "c"}; err != nil || !reflect.DeepEqual(q.IDs, want) {
			t.Errorf("got %q, %v, want %q, nil", q.IDs, err, want)
		}
	})
	t.Run("100 ids are fine", func(t *testing.T) {
		ids := make([]string, 100)
		for i := range ids {
			ids[i] = fmt.Sprint("id", i)
		}
		q, err := c.ParseListQuery(url.Values{"ids": {strings.Join(ids, ",")}}, QueryLimits{})
		if err != nil || len(q.IDs) != 100 {
			t.Errorf("got %d ids, %v, want 100, nil", len(q.IDs), err)
		}
	})
}

func TestParseListQueryFilters(t *testing.T) {
	c := shopProducts(t)
	day := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		filter string
		want   []Condition // Attr holds only the name to look up
	}{
		{"an empty filter has no conditions", `{}`, nil},
		{"a bare string is eq", `{"title": "Lamp"}`, []Condition{{&Attribute{Name: "title"}, OpEq, "Lamp"}}},
		{"eq on a string", `{"title": {"eq": "a"}}`, []Condition{{&Attribute{Name: "title"}, OpEq, "a"}}},
		{"ne on a string", `{"title": {"ne": "a"}}`, []Condition{{&Attribute{Name: "title"}, OpNe, "a"}}},
		{"gt, gte, lt and lte on a string", `{"title": {"gt": "a", "gte": "b", "lt": "c", "lte": "d"}}`, []Condition{
			{&Attribute{Name: "title"}, OpGt, "a"}, {&Attribute{Name: "title"}, OpGte, "b"},
			{&Attribute{Name: "title"}, OpLt, "c"}, {&Attribute{Name: "title"}, OpLte, "d"}}},
		{"in and nin on a string", `{"title": {"in": ["a", "b"], "nin": ["c"]}}`, []Condition{
			{&Attribute{Name: "title"}, OpIn, []any{"a", "b"}}, {&Attribute{Name: "title"}, OpNin, []any{"c"}}}},
		{"contains on a string", `{"title": {"contains": "am"}}`, []Condition{{&Attribute{Name: "title"}, OpContains, "am"}}},
		{"startsWith on a string", `{"title": {"startsWith": "La"}}`, []Condition{{&Attribute{Name: "title"}, OpStartsWith, "La"}}},
		{"isNull on a string", `{"title": {"isNull": true}}`, []Condition{{&Attribute{Name: "title"}, OpIsNull, true}}},
		{"contains on a text", `{"description": {"contains": "x"}}`, []Condition{{&Attribute{Name: "description"}, OpContains, "x"}}},
		{"startsWith on an image", `{"image": {"startsWith": "https:"}}`, []Condition{{&Attribute{Name: "image"}, OpStartsWith, "https:"}}},
		{"eq on a file", `{"manual": "a.pdf"}`, []Condition{{&Attribute{Name: "manual"}, OpEq, "a.pdf"}}},
		{"eq and in on a reference", `{"categoryId": {"eq": "c1", "in": ["c1", ""]}}`, []Condition{
			{&Attribute{Name: "categoryId"}, OpEq, "c1"}, {&Attribute{Name: "categoryId"}, OpIn, []any{"c1", ""}}}},
		{"a bare number is eq", `{"stock": 5}`, []Condition{{&Attribute{Name: "stock"}, OpEq, 5.0}}},
		{"every comparison on a number", `{"stock": {"eq": 1, "ne": 2, "gt": 3, "gte": 4, "lt": 5.5, "lte": -6}}`, []Condition{
			{&Attribute{Name: "stock"}, OpEq, 1.0}, {&Attribute{Name: "stock"}, OpGt, 3.0}, {&Attribute{Name: "stock"}, OpGte, 4.0},
			{&Attribute{Name: "stock"}, OpLt, 5.5}, {&Attribute{Name: "stock"}, OpLte, -6.0}, {&Attribute{Name: "stock"}, OpNe, 2.0}}},
		{"in, nin and isNull on a number", `{"stock": {"in": [1, 2], "nin": [3], "isNull": false}}`, []Condition{
			{&Attribute{Name: "stock"}, OpIn, []any{1.0, 2.0}}, {&Attribute{Name: "stock"}, OpIsNull, false}, {&Attribute{Name: "stock"}, OpNin, []any{3.0}}}},
		{"decimal values are canonical", `{"price": {"eq": "9.9", "gt": 10, "in": ["1", 2.5]}}`, []Condition{
			{&Attribute{Name: "price"}, OpEq, "9.90"}, {&Attribute{Name: "price"}, OpGt, "10.00"}, {&Attribute{Name: "price"}, OpIn, []any{"1.00", "2.50"}}}},
		{"every operator on a decimal", `{"price": {"ne": "1", "gte": "1", "lt": "1", "lte": "1", "nin": ["1"], "isNull": true}}`, []Condition{
			{&Attribute{Name: "price"}, OpGte, "1.00"}, {&Attribute{Name: "price"}, OpIsNull, true}, {&Attribute{Name: "price"}, OpLt, "1.00"},
			{&Attribute{Name: "price"}, OpLte, "1.00"}, {&Attribute{Name: "price"}, OpNe, "1.00"}, {&Attribute{Name: "price"}, OpNin, []any{"1.00"}}}},
		{"eq, ne and isNull on a boolean", `{"isActive": {"eq": true, "ne": false, "isNull": false}}`, []Condition{
			{&Attribute{Name: "isActive"}, OpEq, true}, {&Attribute{Name: "isActive"}, OpIsNull, false}, {&Attribute{Name: "isActive"}, OpNe, false}}},
		{"a bare boolean is eq", `{"isActive": false}`, []Condition{{&Attribute{Name: "isActive"}, OpEq, false}}},
		{"dates are UTC times", `{"publishedAt": {"gte": "2026-01-02", "lt": "2026-01-02T01:00:00+01:00"}}`, []Condition{
			{&Attribute{Name: "publishedAt"}, OpGte, day}, {&Attribute{Name: "publishedAt"}, OpLt, day}}},
		{"every other operator on a date", `{"publishedAt": {"eq": "2026-01-02", "ne": "2026-01-02", "gt": "2026-01-02", "lte": "2026-01-02", "in": ["2026-01-02"], "nin": ["2026-01-02"], "isNull": false}}`, []Condition{
			{&Attribute{Name: "publishedAt"}, OpEq, day}, {&Attribute{Name: "publishedAt"}, OpGt, day}, {&Attribute{Name: "publishedAt"}, OpIn, []any{day}},
			{&Attribute{Name: "publishedAt"}, OpIsNull, false}, {&Attribute{Name: "publishedAt"}, OpLte, day},
			{&Attribute{Name: "publishedAt"}, OpNe, day}, {&Attribute{Name: "publishedAt"}, OpNin, []any{day}}}},
		{"isNull on json, repeater and array", `{"details": {"isNull": true}, "variants": {"isNull": false}, "tags": {"isNull": true}}`, []Condition{
			{&Attribute{Name: "details"}, OpIsNull, true}, {&Attribute{Name: "tags"}, OpIsNull, true}, {&Attribute{Name: "variants"}, OpIsNull, false}}},
		{"null equality is isNull", `{"publishedAt": null}`, []Condition{{&Attribute{Name: "publishedAt"}, OpIsNull, true}}},
		{"eq null is isNull", `{"stock": {"eq": null}}`, []Condition{{&Attribute{Name: "stock"}, OpIsNull, true}}},
		{"ne null is isNull false", `{"title": {"ne": null}}`, []Condition{{&Attribute{Name: "title"}, OpIsNull, false}}},
		{"null equality on a json field is isNull", `{"details": null}`, []Condition{{&Attribute{Name: "details"}, OpIsNull, true}}},
		{"createdAt is filterable by date", `{"createdAt": {"gte": "2026-01-02"}}`, []Condition{{&Attribute{Name: "createdAt"}, OpGte, day}}},
		{"owner is filterable", `{"owner": {"eq": "user-1"}}`, []Condition{{&Attribute{Name: "owner"}, OpEq, "user-1"}}},
		{"every auto-generated field is filterable", `{"id": "a", "teamId": "t", "updatedAt": {"lt": "2026-01-02"}, "createdBy": {"in": ["u"]}, "updatedBy": null}`, []Condition{
			{&Attribute{Name: "createdBy"}, OpIn, []any{"u"}}, {&Attribute{Name: "id"}, OpEq, "a"}, {&Attribute{Name: "teamId"}, OpEq, "t"},
			{&Attribute{Name: "updatedAt"}, OpLt, day}, {&Attribute{Name: "updatedBy"}, OpIsNull, true}}},
		{"conditions come in field order", `{"title": "a", "stock": 1, "isActive": true}`, []Condition{
			{&Attribute{Name: "isActive"}, OpEq, true}, {&Attribute{Name: "stock"}, OpEq, 1.0}, {&Attribute{Name: "title"}, OpEq, "a"}}},
		{"an in-list of 100 values is fine", `{"stock": {"in": [` + strings.TrimSuffix(strings.Repeat("1,", 100), ",") + `]}}`, []Condition{
			{&Attribute{Name: "stock"}, OpIn, repeatValue(1.0, 100)}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q, err := c.ParseListQuery(url.Values{"filter": {tc.filter}}, QueryLimits{})
			if err != nil {
				t.Fatalf("got %v, want nil", err)
			}
			requireOwnAttributes(t, c, q)
			if len(q.Filter) != len(tc.want) {
				t.Fatalf("got %d conditions %v, want %d", len(q.Filter), q.Filter, len(tc.want))
			}
			for i, w := range tc.want {
				g := q.Filter[i]
				if g.Attr.Name != w.Attr.Name || g.Op != w.Op || !reflect.DeepEqual(g.Value, w.Value) {
					t.Errorf("condition %d: got %s %s %#v, want %s %s %#v", i, g.Attr.Name, g.Op, g.Value, w.Attr.Name, w.Op, w.Value)
				}
			}
		})
	}

	t.Run("50 conditions are fine", func(t *testing.T) {
		q, err := c.ParseListQuery(url.Values{"filter": {manyConditions(50)}}, QueryLimits{})
		if err != nil || len(q.Filter) != 50 {
			t.Fatalf("got %d conditions, %v, want 50, nil", len(q.Filter), err)
		}
		requireOwnAttributes(t, c, q)
	})
	t.Run("an empty filter parameter is no filter", func(t *testing.T) {
		q, err := c.ParseListQuery(url.Values{"filter": {""}}, QueryLimits{})
		if err != nil || q.Filter != nil {
			t.Errorf("got %v, %v, want nil, nil", q.Filter, err)
		}
	})
}

func repeatValue(v any, n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func TestQueryError(t *testing.T) {
	c := shopProducts(t)
	_, err := c.ParseListQuery(url.Values{"page": {"0"}}, QueryLimits{})
	qe := asQueryError(t, err)
	if got, wantText := qe.Error(), "invalid page: must be a whole number of at least 1"; got != wantText {
		t.Errorf("Error: got %q, want %q", got, wantText)
	}
	if qe.HTTPStatus() != 400 {
		t.Errorf("HTTPStatus: got %d, want 400", qe.HTTPStatus())
	}
	if got, wantData := qe.ErrorData(), map[string]any{"param": "page"}; !reflect.DeepEqual(got, wantData) {
		t.Errorf("ErrorData: got %#v, want %#v", got, wantData)
	}
	t.Run("a long unknown name is cut in the message", func(t *testing.T) {
		long := strings.Repeat("x", 500)
		_, err := c.ParseListQuery(url.Values{"sort": {long}}, QueryLimits{})
		if qe := asQueryError(t, err); len(qe.Message) > 120 {
			t.Errorf("Message: got %d bytes, want at most 120", len(qe.Message))
		}
	})
}

func TestParseIDs(t *testing.T) {
	tests := []struct {
		name string
		in   string
		max  int
		want []string
		ok   bool
	}{
		{"one id", "a", 0, []string{"a"}, true},
		{"a zero maximum means 100", strings.TrimSuffix(strings.Repeat("a,", 100), ","), 0, []string{"a"}, true},
		{"101 entries are refused at the default maximum", strings.TrimSuffix(strings.Repeat("a,", 101), ","), 0, nil, false},
		{"the maximum counts entries before deduplication", "a,a,a", 2, nil, false},
		{"an id of 128 bytes is fine", strings.Repeat("x", 128), 0, []string{strings.Repeat("x", 128)}, true},
		{"a trailing comma is refused", "a,", 0, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseIDs(tc.in, tc.max)
			if (err == nil) != tc.ok || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ParseIDs: got %q, %v, want %q, ok %v", got, err, tc.want, tc.ok)
			}
			if err != nil && asQueryError(t, err).Param != "ids" {
				t.Errorf("Param: got %q, want ids", asQueryError(t, err).Param)
			}
		})
	}
}

func TestEveryOperatorOnEveryType(t *testing.T) {
	c := shopProducts(t)
	values := map[FieldType]string{
		TypeString: `"a"`, TypeText: `"a"`, TypeImage: `"a"`, TypeFile: `"a"`,
		TypeNumber: `1`, TypeDecimal: `"1"`, TypeBoolean: `true`, TypeDate: `"2026-01-02"`,
		TypeJSON: `{"a": 1}`, TypeRepeater: `[{"a": 1}]`, TypeArray: `["a"]`,
	}
	all := []Op{OpEq, OpNe, OpGt, OpGte, OpLt, OpLte, OpIn, OpNin, OpContains, OpStartsWith, OpIsNull}
	for _, a := range c.Attributes() {
		fits := map[Op]bool{}
		for _, op := range opsFor(a.Type) {
			fits[op] = true
		}
		for _, op := range all {
			value := values[a.Type]
			switch op {
			case OpIn, OpNin:
				value = "[" + value + "]"
			case OpIsNull:
				value = "true"
			case OpContains, OpStartsWith:
				value = `"a"`
			}
			filter := fmt.Sprintf(`{%q: {%q: %s}}`, a.Name, op, value)
			verb := "is refused"
			if fits[op] {
				verb = "applies"
			}
			t.Run(fmt.Sprintf("%s %s on the %s field %s", op, verb, a.Type, a.Name), func(t *testing.T) {
				q, err := c.ParseListQuery(url.Values{"filter": {filter}}, QueryLimits{})
				if !fits[op] {
					if qe := asQueryError(t, err); qe.Param != "filter" || !strings.Contains(qe.Message, string(op)) {
						t.Errorf("got %q: %q, want filter naming %s", qe.Param, qe.Message, op)
					}
					return
				}
				if err != nil {
					t.Fatalf("filter %s: got %v, want nil", filter, err)
				}
				requireOwnAttributes(t, c, q)
				if len(q.Filter) != 1 || q.Filter[0].Op != op {
					t.Errorf("filter %s: got %v, want one %s condition", filter, q.Filter, op)
				}
			})
		}
	}
}
