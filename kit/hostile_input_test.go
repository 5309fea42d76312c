package kit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/events"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/internal/testkit"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/kittest"
	"github.com/collectionkit/kit/teamauth"
)

// hostileTimeout bounds each hostile request: an answer that takes longer
// counts as a hang.
const hostileTimeout = 10 * time.Second

// hostileDefinitions cover every field type (specimens), a restful
// collection with decimals, a unique field and a reference (products), a
// tree and a sortable list, so the OpenAPI document describes every kind
// of record route.
func hostileDefinitions() []collections.Definition {
	products := productsDef()
	products.Config = &collections.Config{FetchStrategy: "restful"}
	specimens := specimensDef()
	specimens.Config = &collections.Config{FetchStrategy: "restful"}
	return append([]collections.Definition{categoriesDef(), products, specimens}, treeDefinitions()...)
}

// hostileServer is a Kit with the events add-on, served directly (no
// host mux in front, so every path reaches kit as sent), with one team,
// a global administrator who owns it, a member, and one record per
// collection.
type hostileServer struct {
	k    *kit.Kit
	srv  *httptest.Server
	auth string            // the administrator's bearer token
	ids  map[string]string // what each path parameter is replaced with
}

func newHostileServer(t *testing.T, e testdb.Engine) *hostileServer {
	t.Helper()
	ctx := t.Context()
	k := newKitConfig(t, kit.Config{DB: testdb.Open(t, e), Definitions: hostileDefinitions()})
	if _, err := events.Install(ctx, k, events.Config{}); err != nil {
		t.Fatalf("events.Install: %v", err)
	}
	acc := k.Accounts()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	team, err := acc.CreateTeam(ctx, teamauth.Team{Name: "Acme", Slug: "acme"})
	must(err)
	root, err := acc.CreateUser(ctx, teamauth.User{Name: "root", Email: "root@example.com", Role: teamauth.UserRoleAdmin})
	must(err)
	bob, err := acc.CreateUser(ctx, teamauth.User{Name: "bob", Email: "bob@example.com"})
	must(err)
	_, err = acc.AddMember(ctx, team.ID, root.ID, teamauth.RoleOwner)
	must(err)
	bobMember, err := acc.AddMember(ctx, team.ID, bob.ID, teamauth.RoleMember)
	must(err)
	token, _, err := acc.CreateToken(ctx, root.ID, "hostile")
	must(err)
	// A second token of root's: DELETE /me/tokens/{id} names this one, so
	// the token the test sends stays valid.
	_, spare, err := acc.CreateToken(ctx, root.ID, "spare")
	must(err)
	h := &hostileServer{k: k, auth: token, ids: map[string]string{
		"team": team.ID, "user": bob.ID, "member": bobMember.ID, "key": specimensKey,
		"token": spare.ID, "users": bob.ID,
	}}
	actor := kit.Actor{UserID: root.ID, TeamID: team.ID, Role: teamauth.RoleOwner}
	for key, data := range map[string]map[string]any{
		categoriesKey: {"name": "Tools"},
		productsKey:   {"title": "Hammer", "sku": "H-1", "price": "9.99"},
		specimensKey:  {"label": "A", "attributes": map[string]any{"a": []any{1.0}}, "tags": []any{"x"}},
		foldersKey:    {"title": "Root"},
		tasksKey:      {"title": "First"},
	} {
		rec, err := k.Records(key).Create(ctx, actor, data)
		if err != nil {
			t.Fatalf("seed %s: %v", key, err)
		}
		h.ids[key] = rec["id"].(string)
		c, _ := k.Collections().Get(key)
		h.ids[c.APIPath()] = rec["id"].(string)
	}
	h.srv = httptest.NewServer(k.Handler())
	t.Cleanup(h.srv.Close)
	return h
}

// scheduled are what kit writes on its own schedule whatever the requests
// answer, which a long run may meet: the claims of periodic tasks, and a
// token's last use (recorded at most once a minute per token).
var scheduled = map[string]string{"kit_periodic": "*", "kit_tokens": "last_used_at"}

