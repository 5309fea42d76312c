package kit

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/collectionkit/kit/internal/apierror"
	"github.com/collectionkit/kit/internal/wire"
)

// ETag returns the strong entity tag of rec, quotes included, as the HTTP
// API sends it in the ETag header of a single record's answer: a digest
// (SHA-256, first 128 bits, base64url) of the record's canonical JSON,
// every field included. Any change to a stored value changes it: an
// update (updatedAt changes with every write that changes something), a
// move, the renumbering of siblings, a write by another program, a field
// added by schema sync. Two reads of an unchanged record give the same
// tag on every instance and engine. It is not a version number: a record
// without metadata that is changed and changed back has its old tag
// again, which is right for If-Match (the caller's copy is the current
// one). rec must be a record as kit returns it.
func ETag(rec Record) string {
	raw, err := json.Marshal(rec)
	if err != nil {
		// Records kit returns always encode (the HTTP API sends them);
		// for anything else the tag is a digest of the failure.
		raw = []byte(fmt.Sprintf("unencodable %T: %v", rec, err))
	}
	return etagOf(raw)
}

// etagOf is the entity tag of a record's canonical JSON raw.
func etagOf(raw []byte) string {
	sum := sha256.Sum256(raw)
	return `"` + base64.RawURLEncoding.EncodeToString(sum[:16]) + `"`
}

// ErrPrecondition: a conditional write (WriteOptions.IfMatch, HTTP
// If-Match) named none of the record's current entity tags, so nothing
// was written (412). The error is a *PreconditionError with the current
// tag and record.
var ErrPrecondition error = apierror.New(http.StatusPreconditionFailed, "precondition failed")

// PreconditionError is the ErrPrecondition of one record: its current
// entity tag and state, so a caller can show what changed and retry with
// the new tag. On the wire: 412, the ETag header, and data
// {"etag": ETag, "current": Current}.
type PreconditionError struct {
	// ETag is the record's current entity tag (see [ETag]).
	ETag string
	// Current is the record as stored now.
	Current Record
}

// Error returns the public message.
func (e *PreconditionError) Error() string {
	return "the record has changed since it was read: If-Match names none of its current ETag; read it again, or send the new ETag"
}

// HTTPStatus returns 412.
func (e *PreconditionError) HTTPStatus() int { return http.StatusPreconditionFailed }

// ErrorData returns {"etag", "current"}.
func (e *PreconditionError) ErrorData() any {
	return map[string]any{"etag": e.ETag, "current": e.Current}
}

// Is reports whether target is ErrPrecondition.
func (e *PreconditionError) Is(target error) bool { return target == ErrPrecondition }

// WriteOptions are the conditions of one write: [Records.UpdateWith],
// [Records.DeleteWith], [Records.MoveWith]. The zero value makes the
// write unconditional, like Update, Delete and Move.
type WriteOptions struct {
	// IfMatch, when not nil, makes the write conditional, like HTTP's
	// If-Match with the strong comparison: it goes ahead only when one
	// of the listed tags equals the record's current [ETag] (quotes
	// included; a weak tag, W/"...", never matches), or one is "*".
	// Otherwise nothing is written, no hook fires, and the error is a
	// *PreconditionError (errors.Is ErrPrecondition). The check runs in
	// the write's transaction, against the record as the write sees it,
	// so no other write can come between the check and the change. A
	// record the actor may not see or change is still ErrNotFound (or
	// 403) first. An empty, non-nil list matches nothing.
	IfMatch []string
}

// check returns a *PreconditionError when o's IfMatch does not admit
// current.
func (o WriteOptions) check(current Record) error {
	if o.IfMatch == nil {
		return nil
	}
	tag := ETag(current)
	for _, t := range o.IfMatch {
		if t == "*" || t == tag {
			return nil
		}
	}
	return &PreconditionError{ETag: tag, Current: copyRecord(current)}
}

// errBadIfMatch answers an If-Match header that is not "*" or a list of
// entity tags.
var errBadIfMatch = &Error{Status: http.StatusBadRequest,
	Message: `If-Match must be "*" or a comma-separated list of entity tags, such as "\"Xy9...\"" (an ETag as kit sent it, quotes included)`,
	Data:    map[string]any{"header": "If-Match"}}

// ifMatchOf parses the request's If-Match fields (RFC 9110, 13.1.1) into
// WriteOptions: nil IfMatch when there is none; "*", or the entity tags
// as sent (weak ones keep their W/ and so never match); a 400 when a
// field is neither.
func ifMatchOf(r *http.Request) (WriteOptions, error) {
	fields, ok := r.Header[http.CanonicalHeaderKey("If-Match")]
	if !ok {
		return WriteOptions{}, nil
	}
	tags := []string{}
	for _, f := range fields {
		rest := strings.Trim(f, " \t")
		if rest == "*" {
			tags = append(tags, "*")
			continue
		}
		for rest != "" {
			if rest[0] == ',' { // empty list elements are allowed
				rest = strings.TrimLeft(rest[1:], " \t")
				continue
			}
			tag, after, ok := scanEntityTag(rest)
			if !ok {
				return WriteOptions{}, errBadIfMatch
			}
			tags = append(tags, tag)
			rest = strings.TrimLeft(after, " \t")
			if rest != "" && rest[0] != ',' {
				return WriteOptions{}, errBadIfMatch
			}
		}
	}
	return WriteOptions{IfMatch: tags}, nil
}

// scanEntityTag reads one entity-tag ([W/]"etagc*") at the start of s.
func scanEntityTag(s string) (tag, rest string, ok bool) {
	start := 0
	if strings.HasPrefix(s, "W/") {
		start = 2
	}
	if len(s) <= start || s[start] != '"' {
		return "", "", false
	}
	for i := start + 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			return s[:i+1], s[i+1:], true
		case c == 0x21 || c >= 0x23 && c != 0x7f: // etagc, obs-text included
		default:
			return "", "", false
		}
	}
	return "", "", false
}

// writeRecord answers rec with status and its ETag, encoding rec once
// for both when it can (appendRecord, as writeRecords does, without
// reflection for plain values; setETag).
func writeRecord(w http.ResponseWriter, status int, rec Record) {
	item, ok := appendRecord(make([]byte, 0, 512), rec, sortedKeys(rec))
	if !ok {
		w.Header().Set("ETag", ETag(rec))
		WriteJSON(w, status, rec)
		return
	}
	setETag(w, rec, item)
	wire.Encoded(w, status, append(item, '\n'))
}

// setETag sets rec's ETag from item, rec as appendRecord encoded it: that
// is the canonical JSON of ETag without HTML escaping, so the two are the
// same bytes when item holds none of the characters json.Marshal escapes
// for HTML (<, > and &; U+2028 and U+2029 are escaped in both), and rec is
// encoded again only when it does.
func setETag(w http.ResponseWriter, rec Record, item []byte) {
	if bytes.ContainsAny(item, "<>&") {
		w.Header().Set("ETag", ETag(rec))
		return
	}
	w.Header().Set("ETag", etagOf(item))
}

// writeWriteError answers err; a *PreconditionError also sets the ETag
// header to the record's current tag.
func (k *Kit) writeWriteError(w http.ResponseWriter, r *http.Request, err error) {
	var pe *PreconditionError
	if errors.As(err, &pe) {
		w.Header().Set("ETag", pe.ETag)
	}
	k.WriteError(w, r, err)
}
