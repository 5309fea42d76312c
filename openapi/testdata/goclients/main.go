// Command goclients drives kit's shopProducts through two Go clients
// generated from kit's served OpenAPI document, oapi-codegen's (package
// oapi) and ogen's (package ogenc): for each, a create, a list with a
// filter and a search, an update with the ETag the create answered, a
// stale update, deletes and a list that finds nothing. TestGeneratedGoClients
// (../../generators_test.go) generates both packages into a module of
// their own, builds this program with them and runs it against a real kit
// server: KIT_URL is the server's origin, KIT_TOKEN an API token of an
// owner of the team KIT_TEAM. It prints one line per client and exits 1
// at the first answer that is not the one expected.
package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"

	"github.com/ogen-go/ogen/ogenerrors"

	"kitclients/oapi"
	"kitclients/ogenc"
)

func main() {
	ctx := context.Background()
	base, token, team := os.Getenv("KIT_URL"), os.Getenv("KIT_TOKEN"), os.Getenv("KIT_TEAM")
	for _, c := range []struct {
		name string
		run  func(context.Context, string, string, string) (string, error)
	}{
		{"oapi-codegen", withOapiCodegen},
		{"ogen", withOgen},
	} {
		summary, err := c.run(ctx, base, token, team)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", c.name, err)
			os.Exit(1)
		}
		fmt.Printf("%s: %s\n", c.name, summary)
	}
}

// check returns an error naming what when got is not want.
func check[T comparable](what string, got, want T) error {
	if got != want {
		return fmt.Errorf("%s: got %v, want %v", what, got, want)
	}
	return nil
}

// filter keeps the products with at least 5 in stock; search keeps the
// titles with the client's marker, so each client sees its own records.
const filter = `{"stock": {"gte": 5}}`

func withOapiCodegen(ctx context.Context, base, token, team string) (string, error) {
	c, err := oapi.NewClientWithResponses(base, oapi.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer "+token)
		return nil
	}))
	if err != nil {
		return "", err
	}
	str := func(s string) *string { return &s }
	num := func(n int) *int { return &n }
	lamp, err := c.CreateShopProductsWithResponse(ctx, team, oapi.ProductInput{Title: "Lamp oapimark", Price: str("12.50"), Stock: num(7)})
	if err != nil {
		return "", err
	}
	if err := check("create", lamp.StatusCode(), http.StatusCreated); err != nil {
		return "", fmt.Errorf("%w: %s", err, lamp.Body)
	}
	if err := errors.Join(check("created price", lamp.JSON201.Price, "12.50"), check("created stock", *lamp.JSON201.Stock, 7)); err != nil {
		return "", err
	}
	shade, err := c.CreateShopProductsWithResponse(ctx, team, oapi.ProductInput{Title: "Shade oapimark", Stock: num(1)})
	if err != nil || shade.StatusCode() != http.StatusCreated {
		return "", fmt.Errorf("second create: %v %s", err, shade.Body)
	}

	list, err := c.ListShopProductsWithResponse(ctx, team, &oapi.ListShopProductsParams{Filter: str(filter), Search: str("oapimark")})
	if err != nil {
		return "", err
	}
	if err := check("list", list.StatusCode(), http.StatusOK); err != nil {
		return "", fmt.Errorf("%w: %s", err, list.Body)
	}
	page, err := list.JSON200.AsProductResponse()
	if err != nil {
		return "", err
	}
	if err := check("filtered total", page.Pagination.TotalItems, 1); err != nil {
		return "", err
	}
	if err := check("filtered record", *page.Items[0].Id, *lamp.JSON201.Id); err != nil {
		return "", err
	}

	etag := lamp.HTTPResponse.Header.Get("ETag")
	updated, err := c.UpdateShopProductsWithResponse(ctx, team, *lamp.JSON201.Id, &oapi.UpdateShopProductsParams{IfMatch: &etag},
		oapi.UpdateShopProductsJSONRequestBody{Price: str("15.00")})
	if err != nil {
		return "", err
	}
	if err := check("update", updated.StatusCode(), http.StatusOK); err != nil {
		return "", fmt.Errorf("%w: %s", err, updated.Body)
	}
	if err := check("updated price", updated.JSON200.Price, "15.00"); err != nil {
		return "", err
	}
	stale, err := c.UpdateShopProductsWithResponse(ctx, team, *lamp.JSON201.Id, &oapi.UpdateShopProductsParams{IfMatch: &etag},
		oapi.UpdateShopProductsJSONRequestBody{Price: str("16.00")})
	if err != nil {
		return "", err
	}
	if err := check("stale update", stale.StatusCode(), http.StatusPreconditionFailed); err != nil {
		return "", err
	}

	for _, id := range []string{*lamp.JSON201.Id, *shade.JSON201.Id} {
		del, err := c.DeleteShopProductsWithResponse(ctx, team, id, nil)
		if err != nil {
			return "", err
		}
		if err := check("delete", del.StatusCode(), http.StatusNoContent); err != nil {
			return "", fmt.Errorf("%w: %s", err, del.Body)
		}
	}
	after, err := c.ListShopProductsWithResponse(ctx, team, &oapi.ListShopProductsParams{Search: str("oapimark")})
	if err != nil {
		return "", err
	}
	left, err := after.JSON200.AsProductResponse()
	if err != nil {
		return "", err
	}
	if err := check("total after the deletes", left.Pagination.TotalItems, 0); err != nil {
		return "", err
	}
	return fmt.Sprintf("create %d, list %d of %d, update %d, stale update %d, delete %d, then %d left",
		lamp.StatusCode(), len(page.Items), page.Pagination.TotalItems, updated.StatusCode(), stale.StatusCode(),
		http.StatusNoContent, left.Pagination.TotalItems), nil
}

