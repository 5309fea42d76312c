package collections

import (
	"errors"
	"fmt"
)

// The errors of storing records under a collection's schema rules: a
// unique field's value taken, a reference to nothing, a stored table that
// no longer matches its definition. They are schema rules, so they live
// with the schema; the storage layer returns them and kit re-exports them.

// ErrSchemaDrift is matched by every *DriftError: a stored collection
// table no longer matches its definition in a way schema sync will not fix
// by itself (a field was removed or changed its type, or its stored values
// stand against a new setting of the field).
var ErrSchemaDrift = errors.New("schema drift")

// DriftError reports a schema drift (errors.Is ErrSchemaDrift): the stored
// table of Collection still has a column for Field of type OldType, and the
// definition now wants NewType, or no such field at all.
type DriftError struct {
	// Collection is the collection's registry key (shopProducts).
	Collection string
	// Field is the field's name in the schema (or the column's, for a
	// column kit did not record).
	Field string
	// OldType is the stored column's type label.
	OldType string
	// NewType is the definition's type label; "" when the field was
	// removed from the schema.
	NewType string
	// Setting, when not empty, names a field setting that the stored rows
	// stand against ("meta.uniqueIgnoreCase"); the field's type did not
	// change (OldType and NewType are equal), and Conflict shows some of
	// the stored values in the way.
	Setting string
	// Conflict is a sample of the stored values that keep Setting from
	// being applied, quoted and comma-separated.
	Conflict string
}

// Error names collection, field and types (or the setting and the values
// in its way) and says how to proceed.
func (e *DriftError) Error() string {
	if e.Setting != "" {
		return fmt.Sprintf("schema drift: %s.%s (%s) cannot take %s: stored values collide under it (%s); make them distinct, then sync again", e.Collection, e.Field, e.NewType, e.Setting, e.Conflict)
	}
	if e.NewType == "" {
		return fmt.Sprintf("schema drift: %s.%s (%s) was removed from the schema but its column is still in the table; restore the field or allow destructive changes (which drop the column and its data)", e.Collection, e.Field, e.OldType)
	}
	return fmt.Sprintf("schema drift: %s.%s changed type from %s to %s; migrate the data or allow destructive changes", e.Collection, e.Field, e.OldType, e.NewType)
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
