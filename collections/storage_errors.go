package collections

import (
	"errors"
	"fmt"
	"strings"
)

// The errors of storing records under a collection's schema rules: a
// unique field's value taken, a reference to nothing, a stored table that
// no longer matches its definition. They are schema rules, so they live
// with the schema; the storage layer returns them and kit re-exports them.

// ErrSchemaDrift is matched by every *DriftError: a stored collection
// table no longer matches its definition in a way schema sync will not fix
// by itself (a field changed to a type its stored values cannot take, a
// rename names a column the table lacks, or stored values stand against a
// new setting of the field).
var ErrSchemaDrift = errors.New("schema drift")

// DriftError reports a schema drift (errors.Is ErrSchemaDrift): a change
// of Collection's Field that schema sync refuses, having changed nothing.
// Which change it is follows from the properties set:
//
//   - Setting: the stored values stand against a new setting of the field
//     (Conflict quotes some of them); OldType and NewType are equal.
//   - RenamedFrom: the field is renamed from a column the stored table
//     lacks, and it lacks the field's own column too.
//   - Rows > 0: the field changes type from OldType to NewType, and Rows
//     of the Total stored values cannot take the new type (Sample shows
//     some of them).
//   - otherwise: kit has no in-place conversion from OldType to NewType.
type DriftError struct {
	// Collection is the collection's registry key (shopProducts).
	Collection string
	// Field is the field's name in the schema (or the column's, for a
	// column kit did not record).
	Field string
	// OldType is the stored column's type label ("string", "integer",
	// "decimal(10,2)", ...).
	OldType string
	// NewType is the definition's type label.
	NewType string
	// Setting, when not empty, names a field setting that the stored rows
	// stand against ("meta.uniqueIgnoreCase"); the field's type did not
	// change (OldType and NewType are equal), and Conflict shows some of
	// the stored values in the way.
	Setting string
	// Conflict is a sample of the stored values that keep Setting from
	// being applied, quoted and comma-separated.
	Conflict string
	// RenamedFrom is the field's meta.renamedFrom when the rename cannot
	// be made: the table has no column of that name, nor one of the
	// field's.
	RenamedFrom string
	// Rows is how many stored values of the field cannot take NewType.
	Rows int
	// Total is how many non-null values the field has stored.
	Total int
	// Sample lists some of those values (at most five, by record id).
	Sample []DriftValue
}

// DriftValue is one stored value that a type change cannot take.
type DriftValue struct {
	// ID is the record's id.
	ID string `json:"id"`
	// Value is the stored value as the old type reads it, in JSON.
	Value string `json:"value"`
	// Problem is why the new type does not take it ("must be a date
	// (RFC 3339 like 2026-01-02T15:04:05Z, or YYYY-MM-DD)").
	Problem string `json:"problem"`
}

// Error names collection and field, says what cannot be done and why,
// and how to proceed.
func (e *DriftError) Error() string {
	switch {
	case e.Setting != "":
		return fmt.Sprintf("schema drift: %s.%s (%s) cannot take %s: stored values collide under it (%s); make them distinct, then sync again", e.Collection, e.Field, e.NewType, e.Setting, e.Conflict)
	case e.RenamedFrom != "":
		return fmt.Sprintf("schema drift: %s.%s is renamed from %s, but the stored table has neither a column for %s nor one for %s; correct or remove meta.renamedFrom", e.Collection, e.Field, e.RenamedFrom, e.RenamedFrom, e.Field)
	case e.Rows > 0:
		var b strings.Builder
		fmt.Fprintf(&b, "schema drift: %s.%s cannot change type from %s to %s: %d of %d stored values do not convert (", e.Collection, e.Field, e.OldType, e.NewType, e.Rows, e.Total)
		for i, v := range e.Sample {
			if i > 0 {
				b.WriteString("; ")
			}
			fmt.Fprintf(&b, "record %s: %s %s", v.ID, v.Value, v.Problem)
		}
		if len(e.Sample) < e.Rows {
			b.WriteString("; ...")
		}
		b.WriteString("); change or clear them, then sync again")
		return b.String()
	}
	return fmt.Sprintf("schema drift: %s.%s changed type from %s to %s, which kit cannot convert in place; keep the old type, or add a field of the new type, copy the values and remove the old field", e.Collection, e.Field, e.OldType, e.NewType)
}

// Unwrap returns ErrSchemaDrift, so errors.Is(err, ErrSchemaDrift) matches.
func (e *DriftError) Unwrap() error { return ErrSchemaDrift }

// ConstraintKind says which rule a write broke.
type ConstraintKind string

// The kinds of ConstraintError.
const (
	// ConstraintUnique: a unique field's value (or a record id) is taken
	// in the team. Answered with 409.
	ConstraintUnique ConstraintKind = "unique"
	// ConstraintReference: a reference field names no record of its
	// target collection in the team. Answered with 400.
	ConstraintReference ConstraintKind = "foreignKey"
	// ConstraintReferenced: a record cannot be deleted while records of
	// the team still reference it. Answered with 409; ReferencedBy names
	// the referencing collections and counts.
	ConstraintReferenced ConstraintKind = "referenced"
)

// Referrer counts the records of one collection that reference a record.
type Referrer struct {
	// Collection is the referencing collection's registry key.
	Collection string `json:"collection"`
	// Field is the reference field holding the record's id.
	Field string `json:"field"`
	// Count is the number of the team's records of Collection whose Field
	// holds the record's id.
	Count int `json:"count"`
}

// ConstraintError reports a write that breaks a unique or reference rule.
// The storage layer classifies driver errors into it by their codes, never
// by their text.
type ConstraintError struct {
	// Kind is the rule broken.
	Kind ConstraintKind
	// Field names the field at fault, when known ("" otherwise).
	Field string
	// Message is safe to show to the client.
	Message string
	// Err is the driver error, when the database raised it (nil when the
	// rule was checked before writing).
	Err error
	// ReferencedBy lists, for ConstraintReferenced, the collections whose
	// records still reference the record (nil when the database refused
	// the delete before they could be counted).
	ReferencedBy []Referrer
}

// Error returns Message.
func (e *ConstraintError) Error() string { return e.Message }

// HTTPStatus is 409 for ConstraintUnique and ConstraintReferenced, and 400
// for ConstraintReference.
func (e *ConstraintError) HTTPStatus() int {
	if e.Kind == ConstraintUnique || e.Kind == ConstraintReferenced {
		return 409
	}
	return 400
}

// ErrorData names the field and its message under "fields" (nil when no
// field is known); for ConstraintReferenced it is
// {"referencedBy": [{"collection", "field", "count"}, ...]}.
func (e *ConstraintError) ErrorData() any {
	if e.Kind == ConstraintReferenced {
		refs := e.ReferencedBy
		if refs == nil {
			refs = []Referrer{}
		}
		return map[string]any{"referencedBy": refs}
	}
	if e.Field == "" {
		return nil
	}
	return map[string]any{"fields": map[string]string{e.Field: e.Message}}
}

// Unwrap returns Err.
func (e *ConstraintError) Unwrap() error { return e.Err }
