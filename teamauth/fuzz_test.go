package teamauth

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/collectionkit/kit/internal/wire"
)

// fuzzBody has a member of every kind the accounts bodies decode: text,
// optional text, a role, a flag and free JSON.
type fuzzBody struct {
	Name        string         `json:"name"`
	Description *string        `json:"description"`
	Role        Role           `json:"role"`
	Banned      *bool          `json:"banned"`
	Settings    map[string]any `json:"settings"`
}

// FuzzAccountsInput feeds arbitrary bodies, Content-Types, query strings
// and path segments to the accounts routes' input rules (decodeJSON,
// checkQuery, replaceBadSegments). They must not panic; an error must be a
// 4xx; and whatever they accept holds only valid UTF-8 without NUL, with
// no character replaced by U+FFFD on the way.
func FuzzAccountsInput(f *testing.F) {
	f.Add([]byte(`{"name":"Acme","description":"d","role":"owner","banned":true,"settings":{"a":[1,"b",null]}}`), "application/json", "search=acme&page=2", "acme")
	f.Add([]byte(`{"name":"a\u0000b"}`), "application/json; charset=utf-8", "search=%00", "%00")
	f.Add([]byte(`{"name":"\ud800","settings":{"\udc00":1}}`), "application/json", "page=%FF", "\xff")
	f.Add([]byte("{\"name\":\"\xc0\xaf\"}"), "application/json; charset=utf-16", "a%00=1", "\xc0\xaf")
	f.Add([]byte(`{"name":"smile \ud83d\ude00 \ufffd"}`), "Application/JSON", "x=%EF%BF%BD", "\ufffd")
	f.Add([]byte(`{"settings":{"a":"\u0000"},"settings":{"b":1}}`), "application/json", "force=true", "")
	f.Add([]byte(`{"NAME":"x","nAmE":"\u0000"}`), "application/json", ";", "a/b")
	f.Add([]byte(`null`), "application/json", "", "")
	f.Add([]byte(`{"name":"x"} {}`), "application/json", "%zz", "")
	f.Add([]byte(`{"name":5}`), "text/plain", "&&=", "")
	f.Add([]byte(`{"name":"\\u0000"}`), "application/json", "search=%5Cu0000", "")

	f.Fuzz(func(t *testing.T, body []byte, contentType, query, segment string) {
		r := httptest.NewRequest(http.MethodPost, "/api/teams", bytes.NewReader(body))
		r.Header.Set("Content-Type", contentType)
		var dst fuzzBody
		err := decodeJSON(httptest.NewRecorder(), r, &dst)
		var fe *FieldError
		switch {
		case errors.As(err, &fe):
			for name, msg := range fe.Fields {
				if jsonName(&dst, name) != name || msg == "" {
					t.Errorf("got a FieldError naming %q (%q), want a member of the body with a message", name, msg)
				}
			}
		case err != nil:
		default:
			if n := replaced(reflect.ValueOf(dst), t); n > strings.Count(strings.ToLower(string(body)), `\ufffd`)+bytes.Count(body, []byte("\uFFFD")) {
				t.Errorf("got %d U+FFFD in what %q decoded to, more than it sent", n, body)
			}
		}
		if s := wire.Status(err); err != nil && (s < 400 || s > 499) {
			t.Errorf("got status %d (%v) for %q, want a 4xx", s, err, body)
		}

		qr := httptest.NewRequest(http.MethodGet, "/api/super-admin/users", nil)
		qr.URL.RawQuery = query
		if err := checkQuery(qr); err != nil {
			if wire.Status(err) != http.StatusBadRequest {
				t.Errorf("got status %d for the query %q, want 400", wire.Status(err), query)
			}
		} else {
			for name, vs := range qr.URL.Query() {
				for _, s := range append(vs, name) {
					if wire.TextProblem(s) != "" {
						t.Errorf("got the query %q accepted with %q in it", query, s)
					}
				}
			}
		}

		r.SetPathValue("team", segment)
		replaceBadSegments(r, []string{"team"})
		if got := r.PathValue("team"); wire.TextProblem(got) != "" || (wire.TextProblem(segment) == "" && got != segment) {
			t.Errorf("got the segment %q served as %q, want it as is when text and %q otherwise", segment, got, noSuchID)
		}
	})
}

// replaced checks that every string in v (struct fields, pointers, map
// keys and values, slices) is valid UTF-8 without NUL, and returns how
// many U+FFFD they hold.
func replaced(v reflect.Value, t *testing.T) int {
	n := 0
	switch v.Kind() {
	case reflect.String:
		s := v.String()
		if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
			t.Errorf("got %q accepted, want only valid UTF-8 without NUL", s)
		}
		n += strings.Count(s, "\uFFFD")
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			n += replaced(v.Elem(), t)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			n += replaced(v.Field(i), t)
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			n += replaced(it.Key(), t) + replaced(it.Value(), t)
		}
	case reflect.Slice:
		for i := range v.Len() {
			n += replaced(v.Index(i), t)
		}
	}
	return n
}