// tables lists every table of the Kit's database but those kit writes on
// its own schedule alone (scheduled).
func (h *hostileServer) tables(t *testing.T) []string {
	t.Helper()
	q := "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
	if isPostgres(h.k) {
		q = "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename"
	}
	var names []string
	if err := h.k.DB().NewRaw(q).Scan(t.Context(), &names); err != nil {
		t.Fatal(err)
	}
	return slices.DeleteFunc(names, func(n string) bool { return scheduled[n] == "*" })
}

// fingerprinter returns a function that fingerprints every table of the
// Kit's database in one statement: per table, its row count and all its
// rows as text. kittest.TableRows reads each table with a statement of
// its own, which thousands of requests cannot afford.
func (h *hostileServer) fingerprinter(t *testing.T) func() map[string]string {
	t.Helper()
	tables := h.tables(t)
	pg := isPostgres(h.k)
	parts := make([]string, len(tables))
	for i, table := range tables {
		var cols []string
		colsQuery := "SELECT name FROM pragma_table_info(?)"
		if pg {
			colsQuery = "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position"
		}
		if err := h.k.DB().NewRaw(colsQuery, table).Scan(t.Context(), &cols); err != nil {
			t.Fatal(err)
		}
		cols = slices.DeleteFunc(cols, func(c string) bool { return scheduled[table] == c })
		if pg {
			row := make([]string, len(cols))
			for j, c := range cols {
				row[j] = fmt.Sprintf("coalesce(r.%q::text, '\x01')", c)
			}
			parts[i] = fmt.Sprintf(`(SELECT count(*)::text || ':' || coalesce(md5(string_agg(%s, E'\x1e' ORDER BY %s)), '') FROM %q r)`,
				strings.Join(row, " || ',' || "), strings.Join(row, " || ',' || "), table)
			continue
		}
		quoted := make([]string, len(cols))
		for j, c := range cols {
			quoted[j] = fmt.Sprintf("quote(%q)", c)
		}
		parts[i] = fmt.Sprintf(`(SELECT count(*) || ':' || coalesce(group_concat(%s, char(30)), '') FROM %q)`, strings.Join(quoted, " || ',' || "), table)
	}
	q := "SELECT " + strings.Join(parts, ", ")
	return func() map[string]string {
		vals := make([]string, len(tables))
		ptrs := make([]any, len(tables))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := h.k.DB().QueryRowContext(t.Context(), q).Scan(ptrs...); err != nil {
			t.Fatalf("fingerprint tables: %v", err)
		}
		out := make(map[string]string, len(tables))
		for i, table := range tables {
			out[table] = vals[i]
		}
		return out
	}
}

// changedTables names the tables whose fingerprints differ.
func changedTables(before, after map[string]string) []string {
	var out []string
	for table, fp := range after {
		if before[table] != fp {
			out = append(out, table)
		}
	}
	sort.Strings(out)
	return out
}

// hostileRequest is one request of the hostile set.
type hostileRequest struct {
	op      string // "GET /api/teams/{team}/..."
	what    string // the hostile input
	method  string
	target  string // raw path and query, sent as is
	header  []string
	body    []byte
	noAuth  bool // send no Authorization header (the header variant sets its own)
	hasBody bool
}

// operation is one operation of the OpenAPI document.
type operation struct {
	method, path string
	query        []string       // query parameter names
	headers      []string       // header parameter names
	body         map[string]any // the request body's schema, resolved; nil when none
}

