package collections

import "fmt"

// Renames. A field's meta.renamedFrom and a collection's renamedFrom
// setting name what the field or collection was called before, so that
// schema sync renames the stored column or table (keeping its values)
// instead of adding a new one beside the old. The checks here are those a
// schema can fail on its own; whether the old column or table exists is
// for schema sync to find out.

// checkFieldRenames checks the meta.renamedFrom of c's fields once c's
// attributes are indexed: a camelCase name that no attribute of c has now
// (nor its column), that is not the field's own, and that no other field
// is renamed from.
func checkFieldRenames(c *Collection) []Finding {
	var findings []Finding
	add := func(field, format string, args ...any) {
		findings = append(findings, Finding{File: c.file, Collection: c.name, Field: field, Severity: SeverityError, Message: fmt.Sprintf(format, args...)})
	}
	columns := map[string]string{}
	for _, a := range c.attrList {
		columns[a.Column] = a.Name
	}
	from := map[string]string{} // old column -> the field renamed from it
	for _, f := range c.fields {
		old := f.Meta.RenamedFrom
		if old == "" {
			continue
		}
		col := ColumnName(old)
		switch {
		case !isCamelIdentifier(old):
			add(f.Name, "meta.renamedFrom %q must be a camelCase field name (letters and digits)", old)
		case len(col) > 63:
			add(f.Name, "meta.renamedFrom %q is too long for a column name", old)
		case old == f.Name:
			add(f.Name, "meta.renamedFrom names the field itself; remove it")
		case columns[col] != "":
			add(f.Name, "meta.renamedFrom %q names field %q, which the collection has now (column %q); a field can only be renamed from a name no field uses", old, columns[col], col)
		case from[col] != "":
			add(f.Name, "meta.renamedFrom %q is also the former name of field %q; two fields cannot be renamed from one", old, from[col])
		default:
			from[col] = f.Name
		}
	}
	return findings
}

// checkCollectionRenames checks the renamedFrom setting of every stored
// collection of reg: a registry key that names no collection of reg now,
// that is not the collection's own key, and that no other collection is
// renamed from.
func checkCollectionRenames(reg *Registry) []Finding {
	var findings []Finding
	from := map[string]string{}
	for _, c := range reg.order {
		old := c.config.RenamedFrom
		if old == "" {
			continue
		}
		add := func(format string, args ...any) {
			findings = append(findings, Finding{File: c.file, Collection: c.name, Severity: SeverityError, Message: fmt.Sprintf(format, args...)})
		}
		switch other, taken := reg.byKey[old]; {
		case c.external:
			add("renamedFrom applies only to collections kit stores, not to external ones")
		case !isIdentifier(old):
			add("renamedFrom %q must be a registry key (layer + PascalCase name, like shopProducts)", old)
		case old == c.key:
			add("renamedFrom names the collection itself; remove it")
		case taken:
			add("renamedFrom %q names collection %q, which exists now; a collection can only be renamed from a key no collection uses", old, other.key)
		case from[old] != "":
			add("renamedFrom %q is also the former key of collection %q; two collections cannot be renamed from one", old, from[old])
		default:
			from[old] = c.key
		}
	}
	return findings
}

// RenamedFrom returns the collection's former registry key, its
// renamedFrom setting ("" when it has none).
func (c *Collection) RenamedFrom() string { return c.config.RenamedFrom }
