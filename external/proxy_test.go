package external_test

import (
	"bytes"
	"errors"
	"log/slog"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/external"
	"github.com/collectionkit/kit/internal/testkit"
)

// transformFailedLog is the message the spec fixes for a failed transform.
const transformFailedLog = "[useCollectionProxy] Transform failed for item"

func TestProxiedEndpoint(t *testing.T) {
	cases := []struct {
		name  string
		proxy *collections.Proxy
		want  string
	}{
		{"without a proxy the apiPath is used", nil, "catalog"},
		{"a disabled proxy uses the apiPath", &collections.Proxy{SourceEndpoint: "shop-products"}, "catalog"},
		{"an enabled proxy uses its source endpoint", &collections.Proxy{Enabled: true, SourceEndpoint: "shop-products"}, "shop-products"},
		{"an enabled proxy without a source endpoint falls back to the apiPath", &collections.Proxy{Enabled: true}, "catalog"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := external.ProxiedEndpoint(collections.Config{Proxy: c.proxy}, "catalog"); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// productOption is the proxy transform of the catalog collections.
func productOption(p external.Item) (external.Item, error) {
	return external.Item{"id": p["id"], "title": p["title"].(string) + " (" + p["sku"].(string) + ")", "price": p["price"]}, nil
}

func TestApplyTransform(t *testing.T) {
	upper := func(item external.Item) (external.Item, error) {
		switch item["id"] {
		case "boom":
			panic("transform exploded")
		case "fail":
			return nil, errors.New("cannot transform")
		case "untitled":
			return external.Item{"id": item["id"]}, nil
		case "mutate":
			item["title"] = "changed in place"
			return nil, errors.New("gave up after changing the input")
		}
		return external.Item{"id": item["id"], "title": strings.ToUpper(item["title"].(string))}, nil
	}
	on := collections.Config{Name: "letters", Proxy: &collections.Proxy{Enabled: true, SourceEndpoint: "letters-source", Transform: upper}}
	item := func(id, title string) map[string]any { return map[string]any{"id": id, "title": title} }
	cases := []struct {
		name     string
		cfg      collections.Config
		data     any
		want     any
		failures int
	}{
		{name: "an array has every item transformed", cfg: on,
			data: []any{item("a", "alpha"), item("b", "beta")},
			want: []any{item("a", "ALPHA"), item("b", "BETA")}},
		{name: "a typed array has every item transformed", cfg: on,
			data: []external.Item{item("a", "alpha")},
			want: []external.Item{item("a", "ALPHA")}},
		{name: "a single item is transformed", cfg: on,
			data: item("a", "alpha"),
			want: item("a", "ALPHA")},
		{name: "a list answer has its items transformed and the rest kept", cfg: on,
			data: map[string]any{"items": []any{item("a", "alpha")}, "pagination": map[string]any{"currentPage": 1}},
			want: map[string]any{"items": []any{item("a", "ALPHA")}, "pagination": map[string]any{"currentPage": 1}}},
		{name: "an item with an items field of its own is one item", cfg: on,
			data: map[string]any{"id": "a", "title": "alpha", "items": []any{"x"}},
			want: item("a", "ALPHA")},
		{name: "a transform error keeps that item unchanged and transforms the others", cfg: on,
			data:     []any{item("a", "alpha"), item("fail", "beta"), item("c", "gamma")},
			want:     []any{item("a", "ALPHA"), item("fail", "beta"), item("c", "GAMMA")},
			failures: 1},
		{name: "a panicking transform is recovered and keeps that item unchanged", cfg: on,
			data:     []any{item("boom", "alpha"), item("b", "beta")},
			want:     []any{item("boom", "alpha"), item("b", "BETA")},
			failures: 1},
		{name: "an output without a title is a failure", cfg: on,
			data:     []any{item("untitled", "alpha")},
			want:     []any{item("untitled", "alpha")},
			failures: 1},
		{name: "a failed transform that changed its input leaves the item unchanged", cfg: on,
			data:     []any{item("mutate", "alpha")},
			want:     []any{item("mutate", "alpha")},
			failures: 1},
		{name: "an element that is not an object is left as is and logged", cfg: on,
			data:     []any{"just text", item("b", "beta")},
			want:     []any{"just text", item("b", "BETA")},
			failures: 1},
		{name: "a failing single item stays unchanged", cfg: on,
			data:     item("fail", "alpha"),
			want:     item("fail", "alpha"),
			failures: 1},
		{name: "a disabled proxy changes nothing",
			cfg:  collections.Config{Proxy: &collections.Proxy{SourceEndpoint: "letters-source", Transform: upper}},
			data: []any{item("a", "alpha")},
			want: []any{item("a", "alpha")}},
		{name: "a proxy without a transform changes nothing",
			cfg:  collections.Config{Proxy: &collections.Proxy{Enabled: true, SourceEndpoint: "letters-source"}},
			data: []any{item("a", "alpha")},
			want: []any{item("a", "alpha")}},
		{name: "a collection without a proxy changes nothing",
			data: item("a", "alpha"),
			want: item("a", "alpha")},
		{name: "a value that holds no items is returned as is", cfg: on,
			data: "plain",
			want: "plain"},
	}
	// ApplyTransform logs to slog.Default(); these subtests do not run in
	// parallel, so swapping it is safe here.
	var logs bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
	t.Cleanup(func() { slog.SetDefault(prev) })
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			logs.Reset()
			got := external.ApplyTransform(c.data, c.cfg)
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %#v, want %#v", got, c.want)
			}
			lines := 0
			for _, line := range strings.Split(logs.String(), "\n") {
				if strings.Contains(line, `msg="[useCollectionProxy] Transform failed for item `) {
					lines++
				}
			}
			if lines != c.failures {
				t.Errorf("got %d transform failure lines, want %d:\n%s", lines, c.failures, logs.String())
			}
		})
	}
}

