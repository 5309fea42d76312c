package kit

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/collectionkit/kit/internal/changehub"
	"github.com/collectionkit/kit/openapi"
)

// The change stream's route: GET {prefix}/teams/{team}/kit-changes, Server-
// Sent Events for members of the team. See ChangeEvent and docs/realtime.md.

// streamWriteTimeout bounds one write to a stream: a client that stops
// reading is disconnected after it (at the latest after
// streamWriteTimeout*3/2: the deadline is moved only when less than
// streamWriteTimeout is left, not at every write).
const streamWriteTimeout = 10 * time.Second

// registerChangeRoutes adds the change stream's route.
func (k *Kit) registerChangeRoutes(add func(method, path string, h http.HandlerFunc)) {
	if !k.changesOn() {
		return
	}
	add(http.MethodGet, "/teams/{team}/kit-changes", k.serveChanges)
}

// parseChangeCollections reads ?collections=a,b (registry keys or
// apiPaths) into the set of registry keys; nil when absent.
func (k *Kit) parseChangeCollections(r *http.Request) (map[string]bool, error) {
	values, ok := r.URL.Query()["collections"]
	if !ok {
		return nil, nil
	}
	reg := k.Collections()
	only := map[string]bool{}
	for _, v := range values {
		for _, name := range strings.Split(v, ",") {
			name = strings.TrimSpace(name)
			c, ok := reg.Get(name)
			if !ok {
				c, ok = reg.ByAPIPath(name)
			}
			if !ok {
				return nil, &Error{Status: http.StatusBadRequest, Message: "collections: unknown collection " + strconv.Quote(name),
					Data: map[string]any{"param": "collections"}}
			}
			only[c.Key()] = true
		}
	}
	return only, nil
}

// lastEventID reads the position a client resumes from: the
// Last-Event-ID header, else the lastEventId query parameter.
func lastEventID(r *http.Request) changehub.LastEventID {
	s := r.Header.Get("Last-Event-ID")
	if s == "" {
		s = r.URL.Query().Get("lastEventId")
	}
	if s == "" {
		return changehub.LastEventID{}
	}
	id, err := strconv.ParseInt(s, 10, 64)
	return changehub.LastEventID{ID: id, Given: true, Malformed: err != nil || id < 0}
}

// serveChanges serves the change stream: it authorizes the caller, reads
// what the request asks for, subscribes to the hub, answers the headers
// of an event stream and lets the hub write the stream until it ends.
// Everything refused before the stream opens is a JSON error.
func (k *Kit) serveChanges(w http.ResponseWriter, r *http.Request) {
	// Taken before the check, so that a change of the authorization
	// counter after the check is not missed.
	watch := k.hub.WatchAuth(r.Context())
	acc, err := k.teamAuth.ResolveTeamAndCheckMembership(r)
	if err != nil {
		k.WriteError(w, r, err)
		return
	}
	only, err := k.parseChangeCollections(r)
	if err != nil {
		k.WriteError(w, r, err)
		return
	}
	stream, err := k.subscribeChanges(r, acc.Team.ID, only)
	if err != nil {
		k.WriteError(w, r, err)
		return
	}
	defer stream.Close()
	allowed := func(context.Context) bool {
		now, err := k.teamAuth.ResolveTeamAndCheckMembership(r)
		return err == nil && now.Team.ID == acc.Team.ID
	}
	stream.Serve(r.Context(), startEventStream(w, r), changehub.Access{Watch: watch, Allowed: allowed})
}

// subscribeChanges subscribes a stream of team's changes (of the
// collections in only; nil for all) and sets where it starts from the
// request's Last-Event-ID. On an error nothing stays subscribed.
func (k *Kit) subscribeChanges(r *http.Request, team string, only map[string]bool) (*changehub.Stream, error) {
	stream, err := k.hub.Subscribe(r.Context(), team, only)
	if errors.Is(err, changehub.ErrClosed) {
		return nil, ErrClosed
	}
	if err != nil {
		return nil, err
	}
	if err := stream.Resume(r.Context(), lastEventID(r)); err != nil {
		stream.Close()
		return nil, err
	}
	return stream, nil
}

// startEventStream answers the headers of an event stream and returns
// the writer of its body: each call is one write and flush, under a write
// deadline of its own (see streamWriteTimeout) in place of the server's
// WriteTimeout, which would end every stream.
func startEventStream(w http.ResponseWriter, r *http.Request) changehub.Writer {
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{})
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Accel-Buffering", "no")
	if r.ProtoMajor == 1 {
		// Not chunked: the body ends when the connection closes, as the
		// SSE specification suggests (net/http closes it when the stream
		// ends). A chunk passes net/http's 4 KB connection buffer in
		// pieces, so a delivery over 4 KB took two or three write(2)
		// calls; unchunked, a delivery is one write, however large.
		h.Set("Transfer-Encoding", "identity")
	}
	w.WriteHeader(http.StatusOK)
	var deadline time.Time // the connection's write deadline
	return func(data []byte) bool {
		if now := time.Now(); deadline.Sub(now) < streamWriteTimeout {
			deadline = now.Add(streamWriteTimeout * 3 / 2)
			_ = rc.SetWriteDeadline(deadline)
		}
		_, err := w.Write(data)
		return err == nil && rc.Flush() == nil
	}
}

// describeChanges adds the change stream's route and its event schema to
// the OpenAPI document.
func (k *Kit) describeChanges(doc *openapi.Document) error {
	str := openapi.Schema{"type": "string"}
	event := openapi.Schema{"type": "object", "required": []any{"id", "operation", "collection", "correlationId", "timestamp", "invalidate"},
		"properties": openapi.Schema{
			"id":            openapi.Schema{"type": "integer", "description": "the change's position, also the SSE id"},
			"operation":     openapi.Schema{"type": "string", "enum": []any{"create", "update", "delete", "move", "reorder", "restore", "purge"}},
			"collection":    openapi.Schema{"type": "string", "description": "a registry key"},
			"itemId":        str,
			"itemIds":       openapi.Schema{"type": "array", "items": str},
			"correlationId": str,
			"timestamp":     openapi.Schema{"type": "integer", "description": "Unix milliseconds"},
			"invalidate":    openapi.Schema{"type": "array", "items": str, "description": "cache keys collection:<key>:*"},
		}}
	if err := doc.AddSchema("KitChangeEvent", event); err != nil {
		return err
	}
	op := (&openapi.Operation{OperationID: "streamChanges", Tags: []string{"changes"},
		Summary: "The team's change stream (Server-Sent Events)",
		Description: "Each event's data is a KitChangeEvent; `reset` and `ready` events carry {id}; resume with Last-Event-ID. " +
			"The stream stays open, with a comment line as a heartbeat, until the client goes away.",
		Parameters: []*openapi.Parameter{openapi.ParamRef(openapi.ParamTeam),
			{Name: "collections", In: "query", Description: "registry keys or apiPaths, comma-separated", Schema: str},
			{Name: "Last-Event-ID", In: "header", Description: "the position to resume after", Schema: str},
			{Name: "lastEventId", In: "query", Description: "Last-Event-ID for clients that cannot set headers", Schema: str},
		},
		Responses: map[string]*openapi.Response{"200": {Description: "an event stream",
			Content: map[string]openapi.MediaType{"text/event-stream": {Schema: openapi.Ref("KitChangeEvent")}}}},
	}).AddErrors(400, 401, 403, 404, 500)
	doc.Tags = append(doc.Tags, openapi.Tag{Name: "changes", Description: "the per-team change stream"})
	return doc.Add(http.MethodGet, k.cfg.Prefix+"/teams/{team}/kit-changes", op)
}
