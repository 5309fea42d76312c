package files_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/collectionkit/kit/internal/files"
	"github.com/collectionkit/kit/internal/tests3"
)

func TestSafeName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"report.pdf", "report.pdf"},
		{"../../etc/passwd", "passwd"},
		{`..\..\boot.ini`, "boot.ini"},
		{"a\x00b\x01c.txt", "abc.txt"},
		{"evil\u202Egnp.exe", "evilgnp.exe"},
		{"zero\u200Bwidth.png", "zerowidth.png"},
		{"my file (1).png", "my_file_(1).png"},
		{`a:b*c?"d<e>f|g%h;i.txt`, "a_b_c__d_e_f_g_h_i.txt"},
		{".htaccess", "htaccess"},
		{"...", "file"},
		{"", "file"},
		{"e\u0301.txt", "é.txt"},
		{strings.Repeat("x", 300) + ".tar.gz", strings.Repeat("x", 97) + ".gz"},
		{strings.Repeat("é", 150), strings.Repeat("é", 50)},
	} {
		t.Run("the name "+strings.ToValidUTF8(tc.in[:min(len(tc.in), 30)], "?")+" is kept as "+tc.want[:min(len(tc.want), 30)], func(t *testing.T) {
			if got := files.SafeName(tc.in); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCheckKey(t *testing.T) {
	for key, ok := range map[string]bool{
		"t/c/r/x-a.png": true, "a": true,
		"": false, "/abs": false, "a//b": false, "a/../b": false, "a/./b": false, "a/": false, `a\b`: false, "a\x00b": false,
	} {
		if got := files.CheckKey(key) == nil; got != ok {
			t.Errorf("CheckKey(%q): got ok %v, want %v", key, got, ok)
		}
	}
}

// TestBuckets runs one contract over the local directory and a real
// S3-compatible server.
func TestBuckets(t *testing.T) {
	t.Parallel()
	stores := map[string]func(t *testing.T) files.Bucket{
		"a local directory": func(t *testing.T) files.Bucket { return files.Dir{Root: filepath.Join(t.TempDir(), "blobs")} },
		"an S3-compatible server": func(t *testing.T) files.Bucket {
			srv := tests3.Start(t)
			b, err := files.NewS3(files.S3Options{URL: srv.BucketURL("files-test") + "/some/prefix", AccessKey: srv.AccessKey, SecretKey: srv.SecretKey})
			if err != nil {
				t.Fatal(err)
			}
			if err := b.EnsureBucket(t.Context()); err != nil {
				t.Fatal(err)
			}
			return b
		},
	}
	for name, open := range stores {
		t.Run("on "+name, func(t *testing.T) {
			t.Parallel()
			testBucket(t, open(t))
		})
	}
}

func testBucket(t *testing.T, b files.Bucket) {
	ctx := context.Background()
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<17) // 2 MiB: a multipart upload on S3
	blobs := map[string][]byte{"t1/c/r1/aa-one.txt": []byte("one"), "t1/c/r1/bb-big.bin": big, "t1/c/r2/cc-two.txt": []byte("two"), "t2/c/r3/dd-3.txt": nil}
	for k, v := range blobs {
		n, err := b.Put(ctx, k, bytes.NewReader(v), "application/octet-stream")
		if err != nil || n != int64(len(v)) {
			t.Fatalf("Put %s: got %d bytes (%v), want %d", k, n, err, len(v))
		}
	}
	list := func(prefix string) []string {
		var keys []string
		if err := b.Walk(ctx, prefix, func(i files.Info) error { keys = append(keys, i.Key); return nil }); err != nil {
			t.Fatal(err)
		}
		sort.Strings(keys)
		return keys
	}
	t.Run("a blob reads back whole and seeks", func(t *testing.T) {
		o, err := b.Open(ctx, "t1/c/r1/bb-big.bin")
		if err != nil {
			t.Fatal(err)
		}
		defer o.Close()
		if o.Info().Size != int64(len(big)) {
			t.Errorf("size: got %d, want %d", o.Info().Size, len(big))
		}
		if _, err := o.Seek(1<<20, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(o)
		if !bytes.Equal(got, big[1<<20:]) {
			t.Errorf("read after seek: got %d bytes, want the last %d", len(got), len(big)-1<<20)
		}
	})
	t.Run("walk lists every blob under a prefix", func(t *testing.T) {
		if got := strings.Join(list("t1/"), ","); got != "t1/c/r1/aa-one.txt,t1/c/r1/bb-big.bin,t1/c/r2/cc-two.txt" {
			t.Errorf("got %s", got)
		}
	})
	t.Run("a missing blob is ErrNotExist", func(t *testing.T) {
		if _, err := b.Open(ctx, "t1/c/r1/none"); !errors.Is(err, files.ErrNotExist) {
			t.Errorf("got %v, want ErrNotExist", err)
		}
	})
	t.Run("a key that climbs out is refused", func(t *testing.T) {
		if _, err := b.Put(ctx, "../escape", strings.NewReader("x"), ""); !errors.Is(err, files.ErrBadKey) {
			t.Errorf("got %v, want ErrBadKey", err)
		}
	})
	t.Run("a failed read leaves no blob", func(t *testing.T) {
		_, err := b.Put(ctx, "t1/c/r9/ee-fail.bin", io.MultiReader(bytes.NewReader(big), failingReader{}), "")
		if err == nil {
			t.Fatal("got no error, want the reader's")
		}
		if got := list("t1/c/r9/"); len(got) != 0 {
			t.Errorf("got %v, want nothing stored", got)
		}
	})
	t.Run("put new stores a blob under a free key and refuses a taken one", func(t *testing.T) {
		n, err := b.PutNew(ctx, "backups/kit-1.tar", bytes.NewReader(big))
		if err != nil || n != int64(len(big)) {
			t.Fatalf("got %d bytes (%v), want %d", n, err, len(big))
		}
		if _, err := b.PutNew(ctx, "backups/kit-1.tar", strings.NewReader("other")); !errors.Is(err, files.ErrExist) {
			t.Errorf("got %v, want ErrExist", err)
		}
		o, err := b.Open(ctx, "backups/kit-1.tar")
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(o)
		o.Close()
		if !bytes.Equal(got, big) {
			t.Errorf("got %d bytes under the key, want the first put's %d", len(got), len(big))
		}
	})
	t.Run("a failed put new leaves neither the key nor a temporary blob", func(t *testing.T) {
		if _, err := b.PutNew(ctx, "backups/kit-2.tar", io.MultiReader(bytes.NewReader(big), failingReader{})); err == nil {
			t.Fatal("got no error, want the reader's")
		}
		if got := strings.Join(list("backups/"), ","); got != "backups/kit-1.tar" {
			t.Errorf("got %s, want only the first backup", got)
		}
		if err := b.DeletePrefix(ctx, "backups/"); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("delete and delete by prefix remove exactly their blobs", func(t *testing.T) {
		if err := b.Delete(ctx, "t1/c/r2/cc-two.txt", "t1/c/r2/missing"); err != nil {
			t.Fatal(err)
		}
		if err := b.DeletePrefix(ctx, "t1/c/r1/"); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(list(""), ","); got != "t2/c/r3/dd-3.txt" {
			t.Errorf("got %s, want only t2's blob", got)
		}
	})
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("the client went away") }
