package collections

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
)

// nestedArrays is depth arrays, one inside the other, around 1.
func nestedArrays(depth int) any {
	var v any = 1.0
	for range depth {
		v = []any{v}
	}
	return v
}

// nestedObjects is depth objects, one inside the other, around 1.
func nestedObjects(depth int) any {
	var v any = 1.0
	for range depth {
		v = map[string]any{"a": v}
	}
	return v
}

func structuredSpecimens(t *testing.T) *Collection {
	t.Helper()
	reg, _ := mustLoad(t, fstest.MapFS{}, LoadOptions{}, Definition{Name: "specimens", Layer: "lab", Fields: []Field{
		{Name: "attributes", Type: TypeJSON},
		{Name: "measurements", Type: TypeRepeater},
		{Name: "tags", Type: TypeArray},
	}})
	return mustGet(t, reg, "labSpecimens")
}

func TestJSONNestedDeeperThanMaxJSONDepthIsAValidationErrorNamingTheField(t *testing.T) {
	c := structuredSpecimens(t)
	tooDeep := fmt.Sprintf("deeper than %d levels", MaxJSONDepth)
	for _, tc := range []struct {
		name  string
		field string
		value any
		want  string // "" for valid
	}{
		{"a json value exactly MaxJSONDepth arrays deep is stored", "attributes", nestedArrays(MaxJSONDepth), ""},
		{"a json value exactly MaxJSONDepth objects deep is stored", "attributes", nestedObjects(MaxJSONDepth), ""},
		{"a json value one array deeper than MaxJSONDepth is refused", "attributes", nestedArrays(MaxJSONDepth + 1), tooDeep},
		{"a json value 1,001 arrays deep is refused", "attributes", nestedArrays(1001), tooDeep},
		{"a json value 5,000 arrays deep is refused", "attributes", nestedArrays(5000), tooDeep},
		{"a json value 9,999 objects deep is refused", "attributes", nestedObjects(9999), tooDeep},
		{"an array value 1,001 arrays deep is refused", "tags", nestedArrays(1001), tooDeep},
		{"a repeater value 9,999 levels deep is refused", "measurements", []any{nestedObjects(9998)}, tooDeep},
		{"a deep value beside shallow ones is found", "attributes",
			map[string]any{"a": 1.0, "b": []any{"x"}, "c": nestedArrays(MaxJSONDepth)}, tooDeep},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, op := range []struct {
				name     string
				validate func(map[string]any) (map[string]any, error)
			}{{"create", c.ValidateCreate}, {"update", c.ValidateUpdate}} {
				_, err := op.validate(map[string]any{tc.field: tc.value})
				if tc.want == "" {
					if err != nil {
						t.Errorf("%s: got %v, want nil", op.name, err)
					}
					continue
				}
				requireFieldErrors(t, err, map[string]string{tc.field: tc.want})
				if got := len(validationError(t, err).Fields); got != 1 {
					t.Errorf("%s: got %d fields in error, want 1", op.name, got)
				}
			}
		})
	}
}

func TestJSONDepthCountsArraysAndObjects(t *testing.T) {
	for _, tc := range []struct {
		json string
		want int
	}{
		{`1`, 0}, {`"x"`, 0}, {`null`, 0}, {`[]`, 1}, {`{}`, 1}, {`[1]`, 1}, {`[[1]]`, 2},
		{`{"a":[{"b":1}]}`, 3}, {`[1,[2,[3]],4]`, 3}, {strings.Repeat("[", 10) + strings.Repeat("]", 10), 10},
	} {
		t.Run(tc.json+" is "+fmt.Sprint(tc.want)+" deep", func(t *testing.T) {
			var v any
			if err := json.Unmarshal([]byte(tc.json), &v); err != nil {
				t.Fatal(err)
			}
			if got := jsonDepth(v, 100); got != tc.want {
				t.Errorf("jsonDepth(%s): got %d, want %d", tc.json, got, tc.want)
			}
		})
	}
}
