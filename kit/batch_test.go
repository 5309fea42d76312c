package kit_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/kittest"
	"github.com/collectionkit/kit/teamauth"
)

// batchApp is a served Kit with the shop and tree collections, teams acme
// (alice, owner; mia, member) and globex (gina), an acme category and a
// product of mia's, and a counter of in-transaction listener calls.
type batchApp struct {
	*kittest.App
	alice, mia, gina string // tokens
	aliceActor       kit.Actor
	txHooks          *atomic.Int64
}

func newBatchApp(t *testing.T, e testdb.Engine) *batchApp {
	t.Helper()
	defs := append(shopDefinitions(), treeDefinitions()...)
	app := kittest.NewApp(t, kit.Config{DB: testdb.Open(t, e), Definitions: defs, Logger: quietLogger()})
	acme, globex := app.Team("acme"), app.Team("globex")
	alice, mia, gina := app.User("alice"), app.User("mia"), app.User("gina")
	aliceA := app.AddMember(acme, alice, teamauth.RoleOwner)
	miaA := app.AddMember(acme, mia, teamauth.RoleMember)
	app.AddMember(globex, gina, teamauth.RoleOwner)
	ctx := t.Context()
	cat, err := app.Kit.Records("shopCategories").Create(ctx, aliceA, map[string]any{"title": "Tools"})
	if err != nil {
		t.Fatal(err)
	}
	app.IDs["acmeCategory"] = cat["id"].(string)
	p, err := app.Kit.Records("shopProducts").Create(ctx, miaA, map[string]any{"title": "Saw", "sku": "SAW-1", "categoryId": cat["id"]})
	if err != nil {
		t.Fatal(err)
	}
	app.IDs["miaProduct"] = p["id"].(string)
	var n atomic.Int64
	app.Kit.OnMutationTx(func(context.Context, bun.Tx, *kit.Mutation) error { n.Add(1); return nil })
	app.ResetMutations()
	return &batchApp{App: app, alice: app.Token(alice), mia: app.Token(mia), gina: app.Token(gina), aliceActor: aliceA, txHooks: &n}
}

