package kit_test

import (
	"bytes"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/internal/tests3"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/kittest"
	"github.com/collectionkit/kit/teamauth"
)

// benchFiles is a served Kit on SQLite with a local store and a file
// field that takes 2 GiB, with an owner's token.
type benchFiles struct {
	app   *kittest.App
	token string
	base  string
	dir   string
}

func newBenchFiles(b *testing.B) *benchFiles {
	dir := filepath.Join(b.TempDir(), "files")
	f := newBenchFilesOn(b, kit.FilesConfig{Dir: dir})
	f.dir = dir
	return f
}

// newBenchFilesOn is newBenchFiles on the store of fc.
func newBenchFilesOn(b *testing.B, fc kit.FilesConfig) *benchFiles {
	def := collections.Definition{Name: "archives", Layer: "app", Fields: []collections.Field{
		{Name: "title", Type: collections.TypeString},
		{Name: "blob", Type: collections.TypeFile, Meta: collections.FieldMeta{MaxSize: 2 << 30}},
	}}
	app := kittest.NewApp(b, kit.Config{DB: testdb.Open(b, testdb.EngineSQLite), Definitions: []collections.Definition{def},
		Logger: quietLogger(), Files: fc})
	team, u := app.Team("acme"), app.User("alice")
	app.AddMember(team, u, teamauth.RoleOwner)
	return &benchFiles{app: app, token: app.Token(u), base: app.Server.URL + "/api/teams/" + team.ID + "/app-archives"}
}

// upload streams size bytes of src as one file part and returns the
// record's id.
func (f *benchFiles) upload(b *testing.B, src io.Reader) string {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		part, err := mw.CreateFormFile("blob", "data.bin")
		if err == nil {
			_, err = io.Copy(part, src)
		}
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	req, _ := http.NewRequest("POST", f.base, pr)
	req.Header.Set("Authorization", "Bearer "+f.token)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 201 {
		b.Fatalf("upload: got %d %s", resp.StatusCode, raw)
	}
	var id string
	if _, err := fmt.Sscanf(string(raw[bytes.Index(raw, []byte(`"id":"`))+6:]), "%36s", &id); err != nil {
		b.Fatal(err)
	}
	return id
}

func get(b *testing.B, url, token string) int64 {
	req, _ := http.NewRequest("GET", url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	n, _ := io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != 200 {
		b.Fatalf("GET %s: %d", url, resp.StatusCode)
	}
	return n
}

// BenchmarkFiles1MiB uploads and downloads 1 MiB files through kit (a
// multipart POST into the local store; a GET of the file route with its
// authorization and record read), beside the baseline: http.ServeContent
// over an os.File on the same disk, behind the same kind of server.
func BenchmarkFiles1MiB(b *testing.B) {
	payload := bytes.Repeat([]byte("0123456789abcdef"), 1<<16)
	f := newBenchFiles(b)
	b.Run("kit upload", func(b *testing.B) {
		b.SetBytes(int64(len(payload)))
		for b.Loop() {
			f.upload(b, bytes.NewReader(payload))
		}
	})
	id := f.upload(b, bytes.NewReader(payload))
	b.Run("kit download", func(b *testing.B) {
		b.SetBytes(int64(len(payload)))
		for b.Loop() {
			get(b, f.base+"/"+id+"/files/blob/data.bin", f.token)
		}
	})
	path := filepath.Join(f.dir, "baseline.bin")
	if err := os.WriteFile(path, payload, 0o600); err != nil {
		b.Fatal(err)
	}
	baseline := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		file, err := os.Open(path)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		defer file.Close()
		st, _ := file.Stat()
		http.ServeContent(w, r, "baseline.bin", st.ModTime(), file)
	}))
	defer baseline.Close()
	b.Run("baseline ServeContent over os.File", func(b *testing.B) {
		b.SetBytes(int64(len(payload)))
		for b.Loop() {
			get(b, baseline.URL, "")
		}
	})
	b.Run("baseline write to os.File with fsync", func(b *testing.B) {
		b.SetBytes(int64(len(payload)))
		for i := 0; b.Loop(); i++ {
			file, err := os.Create(filepath.Join(f.dir, fmt.Sprintf("w%d.bin", i)))
			if err != nil {
				b.Fatal(err)
			}
			_, _ = file.Write(payload)
			_ = file.Sync()
			_ = file.Close()
		}
	})
}

// zeros is an endless reader of a repeating pattern.
type pattern struct{}

func (pattern) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(i)
	}
	return len(p), nil
}

// BenchmarkFileUpload1GiBMemory streams a 1 GiB upload into the local
// store and reports the process's peak heap in use and its rise over the
// heap before the upload (sampled every 5 ms), and the throughput.
// Run it alone: go test ./kit -run '^$' -bench FileUpload1GiBMemory -benchtime 1x
func BenchmarkFileUpload1GiBMemory(b *testing.B) {
	b.Run("into the local directory", func(b *testing.B) { uploadMemory(b, newBenchFiles(b)) })
	b.Run("into an S3-compatible server", func(b *testing.B) {
		srv := tests3.Start(b)
		uploadMemory(b, newBenchFilesOn(b, kit.FilesConfig{S3URL: srv.BucketURL("kit-bench"), S3AccessKey: srv.AccessKey, S3SecretKey: srv.SecretKey}))
	})
}

func uploadMemory(b *testing.B, f *benchFiles) {
	const size = 1 << 30
	for b.Loop() {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		base := ms.HeapInuse
		var peak atomic.Uint64
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := time.NewTicker(5 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-stop:
					return
				case <-t.C:
					var m runtime.MemStats
					runtime.ReadMemStats(&m)
					if m.HeapInuse > peak.Load() {
						peak.Store(m.HeapInuse)
					}
				}
			}
		}()
		start := time.Now()
		f.upload(b, io.LimitReader(pattern{}, size))
		elapsed := time.Since(start)
		close(stop)
		wg.Wait()
		b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MiB")
		b.ReportMetric(float64(peak.Load()-min(peak.Load(), base))/(1<<20), "heap-rise-MiB")
		b.ReportMetric(size/(1<<20)/elapsed.Seconds(), "MiB/s")
	}
}
