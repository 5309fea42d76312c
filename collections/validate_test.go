package collections

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// validationError returns the *ValidationError err must be.
func validationError(t testing.TB, err error) *ValidationError {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want a *ValidationError")
	}
	if !errors.Is(err, ErrValidation) {
		t.Errorf("errors.Is(err, ErrValidation): got false, want true (%v)", err)
	}
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("got %T (%v), want *ValidationError", err, err)
	}
	return ve
}

// requireFieldErrors checks that err names exactly the fields of want,
// each with a message containing the wanted text.
func requireFieldErrors(t testing.TB, err error, want map[string]string) {
	t.Helper()
	ve := validationError(t, err)
	for field, msg := range want {
		got, ok := ve.Fields[field]
		if !ok {
			t.Errorf("field %q: got no message, want one containing %q (all: %v)", field, msg, ve.Fields)
			continue
		}
		if !strings.Contains(got, msg) {
			t.Errorf("field %q: got %q, want it to contain %q", field, got, msg)
		}
	}
	for field, got := range ve.Fields {
		if _, ok := want[field]; !ok {
			t.Errorf("field %q: got %q, want no message", field, got)
		}
	}
}

func TestValidateCreate(t *testing.T) {
	c := shopProducts(t)

	t.Run("defaults fill the fields the body leaves out", func(t *testing.T) {
		got, err := c.ValidateCreate(map[string]any{"title": "Lamp"})
		if err != nil {
			t.Fatalf("got %v, want nil", err)
		}
		wantRecord := map[string]any{"title": "Lamp", "stock": 0.0, "price": "9.90", "isActive": true}
		if !reflect.DeepEqual(got, wantRecord) {
			t.Errorf("got %#v, want %#v", got, wantRecord)
		}
	})

	t.Run("a value in the body wins over the default", func(t *testing.T) {
		got, err := c.ValidateCreate(map[string]any{"title": "Lamp", "stock": 3, "isActive": false, "price": nil})
		if err != nil {
			t.Fatalf("got %v, want nil", err)
		}
		wantRecord := map[string]any{"title": "Lamp", "stock": 3.0, "price": nil, "isActive": false}
		if !reflect.DeepEqual(got, wantRecord) {
			t.Errorf("got %#v, want %#v", got, wantRecord)
		}
	})

	t.Run("every value comes back canonical", func(t *testing.T) {
		body := map[string]any{
			"title":       "Lamp",
			"description": "A lamp",
			"stock":       json.Number("2.5"),
			"price":       "0012.5",
			"isActive":    true,
			"publishedAt": "2026-01-02T15:04:05.123456789+02:00",
			"details":     map[string]any{"watts": json.Number("40"), "tags": []any{"a", nil, true}},
			"variants":    []any{map[string]any{"color": "red"}},
			"tags":        []any{"a", json.Number("1")},
			"image":       "https://example.com/a.png",
			"manual":      "files/manual.pdf",
			"categoryId":  "cat-1",
		}
		got, err := c.ValidateCreate(body)
		if err != nil {
			t.Fatalf("got %v, want nil", err)
		}
		wantRecord := map[string]any{
			"title":       "Lamp",
			"description": "A lamp",
			"stock":       2.5,
			"price":       "12.50",
			"isActive":    true,
			"publishedAt": time.Date(2026, 1, 2, 13, 4, 5, 123456000, time.UTC),
			"details":     map[string]any{"watts": 40.0, "tags": []any{"a", nil, true}},
			"variants":    []any{map[string]any{"color": "red"}},
			"tags":        []any{"a", 1.0},
			"image":       "https://example.com/a.png",
			"manual":      "files/manual.pdf",
			"categoryId":  "cat-1",
		}
		if !reflect.DeepEqual(got, wantRecord) {
			t.Errorf("got  %#v\nwant %#v", got, wantRecord)
		}
	})

	t.Run("an empty reference is stored as null", func(t *testing.T) {
		got, err := c.ValidateCreate(map[string]any{"title": "Lamp", "categoryId": ""})
		if err != nil {
			t.Fatalf("got %v, want nil", err)
		}
		if v, ok := got["categoryId"]; !ok || v != nil {
			t.Errorf("categoryId: got %#v, %v, want nil, true", v, ok)
		}
	})

	t.Run("auto-generated fields in the body are ignored", func(t *testing.T) {
		body := map[string]any{"title": "Lamp", "id": "x", "teamId": "other-team", "owner": 5,
			"createdAt": "garbage", "updatedAt": nil, "createdBy": "u", "updatedBy": []any{}}
		got, err := c.ValidateCreate(body)
		if err != nil {
			t.Fatalf("got %v, want nil", err)
		}
		for _, name := range []string{"id", "teamId", "owner", "createdAt", "updatedAt", "createdBy", "updatedBy"} {
			if v, ok := got[name]; ok {
				t.Errorf("%s: got %#v, want it dropped", name, v)
			}
		}
	})

	t.Run("the body is not changed", func(t *testing.T) {
		body := map[string]any{"title": "Lamp", "id": "x"}
		if _, err := c.ValidateCreate(body); err != nil {
			t.Fatal(err)
		}
		if want := map[string]any{"title": "Lamp", "id": "x"}; !reflect.DeepEqual(body, want) {
			t.Errorf("body after ValidateCreate: got %v, want %v", body, want)
		}
	})

	t.Run("the stored default is a copy", func(t *testing.T) {
		reg, _, err := Build([]Definition{{Name: "notes", Fields: []Field{
			{Name: "labels", Type: TypeArray, Meta: FieldMeta{Default: []any{"new"}}},
		}}}, LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		notes := mustGet(t, reg, "appNotes")
		first, _ := notes.ValidateCreate(map[string]any{})
		first["labels"].([]any)[0] = "changed"
		second, _ := notes.ValidateCreate(map[string]any{})
		if got := second["labels"].([]any)[0]; got != "new" {
			t.Errorf("default after changing a record: got %v, want new", got)
		}
	})

	tests := []struct {
		name string
		body map[string]any
		want map[string]string
	}{
		{"a missing required field is an error", map[string]any{}, map[string]string{"title": "is required"}},
		{"a null required field is an error", map[string]any{"title": nil}, map[string]string{"title": "is required"}},
		{"an empty required field is an error", map[string]any{"title": ""}, map[string]string{"title": "is required"}},
		{"unknown fields are errors, one message each", map[string]any{"title": "t", "colour": "red", "sku": 1},
			map[string]string{"colour": "unknown field", "sku": "unknown field"}},
		{"a NUL byte in a string is an error", map[string]any{"title": "a\x00b"}, map[string]string{"title": "must not contain NUL bytes"}},
		{"invalid UTF-8 in a string is an error", map[string]any{"title": "caf\xe9"}, map[string]string{"title": "must be valid UTF-8 text"}},
		{"a NUL byte in a text is an error", map[string]any{"title": "t", "description": "\x00"}, map[string]string{"description": "must not contain NUL bytes"}},
		{"a NUL byte inside a json value is an error", map[string]any{"title": "t", "details": map[string]any{"a": []any{"ok", "b\x00"}}},
			map[string]string{"details": "must not contain NUL bytes"}},
		{"a NUL byte in a json key is an error", map[string]any{"title": "t", "details": map[string]any{"a\x00": 1}},
			map[string]string{"details": "must not contain NUL bytes"}},
		{"a NUL byte inside a repeater is an error", map[string]any{"title": "t", "variants": []any{map[string]any{"color": "\x00"}}},
			map[string]string{"variants": "must not contain NUL bytes"}},
		{"a NUL byte inside an array is an error", map[string]any{"title": "t", "tags": []any{"\x00"}}, map[string]string{"tags": "must not contain NUL bytes"}},
		{"a number for a string is an error", map[string]any{"title": 5}, map[string]string{"title": "must be a string"}},
		{"a boolean for a text is an error", map[string]any{"title": "t", "description": true}, map[string]string{"description": "must be a string"}},
		{"a string for a number is an error", map[string]any{"title": "t", "stock": "5"}, map[string]string{"stock": "must be a number"}},
		{"a boolean for a decimal is an error", map[string]any{"title": "t", "price": true}, map[string]string{"price": `must be a decimal number like "12.34" (precision 10, scale 2)`}},
		{"a word for a decimal is an error", map[string]any{"title": "t", "price": "ten"}, map[string]string{"price": "must be a decimal number"}},
		{"an exponent in a decimal is an error", map[string]any{"title": "t", "price": "1e3"}, map[string]string{"price": "must be a decimal number"}},
		{"too many fraction digits in a decimal are an error", map[string]any{"title": "t", "price": "1.234"}, map[string]string{"price": "at most 2 digit(s) after the point"}},
		{"too many integer digits in a decimal are an error", map[string]any{"title": "t", "price": "123456789"}, map[string]string{"price": "at most 8 digit(s) before the point"}},
		{"a string for a boolean is an error", map[string]any{"title": "t", "isActive": "true"}, map[string]string{"isActive": "must be true or false"}},
		{"a number for a date is an error", map[string]any{"title": "t", "publishedAt": 20260102}, map[string]string{"publishedAt": "must be a date"}},
		{"a garbage date is an error", map[string]any{"title": "t", "publishedAt": "next tuesday"}, map[string]string{"publishedAt": "must be a date"}},
		{"an object for a repeater is an error", map[string]any{"title": "t", "variants": map[string]any{}}, map[string]string{"variants": "must be an array of objects"}},
		{"a repeater of numbers is an error", map[string]any{"title": "t", "variants": []any{1}}, map[string]string{"variants": "must be an array of objects"}},
		{"a string for an array is an error", map[string]any{"title": "t", "tags": "a,b"}, map[string]string{"tags": "must be an array"}},
		{"a number for an image is an error", map[string]any{"title": "t", "image": 1}, map[string]string{"image": "must be a string"}},
		{"an object for a file is an error", map[string]any{"title": "t", "manual": map[string]any{}}, map[string]string{"manual": "must be a string"}},
		{"a number for a reference is an error", map[string]any{"title": "t", "categoryId": 7}, map[string]string{"categoryId": "must be a string"}},
		{"a NaN for a number is an error", map[string]any{"title": "t", "stock": nan()}, map[string]string{"stock": "must be a number"}},
		{"every bad field is reported at once", map[string]any{"stock": "x", "isActive": 1, "colour": "red"},
			map[string]string{"title": "is required", "stock": "must be a number", "isActive": "must be true or false", "colour": "unknown field"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := c.ValidateCreate(tc.body)
			if got != nil {
				t.Errorf("record: got %v, want nil", got)
			}
			requireFieldErrors(t, err, tc.want)
		})
	}

	t.Run("a json field takes any JSON value", func(t *testing.T) {
		for _, v := range []any{json.Number("5"), "text", true, nil, []any{1.0}, map[string]any{}} {
			got, err := c.ValidateCreate(map[string]any{"title": "t", "details": v})
			if err != nil {
				t.Errorf("details %#v: got %v, want nil", v, err)
				continue
			}
			wantValue, _ := checkJSON(v)
			if !reflect.DeepEqual(got["details"], wantValue) {
				t.Errorf("details %#v: got %#v, want %#v", v, got["details"], wantValue)
			}
		}
	})
}

func nan() float64 {
	zero := 0.0
	return zero / zero
}

func TestValidateCreateAcceptsGoValues(t *testing.T) {
	c := shopProducts(t)
	body := map[string]any{
		"title":       "Lamp",
		"stock":       uint8(7),
		"price":       int64(12),
		"publishedAt": time.Date(2026, 1, 2, 15, 4, 5, 999, time.FixedZone("x", 3600)),
		"details":     map[string]int{"watts": 40},
		"variants":    []map[string]string{{"color": "red"}},
		"tags":        []string{"a", "b"},
	}
	got, err := c.ValidateCreate(body)
	if err != nil {
		t.Fatalf("got %v, want nil", err)
	}
	wantRecord := map[string]any{
		"title":       "Lamp",
		"stock":       7.0,
		"price":       "12.00",
		"isActive":    true,
		"publishedAt": time.Date(2026, 1, 2, 14, 4, 5, 0, time.UTC),
		"details":     map[string]any{"watts": 40.0},
		"variants":    []any{map[string]any{"color": "red"}},
		"tags":        []any{"a", "b"},
	}
	if !reflect.DeepEqual(got, wantRecord) {
		t.Errorf("got  %#v\nwant %#v", got, wantRecord)
	}
	t.Run("a Go value of the wrong shape is still an error", func(t *testing.T) {
		_, err := c.ValidateCreate(map[string]any{"title": "t", "variants": []string{"a"}, "tags": map[string]int{}})
		requireFieldErrors(t, err, map[string]string{"variants": "must be an array of objects", "tags": "must be an array"})
	})
}

func TestValidateUpdate(t *testing.T) {
	c := shopProducts(t)

	t.Run("only the fields present are checked and returned", func(t *testing.T) {
		got, err := c.ValidateUpdate(map[string]any{"stock": 5, "price": "1"})
		if err != nil {
			t.Fatalf("got %v, want nil", err)
		}
		if wantRecord := map[string]any{"stock": 5.0, "price": "1.00"}; !reflect.DeepEqual(got, wantRecord) {
			t.Errorf("got %#v, want %#v", got, wantRecord)
		}
	})
	t.Run("an empty update is fine", func(t *testing.T) {
		got, err := c.ValidateUpdate(map[string]any{})
		if err != nil || len(got) != 0 {
			t.Errorf("got %v, %v, want an empty record and nil", got, err)
		}
	})
	t.Run("an optional field may be cleared", func(t *testing.T) {
		got, err := c.ValidateUpdate(map[string]any{"description": nil, "publishedAt": nil, "details": nil})
		if err != nil {
			t.Fatalf("got %v, want nil", err)
		}
		if wantRecord := map[string]any{"description": nil, "publishedAt": nil, "details": nil}; !reflect.DeepEqual(got, wantRecord) {
			t.Errorf("got %#v, want %#v", got, wantRecord)
		}
	})
	t.Run("auto-generated fields are ignored", func(t *testing.T) {
		got, err := c.ValidateUpdate(map[string]any{"id": "other", "owner": "me", "stock": 1})
		if err != nil {
			t.Fatalf("got %v, want nil", err)
		}
		if wantRecord := map[string]any{"stock": 1.0}; !reflect.DeepEqual(got, wantRecord) {
			t.Errorf("got %#v, want %#v", got, wantRecord)
		}
	})

	tests := []struct {
		name string
		body map[string]any
		want map[string]string
	}{
		{"clearing a required field with null is an error", map[string]any{"title": nil}, map[string]string{"title": "is required"}},
		{"clearing a required field with an empty string is an error", map[string]any{"title": ""}, map[string]string{"title": "is required"}},
		{"an unknown field is an error", map[string]any{"colour": "red"}, map[string]string{"colour": "unknown field"}},
		{"a wrong type is an error", map[string]any{"isActive": "no"}, map[string]string{"isActive": "must be true or false"}},
		{"a NUL byte is an error", map[string]any{"title": "\x00"}, map[string]string{"title": "must not contain NUL bytes"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.ValidateUpdate(tc.body)
			requireFieldErrors(t, err, tc.want)
		})
	}

	t.Run("clearing a required field of any type is an error", func(t *testing.T) {
		reg, _, err := Build([]Definition{{Name: "invoices", Fields: []Field{
			{Name: "total", Type: TypeDecimal, Meta: FieldMeta{Required: true, Precision: 8, Scale: 2}},
			{Name: "count", Type: TypeNumber, Meta: FieldMeta{Required: true}},
			{Name: "issuedAt", Type: TypeDate, Meta: FieldMeta{Required: true}},
			{Name: "customerId", Type: TypeString, RefTarget: "invoices", Meta: FieldMeta{Required: true}},
		}}}, LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		invoices := mustGet(t, reg, "appInvoices")
		for _, v := range []any{nil, ""} {
			_, err := invoices.ValidateUpdate(map[string]any{"total": v, "count": v, "issuedAt": v, "customerId": v})
			requireFieldErrors(t, err, map[string]string{"total": "is required", "count": "is required", "issuedAt": "is required", "customerId": "is required"})
		}
	})
}

func TestValidationError(t *testing.T) {
	c := shopProducts(t)
	_, err := c.ValidateCreate(map[string]any{"title": "t", "sku": 1, "colour": "red"})
	ve := validationError(t, err)
	if got, wantText := ve.Error(), "invalid body: colour: unknown field; sku: unknown field"; got != wantText {
		t.Errorf("Error: got %q, want %q", got, wantText)
	}
	if got := ve.HTTPStatus(); got != 400 {
		t.Errorf("HTTPStatus: got %d, want 400", got)
	}
	wantData := map[string]any{"fields": map[string]string{"sku": "unknown field", "colour": "unknown field"}}
	if got := ve.ErrorData(); !reflect.DeepEqual(got, wantData) {
		t.Errorf("ErrorData: got %#v, want %#v", got, wantData)
	}
}

func TestJSONSchema(t *testing.T) {
	c := shopProducts(t)
	doc := c.JSONSchema()
	props, _ := doc["properties"].(map[string]any)

	t.Run("the document describes the record", func(t *testing.T) {
		top := map[string]any{
			"$schema":              "https://json-schema.org/draft/2020-12/schema",
			"$id":                  "kit:collections/shopProducts",
			"title":                "Products",
			"type":                 "object",
			"additionalProperties": false,
			"required":             []any{"title"},
		}
		for k, w := range top {
			if !reflect.DeepEqual(doc[k], w) {
				t.Errorf("%s: got %#v, want %#v", k, doc[k], w)
			}
		}
		if len(props) != len(c.Attributes()) {
			t.Errorf("properties: got %d, want one per attribute (%d)", len(props), len(c.Attributes()))
		}
	})

	tests := []struct {
		field string
		want  string
	}{
		{"id", `{"type": "string", "readOnly": true}`},
		{"teamId", `{"type": "string", "readOnly": true}`},
		{"owner", `{"type": "string", "readOnly": true}`},
		{"createdAt", `{"type": "string", "format": "date-time", "readOnly": true}`},
		{"updatedBy", `{"type": "string", "readOnly": true}`},
		{"title", `{"type": "string", "title": "Title"}`},
		{"description", `{"type": ["string", "null"], "title": "Description"}`},
		{"stock", `{"type": ["number", "null"], "default": 0}`},
		{"price", `{"type": ["string", "number", "null"], "pattern": "^[+-]?(\\d+(\\.\\d*)?|\\.\\d+)$", "x-precision": 10, "x-scale": 2, "default": "9.9"}`},
		{"isActive", `{"type": ["boolean", "null"], "default": true}`},
		{"publishedAt", `{"type": ["string", "null"], "format": "date-time"}`},
		{"details", `{}`},
		{"variants", `{"type": ["array", "null"], "items": {"type": "object"}}`},
		{"tags", `{"type": ["array", "null"]}`},
		{"image", `{"type": ["string", "null"], "x-kit-file": false, "x-maxSize": 10485760}`},
		{"manual", `{"type": ["string", "null"], "x-kit-file": false, "x-maxSize": 10485760}`},
		{"categoryId", `{"type": ["string", "null"], "x-refTarget": "shopCategories"}`},
	}
	for _, tc := range tests {
		t.Run("the schema of "+tc.field+" fits its type", func(t *testing.T) {
			var wantSchema any
			if err := json.Unmarshal([]byte(tc.want), &wantSchema); err != nil {
				t.Fatalf("bad test: %v", err)
			}
			if !reflect.DeepEqual(props[tc.field], wantSchema) {
				t.Errorf("got %#v, want %#v", props[tc.field], wantSchema)
			}
		})
	}

	t.Run("each call returns a fresh copy", func(t *testing.T) {
		doc["title"] = "changed"
		props["title"].(map[string]any)["type"] = "number"
		again := c.JSONSchema()
		if again["title"] != "Products" || again["properties"].(map[string]any)["title"].(map[string]any)["type"] != "string" {
			t.Errorf("JSONSchema after changing a copy: got %v, want the original", again)
		}
	})
}
