package collections

import (
	"iter"
	"strings"
	"unicode"
)

// Collection is a validated, compiled collection: its identity, fields,
// config, storage names and body validators. It is immutable once built:
// its accessors return values or copies, so nothing a caller does with
// them changes the registry it came from. The Fields and Config copies
// cost an allocation; the other accessors, and AllFields, FieldAt and
// NumFields, do not copy what they need not.
type Collection struct {
	key      string
	name     string
	layer    string
	file     string
	table    string
	fields   []Field
	config   Config
	external bool

	attrs    map[string]*Attribute
	attrList []*Attribute
	valid    *validator
}

// Key returns the registry key: layer + PascalCase name ("shopProducts").
func (c *Collection) Key() string { return c.key }

// Name returns the plural collection name ("products").
func (c *Collection) Name() string { return c.name }

// Layer returns the domain ("shop").
func (c *Collection) Layer() string { return c.layer }

// File returns the schema file the collection came from, empty for Go
// definitions.
func (c *Collection) File() string { return c.file }

// Table returns the SQL table name, <layer>_<name> in snake_case.
func (c *Collection) Table() string { return c.table }

// External reports whether the collection is served by a handler, not
// stored by kit.
func (c *Collection) External() bool { return c.external }

// Fields returns a copy of the schema's own fields, in order.
func (c *Collection) Fields() []Field {
	out := make([]Field, len(c.fields))
	for i := range c.fields {
		out[i] = c.FieldAt(i)
	}
	return out
}

// NumFields returns the number of the schema's own fields.
func (c *Collection) NumFields() int { return len(c.fields) }

// FieldAt returns the schema's i-th field (0 <= i < NumFields()), a copy.
func (c *Collection) FieldAt(i int) Field {
	f := c.fields[i]
	f.Meta.Default = cloneValue(f.Meta.Default)
	return f
}

// AllFields yields the index and a copy of each of the schema's own
// fields, in order, without copying the list.
func (c *Collection) AllFields() iter.Seq2[int, Field] {
	return func(yield func(int, Field) bool) {
		for i := range c.fields {
			if !yield(i, c.FieldAt(i)) {
				return
			}
		}
	}
}

// Config returns the resolved CollectionConfig, a deep copy: changing it
// changes nothing in the collection. Hot paths read what they need
// through the accessors that do not copy it (APIPath, FetchStrategy, Proxy,
// UseMetadata, DefaultSort, ManagedAttribute).
func (c *Collection) Config() Config { return c.config.clone() }

// APIPath returns the collection's apiPath, the URL segment of its
// endpoints.
func (c *Collection) APIPath() string { return c.config.APIPath }

// FetchStrategy returns the collection's fetchStrategy ("query" or
// "restful").
func (c *Collection) FetchStrategy() string { return c.config.FetchStrategy }

// Proxy returns a copy of the collection's proxy settings, nil when it has
// none.
func (c *Collection) Proxy() *Proxy {
	if c.config.Proxy == nil {
		return nil
	}
	p := *c.config.Proxy
	return &p
}

// cloneValue deep-copies the maps and slices of a JSON-like value; other
// values are returned as they are.
func cloneValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = cloneValue(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = cloneValue(e)
		}
		return out
	}
	return v
}

// Attribute is a field a record carries: a schema field or an
// auto-generated one. Queries address attributes only through this table,
// so no name from a request reaches SQL.
type Attribute struct {
	// Name is the JSON key.
	Name string
	// Type is the field type (auto-generated dates are TypeDate, the rest
	// TypeString).
	Type FieldType
	// Column is the SQL column name.
	Column string
	// System is true for the auto-generated fields, including the ones
	// kit keeps for trees and sortable collections.
	System bool
	// Managed is the attribute's role in a tree or sortable collection
	// (parent, path, depth, order); empty for every other attribute.
	Managed Managed
	// Field is the schema field; nil for auto-generated ones.
	Field *Field
}

// Sortable reports whether lists may sort by the attribute.
func (a *Attribute) Sortable() bool { return !a.Type.IsStructured() }

// WholeNumber reports whether a is a number field with meta.integer: whole
// numbers within 2^53, stored as integers.
func (a *Attribute) WholeNumber() bool {
	return a.Type == TypeNumber && a.Field != nil && a.Field.Meta.Integer
}

// Attribute looks up an attribute by its JSON name.
func (c *Collection) Attribute(name string) (*Attribute, bool) {
	a, ok := c.attrs[name]
	return a, ok
}

// Attributes lists the record's attributes: id, teamId, owner, the schema
// fields in order, the managed attributes of a tree (parent, path, depth,
// order) or a sortable collection (order), then the metadata fields when
// useMetadata is on.
func (c *Collection) Attributes() []*Attribute { return c.attrList }

// UseMetadata reports whether records carry createdAt, updatedAt,
// createdBy and updatedBy.
func (c *Collection) UseMetadata() bool {
	return c.config.UseMetadata == nil || *c.config.UseMetadata
}

// SoftDelete reports whether a delete moves the record to the team's
// trash (Config.SoftDelete).
func (c *Collection) SoftDelete() bool { return c.config.SoftDelete }

// DefaultSort is the attribute lists sort by when nothing else is asked:
// the defaultPagination sortBy, else the order ascending for trees and
// sortable collections (with a parent filter, a tree's list is the
// children in order), else createdAt, else id (UUIDv7 ids are
// time-ordered, so id order is creation order).
func (c *Collection) DefaultSort() (field string, desc bool) {
	if p := c.config.DefaultPagination; p != nil && p.SortBy != "" {
		return p.SortBy, p.SortDirection != "asc"
	}
	if a, ok := c.ManagedAttribute(ManagedOrder); ok {
		return a.Name, false
	}
	if c.UseMetadata() {
		return "createdAt", true
	}
	return "id", true
}

func (c *Collection) index() {
	c.attrs = map[string]*Attribute{}
	c.attrList = nil
	add := func(a *Attribute) {
		c.attrs[a.Name] = a
		c.attrList = append(c.attrList, a)
	}
	for _, f := range systemFields[:3] {
		add(&Attribute{Name: f.Name, Type: f.Type, Column: ColumnName(f.Name), System: true})
	}
	for i := range c.fields {
		f := &c.fields[i]
		add(&Attribute{Name: f.Name, Type: f.Type, Column: ColumnName(f.Name), Field: f})
	}
	c.indexManaged()
	if c.UseMetadata() {
		for _, f := range systemFields[3:] {
			add(&Attribute{Name: f.Name, Type: f.Type, Column: ColumnName(f.Name), System: true})
		}
	}
}

// RegistryKey returns layer + PascalCase(name): ("shop", "products") is
// "shopProducts".
func RegistryKey(layer, name string) string {
	if layer == "" {
		return name
	}
	return layer + pascal(name)
}

// ColumnName turns a camelCase JSON name into its snake_case column name
// ("categoryId" is "category_id", "imageURL" is "image_url").
func ColumnName(name string) string {
	var b strings.Builder
	rs := []rune(name)
	for i, r := range rs {
		if unicode.IsUpper(r) {
			prevLower := i > 0 && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1]))
			nextLower := i > 0 && i+1 < len(rs) && unicode.IsLower(rs[i+1]) && unicode.IsUpper(rs[i-1])
			if prevLower || nextLower {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func pascal(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

func humanize(name string) string {
	words := strings.Split(ColumnName(name), "_")
	for i, w := range words {
		words[i] = pascal(w)
	}
	return strings.Join(words, " ")
}
