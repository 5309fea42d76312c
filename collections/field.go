package collections

// FieldType is the type of a schema field: one of the eleven types the
// specification lists.
type FieldType string

// The field types a schema may use.
const (
	TypeString   FieldType = "string"
	TypeText     FieldType = "text"
	TypeNumber   FieldType = "number"
	TypeDecimal  FieldType = "decimal"
	TypeBoolean  FieldType = "boolean"
	TypeDate     FieldType = "date"
	TypeJSON     FieldType = "json"
	TypeRepeater FieldType = "repeater"
	TypeArray    FieldType = "array"
	TypeImage    FieldType = "image"
	TypeFile     FieldType = "file"
)

// FieldTypes lists every field type in the specification's order.
func FieldTypes() []FieldType {
	return []FieldType{TypeString, TypeText, TypeNumber, TypeDecimal, TypeBoolean, TypeDate,
		TypeJSON, TypeRepeater, TypeArray, TypeImage, TypeFile}
}

// Valid reports whether t is one of the eleven field types.
func (t FieldType) Valid() bool {
	switch t {
	case TypeString, TypeText, TypeNumber, TypeDecimal, TypeBoolean, TypeDate,
		TypeJSON, TypeRepeater, TypeArray, TypeImage, TypeFile:
		return true
	}
	return false
}

// IsTextual reports whether values of t are strings that search looks in
// (string and text; image and file hold URLs or keys, not prose).
func (t FieldType) IsTextual() bool { return t == TypeString || t == TypeText }

// IsStructured reports whether values of t are JSON documents (json,
// repeater, array), stored as JSON and neither sortable nor comparable.
func (t FieldType) IsStructured() bool {
	return t == TypeJSON || t == TypeRepeater || t == TypeArray
}
