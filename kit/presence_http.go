package kit

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"
	"unicode"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/openapi"
	"github.com/collectionkit/kit/teamauth"
)

// The presence channel's route: GET {prefix}/teams/{team}/kit-presence,
// Server-Sent Events for members of the team. Opening it says "I have this
// collection (and this record) open"; it sends who else has the same
// collection open, and ends the caller's presence when it closes. See
// PresenceEvent and docs/realtime.md.

// maxPresenceItem bounds the item parameter: longer is no record id.
const maxPresenceItem = 200

// registerPresenceRoutes adds the presence channel's route.
func (k *Kit) registerPresenceRoutes(add func(method, path string, h http.HandlerFunc)) {
	if k.cfg.Presence.Disabled {
		return
	}
	add(http.MethodGet, "/teams/{team}/kit-presence", k.servePresence)
}

// presenceParamError is a 400 naming the query parameter at fault.
func presenceParamError(param, message string) error {
	return &Error{Status: http.StatusBadRequest, Message: param + ": " + message, Data: map[string]any{"param": param}}
}

// parsePresence reads ?collection= (a registry key or apiPath, required)
// and ?item= (a record id of the team, optional).
func (k *Kit) parsePresence(r *http.Request, actor Actor) (c *collections.Collection, item string, err error) {
	q := r.URL.Query()
	names := q["collection"]
	switch {
	case len(names) == 0 || names[0] == "":
		return nil, "", presenceParamError("collection", "required")
	case len(names) > 1:
		return nil, "", presenceParamError("collection", "give one collection")
	}
	reg := k.Collections()
	c, ok := reg.Get(names[0])
	if !ok {
		c, ok = reg.ByAPIPath(names[0])
	}
	if !ok {
		return nil, "", presenceParamError("collection", "unknown collection "+strconv.Quote(names[0]))
	}
	items := q["item"]
	if len(items) > 1 {
		return nil, "", presenceParamError("item", "give one record id")
	}
	if len(items) == 0 || items[0] == "" {
		return c, "", nil
	}
	item = items[0]
	if len(item) > maxPresenceItem || !printable(item) {
		return nil, "", presenceParamError("item", "not a record id")
	}
	// A record of kit's own collections must be one the caller can read:
	// another team's answers like a missing one. An external collection's
	// records live elsewhere and are taken at their word.
	if !c.External() {
		if _, err := k.Records(c.Key()).Get(r.Context(), actor, item); err != nil {
			return nil, "", err
		}
	}
	return c, item, nil
}

// printable reports whether s is valid UTF-8 without control characters.
func printable(s string) bool {
	for _, r := range s {
		if r == unicode.ReplacementChar || unicode.IsControl(r) {
			return false
		}
	}
	return true
}

var errTooManyPresence = &Error{Status: http.StatusTooManyRequests, Message: "too many open presence streams for this user in this team"}

func (k *Kit) servePresence(w http.ResponseWriter, r *http.Request) {
	p := k.presence
	// Taken before the check, so that a move of the counter after the
	// check is not missed.
	authCh := p.authChanged()
	closing := p.closed()
	ownStore := p.version != nil
	var checkedAt int64
	var checked bool
	if ownStore {
		checkedAt, checked = p.version(r.Context())
	}
	acc, err := k.teamAuth.ResolveTeamAndCheckMembership(r)
	if err != nil {
		k.WriteError(w, r, err)
		return
	}
	actor := Actor{UserID: acc.User.ID, TeamID: acc.Team.ID, Role: acc.Membership.Role, fromAccess: true}
	c, item, err := k.parsePresence(r, actor)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			err = &Error{Status: http.StatusNotFound, Message: "item: no such record", Data: map[string]any{"param": "item"}}
		}
		k.WriteError(w, r, err)
		return
	}
	view := &presenceView{
		key:     presenceKey{team: acc.Team.ID, collection: c.Key()},
		userID:  acc.User.ID,
		name:    acc.User.Name,
		item:    item,
		since:   time.Now(),
		changed: make(chan struct{}, 1),

		checkedAt: checkedAt,
		checked:   checked,
	}
	if !p.join(view) {
		k.WriteError(w, r, errTooManyPresence)
		return
	}
	defer p.leave(view)
	k.streamPresence(w, r, presenceWatch{acc: acc, view: view, authCh: authCh, closing: closing, ownStore: ownStore, checkedAt: checkedAt})
}

// presenceWatch is what a presence stream follows once its caller has
// joined: the caller's access and view, and the signals that end or
// re-check it.
type presenceWatch struct {
	acc       *teamauth.Access
	view      *presenceView
	authCh    <-chan struct{}
	closing   <-chan struct{}
	ownStore  bool
	checkedAt int64
}

