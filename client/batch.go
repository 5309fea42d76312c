package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// A Batch collects record writes of one team to run in one transaction
// on the server (POST /teams/{team}/kit-batch): all of them or none. Each
// method adds one write and returns its index, for [Ref]. Get one from
// [Team.Batch]; run it with [Batch.Run].
type Batch struct {
	t   *Team
	ops []batchOp
}

type batchOp struct {
	method, key, sub string
	query            url.Values
	body             any
	header           map[string]string
}

// BatchResult is what one write of a batch answered: its status, its
// ETag and Location headers when it sent them, and its body (the record,
// for a create, an update or a move; empty for a delete).
type BatchResult struct {
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    json.RawMessage   `json:"body,omitempty"`
}

// Record decodes the result's body as a record (nil for an empty body).
func (r BatchResult) Record() (Record, error) {
	if len(r.Body) == 0 {
		return nil, nil
	}
	var rec Record
	err := json.Unmarshal(r.Body, &rec)
	return rec, err
}

// Batch returns an empty batch of the team's writes. It makes no request.
func (t *Team) Batch() *Batch { return &Batch{t: t} }

// Ref stands for field of the answer of the batch's write index (an
// earlier one): Ref(0, "id") is the id of the record write 0 created. Use
// it in a later write's id or as a value of its body.
func Ref(index int, field string) string {
	return "{{" + strconv.Itoa(index) + "." + field + "}}"
}

func (b *Batch) add(op batchOp) int {
	b.ops = append(b.ops, op)
	return len(b.ops) - 1
}

// Create adds the creation of a record of collection key from data.
func (b *Batch) Create(key string, data any) int {
	return b.add(batchOp{method: http.MethodPost, key: key, body: data})
}

// Update adds a partial update of record id; with an ETag in ifMatch it
// applies only if the record has not changed since.
func (b *Batch) Update(key, id string, patch any, ifMatch string) int {
	return b.add(batchOp{method: http.MethodPatch, key: key, sub: "/" + escapeID(id), body: patch, header: ifMatchHeader(ifMatch)})
}

// Delete adds the deletion of record id; with an ETag in ifMatch it
// applies only if the record has not changed since.
func (b *Batch) Delete(key, id, ifMatch string) int {
	return b.add(batchOp{method: http.MethodDelete, key: key, sub: "/" + escapeID(id), header: ifMatchHeader(ifMatch)})
}

// DeleteMany adds the deletion of records ids, all or none.
func (b *Batch) DeleteMany(key string, ids ...string) int {
	return b.add(batchOp{method: http.MethodDelete, key: key, query: url.Values{"ids": {strings.Join(ids, ",")}}})
}

// Move adds a move of tree node id under parentID (nil: a root) at
// position order among its new siblings ([OrderEnd] appends).
func (b *Batch) Move(key, id string, parentID *string, order int) int {
	body := map[string]any{"parentId": parentID}
	if order != OrderEnd {
		body["order"] = order
	}
	return b.add(batchOp{method: http.MethodPatch, key: key, sub: "/" + escapeID(id) + "/move", body: body})
}

// Reorder adds a reorder of one set of siblings: ids in their new order.
func (b *Batch) Reorder(key string, ids ...string) int {
	return b.add(batchOp{method: http.MethodPatch, key: key, sub: "/reorder", body: map[string]any{"ids": ids}})
}

// Len is the number of writes in the batch.
func (b *Batch) Len() int { return len(b.ops) }

// Run sends the batch and returns what each write answered, in order.
// When a write fails, nothing is written and the error is the one its
// request answered (an [*Error] whose Data["index"] is its index).
func (b *Batch) Run(ctx context.Context) ([]BatchResult, error) {
	type request struct {
		Method  string            `json:"method"`
		URL     string            `json:"url"`
		Body    any               `json:"body,omitempty"`
		Headers map[string]string `json:"headers,omitempty"`
	}
	reqs := make([]request, len(b.ops))
	keys := map[string]bool{}
	for i, op := range b.ops {
		col := &TypedCollection[Record]{c: b.t.c, team: b.t.id, key: op.key}
		_, path, err := col.endpoint(ctx)
		if err != nil {
			return nil, err
		}
		u := path + op.sub
		if len(op.query) > 0 {
			u += "?" + op.query.Encode()
		}
		reqs[i] = request{Method: op.method, URL: u, Body: op.body, Headers: op.header}
		keys[op.key] = true
	}
	defer func() {
		for key := range keys {
			b.t.c.Invalidate(CollectionPrefix(key))
		}
	}()
	var out struct {
		Responses []BatchResult `json:"responses"`
	}
	_, _, err := b.t.c.exchange(ctx, http.MethodPost, "/teams/"+url.PathEscape(b.t.id)+"/kit-batch", nil,
		map[string]any{"requests": reqs}, nil, &out)
	if err != nil {
		return nil, err
	}
	return out.Responses, nil
}

// escapeID escapes an id for a path, leaving a Ref as it is.
func escapeID(id string) string {
	if strings.HasPrefix(id, "{{") && strings.HasSuffix(id, "}}") {
		return id
	}
	return url.PathEscape(id)
}

func ifMatchHeader(etag string) map[string]string {
	if etag == "" {
		return nil
	}
	return map[string]string{"If-Match": etag}
}
