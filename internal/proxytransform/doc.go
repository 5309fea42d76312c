// Package proxytransform applies a proxied collection's transform to what
// its source endpoint answered, with the spec's useCollectionProxy rules:
// arrays, single items and list answers are understood; a transform that
// fails for an item (an error, a panic, an output without a string id and
// title, or one a further check refuses) is logged and leaves that item
// unchanged, while the other items are still transformed. It is shared by
// the external add-on (server side) and the Go client.
package proxytransform
