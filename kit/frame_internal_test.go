package kit

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"testing"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/changehub"
	"github.com/collectionkit/kit/internal/store"
)

// openFrameKit opens a Kit with a collection whose references name
// another, for the change events' invalidate lists.
func openFrameKit(tb testing.TB) *Kit {
	tb.Helper()
	k, err := Open(tb.Context(), Config{SQLitePath: ":memory:" + tb.Name(),
		Definitions: []collections.Definition{
			{Name: "categories", Fields: []collections.Field{{Name: "title", Type: collections.TypeString}}},
			{Name: "products", Fields: []collections.Field{{Name: "categoryId", Type: collections.TypeString, RefTarget: "categories"}}},
		}})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { k.Close() })
	return k
}

func TestAChangeFrameIsTheSSEEventOfItsChangeEventsJSON(t *testing.T) {
	k := openFrameKit(t)
	reg := k.Collections()
	id := "0193c8a2-7f3e-7d2a-9b1c-3f4e5d6c7b8a"
	tests := []struct {
		name string
		ch   store.Change
	}{
		{"a create names its item", store.Change{ID: 7, Collection: "appProducts", Operation: "create", ItemIDs: []string{id}, CorrelationID: "c1", Timestamp: 1732400000000}},
		{"a reorder lists its items in order", store.Change{ID: 8, Collection: "appCategories", Operation: "reorder", ItemIDs: []string{"b", "a", "c"}, CorrelationID: "c2", Timestamp: 1}},
		{"a reorder of no items lists none", store.Change{ID: 9, Collection: "appCategories", Operation: "reorder", CorrelationID: "c3"}},
		{"a bulk delete lists its items", store.Change{ID: 10, Collection: "appProducts", Operation: "delete", ItemIDs: []string{"x", "y"}, CorrelationID: "c4"}},
		{"an empty item id is left out", store.Change{ID: 11, Collection: "appProducts", Operation: "update", ItemIDs: []string{""}, CorrelationID: "c5"}},
		{"a correlation id with quotes, controls and HTML is escaped", store.Change{ID: 12, Collection: "appProducts", Operation: "update",
			ItemIDs: []string{id}, CorrelationID: "a\"b\\c\n\t<x>&\u2028é"}},
		{"invalid UTF-8 is replaced", store.Change{ID: 13, Collection: "appProducts", Operation: "move", ItemIDs: []string{"\xff\xfe"}, CorrelationID: "\xc3"}},
		{"an unknown collection invalidates its own key", store.Change{ID: 14, Collection: "gone", Operation: "delete", ItemIDs: []string{id}}},
		{"large positions and times are exact", store.Change{ID: 1<<62 + 1, Collection: "appProducts", Operation: "create", ItemIDs: []string{id}, Timestamp: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := (&changehub.Encoder{}).Frame(reg, tt.ch)
			prefix := "id: " + strconv.FormatInt(tt.ch.ID, 10) + "\ndata: "
			if !bytes.HasPrefix(f.SSE, []byte(prefix)) || !bytes.HasSuffix(f.SSE, []byte("\n\n")) {
				t.Fatalf("got event %q, want %q...\\n\\n", f.SSE, prefix)
			}
			data := f.SSE[len(prefix) : len(f.SSE)-2]
			if bytes.ContainsAny(data, "\r\n") {
				t.Fatalf("got a line break in the data %q, want one line", data)
			}
			ev := ChangeEvent{ID: tt.ch.ID, Operation: Operation(tt.ch.Operation), Collection: tt.ch.Collection,
				CorrelationID: tt.ch.CorrelationID, Timestamp: tt.ch.Timestamp, Invalidate: changehub.InvalidateKeys(reg, tt.ch.Collection)}
			if ev.Operation == OpReorder || len(tt.ch.ItemIDs) > 1 {
				ev.ItemIDs = tt.ch.ItemIDs
			} else if len(tt.ch.ItemIDs) == 1 {
				ev.ItemID = tt.ch.ItemIDs[0]
			}
			want, err := json.Marshal(ev)
			if err != nil {
				t.Fatal(err)
			}
			var gotV, wantV any
			dec := json.NewDecoder(bytes.NewReader(data))
			dec.UseNumber()
			if err := dec.Decode(&gotV); err != nil {
				t.Fatalf("the data %q is not JSON: %v", data, err)
			}
			dec = json.NewDecoder(bytes.NewReader(want))
			dec.UseNumber()
			if err := dec.Decode(&wantV); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(gotV, wantV) {
				t.Errorf("got data %s, want the value of %s", data, want)
			}
			if f.ID != tt.ch.ID || f.Collection != tt.ch.Collection {
				t.Errorf("got frame id %d collection %q, want %d %q", f.ID, f.Collection, tt.ch.ID, tt.ch.Collection)
			}
		})
	}
}

func TestAChangeFramesInvalidateListFollowsANewRegistry(t *testing.T) {
	k := openFrameKit(t)
	ch := store.Change{ID: 1, Collection: "appProducts", Operation: "create", ItemIDs: []string{"x"}}
	enc := &changehub.Encoder{}
	before := string(enc.Frame(k.Collections(), ch).SSE)
	if want := `"invalidate":["collection:appProducts:*","collection:appCategories:*"]`; !bytes.Contains([]byte(before), []byte(want)) {
		t.Fatalf("got %q, want it to hold %s", before, want)
	}
	// A registry where appProducts references nothing.
	reg, _, err := collections.Build([]collections.Definition{{Name: "products", Fields: []collections.Field{{Name: "title", Type: collections.TypeString}}}}, collections.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	after := string(enc.Frame(reg, ch).SSE)
	if want := `"invalidate":["collection:appProducts:*"]}`; !bytes.Contains([]byte(after), []byte(want)) {
		t.Errorf("got %q, want it to hold %s", after, want)
	}
}

func BenchmarkFrameOf(b *testing.B) {
	k := openFrameKit(b)
	reg := k.Collections()
	ch := store.Change{ID: 123456, TeamID: "t1", Collection: "appProducts", Operation: "create",
		ItemIDs: []string{"0193c8a2-7f3e-7d2a-9b1c-3f4e5d6c7b8a"}, CorrelationID: "0193c8a2-7f3e-7d2a-9b1c-3f4e5d6c7b8b", Timestamp: 1732400000000}
	enc := &changehub.Encoder{}
	b.ReportAllocs()
	for b.Loop() {
		_ = enc.Frame(reg, ch)
	}
}
