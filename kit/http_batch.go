package kit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/wire"
	"github.com/collectionkit/kit/teamauth"
)

// POST {prefix}/teams/{team}/kit-batch runs up to MaxBatchOperations
// record writes of the team in one transaction (Kit.Batch): each request
// of the body is served as its single request would be, and the answer
// lists what each answered; when one fails, the batch answers its status
// and error with its index in data.index, and nothing is written. See
// docs/batch.md.

// batchBody is the body of POST .../kit-batch.
type batchBody struct {
	Requests []batchRequest `json:"requests"`
}

// batchRequest is one request of a batch: a record route of the team,
// relative to the prefix ("/teams/{team}/{apiPath}/{id}").
type batchRequest struct {
	Method  string            `json:"method"`
	URL     string            `json:"url"`
	Body    json.RawMessage   `json:"body,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

// batchResponse is what one request of a batch answered.
type batchResponse struct {
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    json.RawMessage   `json:"body,omitempty"`
}

// batchHeaders are the headers a batch request may carry.
var batchHeaders = map[string]bool{"If-Match": true, "Content-Type": true}

// batchRef is a reference to an earlier answer of the batch: "{{0.id}}"
// is the id (any top-level field) of the first request's answer.
var batchRef = regexp.MustCompile(`\{\{(\d+)\.([A-Za-z_][A-Za-z0-9_]*)\}\}`)

// batchBodyLimit is the limit of a batch's body: room for every request's
// body at Config.MaxBodyBytes, at most 32 MiB.
func (k *Kit) batchBodyLimit() int64 {
	return min(k.cfg.MaxBodyBytes*MaxBatchOperations/10+k.cfg.MaxBodyBytes, 32<<20)
}

// batchFailed carries the answer of the request that failed a batch.
type batchFailed struct {
	index  int
	status int
	body   wire.Body
}

func (e *batchFailed) Error() string {
	return fmt.Sprintf("batch request %d: %s", e.index, e.body.Message)
}

func (k *Kit) serveBatch(w http.ResponseWriter, r *http.Request) {
	acc, err := k.teamAuth.ResolveTeamAndCheckMembership(r)
	if err != nil {
		k.WriteError(w, r, err)
		return
	}
	raw, err := ReadJSONBody(w, r, k.batchBodyLimit())
	if err != nil {
		k.WriteError(w, r, err)
		return
	}
	var body batchBody
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil {
		k.WriteError(w, r, &Error{Status: http.StatusBadRequest, Message: "the body must be {\"requests\": [{\"method\", \"url\", \"body\", \"headers\"}, ...]}: " + err.Error()})
		return
	}
	switch n := len(body.Requests); {
	case n == 0:
		k.WriteError(w, r, fieldError("requests", "must list at least one request"))
		return
	case n > MaxBatchOperations:
		k.WriteError(w, r, fieldError("requests", fmt.Sprintf("must list at most %d requests (got %d)", MaxBatchOperations, n)))
		return
	}
	ctx := teamauth.WithUser(r.Context(), acc.User)
	actor := Actor{UserID: acc.User.ID, TeamID: acc.Team.ID, Role: acc.Membership.Role, fromAccess: true}
	answers := make([]batchResponse, 0, len(body.Requests))
	err = k.Batch(ctx, actor, func(b *Batch) error {
		for i, br := range body.Requests {
			a, err := k.serveBatchRequest(b, acc, r.PathValue("team"), i, br, answers)
			if err != nil {
				return err
			}
			answers = append(answers, a)
		}
		return nil
	})
	var failed *batchFailed
	switch {
	case errors.As(err, &failed):
		failed.body.Data = withIndex(failed.body.Data, failed.index)
		failed.body.Message = fmt.Sprintf("request %d: %s", failed.index, failed.body.Message)
		WriteJSON(w, failed.status, failed.body)
	case err != nil:
		k.WriteError(w, r, err)
	default:
		WriteJSON(w, http.StatusOK, map[string]any{"responses": answers})
	}
}

// serveBatchRequest serves request i of a batch in b's transaction and
// returns its answer; an answer of 400 or more is returned as a
// *batchFailed, which rolls the batch back.
func (k *Kit) serveBatchRequest(b *Batch, acc *teamauth.Access, team string, i int, br batchRequest, answers []batchResponse) (batchResponse, error) {
	fail := func(err error) (batchResponse, error) {
		wb := wire.BodyFor(err)
		return batchResponse{}, &batchFailed{index: i, status: wb.Status, body: wb}
	}
	target, err := substituteRefs(br.URL, i, answers)
	if err != nil {
		return fail(err)
	}
	u, err := url.Parse(target)
	if err != nil || u.Host != "" || u.Scheme != "" {
		return fail(fieldError("url", "must be a path relative to the API prefix, such as /teams/{team}/{apiPath}"))
	}
	route, err := k.batchRoute(strings.ToUpper(br.Method), u.Path, team, acc)
	if err != nil {
		return fail(err)
	}
	var reqBody []byte
	if len(br.Body) > 0 && string(br.Body) != "null" {
		if reqBody, err = substituteBodyRefs(br.Body, i, answers); err != nil {
			return fail(err)
		}
	}
	req, err := http.NewRequestWithContext(b.ctx, route.method, k.cfg.Prefix+u.Path+querySuffix(u), bytes.NewReader(reqBody))
	if err != nil {
		return fail(fieldError("url", "is not a valid request path"))
	}
	req.Header.Set("Content-Type", "application/json")
	for name, v := range br.Headers {
		name = http.CanonicalHeaderKey(name)
		if !batchHeaders[name] {
			return fail(fieldError("headers", fmt.Sprintf("%s does not apply to a batch request (If-Match and Content-Type do)", name)))
		}
		req.Header.Set(name, v)
	}
	for key, v := range route.values {
		req.SetPathValue(key, v)
	}
	rec := &batchRecorder{header: http.Header{}}
	route.serve(rec, req, collectionCall{c: route.c, actor: b.actor, acc: acc})
	if rec.status >= http.StatusBadRequest {
		var wb wire.Body
		if err := json.Unmarshal(rec.body.Bytes(), &wb); err != nil {
			wb = wire.Body{Status: rec.status, StatusText: http.StatusText(rec.status), Message: http.StatusText(rec.status)}
		}
		return batchResponse{}, &batchFailed{index: i, status: rec.status, body: wb}
	}
	a := batchResponse{Status: rec.status}
	if rec.body.Len() > 0 {
		a.Body = json.RawMessage(bytes.TrimSpace(rec.body.Bytes()))
	}
	for _, name := range []string{"ETag", "Location"} {
		if v := rec.header.Get(name); v != "" {
			if a.Headers == nil {
				a.Headers = map[string]string{}
			}
			a.Headers[name] = v
		}
	}
	return a, nil
}

func querySuffix(u *url.URL) string {
	if u.RawQuery == "" {
		return ""
	}
	return "?" + u.RawQuery
}

// batchTarget is the record route a batch request names.
type batchTarget struct {
	method string
	c      *collections.Collection
	values map[string]string
	serve  func(http.ResponseWriter, *http.Request, collectionCall)
}

// batchRoute resolves the record route of a batch request: create
// (POST .../{apiPath}), bulk delete (DELETE .../{apiPath}?ids=), update or
// reorder (PATCH .../{id}), delete (DELETE .../{id}) and move (PATCH
// .../{id}/move) of the route's own team.
func (k *Kit) batchRoute(method, path, team string, acc *teamauth.Access) (batchTarget, error) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	if len(parts) < 3 || parts[0] != "teams" {
		return batchTarget{}, fieldError("url", "must name a record route of the team: /teams/{team}/{apiPath}[/{id}[/move]]")
	}
	if t := parts[1]; t != team && t != acc.Team.ID && t != acc.Team.Slug {
		return batchTarget{}, fieldError("url", "names another team: a batch writes the records of its own team only")
	}
	c, ok := k.Collections().ByAPIPath(parts[2])
	if !ok || c.External() {
		return batchTarget{}, ErrUnknownCollection
	}
	t := batchTarget{method: method, c: c, values: map[string]string{"team": parts[1], "apiPath": parts[2]}}
	switch {
	case len(parts) == 3 && method == http.MethodPost:
		t.serve = k.serveCreate
	case len(parts) == 3 && method == http.MethodDelete:
		t.serve = k.serveDeleteMany
	case len(parts) == 4 && method == http.MethodPatch:
		t.serve = k.serveUpdateOrReorder
	case len(parts) == 4 && method == http.MethodDelete:
		t.serve = k.serveDelete
	case len(parts) == 5 && parts[4] == "move" && method == http.MethodPatch:
		t.serve = k.serveMove
	default:
		return batchTarget{}, fieldError("method", fmt.Sprintf("%s %s is not an operation a batch runs (create, update, delete, bulk delete, move, reorder)", method, path))
	}
	if len(parts) >= 4 {
		t.values["id"] = parts[3]
	}
	return t, nil
}

// substituteRefs replaces the references to earlier answers in s
// ("{{0.id}}"); a reference to request i or a later one, or to a field
// the answer lacks, is a 400.
func substituteRefs(s string, i int, answers []batchResponse) (string, error) {
	var err error
	out := batchRef.ReplaceAllStringFunc(s, func(ref string) string {
		v, rerr := resolveRef(ref, i, answers)
		if rerr != nil {
			err = rerr
			return ref
		}
		return refText(v)
	})
	return out, err
}

// substituteBodyRefs replaces the references in the string values of a
// request body: a string that is one reference becomes the value it names
// (a number stays a number), a reference inside a longer string its text.
func substituteBodyRefs(raw json.RawMessage, i int, answers []batchResponse) ([]byte, error) {
	if !batchRef.Match(raw) {
		return raw, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return raw, nil // the route answers the malformed body
	}
	var walk func(any) (any, error)
	walk = func(v any) (any, error) {
		switch x := v.(type) {
		case string:
			if loc := batchRef.FindStringIndex(x); loc != nil && loc[0] == 0 && loc[1] == len(x) {
				return resolveRef(x, i, answers)
			}
			return substituteRefs(x, i, answers)
		case map[string]any:
			for key, e := range x {
				var err error
				if x[key], err = walk(e); err != nil {
					return nil, err
				}
			}
		case []any:
			for j, e := range x {
				var err error
				if x[j], err = walk(e); err != nil {
					return nil, err
				}
			}
		}
		return v, nil
	}
	v, err := walk(v)
	if err != nil {
		return nil, err
	}
	return wire.Encode(v)
}

// resolveRef returns the value a reference names.
func resolveRef(ref string, i int, answers []batchResponse) (any, error) {
	m := batchRef.FindStringSubmatch(ref)
	n, err := strconv.Atoi(m[1])
	if err != nil || n >= i {
		return nil, fieldError("requests", fmt.Sprintf("%s refers to request %s, which does not come before request %d", ref, m[1], i))
	}
	var obj map[string]any
	dec := json.NewDecoder(bytes.NewReader(answers[n].Body))
	dec.UseNumber()
	if err := dec.Decode(&obj); err != nil {
		return nil, fieldError("requests", fmt.Sprintf("%s refers to request %d, whose answer is not an object", ref, n))
	}
	v, ok := obj[m[2]]
	if !ok || v == nil {
		return nil, fieldError("requests", fmt.Sprintf("%s refers to a field request %d's answer does not have", ref, n))
	}
	switch v.(type) {
	case string, json.Number, bool:
		return v, nil
	}
	return nil, fieldError("requests", fmt.Sprintf("%s refers to a field of request %d's answer that is not a string, number or boolean", ref, n))
}

// refText is a referenced value as text.
func refText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	}
	return fmt.Sprint(v)
}

// batchRecorder keeps the answer of one batch request.
type batchRecorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *batchRecorder) Header() http.Header { return r.header }

func (r *batchRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
}

func (r *batchRecorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(p)
}
