package collections_test

import (
	"fmt"
	"log"
	"testing/fstest"

	"github.com/collectionkit/kit/collections"
)

func ExampleLoad() {
	schemas := fstest.MapFS{
		"shop/products.json": {Data: []byte(`{
			"title":     {"type": "string", "meta": {"required": true, "label": "Title"}},
			"price":     {"type": "decimal", "meta": {"precision": 10, "scale": 2}},
			"published": {"type": "date"}
		}`)},
		"kit.config.json": {Data: []byte(`{"products": {"container": "modal", "icon": "i-box"}}`)},
	}
	reg, warnings, err := collections.Load(schemas, collections.LoadOptions{})
	if err != nil {
		log.Fatal(err)
	}
	products, _ := reg.Get("shopProducts")
	fmt.Println(products.Key(), products.APIPath(), products.Table())
	fmt.Println(products.Config().Container, products.Config().Extra["icon"])
	for _, w := range warnings {
		fmt.Println(w)
	}
	// Output:
	// shopProducts shop-products shop_products
	// modal i-box
	// shop/products.json: products.published: warning: date field "published" should end in "At" (e.g. "publishedAt")
}

func ExampleCollection_ValidateCreate() {
	reg, _, err := collections.Build([]collections.Definition{{
		Name:  "products",
		Layer: "shop",
		Fields: []collections.Field{
			{Name: "title", Type: collections.TypeString, Meta: collections.FieldMeta{Required: true}},
			{Name: "price", Type: collections.TypeDecimal, Meta: collections.FieldMeta{Precision: 10, Scale: 2, Default: "0"}},
		},
	}}, collections.LoadOptions{})
	if err != nil {
		log.Fatal(err)
	}
	products, _ := reg.Get("shopProducts")

	record, err := products.ValidateCreate(map[string]any{"title": "Lamp", "price": "9.9", "id": "ignored"})
	fmt.Println(record, err)

	_, err = products.ValidateCreate(map[string]any{"price": "1e3", "colour": "red"})
	fmt.Println(err)
	// Output:
	// map[price:9.90 title:Lamp] <nil>
	// invalid body: colour: unknown field; price: must be a decimal number like "12.34" (precision 10, scale 2); title: is required
}

func ExampleCollection_ParseListQuery() {
	reg, _, err := collections.Build([]collections.Definition{{
		Name:  "products",
		Layer: "shop",
		Fields: []collections.Field{
			{Name: "title", Type: collections.TypeString},
			{Name: "stock", Type: collections.TypeNumber},
		},
	}}, collections.LoadOptions{})
	if err != nil {
		log.Fatal(err)
	}
	products, _ := reg.Get("shopProducts")

	q, err := products.ParseListQuery(map[string][]string{
		"page":   {"2"},
		"limit":  {"10"},
		"sort":   {"-stock,title"},
		"filter": {`{"stock": {"gte": 1}, "title": {"contains": "lamp"}}`},
	}, collections.QueryLimits{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(q.Page, q.PageSize, q.Offset())
	for _, k := range q.Sort {
		fmt.Println("sort", k.Attr.Column, k.Desc)
	}
	for _, c := range q.Filter {
		fmt.Println("filter", c.Attr.Column, c.Op, c.Value)
	}

	_, err = products.ParseListQuery(map[string][]string{"pageSize": {"500"}}, collections.QueryLimits{})
	fmt.Println(err)
	// Output:
	// 2 10 10
	// sort stock true
	// sort title false
	// sort id false
	// filter stock gte 1
	// filter title contains lamp
	// invalid pageSize: must be at most 100
}
