package collections

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// ConfigFileName is the optional per-collection settings file at the root of
// a schemas folder, keyed by collection name (the kitCollections shape).
const ConfigFileName = "kit.config.json"

// DefaultLayer is the layer of schema files at the root of a schemas folder
// when LoadOptions.DefaultLayer is empty.
const DefaultLayer = "app"

// LoadOptions configures [Load] and [Build].
type LoadOptions struct {
	// DefaultLayer is the layer of root-level schema files and of Go
	// definitions without a layer. Default "app".
	DefaultLayer string
	// Overrides are Go settings keyed by collection name or registry key,
	// applied over kit.config.json and Definition.Config.
	Overrides map[string]Config
}

func (o LoadOptions) defaultLayer() string {
	if o.DefaultLayer == "" {
		return DefaultLayer
	}
	return o.DefaultLayer
}

// LoadError reports every error found in a schemas folder or a set of
// definitions, in one pass.
type LoadError struct {
	// Findings holds the errors (warnings are returned separately).
	Findings []Finding
}

// Error lists every finding, one per line.
func (e *LoadError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "collections: %d schema error(s):", len(e.Findings))
	for _, f := range e.Findings {
		b.WriteString("\n  ")
		b.WriteString(f.String())
	}
	return b.String()
}

// Unwrap lets errors.Is(err, ErrInvalidSchema) match.
func (e *LoadError) Unwrap() error { return ErrInvalidSchema }

// Load reads a schemas folder from fsys (an embed.FS, os.DirFS, ...): one
// JSON file per collection named after it, at the root (layer
// LoadOptions.DefaultLayer) or in one level of sub-directories (the
// sub-directory is the layer), plus an optional kit.config.json at the root.
// extra Go definitions are built together with the files, so references may
// cross between them.
//
// It returns the registry and the lint warnings. When anything is wrong the
// error is a *LoadError listing every error of the folder; the warnings are
// still returned.
func Load(fsys fs.FS, opts LoadOptions, extra ...Definition) (*Registry, []Finding, error) {
	defs, settings, findings := ReadFS(fsys, opts)
	defs = append(defs, extra...)
	return build(defs, settings, opts, findings)
}

// Build validates Go definitions and returns the registry and the lint
// warnings; see [Load].
func Build(defs []Definition, opts LoadOptions) (*Registry, []Finding, error) {
	return build(defs, nil, opts, nil)
}

// ReadFS parses a schemas folder into definitions without validating them
// against each other. It returns the definitions, the kit.config.json
// settings (keyed as in the file) and the parse findings.
func ReadFS(fsys fs.FS, opts LoadOptions) ([]Definition, map[string]json.RawMessage, []Finding) {
	var defs []Definition
	var findings []Finding
	var settings map[string]json.RawMessage
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			findings = append(findings, Finding{File: p, Severity: SeverityError, Message: "cannot read: " + err.Error()})
			if d != nil && d.IsDir() && p != "." {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if p == "." {
				return nil
			}
			if strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			if strings.Count(p, "/") >= 1 {
				findings = append(findings, Finding{File: p, Severity: SeverityError,
					Message: "schema folders nest one level (schemas/<layer>/<collection>.json); move these files up"})
				return fs.SkipDir
			}
			for _, f := range checkLayerName(d.Name()) {
				f.File = p
				findings = append(findings, f)
			}
			return nil
		}
		if path.Ext(p) != ".json" || strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			findings = append(findings, Finding{File: p, Severity: SeverityError, Message: "cannot read: " + err.Error()})
			return nil
		}
		if p == ConfigFileName {
			s, f := parseSettingsFile(p, data)
			settings = s
			findings = append(findings, f...)
			return nil
		}
		layer := opts.defaultLayer()
		if dir := path.Dir(p); dir != "." {
			layer = dir
		}
		def, f := ParseSchema(p, data)
		def.Layer = layer
		findings = append(findings, f...)
		defs = append(defs, def)
		return nil
	})
	if err != nil {
		findings = append(findings, Finding{Severity: SeverityError, Message: "cannot read schemas folder: " + err.Error()})
	}
	return defs, settings, findings
}

// ParseSchema parses one schema file. The collection name is the file's
// base name without ".json". Field order follows the file. Unknown keys,
// duplicate keys, auto-generated fields and wrongly typed entries are
// findings; the definition holds whatever could be read.
func ParseSchema(file string, data []byte) (Definition, []Finding) {
	name := strings.TrimSuffix(path.Base(file), ".json")
	def := Definition{Name: name, File: file}
	fail := func(field, format string, args ...any) Finding {
		return Finding{File: file, Collection: name, Field: field, Severity: SeverityError, Message: fmt.Sprintf(format, args...)}
	}
	var findings []Finding
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return def, []Finding{fail("", "invalid JSON: %v", err)}
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return def, []Finding{fail("", "a schema must be a JSON object keyed by field name")}
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return def, append(findings, fail("", "invalid JSON: %v", err))
		}
		key := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return def, append(findings, fail(key, "invalid JSON: %v", err))
		}
		if seen[key] {
			findings = append(findings, fail(key, "duplicate key %q: the field is defined twice", key))
			continue
		}
		seen[key] = true
		if IsSystemField(key) {
			findings = append(findings, fail(key, "duplicate key %q: %s is an auto-generated field; remove it from the schema", key, key))
			continue
		}
		f, ff := parseField(key, raw)
		for i := range ff {
			ff[i].File, ff[i].Collection = file, name
		}
		findings = append(findings, ff...)
		def.Fields = append(def.Fields, f)
	}
	if _, err := dec.Token(); err != nil {
		findings = append(findings, fail("", "invalid JSON: %v", err))
	} else if _, err := dec.Token(); err != io.EOF {
		findings = append(findings, fail("", "invalid JSON: data after the schema object"))
	}
	return def, findings
}

