// Package changehub is the engine of kit's per-team change stream: it
// reads the change log (internal/store's kit_changes), encodes each change
// once as a Server-Sent Events frame, and hands the frames to the open
// streams of the change's team. kit binds it to HTTP in one file
// (kit/changes_http.go): that file authorizes the caller, parses the
// request, sets the response headers and gives the engine a [Writer]; this
// package never imports net/http.
//
// # The pieces
//
// A [Hub] is one per Kit. [Hub.Subscribe] registers a [Stream] for a team
// (optionally narrowed to some collections) at the live position;
// [Stream.Resume] moves its start back to a client's Last-Event-ID when the
// log still holds every change since; [Stream.Serve] writes the backlog,
// the ready event and then every live change until the client goes, the
// hub drops the stream, or the caller's authorization ends.
//
// Where changes come from:
//
//   - On SQLite the store's write queue hands the hub this process's
//     changes as it commits them ([Hub.Handoff], set as store.Committed):
//     a delivery takes them without reading the log.
//   - Every PollInterval, and for every change on PostgreSQL (whose
//     positions need not commit in order), the hub reads the log after its
//     cursor ([Log.NextChanges]): other processes' changes arrive that way.
//
// # Delivery
//
// One goroutine per hub (started by the first subscriber, stopped by
// [Hub.Close]) reads changes in batches of at most half a stream's buffer,
// groups each batch by team into a round whose bytes are concatenated once,
// and queues the round for every stream of the team. Several batches of
// one delivery extend one round, so a stream is woken once per delivery
// and writes everything it holds in one write and flush. After a delivery
// the hub waits DeliveryInterval, stretched up to MaxDeliveryInterval when
// the streams' writes would otherwise take more than FanoutShare of the
// time (group commit for the fan-out: latency rises only when throughput
// needs it).
//
// A stream holds at most Buffer undelivered changes. The hub reads the
// next batch only when every stream has room for it, waiting up to a
// second; a stream that still has none is dropped (its client resumes with
// Last-Event-ID). So a slow client never makes the hub buffer without
// limit, and a burst from another process does not drop the streams that
// keep up.
//
// # Authorization while open
//
// The caller is checked by the binding before [Hub.Subscribe]. While a
// stream is open, [Stream.Serve] checks again through [Access.Allowed]:
// when the hub's authorization counter ([Sources.AuthVersion], kit's own
// accounts store) moved since the stream's last check, and at least once a
// minute; without a counter (a host directory), every AuthCheckInterval.
// [Hub.WatchAuth] must be called before the binding's first check, so that
// a change of the counter after that check is not missed.
//
// # Retention
//
// [Hub.StartRetention] prunes the log every PruneInterval (once per period
// across the instances sharing the database, through [Sources.ClaimPrune]):
// changes older than Retention, and all but the newest MaxRetained.
package changehub
