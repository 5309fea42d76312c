package collections

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// ValidationError reports a body that does not fit the collection, with a
// message per field. It answers HTTP 400.
type ValidationError struct {
	// Fields maps a field name to what is wrong with it.
	Fields map[string]string
}

// Error lists the fields and their messages, in field-name order.
func (e *ValidationError) Error() string {
	names := sortedKeys(e.Fields)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + ": " + e.Fields[n]
	}
	return "invalid body: " + strings.Join(parts, "; ")
}

// HTTPStatus is 400.
func (e *ValidationError) HTTPStatus() int { return 400 }

// ErrorData puts the per-field messages under "fields".
func (e *ValidationError) ErrorData() any { return map[string]any{"fields": e.Fields} }

// Unwrap lets errors.Is(err, ErrValidation) match.
func (e *ValidationError) Unwrap() error { return ErrValidation }

func (e *ValidationError) add(field, msg string) {
	if e.Fields == nil {
		e.Fields = map[string]string{}
	}
	if _, ok := e.Fields[field]; !ok {
		e.Fields[field] = msg
	}
}

type validator struct {
	create *jsonschema.Schema
	update *jsonschema.Schema
	doc    map[string]any
}

// JSONSchema returns the collection's record schema (draft 2020-12) for
// clients: every attribute, with the auto-generated ones read-only. The
// map is a fresh copy.
func (c *Collection) JSONSchema() map[string]any {
	b, _ := json.Marshal(c.valid.doc)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

// schemaUse says which contract a field's JSON Schema describes.
type schemaUse int

const (
	// useClient is the record schema of JSONSchema: the values a record
	// holds, decimals as strings or numbers.
	useClient schemaUse = iota
	// useWrite is a request body: a required text field must not be empty.
	useWrite
	// useAnswer is a record as kit answers it: decimals are always strings,
	// image and file fields KitFile objects.
	useAnswer
	// useInput is a JSON request body as the HTTP API documents it:
	// useWrite, but an image or file field is null or the record's own
	// files by name (bytes come as multipart parts).
	useInput
)

// fieldSchema is the JSON Schema of one field's value.
func fieldSchema(f *Field, use schemaUse) map[string]any {
	if f.Type.IsFile() && (use == useAnswer || use == useInput) {
		return fileSchema(f, use)
	}
	if use == useInput {
		use = useWrite
	}
	forWrite := use == useWrite
	s := map[string]any{}
	switch f.Type {
	case TypeString, TypeText, TypeImage, TypeFile:
		s["type"] = "string"
		if f.Meta.Required && forWrite {
			s["minLength"] = 1
		}
	case TypeNumber:
		s["type"] = "number"
		if f.Meta.Integer {
			s["type"] = "integer"
			s["minimum"] = -maxExactInteger
			s["maximum"] = maxExactInteger
		}
	case TypeDecimal:
		s["type"] = []any{"string", "number"}
		if use == useAnswer {
			s["type"] = "string"
		}
		s["pattern"] = `^[+-]?(\d+(\.\d*)?|\.\d+)$`
		s["x-precision"] = f.Meta.Precision
		s["x-scale"] = f.Meta.Scale
	case TypeBoolean:
		s["type"] = "boolean"
	case TypeDate:
		s["type"] = "string"
		s["format"] = "date-time"
	case TypeJSON:
	case TypeRepeater:
		s["type"] = "array"
		s["items"] = map[string]any{"type": "object"}
	case TypeArray:
		s["type"] = "array"
	}
	if !f.Meta.Required && f.Type != TypeJSON {
		switch t := s["type"].(type) {
		case string:
			s["type"] = []any{t, "null"}
		case []any:
			s["type"] = append(t, "null")
		}
	}
	if f.Meta.Label != "" {
		s["title"] = f.Meta.Label
	}
	if f.Meta.Default != nil {
		s["default"] = f.Meta.Default
	}
	if f.RefTarget != "" {
		s["x-refTarget"] = f.RefTarget
	}
	if f.Type.IsFile() {
		addFileLimits(f, s)
	}
	return s
}

func (c *Collection) compileValidator() error {
	props := map[string]any{}
	writeProps := map[string]any{}
	var required []string
	for _, a := range c.attrList {
		if a.Managed != "" {
			props[a.Name] = c.managedSchema(a)
			continue
		}
		if a.System {
			s := map[string]any{"type": "string", "readOnly": true}
			if a.Type == TypeDate {
				s["format"] = "date-time"
			}
			props[a.Name] = s
			continue
		}
		props[a.Name] = fieldSchema(a.Field, useClient)
		writeProps[a.Name] = fieldSchema(a.Field, useWrite)
		if a.Field.Meta.Required {
			required = append(required, a.Name)
		}
	}
	doc := map[string]any{
		"$schema":              "https://json-schema.org/draft/2020-12/schema",
		"$id":                  "kit:collections/" + c.key,
		"title":                c.config.DisplayName,
		"type":                 "object",
		"properties":           props,
		"additionalProperties": false,
	}
	if len(required) > 0 {
		doc["required"] = required
	}
	c.valid = &validator{doc: doc}
	var err error
	if c.valid.create, err = compileSchema(c.key+"/create", writeProps, required); err != nil {
		return err
	}
	c.valid.update, err = compileSchema(c.key+"/update", writeProps, nil)
	return err
}

func compileSchema(id string, props map[string]any, required []string) (*jsonschema.Schema, error) {
	doc := map[string]any{
		"$schema":    "https://json-schema.org/draft/2020-12/schema",
		"type":       "object",
		"properties": props,
	}
	if len(required) > 0 {
		r := make([]any, len(required))
		for i, s := range required {
			r[i] = s
		}
		doc["required"] = r
	}
	// Round-trip through JSON so every value has the library's types.
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	parsed, err := jsonschema.UnmarshalJSON(strings.NewReader(string(b)))
	if err != nil {
		return nil, err
	}
	comp := jsonschema.NewCompiler()
	url := "kit:///" + id + ".json"
	if err := comp.AddResource(url, parsed); err != nil {
		return nil, err
	}
	return comp.Compile(url)
}

// ValidateCreate checks a create body and returns the record to store:
// auto-generated fields dropped, defaults applied, every value canonical.
// Unknown fields, wrong types, missing required fields and NUL bytes are a
// *ValidationError naming each field. In a tree, the body may name the
// parent (a record id, or null for a root); path, depth and order are
// computed and ignored like the other server-owned fields.
func (c *Collection) ValidateCreate(body map[string]any) (map[string]any, error) {
	return c.validateBody(body, true)
}

// ValidateUpdate checks a partial update body: only the fields present are
// checked and returned; a required field may not be set to null or "".
// The attributes kit keeps for trees and sortable collections (parent,
// path, depth, order) are refused with a message naming the move and
// reorder endpoints, which change them.
func (c *Collection) ValidateUpdate(body map[string]any) (map[string]any, error) {
	return c.validateBody(body, false)
}

func (c *Collection) validateBody(body map[string]any, create bool) (map[string]any, error) {
	verr := &ValidationError{}
	in := make(map[string]any, len(body))
	managed := map[string]any{}
	for k, v := range body {
		if IsSystemField(k) {
			continue // server-owned: ignored, never stored
		}
		a, ok := c.attrs[k]
		if ok && a.Managed != "" {
			if !create {
				verr.add(k, c.managedUpdateMessage(a))
				continue
			}
			val, keep, msg := managedValue(a, v)
			if msg != "" {
				verr.add(k, msg)
			} else if keep {
				managed[k] = val
			}
			continue
		}
		if !ok || a.System {
			verr.add(k, "unknown field")
			continue
		}
		in[k] = v
	}
	if create {
		for i := range c.fields {
			f := &c.fields[i]
			if _, ok := in[f.Name]; !ok && f.Meta.Default != nil {
				in[f.Name] = f.Meta.Default
			}
		}
	}
	// null and "" leave a required field empty, whatever its type: say so
	// before the schema reports them as a wrong type.
	for k, v := range in {
		if c.attrs[k].Field.Meta.Required && (v == nil || v == "") {
			verr.add(k, "is required")
		}
	}
	inst := schemaInstance(in)
	for k, v := range inst {
		if c.attrs[k].Field.Type.IsStructured() && jsonDepth(v, MaxJSONDepth) > MaxJSONDepth {
			verr.add(k, fmt.Sprintf("nests arrays and objects deeper than %d levels", MaxJSONDepth))
			delete(inst, k)
		}
	}
	sch := c.valid.update
	if create {
		sch = c.valid.create
	}
	if err := sch.Validate(inst); err != nil {
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			return nil, err
		}
		c.collectSchemaErrors(ve, verr)
	}
	out := make(map[string]any, len(in))
	for k, v := range in {
		if _, bad := verr.Fields[k]; bad {
			continue
		}
		a := c.attrs[k]
		nv, err := NormalizeValue(a.Field, v)
		if err != nil {
			verr.add(k, err.Error())
			continue
		}
		if nv == nil && a.Field.Meta.Required {
			verr.add(k, "is required")
			continue
		}
		out[k] = nv
	}
	if len(verr.Fields) > 0 {
		return nil, verr
	}
	for k, v := range managed {
		out[k] = v
	}
	return out, nil
}

