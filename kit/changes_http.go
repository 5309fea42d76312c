package kit

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/collectionkit/kit/openapi"
)

// The change stream's route: GET {prefix}/teams/{team}/kit-changes, Server-
// Sent Events for members of the team. See ChangeEvent and docs/realtime.md.

// streamWriteTimeout bounds one write to a stream: a client that stops
// reading is disconnected after it (at the latest after
// streamWriteTimeout*3/2: the deadline is moved only when less than
// streamWriteTimeout is left, not at every write).
const streamWriteTimeout = 10 * time.Second

// fullAuthCheckEvery is how often a stream re-checks its caller even when
// kit's authorization counter did not change (a session that ran out of
// time changes no row).
const fullAuthCheckEvery = time.Minute

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

// lastEventID reads the position a client resumes from: the Last-Event-ID
// header, else the lastEventId query parameter. has is false when neither
// is given; ok is false for a value that is not a position.
func lastEventID(r *http.Request) (id int64, has, ok bool) {
	s := r.Header.Get("Last-Event-ID")
	if s == "" {
		s = r.URL.Query().Get("lastEventId")
	}
	if s == "" {
		return 0, false, false
	}
	id, err := strconv.ParseInt(s, 10, 64)
	return id, true, err == nil && id >= 0
}

func (k *Kit) serveChanges(w http.ResponseWriter, r *http.Request) {
	// The channel is taken before the check, so that a change of the
	// authorization counter after the check is not missed.
	authCh := k.hub.authChanged()
	ownStore := k.cfg.Directory == k.auth
	var checkedAt int64 // the counter's value before the last check
	if ownStore {
		checkedAt, _ = k.auth.AuthVersion(r.Context())
	}
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
	ctx := r.Context()
	sub := newChangeSub(acc.Team.ID, only, k.hub.cfg.Buffer)
	live, err := k.hub.subscribe(ctx, sub)
	if err != nil {
		k.WriteError(w, r, err)
		return
	}
	defer k.hub.unsubscribe(sub)

	// Where the stream starts: after Last-Event-ID when the log still
	// holds every change since, else (with a reset) at the live position.
	pos, reset := live, ""
	if last, has, ok := lastEventID(r); has {
		pruned, written, err := k.store.ChangeBounds(ctx)
		switch {
		case err != nil:
			k.WriteError(w, r, err)
			return
		case !ok:
			reset = "malformed Last-Event-ID"
		case last < pruned:
			reset = "the changes after Last-Event-ID are no longer retained"
		case last > written:
			reset = "Last-Event-ID is beyond the change log"
		default:
			pos = last
		}
	}

	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{}) // a server's WriteTimeout would end every stream
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
	var buf []byte
	var deadline time.Time // the connection's write deadline
	// write sends data (buf, or a round's shared events) in one write and
	// flush.
	write := func(data []byte) bool {
		if len(data) == 0 {
			return true
		}
		if now := time.Now(); deadline.Sub(now) < streamWriteTimeout {
			deadline = now.Add(streamWriteTimeout * 3 / 2)
			_ = rc.SetWriteDeadline(deadline)
		}
		_, err := w.Write(data)
		return err == nil && rc.Flush() == nil
	}
	send := func() bool {
		ok := write(buf)
		buf = buf[:0]
		return ok
	}
	buf = append(buf, "retry: 2000\n\n"...)
	if reset != "" {
		buf = appendControl(buf, "reset", live, `{"id":`+strconv.FormatInt(live, 10)+`,"reason":`+strconv.Quote(reset)+`}`)
	}
	// The backlog: the team's changes after pos up to the live position.
	reg := k.Collections()
	for pos < live {
		changes, err := k.store.ChangesAfter(ctx, acc.Team.ID, pos, live, changeBatch)
		if err != nil {
			k.logger.ErrorContext(ctx, "kit: read the change log", "error", err)
			return
		}
		for _, ch := range changes {
			if f := k.frameOf(reg, ch); sub.wants(f) {
				buf = append(buf, f.sse...)
			}
		}
		if len(changes) < changeBatch {
			pos = live
		} else {
			pos = changes[len(changes)-1].ID
		}
		if !send() {
			return
		}
	}
	buf = appendControl(buf, "ready", pos, `{"id":`+strconv.FormatInt(pos, 10)+`}`)
	if !send() {
		return
	}

	heartbeat := time.NewTicker(k.hub.cfg.Heartbeat)
	defer heartbeat.Stop()
	var recheck <-chan time.Time // a host Directory is asked on every tick
	if !ownStore {
		t := time.NewTicker(k.hub.cfg.AuthCheckInterval)
		defer t.Stop()
		recheck = t.C
	}
	lastFull := time.Now()
	var rounds []*changeRound
	stillAllowed := func() bool {
		lastFull = time.Now()
		now, err := k.teamAuth.ResolveTeamAndCheckMembership(r)
		return err == nil && now.Team.ID == acc.Team.ID
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-sub.dropped:
			return
		case <-sub.ready:
			// Everything queued goes in one write: a round alone as the
			// hub encoded it, several copied together. The time it takes
			// counts towards the hub's fan-out budget.
			start := time.Now()
			rounds = sub.take(rounds)
			var ok bool
			if len(rounds) == 1 && sub.only == nil && rounds[0].frames[0].id > pos {
				r := rounds[0]
				pos = r.frames[len(r.frames)-1].id
				ok = write(r.sse)
			} else {
				for _, r := range rounds {
					buf, pos = sub.appendTo(buf, r, pos)
				}
				ok = send()
			}
			k.hub.written.Add(int64(time.Since(start)))
			if !ok {
				return
			}
		case <-heartbeat.C:
			buf = append(buf, ": heartbeat\n\n"...)
			if !send() {
				return
			}
			if ownStore && time.Since(lastFull) >= fullAuthCheckEvery && !stillAllowed() {
				return
			}
		case <-authCh:
			// Only a stream checked under another value checks again, so
			// the hub's first read of the counter costs nothing.
			authCh = k.hub.authChanged()
			if v := k.hub.authVersion.Load(); v != checkedAt {
				checkedAt = v
				if !stillAllowed() {
					return
				}
			}
		case <-recheck:
			if !stillAllowed() {
				return
			}
		}
	}
}

