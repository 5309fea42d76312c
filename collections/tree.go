package collections

import (
	"fmt"
	"strings"
)

// Managed is the role of an attribute that kit keeps for a tree
// (hierarchy) or a manually ordered (sortable) collection. The attributes
// are named by the config (hierarchy.parentField, ...); their values are
// set by the server, never by a body, except the parent on create.
type Managed string

// The managed attribute roles.
const (
	// ManagedParent is the parent record's id (string, null for a root):
	// hierarchy.parentField, default "parentId".
	ManagedParent Managed = "parent"
	// ManagedPath is the materialized path: the ids from the root down to
	// the record itself, each followed by "/" ("/a/b/n/" for record n whose
	// parent is b, whose parent is a root a). The record and its
	// descendants are exactly the records whose path starts with its path.
	// hierarchy.pathField, default "path".
	ManagedPath Managed = "path"
	// ManagedDepth is the number of ancestors (0 for a root):
	// hierarchy.depthField, default "depth".
	ManagedDepth Managed = "depth"
	// ManagedOrder is the position among siblings, 0..n-1 without gaps:
	// hierarchy.orderField or sortable.orderField, default "order".
	ManagedOrder Managed = "order"
)

// The roles hierarchy.moveRole and sortable.reorderRole accept. Empty means
// the update rule: members move and reorder their own records, admins and
// owners any record of the team.
var arrangeRoles = []string{"member", "admin", "owner"}

// IsTree reports whether records form a tree (hierarchy enabled on a
// stored collection).
func (c *Collection) IsTree() bool {
	h := c.config.Hierarchy
	return !c.external && h != nil && h.Enabled
}

// IsOrdered reports whether records have a manual order kept by kit: a
// tree (siblings are ordered) or a sortable collection (all records of a
// team are ordered).
func (c *Collection) IsOrdered() bool {
	if c.IsTree() {
		return true
	}
	s := c.config.Sortable
	return !c.external && s != nil && s.Enabled
}

// ManagedAttribute returns the attribute that plays role m, when the
// collection has one.
func (c *Collection) ManagedAttribute(m Managed) (*Attribute, bool) {
	for _, a := range c.attrList {
		if a.Managed == m {
			return a, true
		}
	}
	return nil, false
}

// ArrangeRole is the least team role that may move and reorder any record
// ("member", "admin" or "owner"), from hierarchy.moveRole for trees and
// sortable.reorderRole for sortable collections. Empty means the update
// rule applies.
func (c *Collection) ArrangeRole() string {
	if c.IsTree() {
		return c.config.Hierarchy.MoveRole
	}
	if c.IsOrdered() {
		return c.config.Sortable.ReorderRole
	}
	return ""
}

// managedSpec is one managed attribute as the config names it.
type managedSpec struct {
	prop string // config property, for messages ("hierarchy.parentField")
	name string
	role Managed
	typ  FieldType
}

// managedSpecs lists the managed attributes the config asks for: the four
// of a hierarchy, or the order of a sortable collection. A hierarchy wins
// over sortable (a tree already orders siblings).
func managedSpecs(c *Collection) []managedSpec {
	switch {
	case c.IsTree():
		h := c.config.Hierarchy
		return []managedSpec{
			{"hierarchy.parentField", h.ParentField, ManagedParent, TypeString},
			{"hierarchy.pathField", h.PathField, ManagedPath, TypeString},
			{"hierarchy.depthField", h.DepthField, ManagedDepth, TypeNumber},
			{"hierarchy.orderField", h.OrderField, ManagedOrder, TypeNumber},
		}
	case c.IsOrdered():
		return []managedSpec{{"sortable.orderField", c.config.Sortable.OrderField, ManagedOrder, TypeNumber}}
	}
	return nil
}

// indexManaged adds the managed attributes after the schema fields. A name
// that is taken is skipped (checkManaged reports it).
func (c *Collection) indexManaged() {
	for _, s := range managedSpecs(c) {
		if _, taken := c.attrs[s.name]; taken || s.name == "" {
			continue
		}
		a := &Attribute{Name: s.name, Type: s.typ, Column: ColumnName(s.name), System: true, Managed: s.role}
		c.attrs[a.Name] = a
		c.attrList = append(c.attrList, a)
	}
}

