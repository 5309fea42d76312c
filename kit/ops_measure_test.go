package kit_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// TestMeasureImportExport measures an import and an export of
// KIT_MEASURE_ROWS rows (docs/decisions/0018): it
// prints the time and the peak Go heap of each, on a SQLite file and on
// PostgreSQL, and asserts nothing about them. It runs only when
// KIT_MEASURE_ROWS is set, alone: go test ./kit -run
// TestMeasureImportExport -v. KIT_MEASURE_HEAP=PATH writes a heap profile
// after each engine's import to PATH.sqlite and PATH.postgres.
func TestMeasureImportExport(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("KIT_MEASURE_ROWS"))
	if n <= 0 {
		t.Skip("KIT_MEASURE_ROWS is not set: the import and export figures are not measured")
	}
	var csv bytes.Buffer
	csv.WriteString("title,sku,price,stock,isActive,dueAt\n")
	for i := range n {
		fmt.Fprintf(&csv, "Task number %d,SKU-%07d,%d.%02d,%d,%t,2026-12-%02dT00:00:00Z\n", i, i, i%1000, i%100, i%50, i%2 == 0, 1+i%28)
	}
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		ctx := t.Context()
		a, tasks := measuredKit(t, e, kit.Config{Definitions: deskDefinitions(), Changes: kit.ChangesConfig{MaxRetained: int64(2 * n)}})
		var err error
		var res *kit.ImportResult
		took, peak := measure(func() {
			res, err = tasks.Import(ctx, a, kit.ExportCSV, bytes.NewReader(csv.Bytes()))
		})
		if err != nil || res.Imported != n {
			t.Fatalf("import: %v %+v", err, res)
		}
		if path := os.Getenv("KIT_MEASURE_HEAP"); path != "" {
			// A heap profile after the import: what it left behind.
			runtime.GC()
			f, err := os.Create(path + "." + string(e))
			if err != nil {
				t.Fatal(err)
			}
			if err := errors.Join(pprof.WriteHeapProfile(f), f.Close()); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("%s: import of %d rows (%.1f MB of CSV): %v, %.0f rows/s, heap +%.0f MB", e, n, float64(csv.Len())/1e6, took.Round(time.Millisecond), float64(n)/took.Seconds(), float64(peak)/1e6)
		for _, f := range []kit.ExportFormat{kit.ExportCSV, kit.ExportNDJSON} {
			var w countWriter
			took, peak := measure(func() { err = tasks.Export(ctx, a, nil, f, &w) })
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: export of %d rows as %s (%.1f MB): %v, %.0f rows/s, heap +%.0f MB", e, n, f, float64(w.n)/1e6, took.Round(time.Millisecond), float64(n)/took.Seconds(), float64(peak)/1e6)
			// Again, collecting every MB written: the live heap, what the
			// export holds on to, apart from the garbage between
			// collections.
			live := &liveWriter{}
			runtime.GC()
			var base runtime.MemStats
			runtime.ReadMemStats(&base)
			if err := tasks.Export(ctx, a, nil, f, live); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: export as %s: live heap at most +%.1f MB over %.1f MB before", e, f, float64(int64(live.max)-int64(base.HeapAlloc))/1e6, float64(base.HeapAlloc)/1e6)
		}
	})
}

// countWriter counts what is written to it.
type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

var _ io.Writer = (*countWriter)(nil)

// liveWriter collects garbage after every MB written to it and keeps the
// highest live heap it saw.
type liveWriter struct {
	n, next int64
	max     uint64
}

func (w *liveWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	if w.n >= w.next {
		w.next = w.n + 1<<20
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		w.max = max(w.max, ms.HeapAlloc)
	}
	return len(p), nil
}

// measure runs fn and returns how long it took and how far the Go heap in
// use rose above what it was before (after a collection) while fn ran,
// sampled every 5 ms.
func measure(fn func()) (time.Duration, uint64) {
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	start := time.Now()
	fn()
	took := time.Since(start)
	close(stop)
	wg.Wait()
	if p := peak.Load(); p > base.HeapInuse {
		return took, p - base.HeapInuse
	}
	return took, 0
}

