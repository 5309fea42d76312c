package typegen

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/collectionkit/kit/collections"
)

// kind is the wire type of an attribute, read from the collection's JSON
// Schema: what a generator maps to a language's type.
type kind int

const (
	kindString   kind = iota // a JSON string (string, text, ids)
	kindNumber               // a JSON number (number)
	kindInteger              // a JSON integer (a tree's depth, order)
	kindWhole                // a JSON integer within 2^53 (a number field with meta.integer)
	kindDecimal              // a decimal: a string in canonical form on the wire
	kindBoolean              // true or false
	kindDate                 // an RFC 3339 UTC string
	kindJSON                 // any JSON value (json)
	kindRepeater             // an array of objects (repeater)
	kindArray                // an array of any JSON values (array)
	kindFile                 // a KitFile object (image, file)
	kindFiles                // a list of KitFile objects (image, file with meta.multiple)
)

// inputMode is how an attribute appears in the input type.
type inputMode int

const (
	inputNone     inputMode = iota // server-owned: not in the input
	inputOptional                  // may be given, or left out
	inputRequired                  // must be given on create
)

// field is one attribute of a record, as every language sees it.
type field struct {
	name     string // the JSON key
	kind     kind
	nullable bool // the record may carry null
	input    inputMode
	sortable bool
	ops      []collections.Op // the filter operators it accepts
	doc      string           // the label, the reference, the description
}

// collection is one collection's part of a generated file.
type collection struct {
	key           string // "shopProducts"
	pascalKey     string // "ShopProducts"
	typeName      string // "Product"
	composable    string // "useShopProducts"
	apiPath       string
	fetchStrategy string
	references    map[string]string
	tree          bool // hierarchy: the move and tree endpoints
	sortable      bool // hierarchy or sortable: the reorder endpoint
	fields        []field
}

// model is what a generator writes: the registry's stored collections,
// sorted by registry key.
type model struct {
	source      string
	collections []collection
}

// buildModel reads the registry: the attribute list of each collection,
// in the record's order, and the JSON Schema kit exports for it (types,
// nullability, read-only attributes, required fields, labels and
// references), so the generated types say what that schema says.
// External collections are left out: their items are whatever their
// handler returns.
func buildModel(reg *collections.Registry, opts Options) (*model, error) {
	var cols []*collections.Collection
	for _, c := range reg.All() {
		if !c.External() {
			cols = append(cols, c)
		}
	}
	slices.SortFunc(cols, func(a, b *collections.Collection) int { return strings.Compare(a.Key(), b.Key()) })
	names := collections.TypeNames(cols)
	m := &model{source: opts.Source}
	for _, c := range cols {
		cfg := c.Config()
		col := collection{
			key:           c.Key(),
			pascalKey:     upperFirst(c.Key()),
			typeName:      names[c.Key()],
			composable:    c.ComposableName(),
			apiPath:       c.APIPath(),
			fetchStrategy: c.FetchStrategy(),
			references:    cfg.References,
			tree:          cfg.Hierarchy != nil && cfg.Hierarchy.Enabled,
		}
		col.sortable = col.tree || (cfg.Sortable != nil && cfg.Sortable.Enabled)
		doc := c.JSONSchema()
		props, _ := doc["properties"].(map[string]any)
		required := map[string]bool{}
		if r, ok := doc["required"].([]any); ok {
			for _, n := range r {
				if s, ok := n.(string); ok {
					required[s] = true
				}
			}
		}
		for _, a := range c.Attributes() {
			s, ok := props[a.Name].(map[string]any)
			if !ok {
				return nil, fmt.Errorf("typegen: %s.%s has no JSON Schema property", c.Key(), a.Name)
			}
			col.fields = append(col.fields, fieldFromSchema(a, s, required[a.Name]))
		}
		m.collections = append(m.collections, col)
	}
	return m, nil
}

