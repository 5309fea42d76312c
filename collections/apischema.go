package collections

// RecordSchema returns the JSON Schema (draft 2020-12) of a record as kit
// answers it: every attribute (the auto-generated ones, the schema's
// fields, a tree's or sortable collection's managed attributes) is present
// and required, optional fields may be null, decimals are strings in
// canonical form, dates are RFC 3339 strings (format date-time), and
// references carry x-refTarget. It is built from the same field mapping as
// [Collection.JSONSchema] and has no $schema or $id, so it can be embedded
// in another document (an OpenAPI component). The map is a fresh copy.
func (c *Collection) RecordSchema() map[string]any {
	props := map[string]any{}
	required := make([]any, 0, len(c.attrList))
	for _, a := range c.attrList {
		required = append(required, a.Name)
		switch {
		case a.Managed != "":
			props[a.Name] = c.managedSchema(a)
		case a.System:
			s := map[string]any{"type": "string", "readOnly": true}
			if a.Type == TypeDate {
				s["format"] = "date-time"
			}
			props[a.Name] = s
		default:
			props[a.Name] = fieldSchema(a.Field, useAnswer)
		}
	}
	s := map[string]any{
		"type":                 "object",
		"properties":           props,
		"required":             required,
		"additionalProperties": false,
	}
	if t := c.config.DisplayName; t != "" {
		s["title"] = t
	}
	return s
}

// InputSchema returns the JSON Schema (draft 2020-12) of a create body
// (partial false) or of an update body (partial true): the schema's own
// fields, as ValidateCreate and ValidateUpdate check them (decimals as
// strings or numbers, a required text field not empty). A create body must
// hold the required fields that have no default, and a tree's create body
// may name the parent. Other properties are refused (the auto-generated
// fields are ignored by the server, and left out here). Like
// RecordSchema, it has no $schema or $id. The map is a fresh copy.
func (c *Collection) InputSchema(partial bool) map[string]any {
	props := map[string]any{}
	required := []any{}
	for _, a := range c.attrList {
		if a.Managed == ManagedParent && !partial {
			s := c.managedSchema(a)
			s["description"] = "the parent record (null or absent for a root); changed later with the move endpoint"
			props[a.Name] = s
			continue
		}
		if a.System || a.Managed != "" {
			continue
		}
		props[a.Name] = fieldSchema(a.Field, useInput)
		if !partial && a.Field.Meta.Required && a.Field.Meta.Default == nil {
			required = append(required, a.Name)
		}
	}
	s := map[string]any{
		"type":                 "object",
		"properties":           props,
		"additionalProperties": false,
	}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}
