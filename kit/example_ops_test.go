package kit_test

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net/url"
	"strings"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// An import of CSV rows, all or none, an export of a list query as CSV
// (with a formula cell escaped), and a delete undone from the trash.
func ExampleRecords_Import() {
	k, err := kit.New(kit.Config{
		SQLitePath: ":memory:example-import",
		Logger:     slog.New(slog.DiscardHandler),
		Definitions: []collections.Definition{{
			Name: "products", Layer: "shop", Config: &collections.Config{SoftDelete: true},
			Fields: []collections.Field{
				{Name: "title", Type: collections.TypeString, Meta: collections.FieldMeta{Required: true}},
				{Name: "price", Type: collections.TypeDecimal, Meta: collections.FieldMeta{Precision: 10, Scale: 2}},
			},
		}},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer k.Close()
	ctx := context.Background()
	acme, _ := k.Accounts().CreateTeam(ctx, teamauth.Team{Name: "Acme", Slug: "acme"})
	user, _ := k.Accounts().CreateUser(ctx, teamauth.User{Name: "Alice", Email: "alice@example.com"})
	alice := kit.Actor{UserID: user.ID, TeamID: acme.ID, Role: teamauth.RoleOwner}
	products := k.Records("shopProducts")

	// A bad row refuses the whole import, naming its line and field.
	_, err = products.Import(ctx, alice, kit.ExportCSV, strings.NewReader("title,price\nTea,4.50\nCoffee,cheap\n"))
	var rejected *kit.ImportError
	if errors.As(err, &rejected) {
		r := rejected.Rejected[0]
		fmt.Printf("refused: line %d, %s: %s\n", r.Line, r.Field, r.Reason)
	}
	res, err := products.Import(ctx, alice, kit.ExportCSV, strings.NewReader("title,price\nTea,4.50\n=1+1,12\n"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("imported", res.Imported)

	var out strings.Builder
	err = products.Export(ctx, alice, url.Values{"sortBy": {"title"}, "sortDirection": {"asc"}}, kit.ExportCSV, &out)
	if err != nil {
		log.Fatal(err)
	}
	rows, _ := csv.NewReader(strings.NewReader(out.String())).ReadAll()
	for _, row := range rows { // the title and price columns
		fmt.Println(row[3] + "," + row[4])
	}

	// A delete moves the record to the trash; a restore brings it back.
	page, _ := products.List(ctx, alice, url.Values{"search": {"Tea"}})
	tea := page.Items[0]["id"].(string)
	if err := products.Delete(ctx, alice, tea); err != nil {
		log.Fatal(err)
	}
	trash, _ := products.Trash(ctx, alice, nil)
	fmt.Println("in the trash:", trash.Items[0].Record["title"])
	back, err := products.Restore(ctx, alice, tea)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("restored:", back["title"], back["id"] == tea)
	// Output:
	// refused: line 3, price: must be a decimal number like "12.34" (precision 10, scale 2)
	// imported 2
	// title,price
	// '=1+1,12.00
	// Tea,4.50
	// in the trash: Tea
	// restored: Tea true
}
