package typegen

import (
	"fmt"
	"go/format"
	"go/token"
	"strings"
	"unicode"
)

// generateGo writes m as a Go file of package pkg, formatted by go/format.
func generateGo(m *model, pkg string) ([]byte, error) {
	if !token.IsIdentifier(pkg) || token.IsKeyword(pkg) {
		return nil, fmt.Errorf("typegen: %q is not a Go package name", pkg)
	}
	hasDate := false
	for _, c := range m.collections {
		for _, f := range c.fields {
			hasDate = hasDate || f.kind == kindDate
		}
	}
	var names []string
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("%s\n", header(LangGo, m))
	w("package %s\n\n", pkg)
	if len(m.collections) > 0 {
		w("import (\n\"encoding/json\"\n\"net/url\"\n\"strconv\"\n\"strings\"\n")
		if hasDate {
			w("\"time\"\n")
		}
		w(")\n\n")
		w(goShared)
		names = append(names, "Decimal", "Pagination")
		w("// The collections' registry keys (client.Collection, the Go record API)\n// and apiPaths (the URL segment of their endpoints).\nconst (\n")
		for _, c := range m.collections {
			w("%sKey = %q\n%sAPIPath = %q\n", c.pascalKey, c.key, c.pascalKey, c.apiPath)
			names = append(names, c.pascalKey+"Key", c.pascalKey+"APIPath")
		}
		w(")\n")
	}
	for _, c := range m.collections {
		t := c.typeName
		names = append(names, t, t+"Input", t+"Query", t+"Response")
		goRecord(w, c)
		goInput(w, c)
		w("\n%s", comment("", fmt.Sprintf("%sQuery is a list request for %s: the query parameters of GET /api/teams/{team}/%s. The zero value asks for the default page.", t, c.key, c.apiPath)))
		w("type %sQuery struct {\n", t)
		w("// Page is 1-based; 0 leaves it to the server.\nPage int\n")
		w("// PageSize is 1..100; 0 leaves it to the collection's default.\nPageSize int\n")
		w("// Search is a case-insensitive substring of a string or text field.\nSearch string\n")
		w("%s", comment("", "Sort names up to 4 of "+goList(c.sortFields())+", each prefixed with \"-\" for descending."))
		w("Sort []string\n")
		w("// Filter is kit's filter JSON: a field to a value (equality) or to\n// operators ({\"price\": {\"gte\": \"10\"}}).\nFilter map[string]any\n")
		w("%sIDs []string\n}\n", comment("", fmt.Sprintf("IDs asks for these records only; the answer is then an array of %s in the order asked, not a %sResponse.", t, t)))
		w("\n// Values encodes q as the query string of the list endpoint. It fails\n// only on a filter value JSON cannot encode.\n")
		w("func (q %sQuery) Values() (url.Values, error) {\nreturn listValues(q.Page, q.PageSize, q.Search, q.Sort, q.Filter, q.IDs)\n}\n", t)
		w("\n%s", comment("", fmt.Sprintf("%sResponse is a page of %s: the answer of GET /api/teams/{team}/%s.", t, c.key, c.apiPath)))
		w("type %sResponse struct {\nItems []%s `json:\"items\"`\nPagination Pagination `json:\"pagination\"`\n}\n", t, t)
	}
	if err := checkNames(LangGo, names); err != nil {
		return nil, err
	}
	out, err := format.Source([]byte(b.String()))
	if err != nil {
		return nil, fmt.Errorf("typegen: format the Go output: %w", err)
	}
	return out, nil
}

// goShared declares what every collection's types use.
const goShared = `// Decimal is a decimal value as kit sends it: a string in canonical form
// ("19.90" at scale 2), exact where a float64 would round.
type Decimal string

// KitFile is a file of an image or file field as kit answers it: its
// name, size, content type (sniffed from the bytes), download URL (signed
// for a while) and, for images, size in pixels. Files are uploaded as
// multipart/form-data; in a JSON body a file field keeps the record's
// files named in it (see docs/files.md).
type KitFile struct {
	Name        string ` + "`json:\"name\"`" + `
	Size        int64  ` + "`json:\"size\"`" + `
	ContentType string ` + "`json:\"contentType\"`" + `
	URL         string ` + "`json:\"url,omitempty\"`" + `
	Width       int    ` + "`json:\"width,omitempty\"`" + `
	Height      int    ` + "`json:\"height,omitempty\"`" + `
}

// UnmarshalJSON reads a file object, or a URL string (a file kept
// elsewhere, as image and file fields held before kit kept files) into
// URL.
func (f *KitFile) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*f = KitFile{URL: s}
		return nil
	}
	type plain KitFile
	return json.Unmarshal(b, (*plain)(f))
}

// KitFiles are the files of a multiple image or file field; a URL string
// reads as one file with that URL.
type KitFiles []KitFile

// UnmarshalJSON reads a list of file objects or a URL string.
func (l *KitFiles) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*l = KitFiles{{URL: s}}
		return nil
	}
	var list []KitFile
	if err := json.Unmarshal(b, &list); err != nil {
		return err
	}
	*l = list
	return nil
}

// Pagination is the pagination data of every list.
type Pagination struct {
	CurrentPage   int    ` + "`json:\"currentPage\"`" + `
	PageSize      int    ` + "`json:\"pageSize\"`" + `
	TotalItems    int    ` + "`json:\"totalItems\"`" + `
	TotalPages    int    ` + "`json:\"totalPages,omitempty\"`" + `
	SortBy        string ` + "`json:\"sortBy,omitempty\"`" + `
	SortDirection string ` + "`json:\"sortDirection,omitempty\"`" + `
}

// listValues encodes a list request's parameters in kit's names.
func listValues(page, pageSize int, search string, sort []string, filter map[string]any, ids []string) (url.Values, error) {
	v := url.Values{}
	if page > 0 {
		v.Set("page", strconv.Itoa(page))
	}
	if pageSize > 0 {
		v.Set("pageSize", strconv.Itoa(pageSize))
	}
	if search != "" {
		v.Set("search", search)
	}
	if len(sort) > 0 {
		v.Set("sort", strings.Join(sort, ","))
	}
	if len(filter) > 0 {
		b, err := json.Marshal(filter)
		if err != nil {
			return nil, err
		}
		v.Set("filter", string(b))
	}
	if len(ids) > 0 {
		v.Set("ids", strings.Join(ids, ","))
	}
	return v, nil
}

`

