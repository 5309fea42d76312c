package kit

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/wire"
	"github.com/collectionkit/kit/teamauth"
)

// registerCoreRoutes adds the collection endpoints (with the tree and
// order endpoints: GET .../tree and PATCH .../reorder are served by the
// /{id} routes, see http_tree.go), the super-admin read and the collection
// metadata endpoints.
func (k *Kit) registerCoreRoutes() {
	add := func(method, path string, h http.HandlerFunc) { k.router.add(k, method, k.cfg.Prefix+path, h) }
	add(http.MethodGet, "/teams/{team}/{apiPath}", k.collectionRoute(k.serveList))
	add(http.MethodPost, "/teams/{team}/{apiPath}", k.collectionRoute(k.serveCreate))
	add(http.MethodDelete, "/teams/{team}/{apiPath}", k.collectionRoute(k.serveDeleteMany))
	add(http.MethodGet, "/teams/{team}/{apiPath}/{id}", k.collectionRoute(k.serveGetOrTree))
	add(http.MethodPatch, "/teams/{team}/{apiPath}/{id}", k.collectionRoute(k.serveUpdateOrReorder))
	add(http.MethodDelete, "/teams/{team}/{apiPath}/{id}", k.collectionRoute(k.serveDelete))
	add(http.MethodPatch, "/teams/{team}/{apiPath}/{id}/move", k.collectionRoute(k.serveMove))
	add(http.MethodPost, "/teams/{team}/kit-batch", k.serveBatch)
	add(http.MethodGet, "/super-admin/{collection}/{id}", k.serveSuperAdminGet)
	add(http.MethodGet, "/kit/collections", k.serveCollections)
	add(http.MethodGet, "/kit/collections/{key}/schema", k.serveCollectionSchema)
	add(http.MethodGet, "/kit/openapi.json", k.serveOpenAPI)
	k.registerAccountRoutes(add)
	k.registerChangeRoutes(add)
	k.registerPresenceRoutes(add)
	k.registerTrashRoutes(add)
	k.registerFileRoutes(add)
	k.registerBackupRoutes(add)
}

// collectionCall is what a collection endpoint gets once the caller is
// known to be a member of the route's team.
type collectionCall struct {
	c     *collections.Collection
	actor Actor
	acc   *teamauth.Access
}

// collectionRoute authenticates, checks membership of the route's team
// (401, 403, 404 team), then resolves the collection by apiPath (404), in
// that order: a caller learns nothing about a team it is not in.
func (k *Kit) collectionRoute(serve func(http.ResponseWriter, *http.Request, collectionCall)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if k.serveFromCachedAccess(w, r, serve) {
			return
		}
		acc, err := k.teamAuth.ResolveTeamAndCheckMembership(r)
		if err != nil {
			k.WriteError(w, r, err)
			return
		}
		c, ok := k.Collections().ByAPIPath(r.PathValue("apiPath"))
		if !ok || c.External() {
			k.WriteError(w, r, ErrUnknownCollection)
			return
		}
		ctx := teamauth.WithUser(r.Context(), acc.User)
		serve(w, r.WithContext(ctx), collectionCall{
			c:     c,
			actor: Actor{UserID: acc.User.ID, TeamID: acc.Team.ID, Role: acc.Membership.Role, fromAccess: true},
			acc:   acc,
		})
	}
}

func (k *Kit) serveList(w http.ResponseWriter, r *http.Request, call collectionCall) {
	q := r.URL.Query()
	recs := k.Records(call.c.Key())
	if _, hasIDs := q["ids"]; hasIDs {
		// The query fetch strategy: ?ids=a,b answers a JSON array,
		// leaving out ids that are not the team's; filter, search and
		// sort apply to the records named (Records.ListIDs).
		items, err := recs.ListIDs(r.Context(), call.actor, q)
		if err != nil {
			k.WriteError(w, r, err)
			return
		}
		// The query strategy's single-item fetch (?ids=<one id>) carries
		// the record's ETag, for a conditional PATCH or DELETE of /{id}.
		single := len(items) == 1 && len(q["ids"]) == 1 && items[0]["id"] == q.Get("ids")
		if hasFileFields(call.c) {
			k.writeFileRecords(w, call.c, items, single)
			return
		}
		writeRecordsTagged(w, http.StatusOK, items, single, &k.answers)
		return
	}
	list, err := recs.List(r.Context(), call.actor, q)
	if err != nil {
		k.WriteError(w, r, err)
		return
	}
	if hasFileFields(call.c) {
		shown := *list
		shown.Items = k.presentAll(call.c, list.Items)
		list = &shown
	}
	WriteJSON(w, http.StatusOK, list)
}

func (k *Kit) serveCreate(w http.ResponseWriter, r *http.Request, call collectionCall) {
	if servesFileWrite(r, call.c) {
		k.serveFileWrite(w, r, call, "")
		return
	}
	body, err := k.readBody(w, r)
	if err != nil {
		k.WriteError(w, r, err)
		return
	}
	rec, err := k.Records(call.c.Key()).Create(r.Context(), call.actor, body)
	if err != nil {
		k.WriteError(w, r, err)
		return
	}
	w.Header().Set("Location", r.URL.Path+"/"+rec["id"].(string))
	writeRecord(w, http.StatusCreated, rec)
}

// errWrongStrategy answers GET /{id} on a collection fetched with ?ids=.
var errWrongStrategy = &Error{Status: http.StatusNotFound, Message: "record not found: this collection fetches single items with ?ids=<id> (fetchStrategy query)"}

