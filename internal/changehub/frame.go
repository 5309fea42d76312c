package changehub

import (
	"encoding/json"
	"slices"
	"strconv"
	"sync"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/jsonstring"
	"github.com/collectionkit/kit/internal/store"
)

// Frame is one change, encoded once for every stream.
type Frame struct {
	// ID is the change's position.
	ID int64
	// TeamID is the team whose record changed.
	TeamID string
	// Collection is the changed collection's registry key.
	Collection string
	// SSE is the complete Server-Sent Events event: "id: <ID>\ndata:
	// <JSON of kit.ChangeEvent>\n\n".
	SSE []byte
}

// Encoder encodes changes into frames. It keeps each collection's
// invalidate list, encoded, for the registry it was computed from (a new
// registry starts over). The zero value is ready; it is safe for
// concurrent use.
type Encoder struct {
	mu  sync.Mutex
	reg *collections.Registry
	m   map[string][]byte
}

// Frame encodes ch against reg: the JSON of its kit.ChangeEvent (as
// encoding/json writes it, without HTML escaping; itemIds for a reorder
// or a change of several records, else itemId unless empty) in an SSE
// event whose id is the change's position.
func (e *Encoder) Frame(reg *collections.Registry, ch store.Change) *Frame {
	invalidate := e.invalidate(reg, ch.Collection)
	size := 200 + len(ch.Operation) + len(ch.Collection) + len(ch.CorrelationID) + len(invalidate)
	for _, id := range ch.ItemIDs {
		size += len(id) + 3
	}
	sse := make([]byte, 0, size) // the event's length, or a little more
	sse = append(sse, "id: "...)
	sse = strconv.AppendInt(sse, ch.ID, 10)
	sse = append(sse, "\ndata: {\"id\":"...)
	sse = strconv.AppendInt(sse, ch.ID, 10)
	sse = append(sse, `,"operation":`...)
	sse = jsonstring.Append(sse, ch.Operation)
	sse = append(sse, `,"collection":`...)
	sse = jsonstring.Append(sse, ch.Collection)
	sse = appendItems(sse, ch)
	sse = append(sse, `,"correlationId":`...)
	sse = jsonstring.Append(sse, ch.CorrelationID)
	sse = append(sse, `,"timestamp":`...)
	sse = strconv.AppendInt(sse, ch.Timestamp, 10)
	sse = append(sse, `,"invalidate":`...)
	sse = append(sse, invalidate...)
	sse = append(sse, "}\n\n"...)
	return &Frame{ID: ch.ID, TeamID: ch.TeamID, Collection: ch.Collection, SSE: sse}
}

// appendItems appends ch's "itemIds" (a reorder, or a change of several
// records; left out when there are none) or "itemId" (one record; left
// out when empty) member.
func appendItems(sse []byte, ch store.Change) []byte {
	if ch.Operation == "reorder" || len(ch.ItemIDs) > 1 {
		if len(ch.ItemIDs) == 0 {
			return sse
		}
		sse = append(sse, `,"itemIds":[`...)
		for i, id := range ch.ItemIDs {
			if i > 0 {
				sse = append(sse, ',')
			}
			sse = jsonstring.Append(sse, id)
		}
		return append(sse, ']')
	}
	if len(ch.ItemIDs) == 1 && ch.ItemIDs[0] != "" {
		sse = append(sse, `,"itemId":`...)
		sse = jsonstring.Append(sse, ch.ItemIDs[0])
	}
	return sse
}

// invalidate returns the JSON array of InvalidateKeys(reg, key).
func (e *Encoder) invalidate(reg *collections.Registry, key string) []byte {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.reg != reg {
		e.reg, e.m = reg, map[string][]byte{}
	}
	data, ok := e.m[key]
	if !ok {
		data, _ = json.Marshal(InvalidateKeys(reg, key)) // strings: cannot fail
		e.m[key] = data
	}
	return data
}

// InvalidateKeys returns the cache keys a change of collection key makes
// stale: "collection:<key>:*" of its own and of the collections its
// references name (by registry key, or by name, preferably in its layer),
// each once, its own first, the others in the order of their fields'
// names. An unknown key invalidates only itself.
func InvalidateKeys(reg *collections.Registry, key string) []string {
	keys := []string{"collection:" + key + ":*"}
	c, ok := reg.Get(key)
	if !ok {
		return keys
	}
	seen := map[string]bool{key: true}
	for _, target := range sortedValues(c.Config().References) {
		ref := resolveCollection(reg, c.Layer(), target)
		if !seen[ref] {
			seen[ref] = true
			keys = append(keys, "collection:"+ref+":*")
		}
	}
	return keys
}

// sortedValues returns m's values in the order of their keys.
func sortedValues(m map[string]string) []string {
	fields := make([]string, 0, len(m))
	for f := range m {
		fields = append(fields, f)
	}
	slices.Sort(fields)
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = m[f]
	}
	return out
}

// resolveCollection returns the registry key a reference to target names:
// target itself when it is a key, else the collection named target in
// layer, else the first collection named target, else target.
func resolveCollection(reg *collections.Registry, layer, target string) string {
	if _, ok := reg.Get(target); ok {
		return target
	}
	found := ""
	for _, c := range reg.All() {
		if c.Name() != target {
			continue
		}
		if c.Layer() == layer {
			return c.Key()
		}
		if found == "" {
			found = c.Key()
		}
	}
	if found == "" {
		return target
	}
	return found
}

// appendControl appends an event of kind (reset, ready) at position id
// with data, a JSON object.
func appendControl(buf []byte, kind string, id int64, data string) []byte {
	buf = append(buf, "event: "...)
	buf = append(buf, kind...)
	buf = append(buf, "\nid: "...)
	buf = strconv.AppendInt(buf, id, 10)
	buf = append(buf, "\ndata: "...)
	buf = append(buf, data...)
	return append(buf, "\n\n"...)
}

// round is the changes of one team that one delivery hands to the team's
// streams, encoded once for all of them.
type round struct {
	frames []*Frame // in position order
	sse    []byte   // every frame's event, concatenated
}
