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
		{"a type change kit cannot make names both types and the way out",
			&collections.DriftError{Collection: "shopProducts", Field: "specs", OldType: "string", NewType: "json"},
			"schema drift: shopProducts.specs changed type from string to json, which kit cannot convert in place; keep the old type, or add a field of the new type, copy the values and remove the old field"},
		{"a type change the stored values cannot take counts and samples them",
			&collections.DriftError{Collection: "shopProducts", Field: "releasedAt", OldType: "string", NewType: "date", Rows: 7, Total: 9,
				Sample: []collections.DriftValue{{ID: "r1", Value: `"soon"`, Problem: "must be a date"}, {ID: "r2", Value: `"later"`, Problem: "must be a date"}}},
			`schema drift: shopProducts.releasedAt cannot change type from string to date: 7 of 9 stored values do not convert (record r1: "soon" must be a date; record r2: "later" must be a date; ...); change or clear them, then sync again`},
		{"a rename of a missing column names both names",
			&collections.DriftError{Collection: "shopProducts", Field: "code", NewType: "string", RenamedFrom: "skuu"},
			"schema drift: shopProducts.code is renamed from skuu, but the stored table has neither a column for skuu nor one for code; correct or remove meta.renamedFrom"},
		{"stored values against a setting quote them",
			&collections.DriftError{Collection: "shopProducts", Field: "sku", OldType: "string", NewType: "string", Setting: "meta.uniqueIgnoreCase", Conflict: `"A", "a"`},
			`schema drift: shopProducts.sku (string) cannot take meta.uniqueIgnoreCase: stored values collide under it ("A", "a"); make them distinct, then sync again`},
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