// MaxJSONDepth is how deeply the value of a json, repeater or array field
// may nest arrays and objects: the field's own array or object is level 1,
// so [[1]] is 2 levels deep. A deeper value is a *ValidationError naming
// the field, on every engine and for Go callers and HTTP alike.
//
// The limit keeps every stored value far inside what each engine's JSON
// functions accept (SQLite's stop at 1,000 levels, and the change log and
// the events add-on wrap a record's values a few levels deeper again) and
// what clients' JSON decoders accept, while no document shaped by hand or
// by a form comes near it.
const MaxJSONDepth = 64

// jsonDepth returns how deeply v nests arrays and objects (a scalar is 0,
// [] and [1] are 1), looking no deeper than limit+1 levels.
func jsonDepth(v any, limit int) int {
	var children []any
	switch x := v.(type) {
	case []any:
		children = x
	case map[string]any:
		children = make([]any, 0, len(x))
		for _, e := range x {
			children = append(children, e)
		}
	default:
		return 0
	}
	deepest := 0
	for _, e := range children {
		if limit <= 0 {
			return 2 // one more level than the limit allows
		}
		if d := jsonDepth(e, limit-1); d > deepest {
			deepest = d
			if deepest > limit {
				break
			}
		}
	}
	return deepest + 1
}

