package client_test

import (
	"context"
	"fmt"
	"log"

	"github.com/collectionkit/kit/client"
)

// A program that follows a team's changes: every create, update, delete,
// move and reorder that commits, whoever makes it, drops the cached
// answers it makes stale and reaches OnChange.
func ExampleTeam_Subscribe() {
	ctx := context.Background()
	base, token, stop := exampleServer(ctx, "example-client-subscribe")
	defer stop()

	c, err := client.New(base, client.WithToken(token), client.WithCache(client.NewCache(0)))
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithCancel(ctx)
	writer, err := client.New(base, client.WithToken(token)) // another program
	if err != nil {
		log.Fatal(err)
	}
	err = c.Team("acme").Subscribe(ctx, client.SubscribeOptions{
		OnConnect: func() {
			// The stream is current: write from elsewhere.
			go func() {
				if _, err := writer.Team("acme").Collection("shopProducts").Create(ctx, map[string]any{"title": "Lamp"}); err != nil {
					log.Print(err)
				}
			}()
		},
		OnChange: func(ch client.Change) {
			fmt.Println(ch.Operation, ch.Collection, ch.Invalidate)
			cancel() // one is enough for the example
		},
	})
	fmt.Println(err)
	// Output:
	// create shopProducts [collection:shopProducts:*]
	// context canceled
}
