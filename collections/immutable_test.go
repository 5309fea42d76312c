package collections_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/collectionkit/kit/collections"
)

// immutableRegistry builds a collection whose config has every kind of
// map, slice and pointer, and a field whose default is a JSON object.
func immutableRegistry(t *testing.T) (*collections.Registry, *collections.Definition) {
	t.Helper()
	order, on := 3, true
	def := &collections.Definition{
		Name: "products", Layer: "shop",
		Fields: []collections.Field{
			{Name: "title", Type: collections.TypeString, Meta: collections.FieldMeta{Required: true}},
			{Name: "specs", Type: collections.TypeJSON, Meta: collections.FieldMeta{Default: map[string]any{"size": []any{"s", "m"}}}},
		},
		Config: &collections.Config{
			DefaultPagination: &collections.Pagination{PageSize: 25},
			References:        map[string]string{"title": "x"},
			Display:           map[string]string{"title": "title"},
			AdminNav:          &collections.AdminNav{Enabled: &on, Order: &order},
			UseMetadata:       &on,
			Extra:             map[string]any{"icon": map[string]any{"name": "box"}},
		},
	}
	reg, _, err := collections.Build([]collections.Definition{*def}, collections.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return reg, def
}

// snapshot is what the registry tells clients and Go callers about
// shopProducts.
func snapshot(t *testing.T, reg *collections.Registry) string {
	t.Helper()
	c, ok := reg.Get("shopProducts")
	if !ok {
		t.Fatal("shopProducts missing")
	}
	b, err := json.Marshal(map[string]any{"registry": reg, "fields": c.Fields(), "config": c.Config(),
		"key": c.Key(), "name": c.Name(), "layer": c.Layer(), "table": c.Table(), "apiPath": c.APIPath()})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestMutatingWhatACollectionReturnsLeavesTheRegistryUnchanged(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(c *collections.Collection, def *collections.Definition)
	}{
		{"changing the Fields copy", func(c *collections.Collection, _ *collections.Definition) {
			fs := c.Fields()
			fs[0].Name, fs[0].Meta.Required = "renamed", false
			fs[1].Meta.Default.(map[string]any)["size"].([]any)[0] = "xl"
		}},
		{"changing a field from FieldAt and AllFields", func(c *collections.Collection, _ *collections.Definition) {
			f := c.FieldAt(1)
			f.Meta.Default.(map[string]any)["colour"] = "red"
			for _, f := range c.AllFields() {
				f.Meta.Required = !f.Meta.Required
				if m, ok := f.Meta.Default.(map[string]any); ok {
					m["size"] = nil
				}
			}
		}},
		{"changing the Config copy's values, maps, slices and pointers", func(c *collections.Collection, _ *collections.Definition) {
			cfg := c.Config()
			cfg.APIPath, cfg.FetchStrategy = "elsewhere", "restful"
			cfg.DefaultPagination.PageSize = 1
			cfg.References["title"] = "y"
			cfg.Display["title"] = "specs"
			*cfg.AdminNav.Order = 99
			*cfg.AdminNav.Enabled = false
			*cfg.UseMetadata = false
			cfg.Extra["icon"].(map[string]any)["name"] = "trash"
			cfg.Fields[0].Label = "Changed"
		}},
		{"changing the definition it was built from", func(_ *collections.Collection, def *collections.Definition) {
			def.Fields[1].Meta.Default.(map[string]any)["size"] = "xxl"
			def.Config.References["title"] = "z"
			def.Config.Extra["icon"].(map[string]any)["name"] = "bin"
			*def.Config.AdminNav.Order = 7
		}},
	} {
		t.Run(tc.name+" leaves the registry unchanged", func(t *testing.T) {
			reg, def := immutableRegistry(t)
			before := snapshot(t, reg)
			c, _ := reg.Get("shopProducts")
			tc.mutate(c, def)
			if after := snapshot(t, reg); after != before {
				t.Errorf("registry after the change:\n got %s\nwant %s", after, before)
			}
		})
	}
}

func TestAccessorsAgreeWithTheCopies(t *testing.T) {
	reg, _ := immutableRegistry(t)
	c, _ := reg.Get("shopProducts")
	if got, want := c.NumFields(), len(c.Fields()); got != want {
		t.Errorf("NumFields: got %d, want %d", got, want)
	}
	for i, f := range c.AllFields() {
		if !reflect.DeepEqual(f, c.FieldAt(i)) || !reflect.DeepEqual(f, c.Fields()[i]) {
			t.Errorf("field %d: AllFields %+v, FieldAt %+v, Fields %+v disagree", i, f, c.FieldAt(i), c.Fields()[i])
		}
	}
	if got, want := c.APIPath(), c.Config().APIPath; got != want {
		t.Errorf("APIPath: got %q, want %q", got, want)
	}
	if got, want := c.FetchStrategy(), c.Config().FetchStrategy; got != want {
		t.Errorf("FetchStrategy: got %q, want %q", got, want)
	}
}

func TestChangingTheProxyCopyLeavesTheCollectionUnchanged(t *testing.T) {
	reg, _, err := collections.Build([]collections.Definition{
		{Name: "products", Layer: "shop", Fields: []collections.Field{{Name: "title", Type: collections.TypeString}}},
		{Name: "catalog", External: true, Config: &collections.Config{Proxy: &collections.Proxy{Enabled: true, SourceEndpoint: "shop-products"}}},
	}, collections.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := reg.Get("catalog")
	p := c.Proxy()
	p.Enabled, p.SourceEndpoint = false, "elsewhere"
	if got := c.Proxy(); got == nil || !got.Enabled || got.SourceEndpoint != "shop-products" {
		t.Errorf("Proxy after changing the copy: got %+v, want enabled from shop-products", got)
	}
	if got := c.Config().Proxy; got == nil || got.SourceEndpoint != "shop-products" {
		t.Errorf("Config().Proxy after changing the copy: got %+v, want shop-products", got)
	}
	if p, _ := reg.Get("shopProducts"); p.Proxy() != nil {
		t.Errorf("Proxy of a collection without one: got %+v, want nil", p.Proxy())
	}
}
