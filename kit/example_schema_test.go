package kit_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/kit"
)

// See what a new version of the schemas would change in a database before
// it starts on it: a field renamed, one converted to another type, one
// removed (its column is kept).
func ExamplePlanSchema() {
	ctx := context.Background()
	quiet := slog.New(slog.DiscardHandler)
	v1 := collections.Definition{Name: "products", Fields: []collections.Field{
		{Name: "sku", Type: collections.TypeString},
		{Name: "weight", Type: collections.TypeNumber},
		{Name: "legacy", Type: collections.TypeString},
	}}
	k, err := kit.Open(ctx, kit.Config{SQLitePath: ":memory:example-plan", Definitions: []collections.Definition{v1}, Logger: quiet})
	if err != nil {
		log.Fatal(err)
	}
	defer k.Close()

	v2 := collections.Definition{Name: "products", Fields: []collections.Field{
		{Name: "code", Type: collections.TypeString, Meta: collections.FieldMeta{RenamedFrom: "sku"}},
		{Name: "weight", Type: collections.TypeDecimal, Meta: collections.FieldMeta{Precision: 8, Scale: 2}},
	}}
	plan, err := kit.PlanSchema(ctx, kit.Config{SQLitePath: ":memory:example-plan", Definitions: []collections.Definition{v2}})
	if err != nil {
		log.Fatal(err) // a *kit.DriftError (errors.Is kit.ErrSchemaDrift) for a change the data cannot take
	}
	for _, ch := range plan.Changes {
		fmt.Println(ch.Description)
	}
	fmt.Println("destructive:", plan.Destructive())
	// Output:
	// rename field appProducts.sku to code, keeping its values
	// keep the column of removed field appProducts.legacy (0 values) until a sync with drop
	// convert field appProducts.weight from number to decimal(8,2) (0 values)
	// destructive: false
}