// operations reads the document's operations, sorted so that every
// DELETE comes after the other methods, and the team's own deletion last:
// a destructive request that succeeds removes only what the later
// requests no longer need.
func operations(t *testing.T, doc map[string]any) []operation {
	t.Helper()
	components, _ := doc["components"].(map[string]any)
	resolve := func(v any) map[string]any {
		m, _ := v.(map[string]any)
		for range 8 {
			ref, ok := m["$ref"].(string)
			if !ok {
				break
			}
			parts := strings.Split(strings.TrimPrefix(ref, "#/components/"), "/")
			next, _ := components[parts[0]].(map[string]any)
			m, _ = next[parts[1]].(map[string]any)
		}
		return m
	}
	var ops []operation
	for path, item := range doc["paths"].(map[string]any) {
		for method, v := range item.(map[string]any) {
			o, ok := v.(map[string]any)
			if !ok {
				continue
			}
			op := operation{method: strings.ToUpper(method), path: path}
			params, _ := o["parameters"].([]any)
			for _, p := range params {
				p := resolve(p)
				name, _ := p["name"].(string)
				switch p["in"] {
				case "query":
					op.query = append(op.query, name)
				case "header":
					op.headers = append(op.headers, name)
				}
			}
			if rb, ok := o["requestBody"].(map[string]any); ok {
				content, _ := rb["content"].(map[string]any)
				mt, _ := content["application/json"].(map[string]any)
				op.body = resolve(mt["schema"])
				if op.body == nil {
					op.body = map[string]any{}
				}
			}
			ops = append(ops, op)
		}
	}
	rank := func(o operation) int {
		switch {
		case o.method == http.MethodDelete && o.path == "/api/teams/{team}":
			return 3
		case o.method == http.MethodDelete:
			return 2
		case o.method == http.MethodPost && strings.HasSuffix(o.path, "/logout"):
			return 1
		}
		return 0
	}
	sort.Slice(ops, func(i, j int) bool {
		if ri, rj := rank(ops[i]), rank(ops[j]); ri != rj {
			return ri < rj
		}
		if ops[i].path != ops[j].path {
			return ops[i].path < ops[j].path
		}
		return ops[i].method < ops[j].method
	})
	return ops
}

var pathParam = regexp.MustCompile(`\{([^}]+)\}`)

// pathValue is the valid value of path parameter name in path: a seeded
// record's id for a record route, else the seeded id of its kind.
func (h *hostileServer) pathValue(path, name string) string {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		if s != "{"+name+"}" || i == 0 {
			continue
		}
		prev := segs[i-1]
		if name == "id" {
			if prev == "tokens" {
				return h.ids["token"]
			}
			if v, ok := h.ids[prev]; ok {
				return v
			}
			return h.ids["user"]
		}
	}
	if v, ok := h.ids[name]; ok {
		return v
	}
	return "x"
}

// hostileValues are JSON values sent in place of each body property: one
// of every JSON type, strings that are too long or hold NUL, invalid
// UTF-8 or a lone surrogate, deep nesting and numbers no column holds.
var hostileValues = []struct{ what, json string }{
	{"a string", `"x"`},
	{"an empty string", `""`},
	{"a number", `1`},
	{"a negative fraction", `-1.5`},
	{"a boolean", `true`},
	{"null", `null`},
	{"an empty array", `[]`},
	{"an array of objects", `[{"a":1},{"b":[2]}]`},
	{"an empty object", `{}`},
	{"an object", `{"a":{"b":1}}`},
	{"a string of 5,000 characters, past PostgreSQL's index row limit", `"` + strings.Repeat("x", 5000) + `"`},
	{"a string holding NUL", `"a\u0000b"`},
	{"a string holding a raw NUL byte", "\"a\x00b\""},
	{"a string of invalid UTF-8 bytes", "\"\xff\xfe\xc0\xaf\""},
	{"a lone surrogate", `"\ud800"`},
	{"a lone low surrogate in an array", `["\udc00"]`},
	{"arrays nested 1,001 levels", nested(1001, false)},
	{"arrays nested 5,000 levels", nested(5000, false)},
	{"objects nested 9,999 levels", nested(9999, true)},
	{"1e400", `1e400`},
	{"-1e400", `-1e400`},
	{"1e-400", `1e-400`},
	{"2^64", `18446744073709551616`},
	{"a 60-digit number", `123456789012345678901234567890.123456789012345678901234567890`},
	{"-0", `-0`},
	{"a string of 60 digits", `"123456789012345678901234567890123456789012345678901234567890"`},
	{"a date far out of range", `"99999-12-31T00:00:00Z"`},
	{"a string with NUL and a date", `"2026-01-01\u0000"`},
}

