package client_test

import (
	"bytes"
	"errors"
	"log/slog"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/collectionkit/kit/client"
	"github.com/collectionkit/kit/internal/testdb"
)

func TestProxyHelpersMatchTheServersProxy(t *testing.T) {
	s := newServer(t, testdb.EngineSQLite)
	s.seed(t, "mia", "shopProducts", map[string]any{"title": "Lamp", "sku": "L-1", "price": "1.00"})
	s.seed(t, "mia", "shopProducts", map[string]any{"title": "Saw", "sku": "S-1", "price": "2.00"})
	var logs bytes.Buffer
	c := s.client(t, "mia", client.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	ctx := t.Context()
	cfg, err := c.Config(ctx, "catalog")
	if err != nil {
		t.Fatal(err)
	}
	t.Run("ProxiedEndpoint is the source endpoint of an enabled proxy", func(t *testing.T) {
		if got := client.ProxiedEndpoint(cfg, "catalog"); got != "shop-products" {
			t.Errorf("got %q, want shop-products", got)
		}
	})
	t.Run("ProxiedEndpoint is the apiPath without a proxy", func(t *testing.T) {
		products, err := c.Config(ctx, "shopProducts")
		if err != nil {
			t.Fatal(err)
		}
		if got := client.ProxiedEndpoint(products, "shop-products"); got != "shop-products" {
			t.Errorf("got %q, want shop-products", got)
		}
	})
	var source []any
	if err := c.Do(ctx, http.MethodGet, "/teams/acme/"+client.ProxiedEndpoint(cfg, "catalog"), nil, nil, &struct {
		Items *[]any `json:"items"`
	}{&source}); err != nil {
		t.Fatal(err)
	}
	t.Run("ApplyTransform over the source gives what the server's proxy serves", func(t *testing.T) {
		cfg.Proxy.Transform = catalogTransform
		got := c.ApplyTransform(ctx, source, cfg)
		served, err := s.client(t, "mia").Team("acme").Collection("catalog").List(ctx, client.Query{})
		if err != nil {
			t.Fatal(err)
		}
		want := make([]any, len(served.Items))
		for i, item := range served.Items {
			want[i] = item
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("got %v, want the server's %v", got, want)
		}
	})
	t.Run("a transform failing for one item logs it and keeps it unchanged", func(t *testing.T) {
		logs.Reset()
		cfg.Proxy.Transform = func(p map[string]any) (map[string]any, error) {
			if p["title"] == "Saw" {
				return nil, errors.New("no saws")
			}
			p["title"] = strings.ToUpper(p["title"].(string))
			return p, nil
		}
		list := map[string]any{"items": source, "pagination": map[string]any{"totalItems": 2}}
		got := c.ApplyTransform(ctx, list, cfg).(map[string]any)
		items := got["items"].([]any)
		for i, item := range items {
			title := item.(map[string]any)["title"]
			want := map[string]any{"Lamp": "LAMP", "Saw": "Saw"}[source[i].(map[string]any)["title"].(string)]
			if title != want {
				t.Errorf("got title %v, want %v", title, want)
			}
		}
		if got["pagination"] == nil {
			t.Errorf("got %v, want the pagination kept", got)
		}
		if !strings.Contains(logs.String(), "[useCollectionProxy] Transform failed for item") || !strings.Contains(logs.String(), "no saws") {
			t.Errorf("got logs %q, want the transform failure", logs.String())
		}
		if source[0].(map[string]any)["title"] == "LAMP" || source[1].(map[string]any)["title"] == "LAMP" {
			t.Errorf("got the source changed, want it untouched")
		}
	})
	t.Run("an output without a title and a panic are failures too", func(t *testing.T) {
		logs.Reset()
		cfg.Proxy.Transform = func(p map[string]any) (map[string]any, error) {
			if p["title"] == "Saw" {
				panic("boom")
			}
			return map[string]any{"id": p["id"]}, nil
		}
		item := source[0].(map[string]any)
		if got := c.ApplyTransform(ctx, item, cfg); !reflect.DeepEqual(got, item) {
			t.Errorf("got %v, want the item unchanged", got)
		}
		if got := c.ApplyTransform(ctx, source[1], cfg); !reflect.DeepEqual(got, source[1]) {
			t.Errorf("got %v, want the item unchanged", got)
		}
		if n := strings.Count(logs.String(), "Transform failed for item"); n != 2 {
			t.Errorf("got %d failures logged, want 2: %s", n, logs.String())
		}
	})
	t.Run("without an enabled proxy the data is returned as it is", func(t *testing.T) {
		off := cfg
		off.Proxy = &client.Proxy{Enabled: false, Transform: catalogTransform}
		if got := c.ApplyTransform(ctx, source, off); !reflect.DeepEqual(got, source) {
			t.Errorf("got %v, want the source", got)
		}
	})
}
