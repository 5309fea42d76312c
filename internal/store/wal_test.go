package store

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"
)

func TestTheWALStartsOverUnderASteadyStreamOfWrites(t *testing.T) {
	// Eight writers keep the queue busy the whole time, so the background
	// checkpoints always run beside writes: without the queue's own
	// checkpoint between groups the WAL never starts over and grows by
	// every page each group writes (about 90 MB here; 16 MB with it).
	path := filepath.Join(t.TempDir(), "kit.db")
	s, c := productsStore(t, path)
	s.CheckpointWAL = true
	const restart = 64 // frames
	s.SetWALRestartFrames(restart)
	const writers, each = 8, 1500
	var mu sync.Mutex
	var largest int64
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				now := time.Now().UTC()
				rec := Record{"id": fmt.Sprintf("w%d-%d", w, i), "teamId": "t1", "owner": "u", "title": fmt.Sprintf("title %d %d", w, i),
					"createdAt": now, "updatedAt": now, "createdBy": "u", "updatedBy": "u"}
				if err := s.RunWrite(context.Background(), c, true, func(ctx context.Context, tx bun.Tx) error {
					return s.Insert(ctx, tx, c, rec)
				}); err != nil {
					t.Error(err)
					return
				}
				if fi, err := os.Stat(path + "-wal"); err == nil {
					mu.Lock()
					largest = max(largest, fi.Size())
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	// The WAL header's checkpoint sequence number (bytes 12 to 15, big
	// endian) counts the times it started over.
	head := make([]byte, 16)
	f, err := os.Open(path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := io.ReadFull(f, head); err != nil {
		t.Fatal(err)
	}
	if restarts := binary.BigEndian.Uint32(head[12:]); restarts < 2 {
		t.Errorf("got the WAL started over %d times (%d bytes at its largest), want at least twice", restarts, largest)
	}
	var n int
	if err := s.db.QueryRowContext(t.Context(), `SELECT count(*) FROM "shop_products"`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != writers*each {
		t.Errorf("got %d rows, want %d", n, writers*each)
	}
}

// TestAFileDatabaseReadsThroughAMemoryMap opens a file database as kit
// does and asks each of two connections for its effective mmap_size (0
// when the SQLite build cannot map files), and checks that a "file:" DSN
// with pragmas of its own keeps SQLite's default of no map.
func TestAFileDatabaseReadsThroughAMemoryMap(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		path string
		want int64
	}{
		{"a path maps 256 MiB on every connection", filepath.Join(dir, "kit.db"), 256 << 20},
		{"a file DSN with its own pragmas maps nothing", "file:" + filepath.Join(dir, "own.db") + "?_pragma=busy_timeout(10000)", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, err := OpenSQLite(tt.path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			ctx := t.Context()
			for i := range 2 {
				conn, err := db.Conn(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close()
				var got int64
				if err := conn.QueryRowContext(ctx, "PRAGMA mmap_size").Scan(&got); err != nil {
					t.Fatal(err)
				}
				if got != tt.want {
					t.Errorf("connection %d: mmap_size got %d, want %d", i+1, got, tt.want)
				}
			}
		})
	}
}
