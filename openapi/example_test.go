package openapi_test

import (
	"fmt"
	"log"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/openapi"
)

func Example() {
	reg, _, err := collections.Build([]collections.Definition{{
		Name: "products", Layer: "shop", Config: &collections.Config{FetchStrategy: "restful"},
		Fields: []collections.Field{
			{Name: "title", Type: collections.TypeString, Meta: collections.FieldMeta{Required: true}},
			{Name: "price", Type: collections.TypeDecimal, Meta: collections.FieldMeta{Precision: 10, Scale: 2}},
		},
	}}, collections.LoadOptions{})
	if err != nil {
		log.Fatal(err)
	}
	doc, err := openapi.Build(reg, openapi.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(doc.OpenAPI, doc.TypeName("shopProducts"))
	for _, name := range []string{"Product", "ProductInput", "ProductResponse"} {
		fmt.Println(name, doc.Components.Schemas[name] != nil)
	}
	item := doc.Paths["/api/teams/{team}/shop-products/{id}"]
	fmt.Println(item.Get.OperationID, item.Patch.Statuses())
	// Output:
	// 3.1.1 Product
	// Product true
	// ProductInput true
	// ProductResponse true
	// getShopProducts [200 400 401 403 404 409 412 413 415 500]
}
