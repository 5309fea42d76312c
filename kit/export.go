package kit

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/collectionkit/kit/collections"
)

// ExportFormat is the format of an export: CSV, JSON or NDJSON.
type ExportFormat string

// The export formats.
const (
	// ExportCSV is RFC 4180 CSV: a header row of the attributes' names,
	// then one row per record (see Records.Export for the cells).
	ExportCSV ExportFormat = "csv"
	// ExportJSON is one JSON array of the records.
	ExportJSON ExportFormat = "json"
	// ExportNDJSON is one JSON record per line.
	ExportNDJSON ExportFormat = "ndjson"
)

// ContentType is the format's media type.
func (f ExportFormat) ContentType() string {
	switch f {
	case ExportCSV:
		return "text/csv; charset=utf-8"
	case ExportNDJSON:
		return "application/x-ndjson"
	}
	return "application/json"
}

// ParseExportFormat reads a format parameter: csv, json or ndjson; empty
// is csv. Anything else is a *QueryError naming format.
func ParseExportFormat(s string) (ExportFormat, error) {
	switch f := ExportFormat(s); f {
	case "":
		return ExportCSV, nil
	case ExportCSV, ExportJSON, ExportNDJSON:
		return f, nil
	}
	return "", &QueryError{Param: "format", Message: "must be csv, json or ndjson"}
}

// exportParams are the list parameters an export takes: the query's
// filter, search and sort. The rest of a list's (page, pageSize, limit,
// ids) are a 400: an export is every match.
var exportParams = map[string]bool{"filter": true, "search": true, "sort": true, "sortBy": true, "sortDirection": true, "format": true}

// Export writes every record of the actor's team that list query params
// selects (filter, search and sort apply; format is read by the caller)
// to w in format, as the rows are read: memory does not grow with the
// number of records. A bad parameter, page, pageSize, limit and ids
// included, is a *QueryError naming it, and nothing is written.
//
// CSV has a header row of the collection's attribute names (Attributes:
// id, teamId, owner, the fields, managed and metadata attributes), then a
// row per record: null is an empty cell, dates RFC 3339 in UTC, numbers
// and booleans as in JSON, JSON values (objects, arrays) as compact JSON,
// text as it is, except that a text cell a spreadsheet would run as a
// formula (its first character, after any apostrophes, is =, +, -, @, a
// tab or a carriage return) gets an apostrophe in front; the import
// removes it again (see Records.Import).
//
// An error after the first bytes were written leaves w with a partial
// export: a caller serving HTTP must end the response abnormally.
func (r *Records) Export(ctx context.Context, a Actor, params url.Values, format ExportFormat, w io.Writer) error {
	c, err := r.open(a)
	if err != nil {
		return err
	}
	for name := range params {
		if !exportParams[name] {
			return &QueryError{Param: name, Message: "does not apply to an export, which holds every match (filter, search and sort do)"}
		}
	}
	q, err := c.ParseListQuery(params, r.k.limits)
	if err != nil {
		return err
	}
	var enc recordEncoder
	switch format {
	case ExportCSV:
		enc = newCSVEncoder(c, w)
	case ExportJSON, ExportNDJSON:
		enc = newJSONEncoder(w, format == ExportJSON)
	default:
		return &QueryError{Param: "format", Message: "must be csv, json or ndjson"}
	}
	if err := enc.start(); err != nil {
		return err
	}
	if err := r.k.store.Each(ctx, c, a.TeamID, q, enc.record); err != nil {
		return err
	}
	return enc.end()
}

// recordEncoder writes an export's records.
type recordEncoder interface {
	start() error
	record(Record) error
	end() error
}

// csvEncoder writes CSV through encoding/csv.
type csvEncoder struct {
	w     *csv.Writer
	attrs []*collections.Attribute
	row   []string
	n     int
}

func newCSVEncoder(c *collections.Collection, w io.Writer) *csvEncoder {
	attrs := c.Attributes()
	return &csvEncoder{w: csv.NewWriter(w), attrs: attrs, row: make([]string, len(attrs))}
}

func (e *csvEncoder) start() error {
	for i, a := range e.attrs {
		e.row[i] = a.Name
	}
	return e.w.Write(e.row)
}

func (e *csvEncoder) record(rec Record) error {
	for i, a := range e.attrs {
		cell, err := csvCell(rec[a.Name])
		if err != nil {
			return fmt.Errorf("kit: export %s of %v: %w", a.Name, rec["id"], err)
		}
		e.row[i] = cell
	}
	if err := e.w.Write(e.row); err != nil {
		return err
	}
	// Flush now and then: encoding/csv buffers 4 KiB by itself.
	if e.n++; e.n%256 == 0 {
		e.w.Flush()
		return e.w.Error()
	}
	return nil
}

func (e *csvEncoder) end() error {
	e.w.Flush()
	return e.w.Error()
}

// csvCell is a value's CSV cell (see Records.Export).
func csvCell(v any) (string, error) {
	switch v := v.(type) {
	case nil:
		return "", nil
	case string:
		return escapeFormula(v), nil
	case time.Time:
		return v.UTC().Format(time.RFC3339Nano), nil
	case bool:
		return strconv.FormatBool(v), nil
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64), nil
	case int64:
		return strconv.FormatInt(v, 10), nil
	case int:
		return strconv.Itoa(v), nil
	case json.Number:
		return v.String(), nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return escapeFormula(string(raw)), nil
}

// formulaStart reports whether s would start a formula in a spreadsheet
// once its leading apostrophes are removed: its first other character is
// =, +, -, @, a tab or a carriage return. Exactly those strings are
// escaped on export (and unescaped on import), so that the two are
// inverses.
func formulaStart(s string) bool {
	s = strings.TrimLeft(s, "'")
	return s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0]))
}

// escapeFormula puts an apostrophe in front of a cell a spreadsheet would
// run as a formula (OWASP's CSV injection advice).
func escapeFormula(s string) string {
	if formulaStart(s) {
		return "'" + s
	}
	return s
}

// unescapeFormula undoes escapeFormula: an apostrophe in front of a
// formula start is removed.
func unescapeFormula(s string) string {
	if strings.HasPrefix(s, "'") && formulaStart(s) {
		return s[1:]
	}
	return s
}

// jsonEncoder writes a JSON array (array true) or NDJSON.
type jsonEncoder struct {
	w     *bufio.Writer
	enc   *json.Encoder
	array bool
	n     int
}

func newJSONEncoder(w io.Writer, array bool) *jsonEncoder {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	return &jsonEncoder{w: bw, enc: enc, array: array}
}

func (e *jsonEncoder) start() error {
	if e.array {
		_, err := e.w.WriteString("[")
		return err
	}
	return nil
}

func (e *jsonEncoder) record(rec Record) error {
	if e.array && e.n > 0 {
		if _, err := e.w.WriteString(","); err != nil {
			return err
		}
	}
	e.n++
	// Encode ends each record with a newline: NDJSON's separator, and
	// white space between an array's elements.
	return e.enc.Encode(rec)
}

func (e *jsonEncoder) end() error {
	if e.array {
		if _, err := e.w.WriteString("]\n"); err != nil {
			return err
		}
	}
	return e.w.Flush()
}