// streamPresence answers r with the event stream of pw's view until the
// caller leaves, the Kit closes or the caller's access ends.
func (k *Kit) streamPresence(w http.ResponseWriter, r *http.Request, pw presenceWatch) {
	p, view, acc, authCh, closing, ownStore, checkedAt := k.presence, pw.view, pw.acc, pw.authCh, pw.closing, pw.ownStore, pw.checkedAt
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{}) // a server's WriteTimeout would end every stream
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	var deadline time.Time
	write := func(data []byte) bool {
		if now := time.Now(); deadline.Sub(now) < streamWriteTimeout {
			deadline = now.Add(streamWriteTimeout * 3 / 2)
			_ = rc.SetWriteDeadline(deadline)
		}
		_, err := w.Write(data)
		return err == nil && rc.Flush() == nil
	}
	var last []byte // the last event's data: an unchanged set is not sent again
	presence := func(prefix string) bool {
		data, err := json.Marshal(p.event(view))
		if err != nil {
			k.logger.ErrorContext(r.Context(), "kit: encode presence", "error", err)
			return false
		}
		if prefix == "" && string(data) == string(last) {
			return true
		}
		last = data
		buf := append([]byte(prefix), "event: presence\ndata: "...)
		buf = append(buf, data...)
		return write(append(buf, "\n\n"...))
	}
	if !presence("retry: 2000\n\n") {
		return
	}

	heartbeat := time.NewTicker(p.cfg.Heartbeat)
	defer heartbeat.Stop()
	var recheck <-chan time.Time // a host Directory is asked on every tick
	if !ownStore {
		t := time.NewTicker(p.cfg.AuthCheckInterval)
		defer t.Stop()
		recheck = t.C
	}
	lastFull := time.Now()
	stillAllowed := func() bool {
		lastFull = time.Now()
		now, err := k.teamAuth.ResolveTeamAndCheckMembership(r)
		return err == nil && now.Team.ID == acc.Team.ID
	}
	ctx := r.Context()
	for {
		select {
		case <-ctx.Done():
			return
		case <-closing:
			return
		case <-view.changed:
			if !presence("") {
				return
			}
		case <-heartbeat.C:
			if !write([]byte(": heartbeat\n\n")) {
				return
			}
			if ownStore && time.Since(lastFull) >= presenceFullCheckEvery && !stillAllowed() {
				return
			}
		case <-authCh:
			authCh = p.authChanged()
			if v, ok := p.version(ctx); !ok || v != checkedAt {
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

// describePresence adds the presence channel's route and its event schema
// to the OpenAPI document.
func (k *Kit) describePresence(doc *openapi.Document) error {
	str := openapi.Schema{"type": "string"}
	viewer := openapi.Schema{"type": "object", "required": []any{"userId", "name", "items", "since"},
		"properties": openapi.Schema{
			"userId": str,
			"name":   str,
			"items":  openapi.Schema{"type": "array", "items": str, "description": "the records of the collection the user has open"},
			"since":  openapi.Schema{"type": "integer", "description": "Unix milliseconds"},
		}}
	if err := doc.AddSchema("KitPresenceViewer", viewer); err != nil {
		return err
	}
	event := openapi.Schema{"type": "object", "required": []any{"collection", "viewers"},
		"properties": openapi.Schema{
			"collection": openapi.Schema{"type": "string", "description": "a registry key"},
			"viewers":    openapi.Schema{"type": "array", "items": openapi.Ref("KitPresenceViewer"), "description": "the other users of the team with the collection open"},
		}}
	if err := doc.AddSchema("KitPresenceEvent", event); err != nil {
		return err
	}
	op := (&openapi.Operation{OperationID: "streamPresence", Tags: []string{"changes"},
		Description: "An event stream of who else in the team has the collection (and the record) open; members of other teams never appear.",
		Summary: "Who else has a collection or record open (Server-Sent Events): opening it makes the caller present; " +
			"each `presence` event's data is a KitPresenceEvent",
		Parameters: []*openapi.Parameter{openapi.ParamRef(openapi.ParamTeam),
			{Name: "collection", In: "query", Required: true, Description: "a registry key or apiPath", Schema: str},
			{Name: "item", In: "query", Description: "the id of the record the caller has open", Schema: str},
		},
		Responses: map[string]*openapi.Response{"200": {Description: "an event stream",
			Content: map[string]openapi.MediaType{"text/event-stream": {Schema: openapi.Ref("KitPresenceEvent")}}}},
	}).AddErrors(400, 401, 403, 404, 429, 500)
	return doc.Add(http.MethodGet, k.cfg.Prefix+"/teams/{team}/kit-presence", op)
}

// presenceFullCheckEvery is how often a presence stream re-checks its
// caller even when the authorization version has not moved, as the change
// stream does (internal/changehub).
const presenceFullCheckEvery = time.Minute