// appendControl appends an event of kind (reset, ready) at position id.
func appendControl(buf []byte, kind string, id int64, data string) []byte {
	buf = append(buf, "event: "...)
	buf = append(buf, kind...)
	buf = append(buf, "\nid: "...)
	buf = strconv.AppendInt(buf, id, 10)
	buf = append(buf, "\ndata: "...)
	buf = append(buf, data...)
	return append(buf, "\n\n"...)
}

// describeChanges adds the change stream's route and its event schema to
// the OpenAPI document.
func (k *Kit) describeChanges(doc *openapi.Document) error {
	str := openapi.Schema{"type": "string"}
	event := openapi.Schema{"type": "object", "required": []any{"id", "operation", "collection", "correlationId", "timestamp", "invalidate"},
		"properties": openapi.Schema{
			"id":            openapi.Schema{"type": "integer", "description": "the change's position, also the SSE id"},
			"operation":     openapi.Schema{"enum": []any{"create", "update", "delete", "move", "reorder"}},
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
	op := (&openapi.Operation{OperationID: "streamChanges",
		Summary: "The team's change stream (Server-Sent Events): each event's data is a KitChangeEvent; " +
			"`reset` and `ready` events carry {id}; resume with Last-Event-ID",
		Parameters: []*openapi.Parameter{openapi.ParamRef(openapi.ParamTeam),
			{Name: "collections", In: "query", Description: "registry keys or apiPaths, comma-separated", Schema: str},
			{Name: "Last-Event-ID", In: "header", Description: "the position to resume after", Schema: str},
			{Name: "lastEventId", In: "query", Description: "Last-Event-ID for clients that cannot set headers", Schema: str},
		},
		Responses: map[string]*openapi.Response{"200": {Description: "an event stream",
			Content: map[string]openapi.MediaType{"text/event-stream": {Schema: openapi.Ref("KitChangeEvent")}}}},
	}).AddErrors(400, 401, 403, 404, 500)
	return doc.Add(http.MethodGet, k.cfg.Prefix+"/teams/{team}/kit-changes", op)
}
