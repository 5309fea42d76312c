package events

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/collectionkit/kit/kit"
)

// TestChangesOf covers the change rules on payloads kit does not send yet
// (move, reorder, unknown operations) and the edges of the JSON
// comparison, without a database.
func TestChangesOf(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		name string
		m    kit.Mutation
		want string // [{itemId, changes}] as JSON
	}{
		{"a move records the position fields that changed",
			kit.Mutation{Operation: kit.OpMove, ItemID: "n1",
				Data:       map[string]any{"parentId": "p2", "order": 3, "depth": 1},
				BeforeData: map[string]any{"parentId": "p1", "order": 3, "depth": 1, "title": "Node"}},
			`[{"itemId":"n1","changes":[{"fieldName":"parentId","oldValue":"\"p1\"","newValue":"\"p2\""}]}]`},
		{"a move to the root records a null parent",
			kit.Mutation{Operation: kit.OpMove, ItemID: "n1",
				Data: map[string]any{"parentId": nil, "order": 0}, BeforeData: map[string]any{"parentId": "p1", "order": 2}},
			`[{"itemId":"n1","changes":[{"fieldName":"order","oldValue":"2","newValue":"0"},{"fieldName":"parentId","oldValue":"\"p1\"","newValue":null}]}]`},
		{"a reorder records the new order of the ids",
			kit.Mutation{Operation: kit.OpReorder, ItemIDs: []string{"b", "a", "c"}},
			`[{"itemId":"","changes":[{"fieldName":"itemIds","oldValue":null,"newValue":"[\"b\",\"a\",\"c\"]"}]}]`},
		{"a reorder with the old order records both",
			kit.Mutation{Operation: kit.OpReorder, ItemID: "list", ItemIDs: []string{"b", "a"}, BeforeData: map[string]any{"itemIds": []string{"a", "b"}}},
			`[{"itemId":"list","changes":[{"fieldName":"itemIds","oldValue":"[\"a\",\"b\"]","newValue":"[\"b\",\"a\"]"}]}]`},
		{"an operation this version does not know is recorded without changes",
			kit.Mutation{Operation: "archive", ItemID: "x", Data: map[string]any{"isArchived": true}},
			`[{"itemId":"x","changes":[]}]`},
		{"a delete of several ids gives one event per id",
			kit.Mutation{Operation: kit.OpDelete, ItemIDs: []string{"a", "b"}, BeforeData: map[string]any{"title": "x"}},
			`[{"itemId":"a","changes":[]},{"itemId":"b","changes":[]}]`},
		{"a create without result falls back to data and leaves out every auto-generated field",
			kit.Mutation{Operation: kit.OpCreate, ItemID: "r", Data: map[string]any{"id": "r", "teamId": "t", "owner": "u",
				"createdAt": at, "updatedAt": at, "createdBy": "u", "updatedBy": "u", "b": 1, "a": "x"}},
			`[{"itemId":"r","changes":[{"fieldName":"a","oldValue":null,"newValue":"\"x\""},{"fieldName":"b","oldValue":null,"newValue":"1"}]}]`},
		{"a create takes its id from the result when the payload has none",
			kit.Mutation{Operation: kit.OpCreate, Result: map[string]any{"id": "r2", "title": "T"}},
			`[{"itemId":"r2","changes":[{"fieldName":"title","oldValue":null,"newValue":"\"T\""}]}]`},
		{"dates are compared and stored as JSON does",
			kit.Mutation{Operation: kit.OpUpdate, ItemID: "r", Updates: map[string]any{"publishedAt": at},
				BeforeData: map[string]any{"publishedAt": at.Add(time.Hour)}, Result: map[string]any{"publishedAt": at}},
			`[{"itemId":"r","changes":[{"fieldName":"publishedAt","oldValue":"\"2026-01-02T04:04:05Z\"","newValue":"\"2026-01-02T03:04:05Z\""}]}]`},
		{"numbers equal in value are no change",
			kit.Mutation{Operation: kit.OpUpdate, ItemID: "r", Updates: map[string]any{"n": json.Number("2.0"), "m": []any{1.0, "x"}},
				BeforeData: map[string]any{"n": 2.0, "m": []any{json.Number("1"), "x"}}},
			`[{"itemId":"r","changes":[]}]`},
		{"a value set from nothing has a null old value",
			kit.Mutation{Operation: kit.OpUpdate, ItemID: "r", Updates: map[string]any{"tags": []string{"<a>&"}}, BeforeData: map[string]any{}},
			`[{"itemId":"r","changes":[{"fieldName":"tags","oldValue":null,"newValue":"[\"<a>&\"]"}]}]`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sets, err := changesOf(&tc.m, nil)
			if err != nil {
				t.Fatal(err)
			}
			type out struct {
				ItemID  string   `json:"itemId"`
				Changes []Change `json:"changes"`
			}
			got := make([]out, len(sets))
			for i, s := range sets {
				got[i] = out{s.itemID, s.changes}
				if got[i].Changes == nil {
					got[i].Changes = []Change{}
				}
			}
			b, _ := marshal(got)
			if b != tc.want {
				t.Errorf("events:\n got %s\nwant %s", b, tc.want)
			}
		})
	}
}

// TestConfigJSON checks that a Config reads and writes the spec's
// public.kitEvents shape with its defaults.
func TestConfigJSON(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in, out string
	}{
		{"an empty object is the defaults", `{}`,
			`{"enabled":true,"snapshotUserName":true,"errorHandling":{"mode":"toast","logToConsole":true},"retention":{"enabled":true,"days":90,"maxEvents":100000}}`},
		{"every key read", `{"enabled":false,"snapshotUserName":false,"errorHandling":{"mode":"throw","logToConsole":false},"retention":{"enabled":false,"days":30,"maxEvents":500}}`,
			`{"enabled":false,"snapshotUserName":false,"errorHandling":{"mode":"throw","logToConsole":false},"retention":{"enabled":false,"days":30,"maxEvents":500}}`},
		{"keys left out keep their defaults", `{"errorHandling":{"mode":"silent"},"retention":{"days":7}}`,
			`{"enabled":true,"snapshotUserName":true,"errorHandling":{"mode":"silent","logToConsole":true},"retention":{"enabled":true,"days":7,"maxEvents":100000}}`},
		{"a negative limit means none", `{"retention":{"maxEvents":-5}}`,
			`{"enabled":true,"snapshotUserName":true,"errorHandling":{"mode":"toast","logToConsole":true},"retention":{"enabled":true,"days":90,"maxEvents":-1}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var c Config
			if err := json.Unmarshal([]byte(tc.in), &c); err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.out {
				t.Errorf("config:\n got %s\nwant %s", b, tc.out)
			}
		})
	}
	t.Run("an unknown mode is refused", func(t *testing.T) {
		var c Config
		if err := json.Unmarshal([]byte(`{"errorHandling":{"mode":"loud"}}`), &c); err == nil {
			t.Fatal("got no error, want one")
		}
	})
	t.Run("the zero Config is the defaults", func(t *testing.T) {
		b, _ := json.Marshal(Config{})
		if want := cases[0].out; string(b) != want {
			t.Errorf("got %s, want %s", b, want)
		}
	})
}
