package kit_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"testing/fstest"
	"time"

	"github.com/uptrace/bun/migrate"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/kit"
)

// Open a Kit under a context that bounds its start (kit's tables, schema
// sync), then add a collection defined in Go.
func ExampleOpen() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	k, err := kit.Open(ctx, kit.Config{SQLitePath: ":memory:example-open", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		log.Fatal(err)
	}
	defer k.Close()

	err = k.Register(ctx, collections.Definition{Name: "notes", Fields: []collections.Field{
		{Name: "body", Type: collections.TypeText},
	}})
	if err != nil {
		log.Fatal(err)
	}
	notes, _ := k.Collections().Get("appNotes")
	fmt.Println(notes.Key(), notes.APIPath(), notes.Table())
	fmt.Println("page size at most", k.Config().Limits.MaxPageSize)
	// Output:
	// appNotes app-notes app_notes
	// page size at most 100
}

// An add-on keeps its own tables with bun/migrate migrations, run in kit's
// migration tables: each applies once, whichever instance gets there
// first.
func ExampleKit_Migrate() {
	ctx := context.Background()
	k, err := kit.Open(ctx, kit.Config{SQLitePath: ":memory:example-migrate", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		log.Fatal(err)
	}
	defer k.Close()

	ms := migrate.NewMigrations()
	err = ms.Discover(fstest.MapFS{
		"20261123000100_reports.up.sql": {Data: []byte("CREATE TABLE reports (id TEXT PRIMARY KEY, title TEXT)")},
	})
	if err != nil {
		log.Fatal(err)
	}
	for range 2 { // the second run finds it applied
		if err := k.Migrate(ctx, ms); err != nil {
			log.Fatal(err)
		}
	}
	var n int
	k.DB().QueryRowContext(ctx, "SELECT count(*) FROM kit_migrations WHERE name = '20261123000100'").Scan(&n)
	fmt.Println("applied", n, "time(s)")
	// Output:
	// applied 1 time(s)
}