// bearer is ogen's security source: the API token, and no session cookie.
type bearer string

func (b bearer) BearerAuth(context.Context, ogenc.OperationName) (ogenc.BearerAuth, error) {
	return ogenc.BearerAuth{Token: string(b)}, nil
}

func (bearer) SessionCookie(context.Context, ogenc.OperationName) (ogenc.SessionCookie, error) {
	return ogenc.SessionCookie{}, ogenerrors.ErrSkipClientSecurity
}

func withOgen(ctx context.Context, base, token, team string) (string, error) {
	c, err := ogenc.NewClient(base, bearer(token))
	if err != nil {
		return "", err
	}
	res, err := c.CreateShopProducts(ctx, &ogenc.ProductInput{Title: "Lamp ogenmark", Price: ogenc.NewOptString("12.50"),
		Stock: ogenc.NewOptNilInt(7)}, ogenc.CreateShopProductsParams{Team: team})
	if err != nil {
		return "", err
	}
	lamp, ok := res.(*ogenc.CreateShopProductsCreatedHeaders)
	if !ok {
		return "", fmt.Errorf("create: got %T, want 201", res)
	}
	if err := errors.Join(check("created price", lamp.Response.Price, "12.50"), check("created stock", lamp.Response.Stock.Value, 7)); err != nil {
		return "", err
	}
	res, err = c.CreateShopProducts(ctx, &ogenc.ProductInput{Title: "Shade ogenmark", Stock: ogenc.NewOptNilInt(1)},
		ogenc.CreateShopProductsParams{Team: team})
	if err != nil {
		return "", err
	}
	shade, ok := res.(*ogenc.CreateShopProductsCreatedHeaders)
	if !ok {
		return "", fmt.Errorf("second create: got %T, want 201", res)
	}

	listed, err := c.ListShopProducts(ctx, ogenc.ListShopProductsParams{Team: team, Filter: ogenc.NewOptString(filter),
		Search: ogenc.NewOptString("ogenmark")})
	if err != nil {
		return "", err
	}
	ok200, isOK := listed.(*ogenc.ListShopProductsOK)
	if !isOK {
		return "", fmt.Errorf("list: got %T, want 200", listed)
	}
	page, isPage := ok200.GetProductResponse()
	if !isPage {
		return "", fmt.Errorf("list: got %s, want a ProductResponse", ok200.Type)
	}
	if err := check("filtered total", page.Pagination.TotalItems, 1); err != nil {
		return "", err
	}
	if err := check("filtered record", page.Items[0].ID, lamp.Response.ID); err != nil {
		return "", err
	}

	etag := lamp.ETag
	upd, err := c.UpdateShopProducts(ctx, &ogenc.UpdateShopProductsReqApplicationJSON{Price: ogenc.NewOptString("15.00")},
		ogenc.UpdateShopProductsParams{Team: team, ID: lamp.Response.ID, IfMatch: etag})
	if err != nil {
		return "", err
	}
	updated, ok := upd.(*ogenc.ProductHeaders)
	if !ok {
		return "", fmt.Errorf("update: got %T, want 200", upd)
	}
	if err := check("updated price", updated.Response.Price, "15.00"); err != nil {
		return "", err
	}
	stale, err := c.UpdateShopProducts(ctx, &ogenc.UpdateShopProductsReqApplicationJSON{Price: ogenc.NewOptString("16.00")},
		ogenc.UpdateShopProductsParams{Team: team, ID: lamp.Response.ID, IfMatch: etag})
	if err != nil {
		return "", err
	}
	if _, ok := stale.(*ogenc.PreconditionFailedHeaders); !ok {
		return "", fmt.Errorf("stale update: got %T, want 412", stale)
	}

	for _, id := range []string{lamp.Response.ID, shade.Response.ID} {
		del, err := c.DeleteShopProducts(ctx, ogenc.DeleteShopProductsParams{Team: team, ID: id})
		if err != nil {
			return "", err
		}
		if _, ok := del.(*ogenc.DeleteShopProductsNoContent); !ok {
			return "", fmt.Errorf("delete: got %T, want 204", del)
		}
	}
	after, err := c.ListShopProducts(ctx, ogenc.ListShopProductsParams{Team: team, Search: ogenc.NewOptString("ogenmark")})
	if err != nil {
		return "", err
	}
	left, _ := after.(*ogenc.ListShopProductsOK).GetProductResponse()
	if err := check("total after the deletes", left.Pagination.TotalItems, 0); err != nil {
		return "", err
	}
	return fmt.Sprintf("create 201, list %d of %d, update 200, stale update 412, delete 204, then %d left",
		len(page.Items), page.Pagination.TotalItems, left.Pagination.TotalItems), nil
}
