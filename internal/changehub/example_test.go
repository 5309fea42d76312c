package changehub_test

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/changehub"
	"github.com/collectionkit/kit/internal/store"
)

// A hub over a store's change log: a stream of team t1 gets the ready
// event, then the change a write commits, each in one call of its Writer.
func Example() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	db, err := store.OpenSQLite(":memory:changehub-example")
	if err != nil {
		panic(err)
	}
	defer db.Close()
	if err := store.CreateChangesTable(ctx, db); err != nil {
		panic(err)
	}
	reg, _, err := collections.Build([]collections.Definition{{Name: "notes",
		Fields: []collections.Field{{Name: "body", Type: collections.TypeText}}}}, collections.LoadOptions{})
	if err != nil {
		panic(err)
	}
	s := store.New(db, func() *collections.Registry { return reg })
	defer s.Close()
	hub := changehub.New(changehub.Sources{Log: s, Registry: func() *collections.Registry { return reg }}, changehub.Config{})
	defer hub.Close()
	s.Committed = hub.Handoff // this process's commits reach the hub at once

	stream, err := hub.Subscribe(ctx, "t1", nil)
	if err != nil {
		panic(err)
	}
	defer stream.Close()
	writes := 0
	w := func(data []byte) bool {
		fmt.Printf("%s", data)
		if writes++; writes == 1 { // ready: commit a change
			go func() {
				_ = s.RunWrite(ctx, store.Write{Single: true}, func(ctx context.Context, tx bun.Tx) error {
					return s.RecordChange(ctx, tx, store.Change{TeamID: "t1", Collection: "appNotes",
						Operation: "create", ItemIDs: []string{"n1"}, CorrelationID: "c1", Timestamp: 1795453110999})
				})
			}()
		} else {
			cancel() // the change came: end the stream
		}
		return true
	}
	stream.Serve(ctx, w, changehub.Access{Watch: hub.WatchAuth(ctx), Allowed: func(context.Context) bool { return true }})
	// Output:
	// retry: 2000
	//
	// event: ready
	// id: 0
	// data: {"id":0}
	//
	// id: 1
	// data: {"id":1,"operation":"create","collection":"appNotes","itemId":"n1","correlationId":"c1","timestamp":1795453110999,"invalidate":["collection:appNotes:*"]}
}
