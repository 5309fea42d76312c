package kit

import (
	"math"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/collectionkit/kit/internal/wire"
)

func TestWriteRecordsWritesWhatWriteJSONWrites(t *testing.T) {
	at := time.Date(2026, 11, 23, 22, 1, 2, 345678000, time.UTC)
	cases := []struct {
		name string
		recs []Record
	}{
		{"no records are an empty array", []Record{}},
		{"nil records are null", nil},
		{"plain values are as encoding/json writes them", []Record{
			{"id": "a", "title": "Lamp", "price": "12.34", "stock": 7.0, "isActive": true, "note": nil, "createdAt": at},
			{"id": "b", "title": "Chair", "price": "0.50", "stock": -0.25, "isActive": false, "note": "x", "createdAt": at.In(time.FixedZone("X", 3600))},
		}},
		{"strings that need escapes are escaped", []Record{
			{"s": "quote \" backslash \\ newline \n tab \t bell \a del \x7f"},
			{"s": "<b>&amp;</b> é 日本 \u2028 \u2029 \ufffd"},
			{"s": "invalid \xff utf-8"},
		}},
		{"numbers keep encoding/json's notation", []Record{
			{"n": 0.0, "m": math.Copysign(0, -1), "i": 1e20, "j": 1e21, "k": 1e-6, "l": 1e-7, "o": 123456789.125, "p": 42, "q": int64(-7)},
		}},
		{"nested and other values are encoded by encoding/json", []Record{
			{"tags": []any{"a", 1.5, nil}, "specs": map[string]any{"z": 1.0, "a": "<x>"}, "ref": Record{"id": "c", "title": "T"}},
		}},
		{"records with different keys keep their own keys", []Record{
			{"a": 1.0, "b": 2.0},
			{"a": 1.0, "c": 3.0},
			{"a": 1.0},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want, err := wire.Encode(tc.recs)
			if err != nil {
				t.Fatal(err)
			}
			w := httptest.NewRecorder()
			writeRecords(w, 200, tc.recs)
			if got := w.Body.String(); got != string(want) {
				t.Errorf("got  %s\nwant %s", got, want)
			}
			if got := w.Header().Get("Content-Type"); got != "application/json; charset=utf-8" {
				t.Errorf("Content-Type: got %q, want application/json; charset=utf-8", got)
			}
		})
	}
	t.Run("a value encoding/json refuses falls back to its answer", func(t *testing.T) {
		w := httptest.NewRecorder()
		writeRecords(w, 200, []Record{{"n": math.Inf(1)}})
		want := httptest.NewRecorder()
		WriteJSON(want, 200, []Record{{"n": math.Inf(1)}})
		if w.Body.String() != want.Body.String() {
			t.Errorf("got %q, want %q", w.Body.String(), want.Body.String())
		}
	})
}

// oneRecordCases are the records the single-record answers are tested
// with: plain values, every kind of escape, both number notations,
// nested values, no fields, and a value encoding/json refuses.
func oneRecordCases() []struct {
	name string
	rec  Record
} {
	at := time.Date(2026, 11, 23, 22, 1, 2, 345678000, time.UTC)
	return []struct {
		name string
		rec  Record
	}{
		{"plain values", Record{"id": "a", "title": "Lamp", "price": "12.34", "stock": 7.0, "isActive": true, "note": nil, "createdAt": at}},
		{"characters json.Marshal escapes for HTML", Record{"id": "b", "s": "<b>&amp;</b>"}},
		{"escapes, line separators and invalid UTF-8", Record{"id": "c", "s": "quote \" \n \u2028 \u2029 \xff é"}},
		{"numbers in both notations", Record{"id": "d", "i": 1e21, "l": 1e-7, "o": 123456789.125, "p": 42, "q": int64(-7)}},
		{"nested values", Record{"id": "e", "specs": map[string]any{"z": 1.0, "a": "<x>"}, "tags": []any{"a", nil}, "ref": Record{"id": "c"}}},
		{"no fields", Record{}},
		{"a value json refuses", Record{"id": "f", "n": math.Inf(1)}},
	}
}

func TestASingleRecordArrayCarriesTheRecordsETag(t *testing.T) {
	for _, tc := range oneRecordCases() {
		t.Run(tc.name+" give the ETag of the record", func(t *testing.T) {
			w := httptest.NewRecorder()
			writeRecordsTagged(w, 200, []Record{tc.rec}, true, nil)
			if got, want := w.Header().Get("ETag"), ETag(tc.rec); got != want {
				t.Errorf("got %s, want %s", got, want)
			}
		})
	}
}

func TestWriteRecordWritesWhatWriteJSONWritesWithTheRecordsETag(t *testing.T) {
	for _, tc := range oneRecordCases() {
		t.Run(tc.name+" are written as WriteJSON writes them", func(t *testing.T) {
			w := httptest.NewRecorder()
			writeRecord(w, 201, tc.rec)
			want := httptest.NewRecorder()
			WriteJSON(want, 201, tc.rec)
			if got := w.Body.String(); got != want.Body.String() {
				t.Errorf("body: got  %q\nwant %q", got, want.Body.String())
			}
			if w.Code != want.Code {
				t.Errorf("status: got %d, want %d", w.Code, want.Code)
			}
			if got, want := w.Header().Get("ETag"), ETag(tc.rec); got != want {
				t.Errorf("ETag: got %s, want %s", got, want)
			}
		})
	}
}

func TestAppendJSONValueRefusesATimeRFC3339CannotHold(t *testing.T) {
	cases := []struct {
		name string
		at   time.Time
	}{
		{"a year past 9999", time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"a year before 0", time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"a zone 24 hours off", time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("far", 24*3600))},
	}
	for _, tc := range cases {
		t.Run(tc.name+" is refused and nothing is appended", func(t *testing.T) {
			if _, err := tc.at.MarshalJSON(); err == nil {
				t.Fatalf("MarshalJSON accepted %v; the case tests nothing", tc.at)
			}
			got, ok := appendJSONValue([]byte("x"), tc.at)
			if ok || string(got) != "x" {
				t.Errorf("got %q, %v; want \"x\", false", got, ok)
			}
		})
	}
}

// TestAnswersFromReusedBuffersAreWhatWriteJSONWrites encodes answers of
// many records and of few in turn through one answerBufs: each is exactly
// wire.Encode's, whatever an earlier answer left in the buffer, and a
// buffer over maxAnswerBuf is not kept.
func TestAnswersFromReusedBuffersAreWhatWriteJSONWrites(t *testing.T) {
	var bufs answerBufs
	big := make([]Record, 300)
	for i := range big {
		big[i] = Record{"id": strings.Repeat("x", i%40), "n": float64(i), "s": "quote \" <b>"}
	}
	// A large answer, then small ones that reuse its buffer, then a large
	// one again: each must be exactly its own records.
	for i, recs := range [][]Record{big, {{"id": "a"}}, {}, big[:7], big} {
		w := httptest.NewRecorder()
		writeRecordsTagged(w, 200, recs, false, &bufs)
		want, err := wire.Encode(recs)
		if err != nil {
			t.Fatal(err)
		}
		if got := w.Body.String(); got != string(want) {
			t.Errorf("answer %d: got  %.200s\nwant %.200s", i, got, want)
		}
	}
	t.Run("a buffer over the limit is not kept", func(t *testing.T) {
		var bufs answerBufs
		b := make([]byte, 0, maxAnswerBuf+1)
		bufs.put(&b)
		if got := bufs.get(10); cap(*got) > maxAnswerBuf {
			t.Errorf("got a buffer of %d bytes back, want a new one", cap(*got))
		}
	})
}