// mountProxies registers the proxied collections of TestProxyRoute.
func mountProxies(t *testing.T, f *fixture) {
	t.Helper()
	k := f.k
	// reports: a host route behind the team admin role.
	reports := external.CreateExternalCollectionHandler(func(*http.Request) ([]external.Item, error) {
		return []external.Item{{"id": "r-1", "title": "Quarterly numbers"}, {"id": "r-2", "title": "Salaries"}}, nil
	}, nil)
	k.Handle(http.MethodGet, "/teams/{team}/reports", k.Auth().RequireTeamRole("admin")(reports))

	users, err := external.DefineExternalCollection(external.Config{
		Name:    "teamUsers",
		Handler: external.CreateExternalCollectionHandler(fetchTeamPeople, personItem),
	})
	if err != nil {
		t.Fatal(err)
	}
	proxy := func(source string, transform func(external.Item) (external.Item, error)) *collections.Proxy {
		return &collections.Proxy{Enabled: true, SourceEndpoint: source, Transform: transform}
	}
	defs := []external.Config{
		{Name: "catalog", Proxy: proxy("shop-products", productOption)},
		{Name: "catalogItems", FetchStrategy: "restful", Proxy: proxy("shop-products", productOption)},
		{Name: "fragileCatalog", Proxy: proxy("shop-products", func(p external.Item) (external.Item, error) {
			if p["sku"] == "S-1" {
				panic("saw has no blade")
			}
			return productOption(p)
		})},
		{Name: "brokenCatalog", Proxy: proxy("shop-products", func(p external.Item) (external.Item, error) {
			if p["sku"] == "H-1" {
				return nil, errors.New("hammer pricing unavailable")
			}
			return external.Item{"id": p["id"]}, nil // no title
		})},
		{Name: "strictCatalog", Schema: map[string]any{"properties": map[string]any{"price": map[string]any{"type": "number"}}},
			Proxy: proxy("shop-products", productOption)}, // price stays a decimal string
		{Name: "adminReports", Proxy: proxy("reports", func(r external.Item) (external.Item, error) {
			return external.Item{"id": r["id"], "title": "Report: " + r["title"].(string)}, nil
		})},
		{Name: "memberDirectory", Proxy: proxy("teamUsers", func(p external.Item) (external.Item, error) {
			return external.Item{"id": p["id"], "title": p["title"].(string) + " <" + p["email"].(string) + ">"}, nil
		})},
		{Name: "ghostCatalog", Proxy: proxy("nothing-here", productOption)},
		{Name: "loopA", Proxy: proxy("loopB", productOption)},
		{Name: "loopB", Proxy: proxy("loopA", productOption)},
		{Name: "plainCatalog", Proxy: &collections.Proxy{SourceEndpoint: "shop-products", Transform: productOption},
			Handler: external.CreateExternalCollectionHandler(func(*http.Request) ([]external.Item, error) {
				return []external.Item{{"id": "own-1", "title": "Served by the handler"}}, nil
			}, nil)},
	}
	cols := []*external.Collection{users}
	for _, cfg := range defs {
		c, err := external.DefineExternalCollection(cfg)
		if err != nil {
			t.Fatal(err)
		}
		cols = append(cols, c)
	}
	if err := external.Register(t.Context(), k, cols...); err != nil {
		t.Fatal(err)
	}
}

