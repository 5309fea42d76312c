package kit

import (
	"math"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

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
		b = appendJSONString(b, k)
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
		return appendJSONString(b, v), true
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

// appendJSONString appends s quoted as encoding/json does without HTML
// escaping: printable ASCII and valid UTF-8 other than U+2028 and U+2029
// as they are; anything else goes through wire.Encode.
func appendJSONString(b []byte, s string) []byte {
	i := plainPrefix(s)
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == '"' || c == '\\' {
				return appendEncodedString(b, s)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || r == '\u2028' || r == '\u2029' {
			return appendEncodedString(b, s)
		}
		i += size
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// plainPrefix returns the length of a prefix of s, in whole 8-byte words,
// whose bytes encoding/json copies as they are: ASCII, not a control
// character, a quote or a backslash. It may end a word before the first
// byte that is not (see special), never after it.
func plainPrefix(s string) int {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	i := 0
	for ; i+8 <= len(s); i += 8 {
		t := s[i : i+8]
		w := uint64(t[0]) | uint64(t[1])<<8 | uint64(t[2])<<16 | uint64(t[3])<<24 |
			uint64(t[4])<<32 | uint64(t[5])<<40 | uint64(t[6])<<48 | uint64(t[7])<<56
		// special has a byte's high bit set when the byte is not ASCII
		// (w's own high bit) or, in a word of ASCII bytes, at the lowest
		// byte below 0x20 and the lowest '"' and '\\' (x - ones sets the
		// high bit of the lowest zero byte of x; bytes above a borrow may
		// be marked too, which only ends the prefix early).
		quote, backslash := w^(ones*'"'), w^(ones*'\\')
		special := (w - ones*0x20) | (quote - ones) | (backslash - ones) | w
		if special&highs != 0 {
			break
		}
	}
	return i
}

func appendEncodedString(b []byte, s string) []byte {
	enc, _ := wire.Encode(s) // a string always encodes
	return append(b, enc[:len(enc)-1]...)
}
