package kit

import (
	"math"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/collectionkit/kit/internal/jsonstring"
	"github.com/collectionkit/kit/internal/wire"
)

// writeRecords answers recs as a JSON array, byte for byte what
// WriteJSON writes for them (keys sorted, no HTML escaping, a newline at
// the end). Records of one collection share their keys, and their values
// are mostly plain strings, numbers, booleans, times and nulls: those are
// appended directly, without reflection and without sorting each
// record's keys again; any other value is encoded by wire.Encode.
func writeRecords(w http.ResponseWriter, status int, recs []Record) {
	writeRecordsTagged(w, status, recs, false, nil)
}

// writeRecordsTagged is writeRecords; with tag, recs holds one record and
// the answer carries its ETag, from the body's bytes of it (setETag), as
// writeRecord does. With bufs the answer is encoded in one of its buffers,
// which goes back to it once written.
func writeRecordsTagged(w http.ResponseWriter, status int, recs []Record, tag bool, bufs *answerBufs) {
	if recs == nil {
		WriteJSON(w, status, recs) // null
		return
	}
	buf := bufs.get(512*len(recs) + 3)
	defer bufs.put(buf)
	body, ok := appendRecords((*buf)[:0], recs)
	*buf = body
	if !ok {
		if tag {
			w.Header().Set("ETag", ETag(recs[0]))
		}
		WriteJSON(w, status, recs)
		return
	}
	if tag {
		setETag(w, recs[0], body[1:len(body)-2])
	}
	wire.Encoded(w, status, body)
}

// answerBufs keeps the buffers that answers of many records are encoded
// in, for the next answers: an answer of a hundred records is some 60 KB,
// which a new buffer would have the runtime zero and the garbage
// collector reclaim on every request. Buffers larger than maxAnswerBuf go
// to the collector. The zero value is ready; a nil *answerBufs hands out
// new buffers and keeps none.
type answerBufs struct{ pool sync.Pool }

// maxAnswerBuf is the largest buffer answerBufs keeps.
const maxAnswerBuf = 1 << 20

// get returns a buffer of at least n bytes' capacity.
func (p *answerBufs) get(n int) *[]byte {
	if p != nil {
		if b, ok := p.pool.Get().(*[]byte); ok {
			if cap(*b) < n {
				*b = make([]byte, 0, n)
			}
			return b
		}
	}
	b := make([]byte, 0, n)
	return &b
}

// put keeps b for a later get. The caller no longer uses it: an
// http.ResponseWriter does not retain what it was given to write.
func (p *answerBufs) put(b *[]byte) {
	if p != nil && cap(*b) <= maxAnswerBuf {
		p.pool.Put(b)
	}
}

// appendRecords appends recs as WriteJSON encodes them, and a newline. It
// reports false when a value would not encode (WriteJSON then answers
// what encoding/json does).
func appendRecords(b []byte, recs []Record) ([]byte, bool) {
	b = append(b, '[')
	var keys []string
	for i, rec := range recs {
		if i > 0 {
			b = append(b, ',')
		}
		if !sameKeys(keys, rec) {
			keys = sortedKeys(rec)
		}
		var ok bool
		if b, ok = appendRecord(b, rec, keys); !ok {
			return b, false
		}
	}
	return append(b, ']', '\n'), true
}

// appendRecord appends rec, whose keys in order are keys, as a JSON
// object the way WriteJSON encodes it. It reports false when a value
// would not encode.
func appendRecord(b []byte, rec Record, keys []string) ([]byte, bool) {
	b = append(b, '{')
	for j, k := range keys {
		if j > 0 {
			b = append(b, ',')
		}
		b = jsonstring.Append(b, k)
		b = append(b, ':')
		var ok bool
		if b, ok = appendJSONValue(b, rec[k]); !ok {
			return b, false
		}
	}
	return append(b, '}'), true
}

// sortedKeys returns rec's keys in order, in one allocation
// (slices.Sorted(maps.Keys(rec)) grows its slice from nothing).
func sortedKeys(rec Record) []string {
	keys := make([]string, 0, len(rec))
	for k := range rec {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// sameKeys reports whether rec's keys are exactly keys.
func sameKeys(keys []string, rec Record) bool {
	if keys == nil || len(keys) != len(rec) {
		return false
	}
	for _, k := range keys {
		if _, ok := rec[k]; !ok {
			return false
		}
	}
	return true
}

// appendJSONValue appends v as encoding/json does.
func appendJSONValue(b []byte, v any) ([]byte, bool) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), true
	case string:
		return jsonstring.Append(b, v), true
	case bool:
		return strconv.AppendBool(b, v), true
	case int:
		return strconv.AppendInt(b, int64(v), 10), true
	case int64:
		return strconv.AppendInt(b, v, 10), true
	case float64:
		// encoding/json's own choice: plain notation between 1e-6 and
		// 1e21, exponents (and errors) left to it.
		if abs := math.Abs(v); abs == 0 || abs >= 1e-6 && abs < 1e21 {
			return strconv.AppendFloat(b, v, 'f', -1, 64), true
		}
	case time.Time:
		// What MarshalJSON writes, appended in place: RFC 3339 text in
		// quotes, refused for what RFC 3339 cannot hold.
		t, err := v.AppendText(append(b, '"'))
		if err != nil {
			return b, false
		}
		return append(t, '"'), true
	}
	enc, err := wire.Encode(v)
	if err != nil {
		return b, false
	}
	return append(b, enc[:len(enc)-1]...), true
}
