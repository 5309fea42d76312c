package external

import (
	"errors"
	"reflect"
)

// Item is one item of an external collection, as handlers answer it and
// proxy transforms return it: an object with a string "id", a string
// "title" (what reference selects show) and any other fields.
//
// It is an alias, so a func(T) (map[string]any, error) is a transform too.
type Item = map[string]any

// checkItem reports why item is not an external collection item: a
// non-empty string id and a string title are required.
func checkItem(item Item) error {
	if item == nil {
		return errors.New("the item is null")
	}
	if id, ok := stringValue(item["id"]); !ok || id == "" {
		return errors.New(`"id" must be a non-empty string`)
	}
	if _, ok := stringValue(item["title"]); !ok {
		return errors.New(`"title" must be a string`)
	}
	return nil
}

// itemID returns the item's id when it is a string (of any string type).
func itemID(item Item) (string, bool) {
	return stringValue(item["id"])
}

// stringValue accepts string and named string types (type UserID string),
// which encoding/json writes as JSON strings.
func stringValue(v any) (string, bool) {
	if s, ok := v.(string); ok {
		return s, true
	}
	if v == nil {
		return "", false
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.String {
		return rv.String(), true
	}
	return "", false
}
