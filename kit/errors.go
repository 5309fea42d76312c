package kit

import (
	"errors"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/apierror"
	"github.com/collectionkit/kit/internal/store"
)

// Errors callers branch on with errors.Is. Each carries its HTTP status,
// which the handler answers with.
var (
	// ErrNotFound: no such record in the actor's team (404). A record of
	// another team answers exactly like a missing one, on purpose.
	ErrNotFound error = store.ErrNotFound
	// ErrUnknownCollection: no collection is registered under the key (404).
	ErrUnknownCollection error = apierror.New(404, "collection not found")
	// ErrForbidden: the actor may not do this (403): for example a member
	// changing another member's record of the team, which the member can
	// read. Refusals carry a message of their own and match ErrForbidden
	// with errors.Is.
	ErrForbidden error = apierror.New(403, "forbidden")
	// ErrSchemaDrift: a stored table no longer matches its collection; the
	// error is a *DriftError naming collection, field, old and new type.
	ErrSchemaDrift = collections.ErrSchemaDrift
	// ErrInvalidSchema: schema files or definitions have errors; the error
	// is a *collections.LoadError listing all of them.
	ErrInvalidSchema = collections.ErrInvalidSchema
	// ErrBusy: an expensive list (see Config.SearchScans) found every
	// scan slot taken and Config.ScanQueue lists already waiting (503,
	// with a Retry-After header); nothing was read.
	ErrBusy = store.ErrBusy
	// ErrClosed: the Kit was closed.
	ErrClosed error = apierror.New(503, "kit is closed")
)

// ValidationError reports a body that does not fit the collection, with a
// message per field (400).
type ValidationError = collections.ValidationError

// QueryError reports a bad list parameter, naming it (400).
type QueryError = collections.QueryError

// ConstraintError reports a unique violation (409, naming the field), a
// broken reference (400) or a delete of a record still referenced (409,
// naming the referencing collections and counts); its Kind is a [collections.ConstraintKind]
// ([ConstraintUnique], [ConstraintReference], [ConstraintReferenced]).
type ConstraintError = collections.ConstraintError

// ConstraintKind says which rule a *ConstraintError broke.
type ConstraintKind = collections.ConstraintKind

// The kinds of ConstraintError.
const (
	// ConstraintUnique: a unique value is taken in the team (409).
	ConstraintUnique = collections.ConstraintUnique
	// ConstraintReference: a reference names no record of the team (400).
	ConstraintReference = collections.ConstraintReference
	// ConstraintReferenced: a deleted record is still referenced by the
	// team's records (409); ReferencedBy names who and how many.
	ConstraintReferenced = collections.ConstraintReferenced
)

// DriftError names the collection, field and types of a schema drift
// (errors.Is ErrSchemaDrift), and for a type change the stored values do
// not take, how many and some of them.
type DriftError = collections.DriftError

// DriftValue is one stored value a type change cannot take (see
// DriftError.Sample).
type DriftValue = collections.DriftValue

// Error is an error with an HTTP status and a public message, for host
// code and add-ons that answer through kit's error shape.
type Error struct {
	// Status is the HTTP status (4xx or 5xx).
	Status int
	// Message is shown to the client for 4xx statuses.
	Message string
	// Data is added to the response's "data" member.
	Data any
	// Err is the internal cause, logged but never shown.
	Err error
}

// Error returns the public message.
func (e *Error) Error() string { return e.Message }

// HTTPStatus returns Status.
func (e *Error) HTTPStatus() int { return e.Status }

// ErrorData returns Data.
func (e *Error) ErrorData() any { return e.Data }

// Unwrap returns the internal cause.
func (e *Error) Unwrap() error { return e.Err }

// StatusOf returns the HTTP status err answers with: the status of the
// first error in its chain that carries one, else 500.
func StatusOf(err error) int {
	var sc interface{ HTTPStatus() int }
	if errors.As(err, &sc) {
		return sc.HTTPStatus()
	}
	return 500
}