func TestProxyRoute(t *testing.T) {
	f := newFixture(t, nil, mountProxies)
	f.run(t, []scenario{
		{name: "a member gets the team's products transformed", path: "/api/teams/acme/catalog", caller: "mia", status: 200,
			contains: []string{`"title":"Hammer (H-1)"`, `"title":"Saw (S-1)"`, `"price":"9.50"`, `"pagination"`},
			absent:   []string{"Gadget", `"sku"`}},
		{name: "the source's list parameters pass through", path: "/api/teams/acme/catalog?pageSize=1&sort=title", caller: "mia", status: 200,
			contains: []string{`"pageSize":1`, `"totalItems":2`, "Hammer (H-1)"}, absent: []string{"Saw"}},
		{name: "ids answers those items in the order asked", path: "/api/teams/acme/catalog?ids={saw},{hammer}", caller: "mia", status: 200,
			ids: []string{"{saw}", "{hammer}"}, contains: []string{"Saw (S-1)"}},
		{name: "ids leaves out unknown ids and other teams' items", path: "/api/teams/acme/catalog?ids=nothing,{gadget},{hammer}", caller: "mia", status: 200,
			ids: []string{"{hammer}"}, absent: []string{"Gadget"}},
		{name: "the query strategy answers /{id} with 404", path: "/api/teams/acme/catalog/{hammer}", caller: "mia", status: 404,
			contains: []string{"fetchStrategy query"}},
		{name: "the restful strategy answers /{id} with the transformed item", path: "/api/teams/acme/catalogItems/{hammer}", caller: "mia", status: 200,
			id: "{hammer}", contains: []string{`"title":"Hammer (H-1)"`}},
		{name: "the restful strategy answers another team's id with 404", path: "/api/teams/acme/catalogItems/{gadget}", caller: "mia", status: 404,
			contains: []string{"record not found"}, absent: []string{"Gadget"}},
		{name: "the other team sees only its own products", path: "/api/teams/globex/catalog?ids={hammer},{gadget}", caller: "gina", status: 200,
			ids: []string{"{gadget}"}},
		{name: "a non-member is refused", path: "/api/teams/acme/catalog", caller: "gina", status: 403,
			contains: []string{"not a member"}, absent: []string{"Hammer"}},
		{name: "a non-member is refused a single item too", path: "/api/teams/acme/catalogItems/{hammer}", caller: "gina", status: 403,
			absent: []string{"Hammer"}},
		{name: "an anonymous caller is refused", path: "/api/teams/acme/catalog", status: 401},
		{name: "a member below the source's role is refused as at the source", path: "/api/teams/acme/adminReports", caller: "mia", status: 403,
			contains: []string{"insufficient team role"}, absent: []string{"Salaries"}},
		{name: "the source itself refuses that member the same way", path: "/api/teams/acme/reports", caller: "mia", status: 403,
			contains: []string{"insufficient team role"}},
		{name: "a team admin passes the source's guard", path: "/api/teams/acme/adminReports", caller: "adam", status: 200,
			ids: []string{"r-1", "r-2"}, contains: []string{"Report: Salaries"}},
		{name: "a proxy over an external handler collection transforms its items", path: "/api/teams/acme/memberDirectory?includeBanned=true", caller: "mia", status: 200,
			ids: []string{"p-ada", "p-bob", "p-cyd"}, contains: []string{"Ada <ada@acme.test>"}},
		{name: "the source's 400 for a bad parameter is relayed", path: "/api/teams/acme/memberDirectory?includeBanned=maybe", caller: "mia", status: 400,
			contains: []string{`"param":"includeBanned"`}},
		{name: "a proxy to an endpoint that does not exist answers the source's 404", path: "/api/teams/acme/ghostCatalog", caller: "mia", status: 404,
			contains: []string{"collection not found"}},
		{name: "a cycle of proxies answers 508", path: "/api/teams/acme/loopA", caller: "mia", status: 508,
			contains: []string{`"statusText":"Loop Detected"`}},
		{name: "without an enabled proxy the standard path is used", path: "/api/teams/acme/plainCatalog", caller: "mia", status: 200,
			ids: []string{"own-1"}, absent: []string{"Hammer"}},
	})
}