// hostileBodies are whole bodies that are not a JSON object, or not JSON.
var hostileBodies = []struct{ what, body string }{
	{"an empty body", ""},
	{"null", "null"},
	{"an array", "[]"},
	{"a string", `"x"`},
	{"a number", "1"},
	{"truncated JSON", `{"a":`},
	{"two objects", `{}{}`},
	{"trailing garbage", `{} x`},
	{"invalid UTF-8 outside strings", "{\xff}"},
	{"invalid UTF-8 in a key", "{\"\xff\":1}"},
	{"a NUL key", `{"\u0000":1}`},
	{"a lone surrogate key", `{"\ud800":1}`},
	{"a duplicated key", `{"a":1,"a":2}`},
	{"arrays nested 1,001 levels", nested(1001, false)},
	{"objects nested 9,999 levels", nested(9999, true)},
	{"a body over the size limit", `{"a":"` + strings.Repeat("x", 2<<20) + `"}`},
	{"UTF-16 bytes", "\xff\xfe{\x00}\x00"},
}

// hostileQueryValues are sent as the value of each query parameter, raw
// (already percent-encoded where they need to be).
var hostileQueryValues = []struct{ what, raw string }{
	{"%FF", "%FF"},
	{"%C0%AF", "%C0%AF"},
	{"%00", "%00"},
	{"a NUL inside", "a%00b"},
	{"an encoded lone surrogate", "%ED%A0%80"},
	{"an empty value", ""},
	{"a word", "abc"},
	{"-1", "-1"},
	{"0", "0"},
	{"1.5", "1.5"},
	{"1e309", "1e309"},
	{"2^64", "18446744073709551616"},
	{"a value of 100,000 characters", strings.Repeat("a", 100_000)},
	{"commas only", "%2C%2C%2C"},
	{"a bad percent escape", "%zz"},
	{"JSON nested 1,001 levels", url.QueryEscape(nested(1001, false))},
	{"JSON nested 9,999 levels", url.QueryEscape(nested(9999, true))},
	{"truncated JSON", url.QueryEscape(`{"a":`)},
}

// hostileFilters are filter values built per field of a collection.
var hostileFilters = []struct{ what, format string }{
	{"an equality with NUL", `{%q:"a\u0000"}`},
	{"a contains with a lone surrogate", `{%q:{"contains":"\ud800"}}`},
	{"a gt of 1e400", `{%q:{"gt":1e400}}`},
	{"a gt of an array", `{%q:{"gt":[]}}`},
	{"an in of nested arrays", `{%q:{"in":[` + nested(1001, false) + `]}}`},
	{"an equality with an object", `{%q:{"a":1}}`},
	{"a startsWith of invalid UTF-8", "{%q:{\"startsWith\":\"\xff\"}}"},
	{"an in of 10,000 values", `{%q:{"in":[` + strings.TrimSuffix(strings.Repeat(`"a",`, 10_000), ",") + `]}}`},
}

// hostilePathValues replace each path parameter.
var hostilePathValues = []struct{ what, raw string }{
	{"%FF", "%FF"},
	{"%C0%AF", "%C0%AF"},
	{"%00", "%00"},
	{"a NUL inside", "a%00b"},
	{"an encoded lone surrogate", "%ED%A0%80"},
	{"an id of 5,000 characters", strings.Repeat("x", 5000)},
	{"an id of 100,000 characters", strings.Repeat("y", 100_000)},
	{"an empty segment", ""},
	{"a dot segment", "."},
	{"a dot-dot segment", ".."},
	{"an encoded dot-dot", "%2e%2e"},
	{"an encoded slash", "a%2Fb"},
	{"a space", "a%20b"},
}

// hostileHeaders are header variants: name, value.
var hostileAuthorization = []string{
	"Bearer", "Bearer ", "Bearer  x", "Basic !!!", "Basic " + "bm9jb2xvbg==", "bearer kit_x",
	"Bearer \xff\xfe", "Bearer kit_\xc0\xaf", "Bearer " + strings.Repeat("k", 100_000), "Token x", ",,,",
}

