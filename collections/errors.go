package collections

import "errors"

// Sentinel errors callers branch on with errors.Is.
var (
	// ErrInvalidSchema is matched by every *LoadError.
	ErrInvalidSchema = errors.New("collections: invalid schema")
	// ErrValidation is matched by every *ValidationError.
	ErrValidation = errors.New("collections: invalid body")
	// ErrBadQuery is matched by every *QueryError.
	ErrBadQuery = errors.New("collections: invalid query")
)
