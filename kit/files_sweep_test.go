package kit_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// TestFileSweep leaves what a crash between an upload and its commit
// would (blobs no record refers to) and checks that the sweep removes
// them, and only them, once they are older than the grace period.
func TestFileSweep(t *testing.T) {
	t.Parallel()
	eachFileWorld(t, func(t *testing.T, w *fileWorld) {
		ctx := context.Background()
		a := w.send(t, "POST", w.base, w.alice, valueP("title", "kept"), fileP("photo", "p.png", pngOf(t, 30, 30)))
		if a.status != 201 {
			t.Fatalf("create: got %d %s", a.status, a.body)
		}
		id := a.json(t)["id"].(string)
		if d := do(t, "GET", w.base+"/"+id+"/files/photo/p.png?thumb=20x20", w.alice, "", nil); d.status != 200 {
			t.Fatalf("thumbnail: got %d %s", d.status, d.body)
		}
		team := w.app.IDs["acme"]
		orphans := []string{
			team + "/shopProductMedia/" + id + "/abcdefabcdef-lost.png",                            // an upload of a failed update
			team + "/shopProductMedia/0190c0de-0000-7000-8000-000000000000/abcdefabcdef-never.png", // a create that never committed
			team + "/shopProductMedia/" + id + "/thumbs/abcdefabcdef-lost.png/20x20",               // a thumbnail of a removed file
			w.app.IDs["globex"] + "/shopProductMedia/" + id + "/abcdefabcdef-other-team.png",       // a key of another team for the record
		}
		for _, k := range orphans {
			if _, err := w.bucket.Put(ctx, k, bytes.NewReader([]byte("orphan")), "image/png"); err != nil {
				t.Fatal(err)
			}
		}
		kept := w.blobs(t)

		t.Run("within the grace period nothing is removed", func(t *testing.T) {
			n, err := w.app.Kit.SweepFiles(ctx, time.Hour)
			if err != nil || n != 0 {
				t.Errorf("got %d removed (%v), want 0", n, err)
			}
		})
		t.Run("past it every unreferenced blob goes and the record's file and thumbnail stay", func(t *testing.T) {
			time.Sleep(20 * time.Millisecond) // S3 times are in whole seconds: grace 0 below
			n, err := w.app.Kit.SweepFiles(ctx, -time.Second)
			if err != nil || n != len(orphans) {
				t.Errorf("got %d removed (%v), want %d", n, err, len(orphans))
			}
			left := w.blobs(t)
			if len(left) != len(kept)-len(orphans) {
				t.Errorf("got %v left, want %d blobs", left, len(kept)-len(orphans))
			}
			for _, k := range left {
				if strings.Contains(k, "lost") || strings.Contains(k, "never") || strings.Contains(k, "other-team") {
					t.Errorf("orphan %s is still stored", k)
				}
			}
			if d := do(t, "GET", w.base+"/"+id+"/files/photo/p.png", w.alice, "", nil); d.status != 200 {
				t.Errorf("the record's file after the sweep: got %d, want 200", d.status)
			}
		})
	})
}
