package typegen_test

import (
	"fmt"
	"log"
	"strings"
	"testing/fstest"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/typegen"
)

// Generate the Go types of a schemas folder: here one collection,
// shopProducts, whose types are Product, ProductInput, ProductQuery and
// ProductResponse.
func Example() {
	schemas := fstest.MapFS{"shop/products.json": {Data: []byte(`{
		"title": {"type": "string", "meta": {"required": true}},
		"price": {"type": "decimal", "meta": {"precision": 10, "scale": 2}}
	}`)}}
	reg, _, err := collections.Load(schemas, collections.LoadOptions{})
	if err != nil {
		log.Fatal(err)
	}
	src, err := typegen.Generate(reg, typegen.LangGo, typegen.Options{Package: "shop"})
	if err != nil {
		log.Fatal(err)
	}
	// Print the input type, without its comments.
	s := string(src)
	s = s[strings.Index(s, "type ProductInput struct"):]
	for _, line := range strings.Split(s[:strings.Index(s, "}")+1], "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "//") {
			fmt.Println(line)
		}
	}
	// Output:
	// type ProductInput struct {
	// 	Title string `json:"title"`
	// 	Price *Decimal `json:"price,omitempty"`
	// }
}
