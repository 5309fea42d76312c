package collections

import (
	"strconv"
	"strings"
)

// Field is one field of a collection schema.
type Field struct {
	// Name is the field's JSON key (camelCase).
	Name string `json:"name"`
	// Type is one of the eleven field types.
	Type FieldType `json:"type"`
	// Meta holds the optional settings of the field.
	Meta FieldMeta `json:"meta,omitzero"`
	// RefTarget names the collection a string field refers to (its plural
	// name, or its registry key when the name is ambiguous).
	RefTarget string `json:"refTarget,omitempty"`
}

// FieldMeta is the "meta" object of a schema field.
type FieldMeta struct {
	// Required makes the field mandatory on create; an update may not clear it.
	Required bool `json:"required,omitempty"`
	// Label is the human-readable name shown by clients.
	Label string `json:"label,omitempty"`
	// Default is stored on create when the body leaves the field out.
	// nil means no default.
	Default any `json:"default,omitempty"`
	// Precision is the number of significant digits of a decimal (1..38).
	Precision int `json:"precision,omitempty"`
	// Scale is the number of digits after the point of a decimal (0..Precision).
	Scale int `json:"scale,omitempty"`
	// Unique makes the value unique within a team. Text values are
	// compared in Unicode NFC, the form they are stored in.
	Unique bool `json:"unique,omitempty"`
	// UniqueIgnoreCase, on a unique string or text field, makes values
	// that differ only in case, in compatibility forms (fullwidth "Ｓ" for
	// "S") or in default-ignorable code points (zero-width spaces and
	// joiners, U+FEFF, U+2060) collide as well: two values are the same
	// when their [UniqueKey]s are.
	UniqueIgnoreCase bool `json:"uniqueIgnoreCase,omitempty"`
	// Index adds a (team, field) index for filters and sorts on the field.
	Index bool `json:"index,omitempty"`
	// Integer limits a number field to whole numbers of magnitude at most
	// 2^53 (exact in a JavaScript number), stored as integers: BIGINT on
	// PostgreSQL, INTEGER on SQLite. Filter values on the field must be
	// whole numbers too.
	Integer bool `json:"integer,omitempty"`
	// Area places the field in a form area (runtime metadata for clients).
	Area string `json:"area,omitempty"`
	// DisplayAs is a display hint for clients (runtime metadata).
	DisplayAs string `json:"displayAs,omitempty"`
	// RenamedFrom is the field's former name: schema sync renames the
	// former column (with its values, indexes and keys) to this field's,
	// and ignores it once the table has this field's column. Keep it in
	// the schema as long as a database synced before the rename may meet
	// it. It must not name a field the collection has now, and no two
	// fields may be renamed from one name.
	RenamedFrom string `json:"renamedFrom,omitempty"`
	// MaxSize is the largest upload an image or file field takes, in
	// bytes. Zero means DefaultMaxFileSize (10 MiB).
	MaxSize int64 `json:"maxSize,omitempty"`
	// MimeTypes, on an image or file field, is the allow-list of content
	// types (as sniffed from the bytes): exact ("application/pdf") or a
	// whole family ("image/*"). Empty allows any type; an image field takes
	// only images the server decodes (PNG, JPEG, GIF, WebP) in any case.
	MimeTypes []string `json:"mimeTypes,omitempty"`
	// Multiple makes an image or file field a list of files.
	Multiple bool `json:"multiple,omitempty"`
	// MaxFiles bounds a multiple field's list. Zero means
	// DefaultMaxFiles (10).
	MaxFiles int `json:"maxFiles,omitempty"`
	// Thumbs are the thumbnail sizes an image field serves ("100x100":
	// cropped to fill; "200x0" or "0x200": scaled to that width or height).
	Thumbs []string `json:"thumbs,omitempty"`
}

// DefaultMaxFileSize is the upload limit of an image or file field without
// meta.maxSize: 10 MiB.
const DefaultMaxFileSize int64 = 10 << 20

// DefaultMaxFiles is the list limit of a multiple image or file field
// without meta.maxFiles.
const DefaultMaxFiles = 10

// IsFile reports whether values of t are uploaded files (image, file).
func (t FieldType) IsFile() bool { return t == TypeImage || t == TypeFile }

// FileLimits returns the field's upload limit and list limit with their
// defaults filled in (one file for a field that is not multiple).
func (f *Field) FileLimits() (maxSize int64, maxFiles int) {
	maxSize, maxFiles = f.Meta.MaxSize, 1
	if maxSize <= 0 {
		maxSize = DefaultMaxFileSize
	}
	if f.Meta.Multiple {
		maxFiles = f.Meta.MaxFiles
		if maxFiles <= 0 {
			maxFiles = DefaultMaxFiles
		}
	}
	return maxSize, maxFiles
}

// ParseThumbSize reads a thumbnail size "WxH" (each 0..4096, not both 0).
func ParseThumbSize(s string) (w, h int, ok bool) {
	ws, hs, found := strings.Cut(s, "x")
	if !found {
		return 0, 0, false
	}
	w, err1 := strconv.Atoi(ws)
	h, err2 := strconv.Atoi(hs)
	if err1 != nil || err2 != nil || w < 0 || h < 0 || w > 4096 || h > 4096 || w+h == 0 ||
		strconv.Itoa(w) != ws || strconv.Itoa(h) != hs {
		return 0, 0, false
	}
	return w, h, true
}

// Definition describes one collection: the Go form of a schema file, for
// hosts that prefer code.
type Definition struct {
	// Name is the plural collection name ("products", "blogPosts").
	Name string
	// Layer is the domain the collection belongs to ("shop"); empty means
	// the default layer.
	Layer string
	// Fields are the schema fields, in display order.
	Fields []Field
	// Config overrides the collection's defaults; zero fields keep them.
	Config *Config
	// File is the schema file the definition was read from; empty for Go
	// definitions. Findings name it.
	File string
	// External marks a collection whose items come from a handler (an
	// external source or a proxy), not from kit's storage: it has no
	// table and no fields, its layer is "external" and its registry key is
	// its name. Reference fields may target it.
	External bool
}

// ExternalLayer is the layer of every external collection.
const ExternalLayer = "external"

// systemFields are the auto-generated fields every record carries, in the
// order records show them.
var systemFields = []Field{
	{Name: "id", Type: TypeString},
	{Name: "teamId", Type: TypeString},
	{Name: "owner", Type: TypeString},
	{Name: "createdAt", Type: TypeDate},
	{Name: "updatedAt", Type: TypeDate},
	{Name: "createdBy", Type: TypeString},
	{Name: "updatedBy", Type: TypeString},
}

// IsSystemField reports whether name is one of the auto-generated fields
// (id, teamId, owner, createdAt, updatedAt, createdBy, updatedBy), which the
// server sets and a schema must not define.
func IsSystemField(name string) bool {
	for _, f := range systemFields {
		if f.Name == name {
			return true
		}
	}
	return false
}