// schemaInstance converts Go values that the schema library does not know
// (time.Time, typed slices and maps from host code, also inside []any and
// map[string]any) into JSON values.
func schemaInstance(in map[string]any) map[string]any {
	out := make(map[string]any, len(in))
	for k, v := range in {
		out[k] = jsonInstance(v)
	}
	return out
}

func jsonInstance(v any) any {
	if isJSONInstance(v) {
		return v
	}
	b, err := json.Marshal(v)
	if err != nil {
		return v // the schema reports it as an invalid value
	}
	var back any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if d.Decode(&back) != nil {
		return v
	}
	return back
}

// isJSONInstance reports whether v holds only types the schema library
// validates as they are.
func isJSONInstance(v any) bool {
	switch x := v.(type) {
	case nil, string, bool, float64, float32, json.Number,
		int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return true
	case map[string]any:
		for _, e := range x {
			if !isJSONInstance(e) {
				return false
			}
		}
		return true
	case []any:
		for _, e := range x {
			if !isJSONInstance(e) {
				return false
			}
		}
		return true
	}
	return false
}

func (c *Collection) collectSchemaErrors(ve *jsonschema.ValidationError, verr *ValidationError) {
	var leaves []*jsonschema.ValidationError
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			leaves = append(leaves, e)
			return
		}
		for _, cause := range e.Causes {
			walk(cause)
		}
	}
	walk(ve)
	sort.SliceStable(leaves, func(i, j int) bool {
		return strings.Join(leaves[i].InstanceLocation, "/") < strings.Join(leaves[j].InstanceLocation, "/")
	})
	for _, e := range leaves {
		if req, ok := e.ErrorKind.(*kind.Required); ok {
			for _, m := range req.Missing {
				verr.add(m, "is required")
			}
			continue
		}
		if len(e.InstanceLocation) == 0 {
			verr.add("", "must be a JSON object")
			continue
		}
		name := e.InstanceLocation[0]
		a, ok := c.attrs[name]
		if !ok || a.Field == nil {
			verr.add(name, "unknown field")
			continue
		}
		verr.add(name, expectation(a.Field, e))
	}
}

