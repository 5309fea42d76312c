package kit_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/internal/testkit"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/kittest"
)

// sendRaw sends target (path and query) to base exactly as written, with
// no client-side cleaning, and does not follow redirects.
func sendRaw(t *testing.T, base, method, target, token, body string) response {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, base+"/", rd)
	if err != nil {
		t.Fatal(err)
	}
	path, query, _ := strings.Cut(target, "?")
	req.URL.Opaque, req.URL.RawQuery = path, query
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{status: res.StatusCode, header: res.Header, body: string(b)}
}

// serveDirect serves w's Kit with no host mux in front, so paths reach kit
// as sent (a host's ServeMux cleans them first).
func serveDirect(t *testing.T, w *world) string {
	srv := httptest.NewServer(w.k.Handler())
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestPathSegmentsThatAreNotTextAnswerTheMissingIDsAnswer(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		w := newWorld(t, e)
		base := serveDirect(t, w)
		for _, tc := range []struct {
			name, caller, method, path, missing, body string
		}{
			{"a team id of %FF answers as a missing team", "mia", "GET", "/api/teams/%FF/shop-products", "/api/teams/nosuchteam/shop-products", ""},
			{"a team id of %C0%AF answers as a missing team", "mia", "POST", "/api/teams/%C0%AF/shop-products", "/api/teams/nosuchteam/shop-products", `{"title":"x"}`},
			{"a team id holding NUL answers as a missing team", "mia", "GET", "/api/teams/acme%00/shop-products", "/api/teams/nosuchteam/shop-products", ""},
			{"a record id of %FF answers as a missing record", "mia", "GET", "/api/teams/{acme}/shop-products/%FF", "/api/teams/{acme}/shop-products/nosuchid", ""},
			{"a record id of %C0%AF answers as a missing record on update", "mia", "PATCH", "/api/teams/{acme}/shop-products/%C0%AF", "/api/teams/{acme}/shop-products/nosuchid", `{"title":"x"}`},
			{"a record id of %00 answers as a missing record on delete", "mia", "DELETE", "/api/teams/{acme}/shop-products/%00", "/api/teams/{acme}/shop-products/nosuchid", ""},
			{"a record id with NUL inside answers as a missing record", "mia", "DELETE", "/api/teams/{acme}/shop-products/{miaProduct}%00", "/api/teams/{acme}/shop-products/nosuchid", ""},
			{"a super-admin record id of %FF answers as a missing record", "root", "GET", "/api/super-admin/shopProducts/%FF", "/api/super-admin/shopProducts/nosuchid", ""},
			{"a super-admin record id of %00 answers as a missing record", "root", "GET", "/api/super-admin/shopProducts/%00", "/api/super-admin/shopProducts/nosuchid", ""},
			{"a super-admin collection of %C0%AF answers as a missing collection", "root", "GET", "/api/super-admin/%C0%AF/{miaProduct}", "/api/super-admin/noSuchCollection/{miaProduct}", ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				token := w.tokens[tc.caller]
				want := sendRaw(t, base, tc.method, w.expand(tc.missing), token, tc.body)
				if want.status != http.StatusNotFound {
					t.Fatalf("%s %s: got %d, want 404 (the missing id's answer): %s", tc.method, tc.missing, want.status, want.body)
				}
				before := w.snapshot(t)
				got := sendRaw(t, base, tc.method, w.expand(tc.path), token, tc.body)
				if got.status != http.StatusNotFound {
					t.Errorf("status: got %d, want 404: %s", got.status, got.body)
				}
				if got.body != want.body {
					t.Errorf("body: got %s, want the missing id's %s", got.body, want.body)
				}
				if n := kittest.RowsChanged(before, w.snapshot(t)); n != 0 {
					t.Errorf("rows changed: got %d, want 0", n)
				}
			})
		}
	})
}

func TestQueryValuesThatAreNotTextAnswer400NamingTheParameter(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		w := newWorld(t, e)
		base := serveDirect(t, w)
		for _, tc := range []struct {
			name, method, target, param string
		}{
			{"a search of %FF", "GET", "/api/teams/{acme}/shop-products?search=%FF", "search"},
			{"a search holding NUL", "GET", "/api/teams/{acme}/shop-products?search=a%00b", "search"},
			{"a filter of an encoded lone surrogate", "GET", "/api/teams/{acme}/shop-products?filter=%ED%A0%80", "filter"},
			{"ids of %C0%AF on a bulk delete", "DELETE", "/api/teams/{acme}/shop-products?ids=%C0%AF", "ids"},
			{"a super-admin search holding NUL", "GET", "/api/super-admin/users?search=%00", "search"},
			{"a parameter name of %FF", "GET", "/api/teams/{acme}/shop-products?%FF=1", `"\xff"`},
		} {
			t.Run(tc.name+" is a 400 naming "+tc.param, func(t *testing.T) {
				before := w.snapshot(t)
				got := sendRaw(t, base, tc.method, w.expand(tc.target), w.tokens["root"], "")
				if got.status != http.StatusBadRequest {
					t.Errorf("status: got %d, want 400: %s", got.status, got.body)
				}
				var m struct {
					Data struct{ Param string } `json:"data"`
				}
				testkit.DecodeJSON(t, got.body, &m)
				if m.Data.Param != tc.param {
					t.Errorf("data.param: got %q, want %q", m.Data.Param, tc.param)
				}
				if n := kittest.RowsChanged(before, w.snapshot(t)); n != 0 {
					t.Errorf("rows changed: got %d, want 0", n)
				}
			})
		}
	})
}