// changeRows counts the change log's rows.
func (b *batchApp) changeRows(t testing.TB) int {
	t.Helper()
	var n int
	if err := b.Kit.DB().NewRaw("SELECT count(*) FROM kit_changes").Scan(context.Background(), &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// batchOf writes a batch body of requests.
func batchOf(requests ...string) string {
	return `{"requests": [` + strings.Join(requests, ", ") + `]}`
}

func TestBatchRunsEveryRequestOrNone(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		app := newBatchApp(t, e)
		t.Run("a batch writes every request in order and answers each", func(t *testing.T) {
			changes := app.changeRows(t)
			res := kittest.Scenario{
				Method: http.MethodPost, URL: "/api/teams/acme/kit-batch", Token: app.alice,
				Body: batchOf(
					`{"method": "POST", "url": "/teams/acme/shop-categories", "body": {"title": "Garden"}}`,
					`{"method": "POST", "url": "/teams/acme/shop-products", "body": {"title": "Hose", "sku": "HOSE-1", "categoryId": "{{0.id}}"}}`,
					`{"method": "PATCH", "url": "/teams/acme/shop-products/{{1.id}}", "body": {"stock": 3}}`,
					`{"method": "DELETE", "url": "/teams/acme/shop-products/{miaProduct}"}`,
				),
				ExpectedStatus:      http.StatusOK,
				ExpectedMutations:   map[string]int{"create shopCategories": 1, "create shopProducts": 1, "update shopProducts": 1, "delete shopProducts": 1},
				ExpectedRowsChanged: map[string]int{"shopCategories": 1, "shopProducts": 2},
			}.Test(t, app.App)
			var body struct {
				Responses []struct {
					Status  int               `json:"status"`
					Headers map[string]string `json:"headers"`
					Body    map[string]any    `json:"body"`
				} `json:"responses"`
			}
			if err := json.Unmarshal([]byte(res.Body), &body); err != nil {
				t.Fatal(err)
			}
			var statuses []int
			for _, r := range body.Responses {
				statuses = append(statuses, r.Status)
			}
			if got, want := fmt.Sprint(statuses), "[201 201 200 204]"; got != want {
				t.Fatalf("statuses: got %s, want %s", got, want)
			}
			if got, want := body.Responses[1].Body["categoryId"], body.Responses[0].Body["id"]; got != want {
				t.Errorf("the product's category: got %v, want the batch's new category %v", got, want)
			}
			if got := body.Responses[2].Body["stock"]; got != 3.0 {
				t.Errorf("the updated stock: got %v, want 3", got)
			}
			if body.Responses[0].Headers["Location"] == "" || body.Responses[2].Headers["ETag"] == "" {
				t.Errorf("headers: got %v and %v, want a Location and an ETag", body.Responses[0].Headers, body.Responses[2].Headers)
			}
			if got := app.changeRows(t) - changes; got != 4 {
				t.Errorf("change log rows: got %d, want 4", got)
			}
			ms := app.Mutations()
			for _, m := range ms[1:] {
				if m.CorrelationID != ms[0].CorrelationID || m.CorrelationID == "" {
					t.Errorf("correlation ids: got %q and %q, want one shared id", ms[0].CorrelationID, m.CorrelationID)
				}
			}
		})
		t.Run("a failing last request leaves every earlier one unwritten", func(t *testing.T) {
			changes, txHooks := app.changeRows(t), app.txHooks.Load()
			kittest.Scenario{
				Method: http.MethodPost, URL: "/api/teams/acme/kit-batch", Token: app.alice,
				Body: batchOf(
					`{"method": "POST", "url": "/teams/acme/shop-categories", "body": {"title": "Kitchen"}}`,
					`{"method": "POST", "url": "/teams/acme/shop-products", "body": {"title": "Pan", "sku": "PAN-1", "categoryId": "{{0.id}}"}}`,
					`{"method": "POST", "url": "/teams/acme/shop-products", "body": {"sku": "NO-TITLE"}}`,
				),
				ExpectedStatus:      http.StatusBadRequest,
				ExpectedContent:     []string{`"index":2`, `request 2:`, `title`},
				ExpectedMutations:   map[string]int{},
				ExpectedRowsChanged: map[string]int{},
			}.Test(t, app.App)
			if got := app.changeRows(t) - changes; got != 0 {
				t.Errorf("change log rows: got %d more, want none", got)
			}
			if got := app.txHooks.Load() - txHooks; got != 2 {
				t.Errorf("in-transaction listener calls: got %d, want 2 (the two writes that ran, then rolled back)", got)
			}
		})
	})
}