// expectation is the public message for a field whose value the schema
// refused.
func expectation(f *Field, e *jsonschema.ValidationError) string {
	if _, ok := e.ErrorKind.(*kind.MinLength); ok && f.Meta.Required {
		return "is required"
	}
	switch f.Type {
	case TypeString, TypeText, TypeImage, TypeFile:
		return "must be a string"
	case TypeNumber:
		if f.Meta.Integer {
			return integerExpectation
		}
		return "must be a number"
	case TypeDecimal:
		return fmt.Sprintf("must be a decimal number like \"12.34\" (precision %d, scale %d)", f.Meta.Precision, f.Meta.Scale)
	case TypeBoolean:
		return "must be true or false"
	case TypeDate:
		return "must be a date (RFC 3339 or YYYY-MM-DD)"
	case TypeRepeater:
		return "must be an array of objects"
	case TypeArray:
		return "must be an array"
	}
	return "is not valid"
}

// KitFileSchemaTitle is the title of the JSON Schema of a file as records
// answer it (the OpenAPI component KitFile; typegen's KitFile type).
const KitFileSchemaTitle = "KitFile"

// fileSchema is the schema of an image or file field in answers (KitFile
// objects) and in documented JSON bodies (null, or files by name), a list
// of them with meta.multiple.
func fileSchema(f *Field, use schemaUse) map[string]any {
	maxSize, maxFiles := f.FileLimits()
	one := map[string]any{
		"type":  "object",
		"title": KitFileSchemaTitle,
		"properties": map[string]any{
			"name":        map[string]any{"type": "string"},
			"size":        map[string]any{"type": "integer", "minimum": 0, "maximum": maxSize},
			"contentType": map[string]any{"type": "string"},
			"url":         map[string]any{"type": "string", "description": "the download path, signed for a while (see docs/files.md)"},
			"width":       map[string]any{"type": "integer", "minimum": 1},
			"height":      map[string]any{"type": "integer", "minimum": 1},
		},
		"required":             []any{"name", "size", "contentType", "url"},
		"additionalProperties": false,
	}
	desc := fmt.Sprintf("uploaded as a multipart/form-data part named %q: at most %d bytes", f.Name, maxSize)
	if len(f.Meta.MimeTypes) > 0 {
		desc += ", of type " + strings.Join(f.Meta.MimeTypes, " or ")
	}
	if f.Type == TypeImage {
		desc += ", a PNG, JPEG, GIF or WebP image"
	}
	if len(f.Meta.Thumbs) > 0 {
		desc += "; thumbnails " + strings.Join(f.Meta.Thumbs, ", ")
	}
	if use == useInput {
		one = map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}},
			"required": []any{"name"}, "description": "a file the record has, by name: kept"}
		desc = "files are uploaded as multipart/form-data parts (see the multipart body); as JSON, null removes every file " +
			"and a list of the record's own files (by name) keeps those"
	}
	s := one
	if f.Meta.Multiple {
		s = map[string]any{"type": "array", "items": one, "maxItems": maxFiles}
		desc += fmt.Sprintf("; at most %d files", maxFiles)
	}
	link := map[string]any{"type": "string", "format": "uri-reference",
		"description": "the http(s) or relative URL of a file kept elsewhere (as image and file fields held before kit kept files)"}
	alternatives := []any{s, link}
	if !f.Meta.Required || use != useAnswer {
		alternatives = append(alternatives, map[string]any{"type": "null"})
	}
	s = map[string]any{"anyOf": alternatives, "description": desc}
	addFileLimits(f, s)
	if f.Meta.Label != "" {
		s["title"] = f.Meta.Label
	}
	return s
}

// addFileLimits marks s, the schema of the image or file field f:
// x-kit-file says the field holds files (true with meta.multiple);
// x-maxSize, x-maxFiles (with multiple), x-mimeTypes and x-thumbs (when
// set) are its limits, for forms to show before an upload (the server
// stays the judge).
func addFileLimits(f *Field, s map[string]any) {
	maxSize, maxFiles := f.FileLimits()
	s["x-kit-file"] = f.Meta.Multiple
	s["x-maxSize"] = maxSize
	if f.Meta.Multiple {
		s["x-maxFiles"] = maxFiles
	}
	if len(f.Meta.MimeTypes) > 0 {
		s["x-mimeTypes"] = stringsAny(f.Meta.MimeTypes)
	}
	if len(f.Meta.Thumbs) > 0 {
		s["x-thumbs"] = stringsAny(f.Meta.Thumbs)
	}
}

// stringsAny returns ss as a JSON Schema list value.
func stringsAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, v := range ss {
		out[i] = v
	}
	return out
}
