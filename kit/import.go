package kit

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/store"
)

// RejectedRow is one reason a row of an import was refused: the input
// line it starts on (1 is a CSV's header, or a JSON array's opening line),
// the row (counted from 1, the header not counted), the field (empty for
// the row as a whole) and why.
type RejectedRow struct {
	Line   int    `json:"line"`
	Row    int    `json:"row"`
	Field  string `json:"field,omitempty"`
	Reason string `json:"reason"`
}

// ImportError is the 400 of an import that wrote nothing because rows (or
// the CSV header, row 0) were refused: Rejected lists every reason, in
// input order. Rows is how many rows the input held.
type ImportError struct {
	Rows     int
	Rejected []RejectedRow
}

func (e *ImportError) Error() string {
	rows := map[int]bool{}
	for _, r := range e.Rejected {
		rows[r.Row] = true
	}
	if rows[0] {
		return "the import was refused: " + e.Rejected[0].Reason + "; nothing was imported"
	}
	return fmt.Sprintf("the import was refused: %d of %d rows have errors; nothing was imported", len(rows), e.Rows)
}

// HTTPStatus is 400.
func (e *ImportError) HTTPStatus() int { return http.StatusBadRequest }

// ErrorData is {"rows": n, "rejected": [{line, row, field, reason}]}.
func (e *ImportError) ErrorData() any {
	return map[string]any{"rows": e.Rows, "rejected": e.Rejected}
}

// ImportResult is what an import wrote.
type ImportResult struct {
	// Imported is how many records were created.
	Imported int `json:"imported"`
	// CorrelationID is the correlation id of every create of the import
	// (audit events and change log alike).
	CorrelationID string `json:"correlationId"`
}

// importRow is one row of an import's input.
type importRow struct {
	line, row int
	data      map[string]any
}

// Import creates a record of the actor's team for every row of body, CSV,
// JSON (one array of objects) or NDJSON as format says, all of them or
// none: every row goes through the create's validation first, and when
// all pass, every create runs in one transaction (a batch: one
// correlation id; audit events and change log entries as for each create;
// OnMutation listeners after the commit), where references and unique
// values are checked. A row refused at either step refuses the import:
// the answer is an *ImportError (400) listing every reason with its line,
// row and field, and nothing is written.
//
// Records get new ids; the columns kit keeps (id, teamId, owner, the
// metadata and a tree's path, depth and order) are ignored, so an export
// imports as it is. A CSV's header names the columns: a column that is no
// field, a repeated or empty one, or a required field without a column is
// refused (row 0). Cells: empty is no value (the field's default
// applies), numbers and booleans as in JSON, json, array and repeater
// fields as JSON text, the rest as text, with the apostrophe the export
// puts in front of a formula removed. body is read whole first: bound it
// (the HTTP route applies Config.MaxImportBytes).
//
// On SQLite the transaction holds the write queue until it commits: other
// writes wait for the import.
func (r *Records) Import(ctx context.Context, a Actor, format ExportFormat, body io.Reader) (*ImportResult, error) {
	c, err := r.openForWrite(ctx, a)
	if err != nil {
		return nil, err
	}
	var rows []importRow
	switch format {
	case ExportCSV:
		rows, err = readCSVRows(c, body)
	case ExportJSON, ExportNDJSON:
		rows, err = readJSONRows(body, format == ExportNDJSON)
	default:
		return nil, &QueryError{Param: "format", Message: "must be csv, json or ndjson"}
	}
	if err != nil {
		return nil, err
	}
	imp := &ImportError{Rows: len(rows)}
	for _, row := range rows {
		if _, err := c.ValidateCreate(row.data); err != nil {
			if !imp.reject(row, err) {
				return nil, err
			}
		}
	}
	if len(imp.Rejected) > 0 {
		return nil, imp
	}
	info, _ := RequestInfoFrom(ctx)
	if info.CorrelationID == "" {
		info.CorrelationID = NewCorrelationID()
		ctx = WithRequestInfo(ctx, info)
	}
	err = r.k.Batch(ctx, a, func(b *Batch) error {
		for _, row := range rows {
			if err := r.importOne(b, c, row); err != nil && !imp.reject(row, err) {
				return err
			}
		}
		if len(imp.Rejected) > 0 {
			return imp
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &ImportResult{Imported: len(rows), CorrelationID: info.CorrelationID}, nil
}

// importOne creates row in batch b. The collection's only unique field is
// looked up first: its index would refuse a taken value with a failed
// statement, which ends a PostgreSQL transaction, and the import goes on
// to check the rows after it.
func (r *Records) importOne(b *Batch, c *collections.Collection, row importRow) error {
	if name := store.SoleUniqueField(c); name != "" {
		if v, ok := row.data[name]; ok && v != nil && v != "" {
			vals, err := c.ValidateCreate(row.data) // valid: the first pass said so
			if err != nil {
				return err
			}
			if nv, ok := vals[name]; ok && nv != nil {
				at, _ := c.Attribute(name)
				taken, err := r.k.store.Taken(b.ctx, b.tx, c, at, b.actor.TeamID, "", nv)
				if err != nil {
					return err
				}
				if taken {
					return &ConstraintError{Kind: ConstraintUnique, Field: name, Message: fmt.Sprintf("%s must be unique in the team; another record has this value", name)}
				}
			}
		}
	}
	_, err := r.Create(b.ctx, b.actor, row.data)
	return err
}

// reject adds the reasons of err, a refusal of row, and reports whether
// err was one (a *ValidationError or *ConstraintError); any other error
// ends the import as it is.
func (e *ImportError) reject(row importRow, err error) bool {
	var verr *ValidationError
	var cerr *ConstraintError
	switch {
	case errors.As(err, &verr):
		names := make([]string, 0, len(verr.Fields))
		for name := range verr.Fields {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			e.Rejected = append(e.Rejected, RejectedRow{Line: row.line, Row: row.row, Field: name, Reason: verr.Fields[name]})
		}
		return true
	case errors.As(err, &cerr):
		e.Rejected = append(e.Rejected, RejectedRow{Line: row.line, Row: row.row, Field: cerr.Field, Reason: cerr.Message})
		return true
	}
	return false
}

// importColumns maps a CSV header to the attributes its columns fill
// (nil for a column kit keeps and the import ignores); a bad header is an
// *ImportError of row 0.
func importColumns(c *collections.Collection, header []string) ([]*collections.Attribute, error) {
	bad := &ImportError{}
	reject := func(field, reason string) {
		bad.Rejected = append(bad.Rejected, RejectedRow{Line: 1, Field: field, Reason: reason})
	}
	cols := make([]*collections.Attribute, len(header))
	seen := map[string]bool{}
	for i, name := range header {
		if i == 0 {
			name = strings.TrimPrefix(name, "\ufeff") // a spreadsheet's byte order mark
		}
		at, ok := c.Attribute(name)
		switch {
		case name == "":
			reject("", fmt.Sprintf("column %d of the header is empty", i+1))
		case seen[name]:
			reject(name, "the header names this column twice")
		case !ok:
			reject(name, "unknown column: no field of "+c.Key()+" has this name")
		case at.Field != nil || at.Managed == collections.ManagedParent:
			cols[i] = at
		}
		seen[name] = true
	}
	for _, at := range c.Attributes() {
		if f := at.Field; f != nil && f.Meta.Required && f.Meta.Default == nil && !seen[at.Name] {
			reject(at.Name, "the header has no column for this required field")
		}
	}
	if len(bad.Rejected) > 0 {
		return nil, bad
	}
	return cols, nil
}

// readCSVRows reads a CSV import: a header, then the rows.
func readCSVRows(c *collections.Collection, body io.Reader) ([]importRow, error) {
	cr := csv.NewReader(body)
	cr.ReuseRecord = false
	header, err := cr.Read()
	if err == io.EOF {
		return nil, &ImportError{Rejected: []RejectedRow{{Line: 1, Reason: "the CSV is empty: it needs a header naming the fields"}}}
	}
	if err != nil {
		return nil, csvError(err)
	}
	cols, err := importColumns(c, header)
	if err != nil {
		return nil, err
	}
	var rows []importRow
	for n := 1; ; n++ {
		rec, err := cr.Read()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return nil, csvError(err)
		}
		line, _ := cr.FieldPos(0)
		data := make(map[string]any, len(cols))
		for i, at := range cols {
			if at == nil || rec[i] == "" {
				continue
			}
			data[at.Name] = csvValue(at, rec[i])
		}
		rows = append(rows, importRow{line: line, row: n, data: data})
	}
}

// csvError is the *ImportError of CSV that does not parse.
func csvError(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &ImportError{Rejected: []RejectedRow{{Line: pe.StartLine, Reason: "malformed CSV: " + pe.Err.Error()}}}
	}
	return err
}

// csvValue is the value of a CSV cell of attribute at (see Import).
func csvValue(at *collections.Attribute, cell string) any {
	switch {
	case at.Type == collections.TypeNumber:
		if _, err := strconv.ParseFloat(cell, 64); err == nil {
			return json.Number(cell)
		}
	case at.Type == collections.TypeBoolean:
		if b, err := strconv.ParseBool(cell); err == nil && (cell == "true" || cell == "false") {
			return b
		}
	case at.Type.IsStructured():
		dec := json.NewDecoder(strings.NewReader(unescapeFormula(cell)))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) == nil && !dec.More() {
			return v
		}
	default:
		return unescapeFormula(cell)
	}
	return cell // the validation names the field
}