func (k *Kit) serveGet(w http.ResponseWriter, r *http.Request, call collectionCall) {
	if call.c.FetchStrategy() != "restful" {
		k.WriteError(w, r, errWrongStrategy)
		return
	}
	rec, err := k.Records(call.c.Key()).Get(r.Context(), call.actor, r.PathValue("id"))
	if err != nil {
		k.WriteError(w, r, err)
		return
	}
	k.writeFileRecord(w, http.StatusOK, call.c, rec)
}

func (k *Kit) serveUpdate(w http.ResponseWriter, r *http.Request, call collectionCall) {
	if servesFileWrite(r, call.c) {
		k.serveFileWrite(w, r, call, r.PathValue("id"))
		return
	}
	opts, err := ifMatchOf(r)
	if err != nil {
		k.WriteError(w, r, err)
		return
	}
	body, err := k.readBody(w, r)
	if err != nil {
		k.WriteError(w, r, err)
		return
	}
	rec, err := k.Records(call.c.Key()).UpdateWith(r.Context(), call.actor, r.PathValue("id"), body, opts)
	if err != nil {
		k.writeWriteError(w, r, err)
		return
	}
	writeRecord(w, http.StatusOK, rec)
}

func (k *Kit) serveDelete(w http.ResponseWriter, r *http.Request, call collectionCall) {
	opts, err := ifMatchOf(r)
	if err != nil {
		k.WriteError(w, r, err)
		return
	}
	if err := k.Records(call.c.Key()).DeleteWith(r.Context(), call.actor, r.PathValue("id"), opts); err != nil {
		k.writeWriteError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// serveSuperAdminGet reads one record of any team, for users whose global
// role is admin. {collection} is the registry key, the apiPath, or a
// name one collection has (see superAdminCollection).
func (k *Kit) serveSuperAdminGet(w http.ResponseWriter, r *http.Request) {
	u, err := k.teamAuth.Authenticate(r)
	if err != nil {
		k.WriteError(w, r, err)
		return
	}
	if !u.IsAdmin() {
		k.WriteError(w, r, teamauth.ErrAdminRequired)
		return
	}
	c, err := superAdminCollection(k.Collections(), r.PathValue("collection"))
	if err != nil {
		k.WriteError(w, r, err)
		return
	}
	rec, err := k.store.GetAnyTeam(r.Context(), k.db, c, r.PathValue("id"))
	if err != nil {
		k.WriteError(w, r, err)
		return
	}
	writeRecord(w, http.StatusOK, rec)
}

// serveCollections answers the registered configs in the kitCollections
// shape, to any authenticated caller.
func (k *Kit) serveCollections(w http.ResponseWriter, r *http.Request) {
	if _, err := k.teamAuth.Authenticate(r); err != nil {
		k.WriteError(w, r, err)
		return
	}
	WriteJSON(w, http.StatusOK, k.Collections())
}

// serveCollectionSchema answers a collection's JSON Schema.
func (k *Kit) serveCollectionSchema(w http.ResponseWriter, r *http.Request) {
	if _, err := k.teamAuth.Authenticate(r); err != nil {
		k.WriteError(w, r, err)
		return
	}
	c, ok := k.Collections().Get(r.PathValue("key"))
	if !ok {
		k.WriteError(w, r, ErrUnknownCollection)
		return
	}
	w.Header().Set("Content-Type", "application/schema+json")
	WriteJSON(w, http.StatusOK, c.JSONSchema())
}

// Body errors.
var (
	errMalformedJSON = &Error{Status: http.StatusBadRequest, Message: "malformed JSON body"}
	errNotObject     = &Error{Status: http.StatusBadRequest, Message: "the body must be a JSON object"}
	errEmptyBody     = &Error{Status: http.StatusBadRequest, Message: "the body is empty; send a JSON object"}
)

// ReadJSONBody reads a request body that must be JSON, for handlers built
// on kit (add-ons, host routes), with the answers kit's own routes give: a
// Content-Type that is not JSON (application/json or a +json type), or
// JSON with a charset other than utf-8, is a 415; a body over limit bytes
// a 413 (data.limit); an empty body, bytes that are not UTF-8 or a \u
// escape of a lone UTF-16 surrogate a 400 (encoding/json would turn those
// into U+FFFD). Each answer is an error WriteError writes. It returns the
// raw bytes for the caller to decode; their syntax is not checked.
func ReadJSONBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	if err := wire.CheckJSONContentType(r.Header.Get("Content-Type"), true); err != nil {
		return nil, err
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, &Error{Status: http.StatusRequestEntityTooLarge, Message: "the body is larger than the limit", Data: map[string]any{"limit": mbe.Limit}}
		}
		return nil, &Error{Status: http.StatusBadRequest, Message: "cannot read the body", Err: err}
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, errEmptyBody
	}
	if err := wire.CheckJSONText(raw); err != nil {
		return nil, err
	}
	return raw, nil
}

// readBody reads a JSON object body (see ReadJSONBody; at most
// Config.MaxBodyBytes): the syntax valid and the value one object (400).
// Numbers stay exact (json.Number) for decimals.
func (k *Kit) readBody(w http.ResponseWriter, r *http.Request) (map[string]any, error) {
	raw, err := ReadJSONBody(w, r, k.cfg.MaxBodyBytes)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, errMalformedJSON
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errMalformedJSON
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, errNotObject
	}
	return obj, nil
}
