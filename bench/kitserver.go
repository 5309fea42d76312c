package main

import (
	"log/slog"
	"net/http"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/kit"
)

// productsKey and productsPath name the benchmark's collection in kit's
// registry and routes.
const (
	productsKey  = "shopProducts"
	productsPath = "shop-products"
)

// productsDefinition is the benchmark's collection, defined in Go.
func productsDefinition() collections.Definition {
	return collections.Definition{
		Name:  "products",
		Layer: "shop",
		Fields: []collections.Field{
			{Name: "title", Type: collections.TypeString, Meta: collections.FieldMeta{Required: true}},
			{Name: "sku", Type: collections.TypeString, Meta: collections.FieldMeta{Unique: true}},
			{Name: "description", Type: collections.TypeText},
			{Name: "price", Type: collections.TypeDecimal, Meta: collections.FieldMeta{Precision: 10, Scale: 2}},
			{Name: "stock", Type: collections.TypeNumber, Meta: collections.FieldMeta{Index: true, Integer: true}},
			{Name: "isActive", Type: collections.TypeBoolean},
		},
		Config: &collections.Config{FetchStrategy: "restful"},
	}
}

// openKit opens kit on the SQLite file path, or on db when it is not nil,
// with Config.TotalsCache totals.
func openKit(path string, db *bun.DB, logger *slog.Logger, totals int) (*kit.Kit, error) {
	return kit.New(kit.Config{
		SQLitePath:  path,
		DB:          db,
		Definitions: []collections.Definition{productsDefinition()},
		Logger:      logger,
		TotalsCache: totals,
	})
}

// kitHandler is the kit child's handler: kit's API mounted the documented
// way.
func kitHandler(k *kit.Kit) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/api/", k.Handler())
	return mux
}