// readJSONRows reads a JSON array of objects, or NDJSON (one object per
// line, blank lines skipped).
func readJSONRows(body io.Reader, ndjson bool) ([]importRow, error) {
	raw, err := io.ReadAll(body)
	if err != nil {
		return nil, err
	}
	lineAt := func(off int64) int { return 1 + bytes.Count(raw[:off], []byte("\n")) }
	malformed := func(off int64, err error) error {
		return &ImportError{Rejected: []RejectedRow{{Line: lineAt(off), Reason: "malformed JSON: " + err.Error()}}}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if !ndjson {
		tok, err := dec.Token()
		if err != nil || tok != json.Delim('[') {
			return nil, &ImportError{Rejected: []RejectedRow{{Line: 1, Reason: "the body must be a JSON array of objects"}}}
		}
	}
	var rows []importRow
	for n := 1; ; n++ {
		if !ndjson && !dec.More() {
			break
		}
		start := skipSpace(raw, dec.InputOffset())
		var v any
		err := dec.Decode(&v)
		if ndjson && err == io.EOF {
			break
		}
		if err != nil {
			return nil, malformed(start, err)
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, &ImportError{Rejected: []RejectedRow{{Line: lineAt(start), Row: n, Reason: "a row must be a JSON object"}}}
		}
		rows = append(rows, importRow{line: lineAt(start), row: n, data: obj})
	}
	if !ndjson {
		if _, err := dec.Token(); err != nil {
			return nil, malformed(dec.InputOffset(), err)
		}
		if _, err := dec.Token(); err != io.EOF {
			return nil, malformed(dec.InputOffset(), errors.New("data after the array"))
		}
	}
	return rows, nil
}

// skipSpace returns the offset of the first byte of raw at or after off
// that is no JSON white space or array comma.
func skipSpace(raw []byte, off int64) int64 {
	for off < int64(len(raw)) && strings.IndexByte(" \t\r\n,", raw[off]) >= 0 {
		off++
	}
	return off
}