func TestBatchRefusesBadInput(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		app := newBatchApp(t, e)
		create := `{"method": "POST", "url": "/teams/acme/shop-categories", "body": {"title": "Fine"}}`
		over := make([]string, kit.MaxBatchOperations+1)
		for i := range over {
			over[i] = create
		}
		cases := []struct {
			name    string
			token   string
			team    string
			body    string
			status  int
			content []string
		}{
			{"a batch over the limit is refused", app.alice, "acme", batchOf(over...), 400, []string{"at most 100"}},
			{"an empty batch is refused", app.alice, "acme", batchOf(), 400, []string{"at least one"}},
			{"a body that is not a batch is refused", app.alice, "acme", `{"ops": []}`, 400, []string{"requests"}},
			{"malformed JSON is refused", app.alice, "acme", `{"requests": [`, 400, nil},
			{"an unknown operation is refused with its index", app.alice, "acme", batchOf(create, `{"method": "GET", "url": "/teams/acme/shop-categories"}`), 400, []string{`"index":1`, "not an operation"}},
			{"a route that is no record route is refused", app.alice, "acme", batchOf(`{"method": "POST", "url": "/auth/sign-in", "body": {}}`), 400, []string{`"index":0`}},
			{"a reference to a later request is refused", app.alice, "acme", batchOf(create, `{"method": "PATCH", "url": "/teams/acme/shop-categories/{{2.id}}", "body": {"title": "x"}}`, create), 400, []string{`"index":1`, "does not come before"}},
			{"a reference to itself is refused", app.alice, "acme", batchOf(`{"method": "POST", "url": "/teams/acme/shop-categories", "body": {"title": "{{0.id}}"}}`), 400, []string{`"index":0`}},
			{"a reference to a missing field is refused", app.alice, "acme", batchOf(create, `{"method": "PATCH", "url": "/teams/acme/shop-categories/{{0.nothing}}", "body": {"title": "x"}}`), 400, []string{`"index":1`}},
			{"a collection of another team is refused", app.alice, "acme", batchOf(create, `{"method": "POST", "url": "/teams/globex/shop-categories", "body": {"title": "x"}}`), 400, []string{`"index":1`, "another team"}},
			{"an unknown collection is a 404 with its index", app.alice, "acme", batchOf(create, `{"method": "POST", "url": "/teams/acme/no-such", "body": {}}`), 404, []string{`"index":1`}},
			{"a header other than If-Match is refused", app.alice, "acme", batchOf(`{"method": "POST", "url": "/teams/acme/shop-categories", "body": {"title": "x"}, "headers": {"X-Other": "1"}}`), 400, []string{"X-Other"}},
			{"a stale If-Match is a 412 with its index", app.alice, "acme", batchOf(create, `{"method": "PATCH", "url": "/teams/acme/shop-products/{miaProduct}", "body": {"title": "x"}, "headers": {"If-Match": "\"stale\""}}`), 412, []string{`"index":1`}},
			{"a member's write of another's record is a 403 with its index", app.mia, "acme", batchOf(create, `{"method": "DELETE", "url": "/teams/acme/shop-categories/{acmeCategory}"}`), 403, []string{`"index":1`}},
			{"a missing record is a 404 with its index", app.alice, "acme", batchOf(create, `{"method": "DELETE", "url": "/teams/acme/shop-categories/none"}`), 404, []string{`"index":1`}},
			{"a duplicate unique value is a 409 with its index", app.alice, "acme", batchOf(`{"method": "POST", "url": "/teams/acme/shop-products", "body": {"title": "A", "sku": "DUP"}}`, `{"method": "POST", "url": "/teams/acme/shop-products", "body": {"title": "B", "sku": "DUP"}}`), 409, []string{`"index":1`}},
			{"a batch of a team the caller is not in is refused", app.gina, "acme", batchOf(create), 403, nil},
			{"a batch without a token is refused", "", "acme", batchOf(create), 401, nil},
		}
		for _, c := range cases {
			changes := app.changeRows(t)
			kittest.Scenario{
				Name: c.name, Method: http.MethodPost, URL: "/api/teams/" + c.team + "/kit-batch", Token: c.token, Body: c.body,
				ExpectedStatus: c.status, ExpectedContent: c.content,
				ExpectedMutations: map[string]int{}, ExpectedRowsChanged: map[string]int{},
				AfterTest: func(t testing.TB, _ *kittest.App, _ *kittest.Response) {
					if got := app.changeRows(t) - changes; got != 0 {
						t.Errorf("change log rows: got %d more, want none", got)
					}
				},
			}.Run(t, app.App)
		}
	})
}

func TestBatchMovesAndReordersTrees(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		app := newBatchApp(t, e)
		kittest.Scenario{
			Name: "a batch builds a tree and moves a node under a new parent", Method: http.MethodPost,
			URL: "/api/teams/acme/kit-batch", Token: app.alice,
			Body: batchOf(
				`{"method": "POST", "url": "/teams/acme/docs-folders", "body": {"title": "Guides"}}`,
				`{"method": "POST", "url": "/teams/acme/docs-folders", "body": {"title": "Setup"}}`,
				`{"method": "PATCH", "url": "/teams/acme/docs-folders/{{1.id}}/move", "body": {"parentId": "{{0.id}}", "order": 0}}`,
			),
			ExpectedStatus:    http.StatusOK,
			ExpectedContent:   []string{`"status":200`},
			ExpectedMutations: map[string]int{"create docsFolders": 2, "move docsFolders": 1},
		}.Run(t, app.App)
		kittest.Scenario{
			Name: "a move under the node's own descendant is refused with its index", Method: http.MethodPost,
			URL: "/api/teams/acme/kit-batch", Token: app.alice,
			Body: batchOf(
				`{"method": "POST", "url": "/teams/acme/docs-folders", "body": {"title": "A"}}`,
				`{"method": "POST", "url": "/teams/acme/docs-folders", "body": {"title": "B", "parentId": "{{0.id}}"}}`,
				`{"method": "PATCH", "url": "/teams/acme/docs-folders/{{0.id}}/move", "body": {"parentId": "{{1.id}}", "order": 0}}`,
			),
			ExpectedStatus:      http.StatusBadRequest,
			ExpectedContent:     []string{`"index":2`, "descendants"},
			ExpectedMutations:   map[string]int{},
			ExpectedRowsChanged: map[string]int{},
		}.Run(t, app.App)
	})
}

