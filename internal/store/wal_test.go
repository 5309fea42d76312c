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

	"github.com/collectionkit/kit/collections"
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
				if err := writeProduct(context.Background(), s, c, fmt.Sprintf("w%d-%d", w, i)); err != nil {
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

// writeProduct writes record id of c for team t1 through the write
// queue.
func writeProduct(ctx context.Context, s *Store, c *collections.Collection, id string) error {
	now := time.Now().UTC()
	rec := Record{"id": id, "teamId": "t1", "owner": "u", "title": "title " + id,
		"createdAt": now, "updatedAt": now, "createdBy": "u", "updatedBy": "u"}
	return s.RunWrite(ctx, Write{Collection: c, Single: true}, func(ctx context.Context, tx bun.Tx) error {
		return s.Insert(ctx, tx, c, rec)
	})
}

// insertProduct is writeProduct, failing t on an error.
func insertProduct(t *testing.T, s *Store, c *collections.Collection, id string) {
	t.Helper()
	if err := writeProduct(t.Context(), s, c, id); err != nil {
		t.Fatal(err)
	}
}

// passiveCheckpoint runs a passive checkpoint on s's pool and returns the
// WAL's length and how much of it is now copied, in frames.
func passiveCheckpoint(t *testing.T, s *Store) (frames, copied int64) {
	t.Helper()
	var busy int64
	if err := s.db.QueryRowContext(t.Context(), checkpointSQL).Scan(&busy, &frames, &copied); err != nil {
		t.Fatal(err)
	}
	return frames, copied
}

func TestACheckpointCopiesOnlyWhatWasCommittedBeforeThePin(t *testing.T) {
	// Background checkpoints stay off: the test moves the pin itself.
	s, c := productsStore(t, filepath.Join(t.TempDir(), "kit.db"))
	q := &s.writes
	q.pin.allow()
	insertProduct(t, s, c, "before-the-pin")
	q.pin.move(s)
	if !held(&q.pin) {
		t.Fatal("got no pin after move, want one")
	}
	pinned, _ := passiveCheckpoint(t, s) // the WAL as the pin reads it
	insertProduct(t, s, c, "after-the-pin")

	frames, copied := passiveCheckpoint(t, s)
	if frames <= pinned {
		t.Fatalf("got a WAL of %d frames after the second write, want more than the pin's %d", frames, pinned)
	}
	if copied != pinned {
		t.Errorf("with the pin held: got %d of %d frames copied, want the %d the pin reads", copied, frames, pinned)
	}

	if !q.pin.drop(s, true) {
		t.Error("got drop reporting no pin, want the one held")
	}
	q.pin.move(s)
	if held(&q.pin) {
		t.Error("got a pin after an idle drop, want none until a group begins")
	}
	frames, copied = passiveCheckpoint(t, s)
	if copied != frames {
		t.Errorf("with no pin: got %d of %d frames copied, want all", copied, frames)
	}
}

func TestARestartCheckpointDropsThePinButKeepsTheCadence(t *testing.T) {
	s, _ := productsStore(t, filepath.Join(t.TempDir(), "kit.db"))
	p := &s.writes.pin
	p.allow()
	p.move(s)
	if !held(p) || !p.active.Load() {
		t.Fatalf("after move: got held %v, active %v; want both", held(p), p.active.Load())
	}
	// The queue's WAL-restart checkpoint: the next background checkpoint
	// still comes pinnedCheckpointEvery later, and pins again.
	p.drop(s, false)
	if held(p) || !p.active.Load() {
		t.Errorf("after a restart's drop: got held %v, active %v; want no pin, still active", held(p), p.active.Load())
	}
	p.move(s)
	if !held(p) {
		t.Error("after a restart's drop: got no pin from the next move, want one")
	}
	// Idle: no pin, and the unpinned cadence, until a group begins.
	p.drop(s, true)
	if held(p) || p.active.Load() {
		t.Errorf("after an idle drop: got held %v, active %v; want neither", held(p), p.active.Load())
	}
}

// streamUntilPinned writes records from a goroutine until stop is closed,
// and returns once the write queue holds a checkpoint pin.
func streamUntilPinned(t *testing.T, s *Store, c *collections.Collection, stop <-chan struct{}) *sync.WaitGroup {
	t.Helper()
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if err := writeProduct(context.Background(), s, c, fmt.Sprint("stream-", i)); err != nil {
				t.Error(err)
				return
			}
		}
	})
	deadline := time.Now().Add(10 * time.Second)
	for !held(&s.writes.pin) {
		if time.Now().After(deadline) {
			t.Fatal("got no checkpoint pin after 10 s of writes, want one")
		}
		time.Sleep(time.Millisecond)
	}
	return &wg
}

func TestAnIdleWriteQueueReleasesItsPinAndCopiesTheWholeWAL(t *testing.T) {
	s, c := productsStore(t, filepath.Join(t.TempDir(), "kit.db"))
	s.CheckpointWAL = true
	stop := make(chan struct{})
	wg := streamUntilPinned(t, s, c, stop)
	close(stop)
	wg.Wait()
	// The queue releases its connection, its pin with it, writeConnLinger
	// after its last group, then checkpoints once more.
	deadline := time.Now().Add(10 * time.Second)
	for held(&s.writes.pin) || s.writes.ckptRunning.Load() {
		if time.Now().After(deadline) {
			t.Fatal("got the pin still held 10 s after the last write, want it released")
		}
		time.Sleep(time.Millisecond)
	}
	if frames, copied := passiveCheckpoint(t, s); copied != frames {
		t.Errorf("got %d of %d frames copied once idle, want all", copied, frames)
	}
}

func TestAClosedStoreLeavesAWholeDatabaseFileWithoutItsWAL(t *testing.T) {
	// A closed database is copied, backed up or opened by another program
	// as its file: the pin must not keep the last close from copying the
	// WAL into it.
	path := filepath.Join(t.TempDir(), "kit.db")
	s, c := productsStore(t, path)
	s.CheckpointWAL = true
	stop := make(chan struct{})
	wg := streamUntilPinned(t, s, c, stop)
	close(stop)
	wg.Wait()
	var want int
	if err := s.db.QueryRowContext(t.Context(), `SELECT count(*) FROM "shop_products"`).Scan(&want); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.db.Close(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > 0 {
		t.Errorf("got a WAL of %d bytes after the last close, want none", fi.Size())
	}
	alone := filepath.Join(t.TempDir(), "copy.db")
	if err := copyTestFile(path, alone); err != nil {
		t.Fatal(err)
	}
	db, err := OpenSQLite(alone)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var check string
	if err := db.QueryRowContext(t.Context(), "PRAGMA integrity_check").Scan(&check); err != nil {
		t.Fatal(err)
	}
	if check != "ok" {
		t.Errorf("got integrity_check %q on the file alone, want ok", check)
	}
	var got int
	if err := db.QueryRowContext(t.Context(), `SELECT count(*) FROM "shop_products"`).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("got %d rows in the file alone, want %d", got, want)
	}
}

func copyTestFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o600)
}

// held reports whether p holds a pin.
func held(p *walPin) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.conn != nil
}
