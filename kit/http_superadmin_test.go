package kit_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
)

// TestSuperAdminItemPathTakesTheSpecsCollectionName reads records through
// /api/super-admin/<collection>/<id> with <collection> as the key, the
// apiPath and the name the specification writes ("products").
func TestSuperAdminItemPathTakesTheSpecsCollectionName(t *testing.T) {
	const notFound = `{"status":404,"statusText":"Not Found","message":"collection not found"}`
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		w := newWorld(t, e)
		tests := []struct {
			name, path, caller string
			status             int
			body               string // the whole body, or a part of it when partial
			partial            bool
		}{
			{"the key", "/api/super-admin/shopProducts/{ginaProduct}", "root", 200, `"sku":"GINA-1"`, true},
			{"the apiPath", "/api/super-admin/shop-products/{ginaProduct}", "root", 200, `"sku":"GINA-1"`, true},
			{"the name the specification writes", "/api/super-admin/products/{ginaProduct}", "root", 200, `"sku":"GINA-1"`, true},
			{"another collection's name", "/api/super-admin/categories/{globexCategory}", "root", 200, `"title":"Gadgets"`, true},
			{"the name with a record of another collection", "/api/super-admin/categories/{ginaProduct}", "root", 404, `"message":"record not found"`, true},
			{"the name in another case", "/api/super-admin/Products/{ginaProduct}", "root", 404, notFound, false},
			{"the singular", "/api/super-admin/product/{ginaProduct}", "root", 404, notFound, false},
			{"the name as a team owner", "/api/super-admin/products/{ginaProduct}", "gina", 403, "GINA-1", true},
			{"the name without credentials", "/api/super-admin/products/{ginaProduct}", "", 401, "GINA-1", true},
		}
		for _, tt := range tests {
			t.Run(tt.name+" answers "+http.StatusText(tt.status), func(t *testing.T) {
				r := w.do(t, "GET", tt.path, tt.caller, "", "")
				if r.status != tt.status {
					t.Fatalf("got %d %s, want %d", r.status, r.body, tt.status)
				}
				body := strings.TrimSuffix(r.body, "\n")
				switch {
				case tt.status >= 401 && tt.status <= 403 && strings.Contains(body, tt.body):
					t.Errorf("got %s, want no record in a refusal", body)
				case tt.status < 401 || tt.status > 403:
					if tt.partial && !strings.Contains(body, tt.body) || !tt.partial && body != tt.body {
						t.Errorf("got %s, want %s", body, tt.body)
					}
				}
			})
		}
	})
}

func TestSuperAdminItemPathRefusesANameTwoCollectionsShare(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		w := newWorld(t, e, func(c *kit.Config) {
			c.Definitions = append(c.Definitions, collections.Definition{Name: "products", Layer: "legacy", Fields: []collections.Field{
				{Name: "title", Type: collections.TypeString},
			}})
		})
		r := w.do(t, "GET", "/api/super-admin/products/{ginaProduct}", "root", "", "")
		want := `{"status":404,"statusText":"Not Found","message":"collection \"products\" is the name of 2 collections (legacyProducts, shopProducts): name one by its registry key or apiPath","data":{"collections":["legacyProducts","shopProducts"]}}`
		if r.status != 404 || strings.TrimSuffix(r.body, "\n") != want {
			t.Errorf("got %d %s, want 404 %s", r.status, r.body, want)
		}
		for _, path := range []string{"/api/super-admin/shopProducts/{ginaProduct}", "/api/super-admin/shop-products/{ginaProduct}"} {
			if r := w.do(t, "GET", path, "root", "", ""); r.status != 200 || !strings.Contains(r.body, `"sku":"GINA-1"`) {
				t.Errorf("%s: got %d %s, want 200 with the record", path, r.status, r.body)
			}
		}
	})
}