var hostileIfMatch = []string{
	`"unterminated`, `W/`, `*`, `""`, "\"\xff\"", `"` + strings.Repeat("e", 10_000) + `"`, `W/"a", garbage`, `,`,
}

var hostileContentTypes = []string{
	"text/plain", "application/xml", "application/json; charset=utf-16", "application/json; charset=\xff",
	"application/json; charset", "multipart/form-data; boundary=x", "application/x-www-form-urlencoded", ";;;",
}

// requests builds the hostile set of op.
func (h *hostileServer) requests(op operation) []hostileRequest {
	name := op.method + " " + op.path
	fill := func(override, value string) string {
		return pathParam.ReplaceAllStringFunc(op.path, func(m string) string {
			p := m[1 : len(m)-1]
			if p == override {
				return value
			}
			return url.PathEscape(h.pathValue(op.path, p))
		})
	}
	valid := fill("", "")
	baseBody := []byte("{}")
	var out []hostileRequest
	add := func(what, target string, body []byte, header ...string) {
		out = append(out, hostileRequest{op: name, what: what, method: op.method, target: target,
			body: body, hasBody: body != nil, header: header})
	}
	body := func() []byte {
		if op.body == nil {
			return nil
		}
		return baseBody
	}
	for _, m := range pathParam.FindAllStringSubmatch(op.path, -1) {
		for _, v := range hostilePathValues {
			add("path parameter "+m[1]+" = "+v.what, fill(m[1], v.raw), body(), "Content-Type", "application/json")
		}
	}
	for _, q := range append(op.query, "unknownParameter") {
		for _, v := range hostileQueryValues {
			add("query "+q+" = "+v.what, valid+"?"+url.QueryEscape(q)+"="+v.raw, body(), "Content-Type", "application/json")
		}
		if q == "filter" {
			for _, f := range h.filterFields(op) {
				for _, v := range hostileFilters {
					add("filter "+v.what+" on "+f, valid+"?filter="+url.QueryEscape(fmt.Sprintf(v.format, f)), nil)
				}
			}
		}
	}
	for _, v := range []struct{ what, raw string }{
		{"a query key of invalid UTF-8", "%FF=1"},
		{"a query key holding NUL", "a%00=1"},
		{"a raw query of semicolons", ";;;"},
	} {
		add(v.what, valid+"?"+v.raw, body(), "Content-Type", "application/json")
	}
	if op.body != nil {
		props, _ := op.body["properties"].(map[string]any)
		names := make([]string, 0, len(props))
		for p := range props {
			names = append(names, p)
		}
		sort.Strings(names)
		if len(names) == 0 {
			names = []string{"anything"}
		}
		for _, p := range names {
			for _, v := range hostileValues {
				key, _ := json.Marshal(p)
				add("body "+p+" = "+v.what, valid, []byte("{"+string(key)+":"+v.json+"}"), "Content-Type", "application/json")
			}
		}
		for _, v := range hostileBodies {
			add("body is "+v.what, valid, []byte(v.body), "Content-Type", "application/json")
		}
	}
	for _, v := range hostileAuthorization {
		out = append(out, hostileRequest{op: name, what: fmt.Sprintf("Authorization %.40q", v), method: op.method,
			target: valid, body: body(), hasBody: op.body != nil, noAuth: true,
			header: []string{"Authorization", v, "Content-Type", "application/json"}})
	}
	for _, hd := range op.headers {
		if !strings.EqualFold(hd, "If-Match") {
			continue
		}
		for _, v := range hostileIfMatch {
			add(fmt.Sprintf("If-Match %.40q", v), valid, body(), "If-Match", v, "Content-Type", "application/json")
		}
	}
	// Content types last: with a valid body they may succeed, and a
	// successful DELETE removes what the variants before it need.
	for _, ct := range hostileContentTypes {
		add(fmt.Sprintf("Content-Type %q", ct), valid, []byte(`{"a":1}`), "Content-Type", ct)
	}
	return out
}

