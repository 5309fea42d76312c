package wire

import (
	"bytes"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/collectionkit/kit/internal/apierror"
)

// The text rule of kit's HTTP input: text is stored exactly as sent or not
// at all. encoding/json would silently turn bytes that are not UTF-8, and
// \u escapes of a lone UTF-16 surrogate, into U+FFFD; PostgreSQL can store
// no NUL in text or JSONB.

// Errors of the body checks: 415 for a Content-Type kit cannot read as
// JSON, 400 for text that breaks the text rule.
var (
	// ErrNotJSON (415): the Content-Type is not JSON.
	ErrNotJSON error = apierror.New(http.StatusUnsupportedMediaType, "the body must be JSON (Content-Type: application/json)")
	// ErrCharset (415): the Content-Type is JSON with a charset other than
	// UTF-8, the only encoding of JSON kit reads.
	ErrCharset error = apierror.New(http.StatusUnsupportedMediaType, "the body must be JSON in UTF-8 (Content-Type: application/json, with no charset or charset=utf-8)")
	// ErrInvalidUTF8 (400): the body holds bytes that are not UTF-8.
	ErrInvalidUTF8 error = apierror.New(http.StatusBadRequest, "the body is not valid UTF-8")
	// ErrLoneSurrogate (400): the body holds a \u escape of a surrogate
	// that is not half of a high-low pair.
	ErrLoneSurrogate error = apierror.New(http.StatusBadRequest, "the body holds a \\u escape of a lone UTF-16 surrogate, which is no character")
)

// The messages of a text that breaks the text rule, naming no field: the
// caller names it. NUL and UTF-8 are the record fields' messages.
const (
	// ProblemNUL: the text holds a NUL.
	ProblemNUL = "must not contain NUL bytes"
	// ProblemUTF8: the text holds bytes that are not UTF-8.
	ProblemUTF8 = "must be valid UTF-8 text"
	// ProblemSurrogate: the JSON text holds a \u escape of a lone
	// UTF-16 surrogate.
	ProblemSurrogate = "must not hold a \\u escape of a lone UTF-16 surrogate"
)

// CheckJSONContentType returns nil when the Content-Type header value
// contentType declares a JSON body: the media type application/json or,
// with plusJSON, any type ending in "+json", with no charset parameter or
// charset=utf-8 (any case). Anything else is ErrNotJSON, and JSON in
// another charset ErrCharset: JSON text is UTF-8 (RFC 8259), and a body
// read as UTF-8 that the client encoded otherwise would be stored altered.
func CheckJSONContentType(contentType string, plusJSON bool) error {
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil || !(mt == "application/json" || plusJSON && strings.HasSuffix(mt, "+json")) {
		return ErrNotJSON
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		return ErrCharset
	}
	return nil
}

// CheckJSONText returns ErrInvalidUTF8 when raw is not UTF-8 and
// ErrLoneSurrogate when a string in it holds a \u escape of a surrogate
// that is not half of a high-low pair; otherwise nil. It does not check
// the JSON syntax (a decoder does) and lets \u0000 through: the record
// fields refuse NUL with a message naming the field.
func CheckJSONText(raw []byte) error {
	switch f := scanJSONText(raw); {
	case f&faultUTF8 != 0:
		return ErrInvalidUTF8
	case f&faultSurrogate != 0:
		return ErrLoneSurrogate
	}
	return nil
}

// JSONTextProblem returns what breaks the text rule in raw, a JSON value
// as sent, or "" when nothing does: bytes that are not UTF-8
// (ProblemUTF8), a \u escape of a lone surrogate (ProblemSurrogate), or a
// NUL, escaped or not, in any string or key (ProblemNUL).
func JSONTextProblem(raw []byte) string {
	switch f := scanJSONText(raw); {
	case f&faultUTF8 != 0:
		return ProblemUTF8
	case f&faultSurrogate != 0:
		return ProblemSurrogate
	case f&faultNUL != 0:
		return ProblemNUL
	}
	return ""
}

// TextProblem returns what breaks the text rule in s, a text already
// decoded (a path segment, a query value), or "" when nothing does: a NUL
// (ProblemNUL) or bytes that are not UTF-8 (ProblemUTF8). A Go string can
// hold no lone surrogate that is valid UTF-8.
func TextProblem(s string) string {
	switch {
	case strings.IndexByte(s, 0) >= 0:
		return ProblemNUL
	case !utf8.ValidString(s):
		return ProblemUTF8
	}
	return ""
}

// textFault is a set of the ways JSON text breaks the text rule.
type textFault uint8

const (
	faultUTF8 textFault = 1 << iota
	faultSurrogate
	faultNUL
)

// scanJSONText returns every fault of raw: invalid UTF-8 anywhere, and in
// strings \u escapes of lone surrogates and of NUL. A NUL byte anywhere
// counts too (JSON allows none unescaped; the decoder refuses it, but the
// scan must not depend on that). Malformed escapes are left to the
// decoder.
func scanJSONText(raw []byte) textFault {
	var f textFault
	if !utf8.Valid(raw) {
		f |= faultUTF8
	}
	if bytes.IndexByte(raw, 0) >= 0 {
		f |= faultNUL
	}
	inString := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if !inString {
			if c == '"' {
				inString = true
			}
			continue
		}
		switch c {
		case '"':
			inString = false
		case '\\':
			if i+1 >= len(raw) {
				return f // malformed; the decoder says so
			}
			if raw[i+1] != 'u' {
				i++
				continue
			}
			r, ok := hex4(raw, i+2)
			if !ok {
				return f // malformed; the decoder says so
			}
			switch {
			case r == 0:
				f |= faultNUL
			case r >= 0xD800 && r <= 0xDBFF:
				if i+11 < len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' {
					if lo, ok := hex4(raw, i+8); ok && lo >= 0xDC00 && lo <= 0xDFFF {
						i += 11
						continue
					}
				}
				f |= faultSurrogate
			case r >= 0xDC00 && r <= 0xDFFF:
				f |= faultSurrogate
			}
			i += 5
		}
	}
	return f
}

// hex4 reads the four hex digits of a \u escape at raw[at:].
func hex4(raw []byte, at int) (rune, bool) {
	if at+4 > len(raw) {
		return 0, false
	}
	var r rune
	for _, c := range raw[at : at+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
