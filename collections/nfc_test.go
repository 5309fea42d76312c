package collections

import (
	"net/url"
	"reflect"
	"testing"
)

// Two spellings of "Café": "é" as one code point (NFC) and as "e" with a
// combining acute accent (NFD).
const (
	cafeNFC = "Caf\u00e9"
	cafeNFD = "Cafe\u0301"
)

// TestTextValuesAreKeptInNFC checks that every text value a record takes,
// and every text a list query compares with them, is in Unicode NFC
// whatever form it came in, so that canonically equal texts are one value.
func TestTextValuesAreKeptInNFC(t *testing.T) {
	c := shopProducts(t)

	t.Run("a create stores each text-stored type in NFC", func(t *testing.T) {
		got, err := c.ValidateCreate(map[string]any{"title": cafeNFD, "description": cafeNFD, "image": cafeNFD, "manual": cafeNFD})
		if err != nil {
			t.Fatalf("got %v, want nil", err)
		}
		for _, name := range []string{"title", "description", "image", "manual"} {
			if got[name] != cafeNFC {
				t.Errorf("%s: got %+q, want %+q", name, got[name], cafeNFC)
			}
		}
	})

	t.Run("an update stores text in NFC", func(t *testing.T) {
		got, err := c.ValidateUpdate(map[string]any{"title": cafeNFD})
		if err != nil {
			t.Fatalf("got %v, want nil", err)
		}
		if got["title"] != cafeNFC {
			t.Errorf("title: got %+q, want %+q", got["title"], cafeNFC)
		}
	})

	t.Run("NormalizeValue leaves an NFC text as it is", func(t *testing.T) {
		got, err := NormalizeValue(&Field{Name: "title", Type: TypeString}, cafeNFC)
		if err != nil || got != cafeNFC {
			t.Errorf("got %+q, %v, want %+q, nil", got, err, cafeNFC)
		}
	})

	t.Run("a text inside a json value is kept as given", func(t *testing.T) {
		got, err := NormalizeValue(&Field{Name: "details", Type: TypeJSON}, map[string]any{"name": cafeNFD})
		want := map[string]any{"name": cafeNFD}
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("got %+q, %v, want %+q, nil", got, err, want)
		}
	})

	filters := []struct {
		name   string
		filter string
		want   any
	}{
		{"an eq filter compares in NFC", `{"title": "` + cafeNFD + `"}`, cafeNFC},
		{"a range filter compares in NFC", `{"title": {"gte": "` + cafeNFD + `"}}`, cafeNFC},
		{"an in filter compares in NFC", `{"title": {"in": ["` + cafeNFD + `"]}}`, []any{cafeNFC}},
		{"a contains filter looks for NFC", `{"description": {"contains": "` + cafeNFD + `"}}`, cafeNFC},
		{"a startsWith filter looks for NFC", `{"image": {"startsWith": "` + cafeNFD + `"}}`, cafeNFC},
	}
	for _, tc := range filters {
		t.Run(tc.name, func(t *testing.T) {
			q, err := c.ParseListQuery(url.Values{"filter": {tc.filter}}, QueryLimits{})
			if err != nil {
				t.Fatalf("got %v, want nil", err)
			}
			if len(q.Filter) != 1 || !reflect.DeepEqual(q.Filter[0].Value, tc.want) {
				t.Errorf("filter: got %+v, want one condition with value %+q", q.Filter, tc.want)
			}
		})
	}

	t.Run("a search term is looked for in NFC", func(t *testing.T) {
		q, err := c.ParseListQuery(url.Values{"search": {" " + cafeNFD + " "}}, QueryLimits{})
		if err != nil {
			t.Fatalf("got %v, want nil", err)
		}
		if q.Search != cafeNFC {
			t.Errorf("search: got %+q, want %+q", q.Search, cafeNFC)
		}
	})
}
