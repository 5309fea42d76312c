package collections_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/collectionkit/kit/collections"
)

func TestConstraintErrorStatusAndData(t *testing.T) {
	driver := errors.New("UNIQUE constraint failed")
	tests := []struct {
		name     string
		err      *collections.ConstraintError
		status   int
		data     string
		isDriver bool
	}{
		{"a unique violation naming its field is a 409 with the field's message",
			&collections.ConstraintError{Kind: collections.ConstraintUnique, Field: "sku", Message: "sku must be unique", Err: driver},
			409, `{"fields":{"sku":"sku must be unique"}}`, true},
		{"a broken reference without a field is a 400 without data",
			&collections.ConstraintError{Kind: collections.ConstraintReference, Message: "refers to no record"},
			400, `null`, false},
		{"a delete of a referenced record is a 409 naming the referencing collections and counts",
			&collections.ConstraintError{Kind: collections.ConstraintReferenced, Message: "still referenced",
				ReferencedBy: []collections.Referrer{{Collection: "shopProducts", Field: "categoryId", Count: 3}}},
			409, `{"referencedBy":[{"collection":"shopProducts","field":"categoryId","count":3}]}`, false},
		{"a referenced delete the database refused before counting still answers a list",
			&collections.ConstraintError{Kind: collections.ConstraintReferenced, Message: "still referenced", Err: driver},
			409, `{"referencedBy":[]}`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.err.HTTPStatus(); got != tc.status {
				t.Errorf("HTTPStatus: got %d, want %d", got, tc.status)
			}
			data, _ := json.Marshal(tc.err.ErrorData())
			if string(data) != tc.data {
				t.Errorf("ErrorData: got %s, want %s", data, tc.data)
			}
			if got := errors.Is(tc.err, driver); got != tc.isDriver {
				t.Errorf("errors.Is(driver error): got %v, want %v", got, tc.isDriver)
			}
			var ce *collections.ConstraintError
			if !errors.As(fmt.Errorf("wrapped: %w", tc.err), &ce) || ce.Kind != tc.err.Kind {
				t.Errorf("errors.As through a wrap: got %v, want kind %q", ce, tc.err.Kind)
			}
		})
	}
}

func TestDriftErrorNamesTheChange(t *testing.T) {
	tests := []struct {
		name string
		err  *collections.DriftError
		want string
	}{
		{"a changed type names both types",
			&collections.DriftError{Collection: "shopProducts", Field: "price", OldType: "double", NewType: "decimal(10,2)"},
			"schema drift: shopProducts.price changed type from double to decimal(10,2); migrate the data or allow destructive changes"},
		{"a removed field names its old type",
			&collections.DriftError{Collection: "shopProducts", Field: "color", OldType: "text"},
			"schema drift: shopProducts.color (text) was removed from the schema but its column is still in the table; restore the field or allow destructive changes (which drop the column and its data)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.err.Error(); got != tc.want {
				t.Errorf("Error: got %q, want %q", got, tc.want)
			}
			if !errors.Is(fmt.Errorf("sync: %w", tc.err), collections.ErrSchemaDrift) {
				t.Errorf("errors.Is(ErrSchemaDrift): got false, want true")
			}
		})
	}
}
