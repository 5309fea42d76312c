package teamauth

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"unicode"

	"github.com/collectionkit/kit/internal/apierror"
	"github.com/collectionkit/kit/internal/wire"
)

// The input rules of the accounts routes. Every text they take, in a body,
// a path segment or a query parameter, holds only valid UTF-8, no \u
// escape of a lone UTF-16 surrogate and no NUL: the rule of the record
// fields (internal/wire), so that text is stored exactly as sent or not
// at all, and PostgreSQL never sees what it cannot store.

// maxAccountsBody bounds the bodies of the accounts routes: they are small.
const maxAccountsBody = 64 << 10

// decodeJSON reads r's body as one JSON object into dst, a pointer to a
// struct whose members carry json tags. A Content-Type other than
// application/json, or JSON in a charset other than utf-8, is 415; an
// empty, malformed, oversized or trailing body, or an unknown member, is
// 400 naming the problem. A member whose value (any string or key in it)
// breaks the text rule is a *FieldError naming every such member; dst is
// filled all the same, for callers that answer otherwise (a sign-in).
func decodeJSON(w http.ResponseWriter, r *http.Request, dst any) error {
	if err := wire.CheckJSONContentType(r.Header.Get("Content-Type"), false); err != nil {
		return err
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxAccountsBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return apierror.New(http.StatusRequestEntityTooLarge, "the body is too large")
		}
		return apierror.New(http.StatusBadRequest, "cannot read the body")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		var ute *json.UnmarshalTypeError
		switch {
		case errors.Is(err, io.EOF):
			return apierror.New(http.StatusBadRequest, "the body is empty")
		case errors.As(err, &ute) && ute.Field == "":
			return apierror.New(http.StatusBadRequest, "the body must be a JSON object")
		case errors.As(err, &ute):
			return apierror.New(http.StatusBadRequest, fmt.Sprintf("field %q must be a %s", ute.Field, ute.Type))
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			return apierror.New(http.StatusBadRequest, "unknown field "+strings.TrimPrefix(err.Error(), "json: unknown field "))
		}
		return apierror.New(http.StatusBadRequest, "the body is not valid JSON")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return apierror.New(http.StatusBadRequest, "the body holds more than one JSON value")
	}
	return checkMembersText(raw, dst)
}

// checkMembersText applies the text rule to every member of the JSON
// object raw, duplicates included (encoding/json keeps the last of a
// duplicate member and merges duplicate objects, so each one counts). The
// members are named by dst's json tags. raw is known to decode into dst.
func checkMembersText(raw []byte, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil // null: nothing to check
	}
	var fe *FieldError
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return apierror.New(http.StatusBadRequest, "the body is not valid JSON")
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return apierror.New(http.StatusBadRequest, "the body is not valid JSON")
		}
		if p := wire.JSONTextProblem(v); p != "" {
			if fe == nil {
				fe = &FieldError{Fields: map[string]string{}}
			}
			fe.Fields[jsonName(dst, key)] = p
		}
	}
	if fe != nil {
		return fe
	}
	return nil
}

// jsonName returns the json tag name of the field of dst's struct that
// the member key decodes into (encoding/json matches names without regard
// to case), or key.
func jsonName(dst any, key string) string {
	t := reflect.TypeOf(dst)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return key
	}
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" && strings.EqualFold(name, key) {
			return name
		}
	}
	return key
}

// blank reports whether s holds no character but white space and
// invisible format characters (U+200B ZERO WIDTH SPACE, U+FEFF, U+3164
// HANGUL FILLER and the like): a name that shows nothing.
func blank(s string) bool {
	for _, r := range s {
		if !unicode.IsSpace(r) && !unicode.Is(unicode.Cf, r) && !unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) {
			return false
		}
	}
	return true
}

// requireName refuses a blank name: a *FieldError naming the member
// "name", matching ErrInvalidName.
func requireName(name string) error {
	if blank(name) {
		return fieldError("name", "must not be empty or blank", ErrInvalidName)
	}
	return nil
}

// checkQuery applies the text rule to every query parameter of r, names
// and values, read or not by the route: a *QueryError naming the first
// one at fault, in name order.
func checkQuery(r *http.Request) error {
	q := r.URL.Query()
	for _, name := range slices.Sorted(maps.Keys(q)) {
		if p := wire.TextProblem(name); p != "" {
			return &QueryError{Param: printable(name), Message: "the parameter's name " + p}
		}
		for _, v := range q[name] {
			if p := wire.TextProblem(v); p != "" {
				return &QueryError{Param: name, Message: p}
			}
		}
	}
	return nil
}

// noSuchID stands for a path segment that breaks the text rule. It is
// valid text that names nothing: no id or slug holds U+FFFD.
const noSuchID = "\uFFFD"

// pathWildcards returns the names of the wildcards of a route path
// ("/teams/{team}/members/{member}": team, member).
func pathWildcards(path string) []string {
	var names []string
	for seg := range strings.SplitSeq(path, "/") {
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			names = append(names, strings.TrimSuffix(strings.Trim(seg, "{}"), "..."))
		}
	}
	return names
}

// replaceBadSegments replaces every path value of r named in wildcards
// that breaks the text rule with noSuchID. Such a segment names no team,
// member, user or token, so the route answers exactly as for a missing id
// (authentication first, then its 404), on every engine, without the
// database ever seeing the bytes.
func replaceBadSegments(r *http.Request, wildcards []string) {
	for _, name := range wildcards {
		if wire.TextProblem(r.PathValue(name)) != "" {
			r.SetPathValue(name, noSuchID)
		}
	}
}

// printable returns s with NUL and bytes that are not UTF-8 shown as
// U+FFFD, for naming a parameter whose name breaks the text rule.
func printable(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

// checkLinkURL refuses a URL a page would use as a link or image source
// (a team's avatarUrl, a user's image) unless it is empty or
// wire.IsLinkURL (http(s) or relative): javascript:, data: and every
// other scheme, and white space or control characters, are a *FieldError
// naming member (400).
func checkLinkURL(member string, s *string) error {
	if s == nil || *s == "" || wire.IsLinkURL(*s) {
		return nil
	}
	return fieldError(member, "must be an http(s) URL or a relative one", ErrInvalidInput)
}