// fieldFromSchema maps one attribute and its JSON Schema property.
func fieldFromSchema(a *collections.Attribute, s map[string]any, required bool) field {
	types := schemaTypes(s)
	f := field{name: a.Name, sortable: a.Sortable(), ops: a.Type.FilterOps()}
	switch {
	case a.Field != nil && a.Type.IsFile() && a.Field.Meta.Multiple:
		f.kind = kindFiles
	case a.Field != nil && a.Type.IsFile():
		f.kind = kindFile
	case s["x-precision"] != nil:
		f.kind = kindDecimal
	case s["format"] == "date-time":
		f.kind = kindDate
	case a.WholeNumber():
		f.kind = kindWhole
	case types["integer"]:
		f.kind = kindInteger
	case types["number"]:
		f.kind = kindNumber
	case types["boolean"]:
		f.kind = kindBoolean
	case types["array"]:
		f.kind = kindArray
		if items, ok := s["items"].(map[string]any); ok && items["type"] == "object" {
			f.kind = kindRepeater
		}
	case types["string"]:
		f.kind = kindString
	default:
		f.kind = kindJSON
	}
	f.nullable = types["null"] || f.kind == kindJSON
	switch {
	case s["readOnly"] == true:
		f.input = inputNone
	case a.System && a.Managed != collections.ManagedParent:
		f.input = inputNone
	case required:
		f.input = inputRequired
	default:
		f.input = inputOptional
	}
	f.doc = fieldDoc(a, s)
	return f
}

// systemDocs describe the auto-generated attributes.
var systemDocs = map[string]string{
	"id":        "The record's id (a UUIDv7), set by the server.",
	"teamId":    "The team the record belongs to.",
	"owner":     "The user who owns the record: its creator.",
	"createdAt": "When the record was created.",
	"updatedAt": "When the record was last changed.",
	"createdBy": "The user who created the record.",
	"updatedBy": "The user who last changed the record.",
}

// fieldDoc is the comment of an attribute: the label and what its JSON
// Schema says about its values.
func fieldDoc(a *collections.Attribute, s map[string]any) string {
	var doc []string
	if a.System && a.Managed == "" {
		return systemDocs[a.Name]
	}
	if t, _ := s["title"].(string); t != "" {
		doc = append(doc, fmt.Sprintf("Label %q.", t))
	}
	if d, _ := s["description"].(string); d != "" {
		doc = append(doc, upperFirst(d)+".")
	} else if a.Managed == collections.ManagedDepth {
		doc = append(doc, "Depth in the tree: 0 for a root.")
	}
	if p, ok := s["x-precision"]; ok {
		doc = append(doc, fmt.Sprintf("Precision %v, scale %v.", p, s["x-scale"]))
	}
	if d, ok := s["default"]; ok {
		b, _ := json.Marshal(d)
		doc = append(doc, "Default "+string(b)+".")
	}
	if r, _ := s["x-refTarget"].(string); r != "" && a.Managed == "" {
		doc = append(doc, "The id of a record of "+r+" in the same team.")
	}
	return strings.Join(doc, " ")
}

// schemaTypes returns the set of JSON types a schema's "type" names.
func schemaTypes(s map[string]any) map[string]bool {
	out := map[string]bool{}
	switch t := s["type"].(type) {
	case string:
		out[t] = true
	case []any:
		for _, e := range t {
			if n, ok := e.(string); ok {
				out[n] = true
			}
		}
	}
	return out
}

// inputFields lists the fields of the input type.
func (c collection) inputFields() []field {
	var out []field
	for _, f := range c.fields {
		if f.input != inputNone {
			out = append(out, f)
		}
	}
	return out
}

// sortFields lists the names lists may sort by.
func (c collection) sortFields() []string {
	var out []string
	for _, f := range c.fields {
		if f.sortable {
			out = append(out, f.name)
		}
	}
	return out
}

// checkNames fails when two top-level names of a generated file are the
// same (a collection whose type name is one of the shared names).
func checkNames(lang Lang, names []string) error {
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			return fmt.Errorf("%w: %s output would declare %s twice (a collection's type name is another declaration's)", ErrNameCollision, lang, n)
		}
		seen[n] = true
	}
	return nil
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
