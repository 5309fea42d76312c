package kit_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/collectionkit/kit/internal/files"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
)

// TestChangeStreamCarriesFileChanges: a create with a file, a file
// replaced, a file appended to a list and a file removed each arrive on
// the change stream as a change of the record, small and without bytes or
// blob keys; the record a subscriber reads on it holds the new files'
// metadata.
func TestChangeStreamCarriesFileChanges(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		dir := t.TempDir()
		w := newFileWorld(t, e, kit.FilesConfig{Dir: dir}, files.Dir{Root: dir})
		s, res := openStream(t, w.app.Server.URL+"/api/teams/"+w.app.IDs["acme"]+"/kit-changes", w.alice)
		if s == nil {
			t.Fatalf("open stream: got %d %s, want 200", res.status, res.body)
		}
		s.ready(t)
		first, second, third := pngOf(t, 40, 30), pngOf(t, 20, 10), []byte("plain text attachment\n")

		// next reads the next change, which must be op of id, and checks
		// that its data holds no file bytes and no blob key.
		next := func(t *testing.T, op kit.Operation, id string, sent ...[]byte) {
			t.Helper()
			ev := s.next(t)
			if ev.kind != "" {
				t.Fatalf("got a %q event (%s), want a change", ev.kind, ev.data)
			}
			c := decodeChange(t, ev)
			if c.Operation != op || c.Collection != "shopProductMedia" || c.ItemID != id {
				t.Errorf("got %+v, want %s of shopProductMedia %s", c, op, id)
			}
			for _, b := range sent {
				if bytes.Contains([]byte(ev.data), b[:8]) {
					t.Errorf("got the file's bytes in the change %s, want metadata only", ev.data)
				}
			}
			if strings.Contains(ev.data, w.app.IDs["acme"]+"/") || strings.Contains(ev.data, `"key"`) {
				t.Errorf("got a blob key in the change %s, want none", ev.data)
			}
		}
		// read is what a subscriber does on a change: it reads the record
		// (this collection reads single records with ?ids=).
		read := func(t *testing.T, id string) map[string]any {
			t.Helper()
			a := do(t, "GET", w.base+"?ids="+id, w.alice, "", nil)
			if a.status != http.StatusOK {
				t.Fatalf("read: got %d %s, want 200", a.status, a.body)
			}
			var items []map[string]any
			if err := json.Unmarshal([]byte(a.body), &items); err != nil || len(items) != 1 {
				t.Fatalf("read: got %s, want the record", a.body)
			}
			return items[0]
		}

		a := w.send(t, "POST", w.base, w.alice, valueP("title", "Lamp"), fileP("photo", "first.png", first), fileP("attachments", "a.txt", third))
		if a.status != http.StatusCreated {
			t.Fatalf("create: got %d %s, want 201", a.status, a.body)
		}
		id := a.json(t)["id"].(string)
		t.Run("a create with files arrives as the record's create", func(t *testing.T) {
			next(t, kit.OpCreate, id, first)
			f := fileOf(t, read(t, id), "photo")
			if f["name"] != "first.png" || f["size"] != float64(len(first)) || f["contentType"] != "image/png" || f["width"] != 40.0 {
				t.Errorf("got %v, want first.png, %d bytes, image/png, 40 wide", f, len(first))
			}
		})
		t.Run("a replaced file arrives as the record's update, and the record holds the new file", func(t *testing.T) {
			if a := w.send(t, "PATCH", w.base+"/"+id, w.alice, fileP("photo", "second.png", second)); a.status != http.StatusOK {
				t.Fatalf("replace: got %d %s, want 200", a.status, a.body)
			}
			next(t, kit.OpUpdate, id, second)
			f := fileOf(t, read(t, id), "photo")
			if f["name"] != "second.png" || f["size"] != float64(len(second)) || f["width"] != 20.0 || f["height"] != 10.0 {
				t.Errorf("got %v, want second.png, %d bytes, 20x10", f, len(second))
			}
		})
		t.Run("a file appended to a list and one removed from it arrive as updates", func(t *testing.T) {
			if a := w.send(t, "PATCH", w.base+"/"+id, w.alice, fileP("attachments+", "b.txt", third)); a.status != http.StatusOK {
				t.Fatalf("append: got %d %s, want 200", a.status, a.body)
			}
			next(t, kit.OpUpdate, id, third)
			if a := w.send(t, "PATCH", w.base+"/"+id, w.alice, valueP("attachments-", "a.txt")); a.status != http.StatusOK {
				t.Fatalf("remove: got %d %s, want 200", a.status, a.body)
			}
			next(t, kit.OpUpdate, id)
			var names []string
			for _, f := range filesOf(t, read(t, id), "attachments") {
				names = append(names, f["name"].(string))
			}
			if strings.Join(names, ",") != "b.txt" {
				t.Errorf("got attachments %v, want [b.txt]", names)
			}
		})
	})
}