func TestEmptyAndDotPathSegmentsAnswer400NotARedirect(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		w := newWorld(t, e)
		base := serveDirect(t, w)
		for _, tc := range []struct {
			name, method, target, body string
		}{
			{"a missing team on a list", "GET", "/api/teams//shop-products", ""},
			{"a missing team on a create", "POST", "/api/teams//shop-products", `{"title":"x"}`},
			{"a missing record id before a move", "PATCH", "/api/teams/{acme}/shop-products//move", `{}`},
			{"two slashes after the prefix", "GET", "/api//kit/collections", ""},
			{"a dot segment", "GET", "/api/teams/{acme}/./shop-products", ""},
			{"a dot-dot segment on a delete", "DELETE", "/api/teams/{acme}/shop-products/../shop-products/{miaProduct}", ""},
			{"an encoded dot-dot segment", "GET", "/api/teams/%2e%2e/shop-products", ""},
		} {
			t.Run(tc.name+" is a 400", func(t *testing.T) {
				before := w.snapshot(t)
				got := sendRaw(t, base, tc.method, w.expand(tc.target), w.tokens["mia"], tc.body)
				if got.status != http.StatusBadRequest {
					t.Errorf("status: got %d, want 400: %s", got.status, got.body)
				}
				if why := checkErrorShape(got.status, []byte(got.body)); why != "" {
					t.Errorf("body: got %s, want kit's error shape (%s)", got.body, why)
				}
				if n := kittest.RowsChanged(before, w.snapshot(t)); n != 0 {
					t.Errorf("rows changed: got %d, want 0", n)
				}
			})
		}
	})
}

func TestJSONNestedDeeperThanTheLimitAnswers400NamingTheField(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		w := newWorld(t, e, func(cfg *kit.Config) {
			cfg.Definitions = append(cfg.Definitions, specimensDef())
		})
		rec, err := w.k.Records(specimensKey).Create(t.Context(), kit.Actor{UserID: w.ids["mia"], TeamID: w.ids["acme"], Role: "member"},
			map[string]any{"label": "A"})
		if err != nil {
			t.Fatal(err)
		}
		tables := append([]string{specimensTable}, worldTables...)
		for _, tc := range []struct {
			name, field, value string
		}{
			{"a json field nested 1,001 arrays deep", "attributes", nested(1001, false)},
			{"a json field nested 5,000 arrays deep", "attributes", nested(5000, false)},
			{"a json field nested 9,999 objects deep", "attributes", nested(9999, true)},
			{"an array field nested 1,001 arrays deep", "tags", nested(1001, false)},
			{"a repeater field nested 5,000 levels deep", "measurements", "[" + nested(4999, true) + "]"},
			{"a json field one level deeper than the limit", "attributes", nested(collections.MaxJSONDepth+1, false)},
		} {
			for _, op := range []struct{ method, path string }{
				{"POST", "/api/teams/{acme}/lab-specimens"},
				{"PATCH", "/api/teams/{acme}/lab-specimens/" + rec["id"].(string)},
			} {
				t.Run(op.method+" with "+tc.name+" is a 400 naming the field", func(t *testing.T) {
					before := kittest.TableRows(t, w.k.DB(), tables...)
					got := w.do(t, op.method, op.path, "mia", "application/json", fmt.Sprintf(`{%q:%s}`, tc.field, tc.value))
					if got.status != http.StatusBadRequest {
						t.Fatalf("status: got %d, want 400: %.300s", got.status, got.body)
					}
					var body struct {
						Data struct {
							Fields map[string]string `json:"fields"`
						} `json:"data"`
					}
					if err := json.NewDecoder(bytes.NewReader([]byte(got.body))).Decode(&body); err != nil {
						t.Fatal(err)
					}
					want := fmt.Sprintf("deeper than %d levels", collections.MaxJSONDepth)
					if msg := body.Data.Fields[tc.field]; !strings.Contains(msg, want) {
						t.Errorf("data.fields.%s: got %q, want it to contain %q", tc.field, msg, want)
					}
					if n := kittest.RowsChanged(before, kittest.TableRows(t, w.k.DB(), tables...)); n != 0 {
						t.Errorf("rows changed: got %d, want 0", n)
					}
				})
			}
		}
		t.Run("a json field exactly at the limit is stored", func(t *testing.T) {
			got := w.do(t, "POST", "/api/teams/{acme}/lab-specimens", "mia", "application/json",
				fmt.Sprintf(`{"attributes":%s}`, nested(collections.MaxJSONDepth, false)))
			if got.status != http.StatusCreated {
				t.Errorf("status: got %d, want 201: %.300s", got.status, got.body)
			}
		})
	})
}

// nested is JSON nested depth levels deep: arrays, or objects when obj.
func nested(depth int, obj bool) string {
	open, close := "[", "]"
	if obj {
		open, close = `{"a":`, "}"
	}
	return strings.Repeat(open, depth) + "1" + strings.Repeat(close, depth)
}

// checkErrorShape reports why b is not kit's error shape for status, or
// "".
func checkErrorShape(status int, b []byte) string {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return "not a JSON object: " + err.Error()
	}
	for k := range m {
		switch k {
		case "status", "statusText", "message", "data":
		default:
			return fmt.Sprintf("unexpected key %q", k)
		}
	}
	var got struct {
		Status     *int    `json:"status"`
		StatusText *string `json:"statusText"`
		Message    *string `json:"message"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		return err.Error()
	}
	switch {
	case got.Status == nil || *got.Status != status:
		return fmt.Sprintf("status field is not %d", status)
	case got.StatusText == nil || *got.StatusText != http.StatusText(status):
		return fmt.Sprintf("statusText is not %q", http.StatusText(status))
	case got.Message == nil || *got.Message == "":
		return "no message"
	}
	return ""
}