func parseField(name string, raw json.RawMessage) (Field, []Finding) {
	f := Field{Name: name}
	var findings []Finding
	fail := func(format string, args ...any) {
		findings = append(findings, Finding{Field: name, Severity: SeverityError, Message: fmt.Sprintf(format, args...)})
	}
	entry, err := decodeObject(raw)
	if err != nil {
		fail("a field entry must be an object with \"type\": %v", err)
		return f, findings
	}
	for _, k := range sortedKeys(entry) {
		v := entry[k]
		switch k {
		case "type":
			var s string
			if json.Unmarshal(v, &s) != nil {
				// checkField reports it as an unknown type, once.
				s = string(v)
			}
			f.Type = FieldType(s)
		case "refTarget":
			if json.Unmarshal(v, &f.RefTarget) != nil {
				fail("\"refTarget\" must be a string")
			}
		case "meta":
			m, ff := parseMeta(v)
			f.Meta = m
			for _, msg := range ff {
				fail("%s", msg)
			}
		default:
			fail("unknown key %q (allowed: type, meta, refTarget)", k)
		}
	}
	// A missing "type" is reported by checkField, which Go definitions go
	// through too; reporting it here as well would list it twice.
	return f, findings
}

func parseMeta(raw json.RawMessage) (FieldMeta, []string) {
	var m FieldMeta
	var msgs []string
	obj, err := decodeObject(raw)
	if err != nil {
		return m, []string{"\"meta\" must be an object"}
	}
	for _, k := range sortedKeys(obj) {
		v := obj[k]
		var bad bool
		switch k {
		case "required":
			bad = json.Unmarshal(v, &m.Required) != nil
		case "unique":
			bad = json.Unmarshal(v, &m.Unique) != nil
		case "uniqueIgnoreCase":
			bad = json.Unmarshal(v, &m.UniqueIgnoreCase) != nil
		case "index":
			bad = json.Unmarshal(v, &m.Index) != nil
		case "integer":
			bad = json.Unmarshal(v, &m.Integer) != nil
		case "label":
			bad = json.Unmarshal(v, &m.Label) != nil
		case "area":
			bad = json.Unmarshal(v, &m.Area) != nil
		case "displayAs":
			bad = json.Unmarshal(v, &m.DisplayAs) != nil
		case "renamedFrom":
			bad = json.Unmarshal(v, &m.RenamedFrom) != nil
		case "maxSize":
			bad = json.Unmarshal(v, &m.MaxSize) != nil
		case "mimeTypes":
			bad = json.Unmarshal(v, &m.MimeTypes) != nil
		case "multiple":
			bad = json.Unmarshal(v, &m.Multiple) != nil
		case "maxFiles":
			bad = json.Unmarshal(v, &m.MaxFiles) != nil
		case "thumbs":
			bad = json.Unmarshal(v, &m.Thumbs) != nil
		case "precision", "scale":
			d := json.NewDecoder(bytes.NewReader(v))
			d.UseNumber()
			var x any
			if d.Decode(&x) != nil {
				bad = true
				break
			}
			n, ok := x.(json.Number)
			i, err := n.Int64()
			if !ok || err != nil {
				msgs = append(msgs, fmt.Sprintf("meta.%s must be a whole number", k))
				continue
			}
			if k == "precision" {
				m.Precision = int(i)
			} else {
				m.Scale = int(i)
			}
		case "default":
			d := json.NewDecoder(bytes.NewReader(v))
			d.UseNumber()
			var x any
			if d.Decode(&x) != nil {
				bad = true
				break
			}
			m.Default = x
		default:
			msgs = append(msgs, fmt.Sprintf("unknown key \"meta.%s\" (allowed: required, label, default, precision, scale, unique, uniqueIgnoreCase, index, integer, area, displayAs, renamedFrom, maxSize, mimeTypes, multiple, maxFiles, thumbs)", k))
			continue
		}
		if bad {
			msgs = append(msgs, fmt.Sprintf("meta.%s has the wrong type", k))
		}
	}
	return m, msgs
}

func parseSettingsFile(file string, data []byte) (map[string]json.RawMessage, []Finding) {
	obj, err := decodeObject(data)
	if err != nil {
		return nil, []Finding{{File: file, Severity: SeverityError, Message: "must be a JSON object keyed by collection name: " + err.Error()}}
	}
	return obj, nil
}

func decodeObject(raw []byte) (map[string]json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, err
	}
	if obj == nil {
		return nil, errors.New("null is not an object")
	}
	return obj, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