func TestBatchInGo(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		app := newBatchApp(t, e)
		alice := app.aliceActor
		t.Run("writes made through the batch commit together", func(t *testing.T) {
			app.ResetMutations()
			var product kit.Record
			err := app.Kit.Batch(t.Context(), alice, func(b *kit.Batch) error {
				cat, err := b.Create("shopCategories", map[string]any{"title": "Lights"})
				if err != nil {
					return err
				}
				if product, err = b.Create("shopProducts", map[string]any{"title": "Lamp", "sku": "LAMP-1", "categoryId": cat["id"]}); err != nil {
					return err
				}
				_, err = b.Update("shopProducts", product["id"].(string), map[string]any{"stock": 7}, kit.WriteOptions{})
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			got, err := app.Kit.Records("shopProducts").Get(t.Context(), alice, product["id"].(string))
			if err != nil || got["stock"] != 7.0 {
				t.Fatalf("the stored product: got %v (%v), want stock 7", got, err)
			}
			if got := len(app.Mutations()); got != 3 {
				t.Errorf("mutations after commit: got %d, want 3", got)
			}
		})
		t.Run("a failed operation is a BatchError naming it and nothing is written", func(t *testing.T) {
			app.ResetMutations()
			before := countRows(t, app.Kit, "shop_categories")
			err := app.Kit.Batch(t.Context(), alice, func(b *kit.Batch) error {
				if _, err := b.Create("shopCategories", map[string]any{"title": "Kept?"}); err != nil {
					return err
				}
				return b.Delete("shopCategories", "missing", kit.WriteOptions{})
			})
			var be *kit.BatchError
			if !errors.As(err, &be) || be.Index != 1 || !errors.Is(err, kit.ErrNotFound) {
				t.Fatalf("error: got %v, want a BatchError of index 1 matching ErrNotFound", err)
			}
			if got := countRows(t, app.Kit, "shop_categories"); got != before {
				t.Errorf("categories: got %d, want %d", got, before)
			}
			if got := len(app.Mutations()); got != 0 {
				t.Errorf("mutations: got %d, want none", got)
			}
		})
		t.Run("the function's own error rolls the batch back and comes back as it is", func(t *testing.T) {
			before := countRows(t, app.Kit, "shop_categories")
			stop := errors.New("changed my mind")
			err := app.Kit.Batch(t.Context(), alice, func(b *kit.Batch) error {
				if _, err := b.Create("shopCategories", map[string]any{"title": "Gone"}); err != nil {
					return err
				}
				return stop
			})
			if !errors.Is(err, stop) {
				t.Fatalf("error: got %v, want %v", err, stop)
			}
			if got := countRows(t, app.Kit, "shop_categories"); got != before {
				t.Errorf("categories: got %d, want %d", got, before)
			}
		})
		t.Run("a batch kept past its function refuses to write", func(t *testing.T) {
			var kept *kit.Batch
			if err := app.Kit.Batch(t.Context(), alice, func(b *kit.Batch) error { kept = b; return nil }); err != nil {
				t.Fatal(err)
			}
			if _, err := kept.Create("shopCategories", map[string]any{"title": "Late"}); err == nil {
				t.Fatal("got a write after the batch ended, want an error")
			}
		})
	})
}

func TestConcurrentBatchesCommitEach(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		app := newBatchApp(t, e)
		alice := app.aliceActor
		before := countRows(t, app.Kit, "shop_products")
		const batches, each = 8, 5
		var wg sync.WaitGroup
		errs := make(chan error, batches)
		for i := range batches {
			wg.Go(func() {
				errs <- app.Kit.Batch(context.Background(), alice, func(b *kit.Batch) error {
					for j := range each {
						if _, err := b.Create("shopProducts", map[string]any{"title": "P", "sku": fmt.Sprintf("C-%d-%d", i, j)}); err != nil {
							return err
						}
					}
					return nil
				})
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Errorf("batch: %v", err)
			}
		}
		if got, want := countRows(t, app.Kit, "shop_products")-before, batches*each; got != want {
			t.Errorf("products added: got %d, want %d", got, want)
		}
		list := mustList(t, app.Kit, "shopProducts", alice, nil)
		if got, want := list.Pagination.TotalItems, before+batches*each; got != want {
			t.Errorf("the list's total: got %d, want %d", got, want)
		}
	})
}