func TestProxyTransformFailures(t *testing.T) {
	f := newFixture(t, nil, mountProxies)
	decodeProducts := func(t *testing.T, body string) map[string]map[string]any {
		var list struct {
			Items []map[string]any `json:"items"`
		}
		testkit.DecodeJSON(t, body, &list)
		out := map[string]map[string]any{}
		for _, it := range list.Items {
			out[it["id"].(string)] = it
		}
		return out
	}
	cases := []struct {
		name string
		path string
		// want maps a product placeholder to the title it must have;
		// unchanged ones also keep their sku.
		want      map[string]string
		unchanged []string
		failures  []string // what the failure lines must name
	}{
		{name: "a panicking transform is recovered, logged, and keeps that item unchanged",
			path:      "/api/teams/acme/fragileCatalog",
			want:      map[string]string{"hammer": "Hammer (H-1)", "saw": "Saw"},
			unchanged: []string{"saw"},
			failures:  []string{"saw has no blade"}},
		{name: "an error and an output without a title each keep their item unchanged",
			path:      "/api/teams/acme/brokenCatalog",
			want:      map[string]string{"hammer": "Hammer", "saw": "Saw"},
			unchanged: []string{"hammer", "saw"},
			failures:  []string{"hammer pricing unavailable", `\"title\" must be a string`}},
		{name: "an output that breaks the collection's schema keeps its item unchanged",
			path:      "/api/teams/acme/strictCatalog",
			want:      map[string]string{"hammer": "Hammer", "saw": "Saw"},
			unchanged: []string{"hammer", "saw"},
			failures:  []string{"does not satisfy the schema", "does not satisfy the schema"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := len(f.logLines(transformFailedLog))
			res := f.get(t, c.path, "mia")
			if res.status != 200 {
				t.Fatalf("got status %d, want 200 (body %s)", res.status, res.body)
			}
			got := decodeProducts(t, res.body)
			for placeholder, title := range c.want {
				it := got[f.ids[placeholder]]
				if it == nil || it["title"] != title {
					t.Errorf("%s: got %v, want title %q", placeholder, it, title)
				}
			}
			for _, placeholder := range c.unchanged {
				if it := got[f.ids[placeholder]]; it == nil || it["sku"] == nil || it["createdAt"] == nil {
					t.Errorf("%s: got %v, want the source record unchanged", placeholder, it)
				}
			}
			lines := f.logLines(transformFailedLog)[before:]
			if len(lines) != len(c.failures) {
				t.Fatalf("got %d failure lines, want %d:\n%s", len(lines), len(c.failures), strings.Join(lines, "\n"))
			}
			for i, want := range c.failures {
				line := lines[i]
				if !strings.Contains(line, `msg="[useCollectionProxy] Transform failed for item`) || !strings.Contains(strings.Join(lines, "\n"), want) {
					t.Errorf("line %q: got no %q after the prefix, want it", line, want)
				}
				if !strings.Contains(line, "level=WARN") {
					t.Errorf("line %q: got another level, want WARN", line)
				}
			}
		})
	}
}

// TestProxyForwardsTheCaller checks that the proxied request carries the
// caller's headers and correlation id, and that kit sees one caller.
func TestProxyForwardsTheCaller(t *testing.T) {
	seen := make(chan http.Header, 1)
	f := newFixture(t, nil, func(t *testing.T, f *fixture) {
		echo := external.CreateExternalCollectionHandler(func(r *http.Request) ([]external.Item, error) {
			select {
			case seen <- r.Header.Clone():
			default:
			}
			return []external.Item{{"id": "e-1", "title": "echo"}}, nil
		}, nil)
		f.k.Handle(http.MethodGet, "/teams/{team}/echo", f.k.Auth().RequireTeamMember()(echo))
		c, err := external.DefineExternalCollection(external.Config{Name: "echoes", Proxy: &collections.Proxy{
			Enabled: true, SourceEndpoint: "echo", Transform: func(i external.Item) (external.Item, error) { return i, nil }}})
		if err != nil {
			t.Fatal(err)
		}
		external.MustRegister(t.Context(), f.k, c)
	})
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, f.srv.URL+"/api/teams/acme/echoes", nil)
	req.Header.Set("Authorization", "Bearer "+f.tokens["mia"])
	req.Header.Set("X-Correlation-Id", "trace-42")
	req.Header.Set("Accept-Language", "de")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("got status %d, want 200", res.StatusCode)
	}
	h := <-seen
	for _, c := range []struct{ name, want string }{
		{"Authorization", "Bearer " + f.tokens["mia"]},
		{"X-Correlation-Id", "trace-42"},
		{"Accept-Language", "de"},
	} {
		t.Run("the source gets the caller's "+c.name+" header", func(t *testing.T) {
			if got := h.Get(c.name); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
	t.Run("the answer keeps the caller's correlation id", func(t *testing.T) {
		if got := res.Header.Get("X-Correlation-Id"); got != "trace-42" {
			t.Errorf("got %q, want trace-42", got)
		}
	})
}