// checkManaged checks the names of the managed attributes: identifiers,
// distinct, and taken by no schema field and no auto-generated field (a
// schema that defines one is an error naming the field), and the roles
// of moveRole and reorderRole.
func checkManaged(c *Collection) []Finding {
	if c.external {
		return nil
	}
	var findings []Finding
	add := func(field string, sev Severity, format string, args ...any) {
		findings = append(findings, Finding{File: c.file, Collection: c.name, Field: field, Severity: sev, Message: fmt.Sprintf(format, args...)})
	}
	if h, s := c.config.Hierarchy, c.config.Sortable; h != nil && h.Enabled && s != nil && s.Enabled {
		add("", SeverityWarning, "sortable is ignored: the hierarchy already orders siblings by hierarchy.orderField %q", h.OrderField)
	}
	oneOfRoles := func(prop, v string) {
		if v == "" {
			return
		}
		for _, r := range arrangeRoles {
			if v == r {
				return
			}
		}
		add("", SeverityError, "%s %q must be one of %s (or empty for the update rule)", prop, v, strings.Join(arrangeRoles, ", "))
	}
	if h := c.config.Hierarchy; h != nil {
		oneOfRoles("hierarchy.moveRole", h.MoveRole)
	}
	if s := c.config.Sortable; s != nil {
		oneOfRoles("sortable.reorderRole", s.ReorderRole)
	}
	fields := map[string]bool{}
	columns := map[string]string{}
	for _, sf := range systemFields {
		columns[ColumnName(sf.Name)] = sf.Name
	}
	for _, f := range c.fields {
		fields[f.Name] = true
		columns[ColumnName(f.Name)] = f.Name
	}
	seen := map[string]string{}
	for _, s := range managedSpecs(c) {
		switch {
		case !isCamelIdentifier(s.name):
			add("", SeverityError, "%s %q must be a camelCase identifier (letters and digits)", s.prop, s.name)
			continue
		case len(ColumnName(s.name)) > 63:
			add("", SeverityError, "%s %q is too long for a column name", s.prop, s.name)
			continue
		case IsSystemField(s.name):
			add("", SeverityError, "%s %q is an auto-generated field; name another field", s.prop, s.name)
			continue
		case seen[s.name] != "":
			add("", SeverityError, "%s %q is also %s; each managed field needs its own name", s.prop, s.name, seen[s.name])
			continue
		case fields[s.name]:
			add(s.name, SeverityError, "duplicate key %q: kit manages %s as the %s; remove it from the schema or set %s to another name",
				s.name, s.name, s.prop, s.prop)
			continue
		}
		col := ColumnName(s.name)
		if other, ok := columns[col]; ok {
			add(other, SeverityError, "column name %q of %s %q collides with field %q", col, s.prop, s.name, other)
			continue
		}
		seen[s.name] = s.prop
		columns[col] = s.name
	}
	return findings
}

// managedSchema is the JSON Schema of a managed attribute in the record
// schema clients read: the parent is written on create only, the rest is
// read-only.
func (c *Collection) managedSchema(a *Attribute) map[string]any {
	switch a.Managed {
	case ManagedParent:
		return map[string]any{"type": []any{"string", "null"}, "x-refTarget": c.key,
			"description": "the parent record (null for a root); set on create, changed with the move endpoint"}
	case ManagedPath:
		return map[string]any{"type": "string", "readOnly": true,
			"description": "materialized path: the ids from the root to this record, each followed by /"}
	case ManagedDepth:
		return map[string]any{"type": "integer", "minimum": 0, "readOnly": true}
	}
	return map[string]any{"type": "integer", "minimum": 0, "readOnly": true,
		"description": "position among siblings (0..n-1); changed with the move and reorder endpoints"}
}

// managedValue checks the value a create body gives a managed attribute.
// Only the parent may be given (a record id or null); path, depth and
// order are computed, so any value they have is dropped (ok false).
func managedValue(a *Attribute, v any) (val any, ok bool, msg string) {
	if a.Managed != ManagedParent {
		return nil, false, ""
	}
	if v == nil {
		return nil, true, ""
	}
	s, isStr := v.(string)
	if !isStr || s == "" || len(s) > 128 || checkText(s) != nil {
		return nil, false, "must be the id of a record of this collection in this team, or null for a root"
	}
	return s, true, ""
}

// managedUpdateMessage says where a managed attribute is changed instead
// of an update.
func (c *Collection) managedUpdateMessage(a *Attribute) string {
	if !c.IsTree() {
		return "is kept by kit; change the order with PATCH /teams/{team}/" + c.config.APIPath + "/reorder"
	}
	base := "/teams/{team}/" + c.config.APIPath
	parent, order := c.config.Hierarchy.ParentField, c.config.Hierarchy.OrderField
	if a.Managed == ManagedOrder {
		return fmt.Sprintf("is kept by kit; change it with PATCH %s/{id}/move {%q, %q} or PATCH %s/reorder", base, parent, order, base)
	}
	return fmt.Sprintf("is kept by kit; move the record with PATCH %s/{id}/move {%q, %q}", base, parent, order)
}