// TestMeasureExportMillion measures the export of KIT_MEASURE_EXPORT_ROWS
// rows (docs/operations.md, "Export and import"; 1000000 for its figure)
// on a SQLite file, and on PostgreSQL with KIT_TEST_POSTGRES: it seeds
// them through Records.Import in chunks of 50,000 (one import of them
// all would hold about 45 times the CSV in memory), then prints the time
// and the Go heap of a CSV and an NDJSON export, and asserts nothing
// about them. It runs only when the variable is set, alone: go test ./kit
// -run TestMeasureExportMillion -v -timeout 60m.
func TestMeasureExportMillion(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("KIT_MEASURE_EXPORT_ROWS"))
	if n <= 0 {
		t.Skip("KIT_MEASURE_EXPORT_ROWS is not set: the export figure is not measured")
	}
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		ctx := t.Context()
		a, tasks := measuredKit(t, e, kit.Config{Definitions: deskDefinitions(), Changes: kit.ChangesConfig{Disabled: true}, Logger: quietLogger()})
		var err error
		const chunk = 50_000
		seeded := time.Now()
		for start := 0; start < n; start += chunk {
			var csv bytes.Buffer
			csv.WriteString("title,sku,price,stock,isActive,dueAt\n")
			for i := start; i < min(n, start+chunk); i++ {
				fmt.Fprintf(&csv, "Task number %d,SKU-%07d,%d.%02d,%d,%t,2026-12-%02dT00:00:00Z\n", i, i, i%1000, i%100, i%50, i%2 == 0, 1+i%28)
			}
			if _, err := tasks.Import(ctx, a, kit.ExportCSV, &csv); err != nil {
				t.Fatalf("seed rows %d to %d: %v", start, start+chunk, err)
			}
		}
		t.Logf("%s: seeded %d rows in %v", e, n, time.Since(seeded).Round(time.Second))
		for _, f := range []kit.ExportFormat{kit.ExportCSV, kit.ExportNDJSON} {
			var w countWriter
			took, peak := measure(func() { err = tasks.Export(ctx, a, nil, f, &w) })
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: export of %d rows as %s (%.1f MB): %v, %.0f rows/s, heap in use +%.0f MB", e, n, f, float64(w.n)/1e6, took.Round(time.Millisecond), float64(n)/took.Seconds(), float64(peak)/1e6)
			live := &liveWriter{}
			runtime.GC()
			var base runtime.MemStats
			runtime.ReadMemStats(&base)
			if err := tasks.Export(ctx, a, nil, f, live); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: export as %s: live heap at most %+.1f MB over %.1f MB before", e, f, float64(int64(live.max)-int64(base.HeapAlloc))/1e6, float64(base.HeapAlloc)/1e6)
		}
	})
}

// measuredKit opens a Kit of cfg on engine e (SQLite in a file, as a
// server runs it), closed when t ends, with one team and its owner, and
// returns the owner's actor and the deskTasks records.
func measuredKit(t *testing.T, e testdb.Engine, cfg kit.Config) (kit.Actor, *kit.Records) {
	t.Helper()
	if e == testdb.EngineSQLite {
		cfg.SQLitePath = filepath.Join(t.TempDir(), "kit.db")
	} else {
		cfg.DB = testdb.Open(t, e)
	}
	k, err := kit.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	ctx := t.Context()
	team, err := k.Accounts().CreateTeam(ctx, teamauth.Team{Name: "Acme", Slug: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	user, err := k.Accounts().CreateUser(ctx, teamauth.User{Name: "Ann", Email: "ann@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	return kit.Actor{UserID: user.ID, TeamID: team.ID, Role: teamauth.RoleOwner}, k.Records("deskTasks")
}