// goRecord writes the record type: every attribute, always present on the
// wire; a pointer where the value may be null.
func goRecord(w func(string, ...any), c collection) {
	w("\n%s", comment("", fmt.Sprintf("%s is a record of %s (GET /api/teams/{team}/%s).", c.typeName, c.key, c.apiPath)))
	w("type %s struct {\n", c.typeName)
	fieldNames := goFieldNames(c.fields)
	for i, f := range c.fields {
		goDoc(w, f.doc)
		w("%s %s `json:%q`\n", fieldNames[i], goType(f, f.nullable), f.name)
	}
	w("}\n")
}

// goInput writes the input type: the writable fields; the required ones
// as values, the others as pointers left out of the JSON when nil.
func goInput(w func(string, ...any), c collection) {
	in := c.inputFields()
	w("\n%s", comment("", fmt.Sprintf("%sInput is the body that creates a record of %s (POST): the writable fields. Required fields are values; a nil optional field is left out, so the server applies its default (on create) or keeps the stored value (as a PATCH body).", c.typeName, c.key)))
	w("type %sInput struct {\n", c.typeName)
	fieldNames := goFieldNames(in)
	for i, f := range in {
		goDoc(w, f.doc)
		if f.input == inputRequired {
			w("%s %s `json:%q`\n", fieldNames[i], goType(f, false), f.name)
			continue
		}
		w("%s %s `json:\"%s,omitempty\"`\n", fieldNames[i], goType(f, true), f.name)
	}
	w("}\n")
}

func goDoc(w func(string, ...any), doc string) {
	w("%s", comment("", doc))
}

// comment wraps text into lines of "//" comments of at most about 76
// columns, each starting with indent; empty text is no comment.
func comment(indent, text string) string {
	if text == "" {
		return ""
	}
	var b, line strings.Builder
	for _, word := range strings.Fields(text) {
		if line.Len() > 0 && len(indent)+3+line.Len()+1+len(word) > 76 {
			b.WriteString(indent + "// " + line.String() + "\n")
			line.Reset()
		}
		if line.Len() > 0 {
			line.WriteByte(' ')
		}
		line.WriteString(word)
	}
	b.WriteString(indent + "// " + line.String() + "\n")
	return b.String()
}

// goType is the Go type of f; optional makes scalars pointers (JSON,
// arrays and repeaters are nil when absent).
func goType(f field, optional bool) string {
	var t string
	switch f.kind {
	case kindString:
		t = "string"
	case kindNumber:
		t = "float64"
	case kindInteger:
		t = "int"
	case kindWhole:
		t = "int64"
	case kindDecimal:
		t = "Decimal"
	case kindBoolean:
		t = "bool"
	case kindDate:
		t = "time.Time"
	case kindJSON:
		return "json.RawMessage"
	case kindRepeater:
		return "[]map[string]any"
	case kindArray:
		return "[]any"
	case kindFile:
		t = "KitFile"
	case kindFiles:
		return "KitFiles"
	}
	if optional {
		return "*" + t
	}
	return t
}

// goInitialisms are the words written in capitals in Go names (Go's own
// naming convention: ID, URL, API).
var goInitialisms = map[string]bool{"id": true, "ids": true, "url": true, "uri": true, "api": true,
	"http": true, "https": true, "json": true, "html": true, "uuid": true, "sku": true, "ip": true,
	"css": true, "sql": true, "xml": true, "ui": true}

// goFieldNames returns the exported Go names of fields: categoryId is
// CategoryID, sku SKU. Two fields that would get one name (imageUrl,
// imageURL) keep their PascalCase names instead, and a name that still
// repeats gets the field's position.
func goFieldNames(fields []field) []string {
	out := make([]string, len(fields))
	seen := map[string]bool{}
	for i, f := range fields {
		n := goName(f.name)
		if seen[n] {
			n = upperFirst(f.name)
		}
		if seen[n] {
			n = fmt.Sprintf("%s%d", upperFirst(f.name), i)
		}
		seen[n] = true
		out[i] = n
	}
	return out
}

// goName turns a camelCase JSON name into an exported Go name.
func goName(s string) string {
	var words []string
	start := 0
	rs := []rune(s)
	for i := 1; i < len(rs); i++ {
		if unicode.IsUpper(rs[i]) && !unicode.IsUpper(rs[i-1]) {
			words = append(words, string(rs[start:i]))
			start = i
		}
	}
	words = append(words, string(rs[start:]))
	var b strings.Builder
	for _, w := range words {
		if goInitialisms[strings.ToLower(w)] {
			if strings.ToLower(w) == "ids" {
				b.WriteString("IDs")
				continue
			}
			b.WriteString(strings.ToUpper(w))
			continue
		}
		b.WriteString(upperFirst(w))
	}
	return b.String()
}

// goList joins names as "a, b or c", each quoted.
func goList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	if len(q) <= 1 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}
