// Package client is the Go client of a kit server: the HTTP contract of
// kit's collections for Go programs, with the spec's fetch-strategy rule
// and a cache invalidated by references. It imports no server package of
// kit and works against any kit server, local or remote.
//
// # Connecting
//
// [New] takes the URL kit's handler is mounted at, prefix included, and
// options: [WithToken] for an API token, [WithHTTPClient] for a client
// with a cookie jar (a host's session cookie) or its own transport, [WithUserAgent],
// [WithRetries] for idempotent requests that fail to connect,
// [WithBusyRetries] for those the server answers 503 with Retry-After
// (twice by default), [WithCache] and [WithLogger].
//
//	c, err := client.New("https://kit.example.com/api", client.WithToken(token))
//	products := c.Team("acme").Collection("shopProducts")
//	page, err := products.List(ctx, client.Query{
//		Search: "lamp",
//		Sort:   []string{"-price"},
//		Filter: client.Where("price", client.OpGte, "10").Eq("isActive", true),
//	})
//
// # Collections
//
// A collection is named by its registry key ("shopProducts"); the client
// loads the server's registry (GET /kit/collections) on first use to find
// its apiPath, fetchStrategy, tree field names and references. [Collection]
// has List, Item (GET /{id} for "restful" collections, ?ids=<id> for
// "query" ones), GetMany, Create, Update (with an optional [IfMatch]),
// Delete (one id, or several through the bulk endpoint), Move, Reorder,
// ReorderUpdates and Tree. [Typed] gives the same operations with records
// decoded into your own type:
//
//	type Product struct {
//		ID    string `json:"id"`
//		Title string `json:"title"`
//		Price string `json:"price"`
//	}
//	page, err := client.Typed[Product](products).List(ctx, client.Query{})
//
// # Conditional writes
//
// kit answers a single record with its ETag, and applies an update,
// delete or move sent with If-Match only if the record has not changed
// since; otherwise the answer is a 412 ([ErrPrecondition]) carrying the
// current ETag ([Error.ETag]) and record (Data["current"]):
//
//	rec, etag, err := products.ItemWithETag(ctx, id) // never from the cache
//	rec, etag, err = products.UpdateWithETag(ctx, id, patch, client.IfMatch(etag))
//	if errors.Is(err, client.ErrPrecondition) { /* someone else saved first */ }
//	err = products.DeleteIfMatch(ctx, id, etag)
//
// [Client.SuperAdmin] reads one record of any team and the events
// add-on's health ([SuperAdmin.EventsHealth]); [Team.Events] and
// [Team.Track] are the events add-on's list and manual tracking; [Client.Do]
// sends any other request.
//
// # Errors
//
// Every error answer is an [*Error] with kit's Status, StatusText, Message
// and Data, and matches the sentinel of its status with errors.Is:
//
//	_, err := products.Item(ctx, id)
//	if errors.Is(err, client.ErrNotFound) { ... }
//	var kerr *client.Error
//	if errors.As(err, &kerr) { log.Print(kerr.Fields()) }
//
// # Cache
//
// With [WithCache], list, item and tree answers are kept under keys
// "collection:<key>:<team>:<request>". A create, update, delete, move or
// reorder through the client drops the keys of its collection and of
// every collection in its references (the spec's rule: keys of the form
// collection:<name>:*). Changes made by other writers (other users, other
// instances, Go code on the server) come through the change stream:
// [Team.Subscribe] drops the keys each change names, or call
// [Client.Invalidate] with a key prefix when you learn of changes another
// way.
//
// # Change stream
//
// [Team.Subscribe] follows GET /teams/{team}/kit-changes until its context
// ends, reconnecting with Last-Event-ID after a backoff, so no committed
// change is missed or seen twice while the server still keeps it:
//
//	err := c.Team("acme").Subscribe(ctx, client.SubscribeOptions{
//		OnChange: func(ch client.Change) { log.Print(ch.Operation, " ", ch.Collection, " ", ch.ItemID) },
//		OnReset:  func() { /* refetch everything shown */ },
//	})
//
// # Proxy helpers
//
// [ProxiedEndpoint] and [Client.ApplyTransform] are useCollectionProxy's
// getProxiedEndpoint and applyTransform, for programs that proxy an
// external collection themselves.
package client
