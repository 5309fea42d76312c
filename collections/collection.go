package collections

import (
	"strings"
	"unicode"
)

// Collection is a validated, compiled collection: its identity, fields,
// config, storage names and body validators. It is immutable once built.
type Collection struct {
	// Key is the registry key: layer + PascalCase name ("shopProducts").
	Key string
	// Name is the plural collection name ("products").
	Name string
	// Layer is the domain ("shop").
	Layer string
	// File is the schema file it came from, empty for Go definitions.
	File string
	// Table is the SQL table name, <layer>_<name> in snake_case.
	Table string
	// Fields are the schema's own fields, in order.
	Fields []Field
	// Config is the resolved CollectionConfig.
	Config Config
	// External marks a collection served by a handler, not stored by kit.
	External bool

	attrs    map[string]*Attribute
	attrList []*Attribute
	valid    *validator
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
	return c.Config.UseMetadata == nil || *c.Config.UseMetadata
}

// DefaultSort is the attribute lists sort by when nothing else is asked:
// the defaultPagination sortBy, else the order ascending for trees and
// sortable collections (with a parent filter, a tree's list is the
// children in order), else createdAt, else id (UUIDv7 ids are
// time-ordered, so id order is creation order).
func (c *Collection) DefaultSort() (field string, desc bool) {
	if p := c.Config.DefaultPagination; p != nil && p.SortBy != "" {
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
	for i := range c.Fields {
		f := &c.Fields[i]
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