// filterFields are the field names a list operation's filter may name:
// those of its sort parameter's enum are not in the document's query
// parameters, so they come from the collection behind the path.
func (h *hostileServer) filterFields(op operation) []string {
	apiPath := op.path[strings.LastIndex(op.path, "/")+1:]
	c, ok := h.k.Collections().ByAPIPath(apiPath)
	if !ok {
		return []string{"id"}
	}
	names := []string{"id", "createdAt", "unknownField"}
	for _, f := range c.Fields() {
		names = append(names, f.Name)
	}
	return names
}

// send sends r raw: the target is written as is, redirects are not
// followed.
func (h *hostileServer) send(ctx context.Context, r hostileRequest) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, hostileTimeout)
	defer cancel()
	var body io.Reader
	if r.hasBody {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, h.srv.URL+"/", body)
	if err != nil {
		return 0, nil, err
	}
	path, query, _ := strings.Cut(r.target, "?")
	req.URL.Opaque = path
	req.URL.RawQuery = query
	if !r.noAuth {
		req.Header.Set("Authorization", "Bearer "+h.auth)
	}
	for i := 0; i+1 < len(r.header); i += 2 {
		req.Header[r.header[i]] = []string{r.header[i+1]}
	}
	res, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	if strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") && res.StatusCode < 300 {
		// A change stream that opened: it would stream until the
		// timeout, and its answer so far is all there is to check.
		return res.StatusCode, nil, nil
	}
	b, err := io.ReadAll(res.Body)
	return res.StatusCode, b, err
}

// TestNoHostileInputAnswers500 sends every operation of the OpenAPI
// document kit serves a generated set of hostile inputs (wrong JSON types
// per body property, oversized and deeply nested values, NUL, invalid
// UTF-8 and lone surrogates, hostile path segments, query values and
// headers) and holds each answer to the rule: never a 5xx, never a hang
// or a redirect, kit's error shape on every refusal, and no row changed
// by a refused request.
func TestNoHostileInputAnswers500(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		h := newHostileServer(t, e)
		res := kittest.Send(t, kittest.Request{Method: http.MethodGet, URL: h.srv.URL + "/api/kit/openapi.json", Token: h.auth})
		if res.Status != http.StatusOK {
			t.Fatalf("GET /api/kit/openapi.json: got %d, want 200: %s", res.Status, res.Body)
		}
		var doc map[string]any
		testkit.DecodeJSON(t, res.Body, &doc)
		ops := operations(t, doc)
		fingerprint := h.fingerprinter(t)
		before := fingerprint()
		start := time.Now()
		sent := 0
		var inSnapshots time.Duration
		for _, op := range ops {
			for _, r := range h.requests(op) {
				sent++
				status, body, err := h.send(t.Context(), r)
				snapStart := time.Now()
				after := fingerprint()
				inSnapshots += time.Since(snapStart)
				prefix := r.op + " with " + r.what
				switch {
				case err != nil:
					t.Errorf("%s: got %v, want an answer within %v", prefix, err, hostileTimeout)
				case status >= 500:
					t.Errorf("%s: got %d, want no 5xx: %.300s", prefix, status, body)
				case status >= 300 && status < 400:
					t.Errorf("%s: got a %d redirect, want kit's answer: %.300s", prefix, status, body)
				case status >= 400:
					if why := checkErrorShape(status, body); why != "" {
						t.Errorf("%s: got %d %.300s, want kit's error shape (%s)", prefix, status, body, why)
					}
					if changed := changedTables(before, after); len(changed) > 0 {
						t.Errorf("%s: refused with %d but tables %v changed, want none", prefix, status, changed)
					}
				}
				before = after
			}
		}
		t.Logf("%s: sent %d hostile requests to %d operations in %v (%v of it comparing tables)", e, sent, len(ops),
			time.Since(start).Round(time.Millisecond), inSnapshots.Round(time.Millisecond))
	})
}
